"""User errors: the one exception type for anything a user must fix, and the two ways a run stops
short.

The compiled core defines `ScenarioError` (a `ValueError`); the Python layer raises the same
class for what it checks itself (missing files, TOML syntax, overrides, topohub names, sweep
files), so callers catch one type. Without a built core (tests, docs) a stand-in with the same
name and base class is used.

A run stops short when a plug-in fails (`PluginError`, raised by the core mid-run) or when it
stalls (`StallError`, raised by `fctlab.run` and `fctlab.run_to` once the run is over): nothing
could happen any more while flows were still open, so those flows can never finish. A stalled
run's tables are complete up to the stall and come with the error (`.result`).
"""

from __future__ import annotations

from typing import Any

try:
    from fctlab._core import PluginError, ScenarioError
except ImportError:  # the compiled module is not built: keep the package importable

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """A scenario, override, sweep file or results directory the user must fix."""

    class PluginError(RuntimeError):  # type: ignore[no-redef]
        """A plug-in failed during a run (the message names it, the hook, the flow, the time)."""


class StallError(RuntimeError):
    """A run stalled: nothing could happen any more (its event queue held nothing that could move
    a flow on) while flows were still open, before the run reached its end by time.

    `str(e)` is one line (when, how many flows); `.stall` is the core's record (`time_s`,
    `message`, `open_flows`, and `flows`: each open flow's sender state, `line` one line on it);
    `.result` is the run's Result, complete up to the stall (None once pickled);
    `.flow_lines()` one line per open flow, for a terminal."""

    def __init__(self, message: str, stall: dict[str, Any], result: Any = None) -> None:
        super().__init__(message)
        self.stall = stall
        self.result = result

    def __reduce__(self) -> tuple[Any, ...]:
        # The Result stays behind (sweep workers send their errors to the parent as text).
        return (type(self), (str(self), self.stall, None))

    def flow_lines(self, limit: int = 10) -> list[str]:
        """One line per open flow, the first `limit`, then how many more there are."""
        flows = self.stall.get("flows") or []
        lines = [f["line"] for f in flows[:limit]]
        more = int(self.stall.get("open_flows", len(flows))) - len(lines)
        if more > 0:
            lines.append(f"... and {more} more (every open flow has a row in the flows table, finish_s empty)")
        return lines


def field_error(field: str, expected: str, got: object) -> ScenarioError:
    """Builds the house-style message: "field `a.b`: expected ..., got ..."."""
    return ScenarioError(f"field `{field}`: expected {expected}, got {_show(got)}")


def _show(value: object) -> str:
    """Shows a value as the user wrote it: strings quoted, the rest as TOML would print."""
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)
