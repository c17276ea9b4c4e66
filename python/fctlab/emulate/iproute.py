"""The few `ip` (iproute2) commands emulation needs, each run with a time limit.

Everything goes through the `ip` command rather than netlink sockets: it is what an operator
would type, its errors are readable, and `ip -batch -` builds a whole topology in a handful of
processes. Failures become `EmulationError`s naming the step that failed and `ip`'s own message.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from fctlab.errors import ScenarioError

#: Longest any one `ip` invocation may take (s); namespace creation is milliseconds when healthy.
IP_TIMEOUT_S = 20.0


class EmulationError(ScenarioError):
    """Emulation cannot go on (no root, no `ip`, a namespace step failed): one line for the user."""


def ip(args: Sequence[str], *, step: str, netns: str | None = None, stdin: str | None = None) -> str:
    """Runs `ip [-n NETNS] ARGS...` and returns its stdout; raises EmulationError naming `step`."""
    argv = ["ip", *(["-n", netns] if netns else []), *args]
    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=IP_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise EmulationError(
            f"{step}: the `ip` command is not on PATH; install iproute2 (Debian: apt-get install iproute2)"
        ) from None
    except subprocess.TimeoutExpired:
        raise EmulationError(f"{step}: `{' '.join(argv)}` did not finish within {IP_TIMEOUT_S:g} s") from None
    if done.returncode != 0:
        message = " / ".join(line.strip() for line in done.stderr.splitlines() if line.strip()) or "no message"
        raise EmulationError(f"{step}: `{' '.join(argv)}` failed (exit {done.returncode}): {message}")
    return done.stdout


def ip_batch(lines: Sequence[str], *, step: str, netns: str | None = None) -> None:
    """Runs the commands `lines` in one `ip [-n NETNS] -batch -`, stopping at the first failure."""
    ip(["-batch", "-"], step=step, netns=netns, stdin="".join(f"{line}\n" for line in lines))


def list_namespaces() -> list[str]:
    """Names of the named network namespaces (`ip netns list`), in no particular order."""
    # Lines read "NAME" or "NAME (id: N)".
    return [line.split()[0] for line in ip(["netns", "list"], step="listing namespaces").splitlines() if line.strip()]


def namespace_pids(netns: str) -> list[int]:
    """Processes whose network namespace is `netns`; [] when the namespace is already gone."""
    try:
        out = ip(["netns", "pids", netns], step=f"listing processes in {netns}")
    except EmulationError:
        if netns not in list_namespaces():
            return []
        raise
    return [int(word) for word in out.split()]


def delete_namespaces(names: Sequence[str]) -> None:
    """Deletes the namespaces `names`; ones already gone are fine, ones still there afterwards raise."""
    names = list(dict.fromkeys(names))
    present = set(list_namespaces())
    todo = [name for name in names if name in present]
    if not todo:
        return
    # -force: one failure (another cleaner got there first) must not stop the other deletions;
    # whether everything went is judged from the list afterwards, not from the exit code.
    try:
        ip(["-force", "-batch", "-"], step="deleting namespaces", stdin="".join(f"netns del {n}\n" for n in todo))
    except EmulationError as e:
        failure: EmulationError | None = e
    else:
        failure = None
    left = sorted(set(todo) & set(list_namespaces()))
    if left:
        reason = f" ({failure})" if failure else ""
        raise EmulationError(f"deleting namespaces: {', '.join(left)} still exist{reason}")
