"""The speed benchmark: runs scenarios, each in a fresh process, and reports its own figures.

For each scenario: wall time of the simulation proper (build excluded), simulated seconds per
wall second, packet-hops per second (one packet crossing one link), events per second,
packet-hops per second of the process's CPU time (less sensitive than wall time to other jobs
on the host's cores, though not immune: they share its caches), and the process's peak
resident memory, with the memory the interpreter and libraries held before the scenario was
built (so the simulation's own footprint is the difference). Each scenario runs in its own
process so that one run's memory does not hide another's; `--repeat N` reports the
median of N runs of each.

The history (`benchmarks/history.jsonl`, one JSON object per line, oldest first) keeps one entry
per recorded benchmark: the commit, date, machine, tool versions and these figures per scenario.
`fctlab bench` prints each figure beside the one of the last entry holding the same scenario
file, with the change in percent; `--record` appends the new entry and regenerates the Markdown
view (`HISTORY.md` beside the history).

Instructions per packet-hop (`--instructions`) count the instructions of the core alone, with
no Python, timer or scheduler in them, so they do not drift with the host: the example
`run_json` (crates/fctlab-core/examples) runs the scenario as the package resolves it, under
`perf stat -e instructions:u` where the CPU's counters are readable, else under valgrind's
cachegrind (`--cache-sim=no`), each time twice: the scenario's first `INSTRUCTION_HOPS`
packet-hops (a shortened run, whole 10 ms steps, the same on every machine), and its build
alone; the difference over the packet-hops of that shortened run is the figure. With neither
tool (or no cargo to build `run_json`) the figure is n/a; the benchmark itself never fails
for it. The same two runs count cache misses per packet-hop, so that memory stalls are seen
beside the instructions: perf's LLC-load-misses where the CPU counts them, and cachegrind's
misses of its simulated 32 KiB L1d and 1 MiB L2 (`CACHEGRIND_CACHES`, the same on every
machine) otherwise.
"""

from __future__ import annotations

import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from fctlab.atomic import write_text
from fctlab.errors import ScenarioError

#: The benchmark scenarios of the foundation issue, relative to the repository root.
DEFAULT_SCENARIOS = ("examples/dumbbell-pareto.toml", "examples/internet2-rc3.toml")
#: The scaling set of issue 20: flows on a fat tree (the cost of a packet-hop should not grow
#: with their number), 10^6 one-packet flows, a 1,000-router graph.
SCALING_SCENARIOS = (
    "benchmarks/scenarios/fat-tree-k32-n64.toml",
    "benchmarks/scenarios/fat-tree-k32-n512.toml",
    "benchmarks/scenarios/fat-tree-k32-n4096.toml",
    "benchmarks/scenarios/graph-1000.toml",
    "benchmarks/scenarios/million-flows.toml",
)
#: The large set of issue 20: routing at scale (a 10,000-router graph, a k = 64 fat tree) and
#: one run on two cores (a k = 16 fat tree cut in two, docs/parallel.md); and of issue 37, fabrics
#: under load: a k = 32 fat tree at 100 Gb/s loaded from every host, and the HPCC paper's
#: lossless 320-host fabric with its web-search load.
LARGE_SCENARIOS = (
    "benchmarks/scenarios/graph-10000.toml",
    "benchmarks/scenarios/fat-tree-k64.toml",
    "benchmarks/scenarios/fat-tree-k16-websearch.toml",
    "benchmarks/scenarios/fat-tree-k32-100g-websearch.toml",
    "benchmarks/scenarios/hpcc-fabric-websearch.toml",
)
#: The plug-in set of issue 21: the two benchmark scenarios with NewReno as a Rust plug-in (the
#: template's) and as a Python one, beside the built-in (docs/extending.md).
PLUGIN_SCENARIOS = DEFAULT_SCENARIOS + (
    "benchmarks/scenarios/plugins/dumbbell-pareto-rust.toml",
    "benchmarks/scenarios/plugins/dumbbell-pareto-python.toml",
    "benchmarks/scenarios/plugins/internet2-rc3-rust.toml",
    "benchmarks/scenarios/plugins/internet2-rc3-python.toml",
)
#: The plug-in crate the plug-in scenarios load (built before they run).
PLUGIN_TEMPLATE = "examples/plugins/template"
#: `fctlab bench --suite NAME`.
SUITES = {
    "default": DEFAULT_SCENARIOS,
    "scaling": SCALING_SCENARIOS,
    "large": LARGE_SCENARIOS,
    "plugins": PLUGIN_SCENARIOS,
    "all": DEFAULT_SCENARIOS + SCALING_SCENARIOS + LARGE_SCENARIOS + PLUGIN_SCENARIOS[len(DEFAULT_SCENARIOS) :],
}
#: Where `fctlab bench` keeps its history, relative to the repository root.
DEFAULT_HISTORY = "benchmarks/history.jsonl"
#: Packet-hops of the shortened run whose instructions are counted (about 15 s under cachegrind
#: for Internet-2 on the benchmark machine).
INSTRUCTION_HOPS = 10_000_000


def _peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure_one(path: str) -> dict:
    """Runs one scenario in this process and returns its figures."""
    from fctlab.run import build

    base_mb = _peak_rss_mb()
    sim, spec = build(path)
    t0, c0 = time.perf_counter(), time.process_time()
    horizon = float(sim.horizon)
    t = 0.0
    while not sim.run_until(t):
        t += max(horizon, 1e-3)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    meta = sim.results()["meta"]
    return {
        "scenario": path,
        "name": spec.get("name", Path(path).stem),
        "sim_s": meta["sim_time_s"],
        "wall_s": wall,
        "cpu_s": cpu,
        "events": meta["events"],
        "packet_hops": meta["packet_hops"],
        "flows": meta["flows_started"],
        "sim_s_per_wall_s": meta["sim_time_s"] / wall,
        "hops_per_s": meta["packet_hops"] / wall,
        "events_per_s": meta["events"] / wall,
        "hops_per_cpu_s": meta["packet_hops"] / cpu if cpu > 0 else None,
        "peak_rss_mb": _peak_rss_mb(),
        "baseline_rss_mb": base_mb,
    }


def run_in_subprocess(path: str) -> dict:
    """Runs `measure_one(path)` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-m", "fctlab.tools.bench", path], capture_output=True, text=True)
    if out.returncode != 0:
        why = out.stderr.strip().splitlines()[-1:] or [
            f"killed by signal {-out.returncode}" if out.returncode < 0 else f"exit code {out.returncode}"
        ]
        raise RuntimeError(f"benchmark of {path} failed: {why}")
    return json.loads(out.stdout)


def scenario_key(path: str | Path) -> str:
    """How the history names a scenario file: relative to the current directory (the repository
    root) when inside it, with forward slashes; otherwise its absolute path."""
    p = Path(path).resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def bench(
    paths: Sequence[str], repeat: int = 1, *, instructions: bool = False, instruction_hops: int = INSTRUCTION_HOPS
) -> list[dict]:
    """Each scenario `repeat` times, each run in its own process; the median run per scenario.

    With `instructions`, each row also gets `instructions_per_hop` (None when no tool can count
    them, with the reason in `instructions_note`); see `measure_instructions`."""
    counter = InstructionCounter() if instructions else None
    rows = []
    for p in paths:
        runs = [run_in_subprocess(p) for _ in range(repeat)]
        med = statistics.median(r["wall_s"] for r in runs)
        best = min(runs, key=lambda r: abs(r["wall_s"] - med))
        best["file"] = scenario_key(p)
        best["repeat"] = repeat
        best["wall_s_all"] = [r["wall_s"] for r in runs]
        if counter is not None:
            best.update(counter.measure(p, hops=instruction_hops))
        rows.append(best)
    return rows


def _fixed(value: float) -> str:
    """A figure with as many decimals as its size deserves: 1403, 51.8, 5.36, 0.22."""
    a = abs(value)
    if a >= 100:
        return f"{value:.0f}"
    if a >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _millions(value: float | None) -> str:
    return "n/a" if value is None else f"{value / 1e6:.2f}"


def _figure_cells(r: dict, ratio: str) -> tuple[str, ...]:
    """One scenario's figures as the tables show them, from simulated s to base MB (`ratio`: the
    sim s / wall s cell, which the terminal and Markdown tables round differently)."""
    return (
        f"{r['sim_s']:.2f}",
        f"{r['wall_s']:.2f}",
        ratio,
        f"{r['hops_per_s'] / 1e6:.2f}",
        f"{r['events_per_s'] / 1e6:.2f}",
        _millions(r.get("hops_per_cpu_s")),
        str(r["flows"]),
        f"{r['peak_rss_mb']:.0f}",
        f"{r['baseline_rss_mb']:.0f}",
    )


def format_table(rows: list[dict]) -> str:
    """A plain-text table of benchmark rows (with instructions per packet-hop when counted)."""
    head = ("scenario", "sim s", "wall s", "sim s/wall s", "M hops/s", "M events/s")
    head += ("M hops/CPU s", "flows", "peak MB", "base MB")
    counted = any("instructions_per_hop" in r for r in rows)
    if counted:
        head += ("instr/hop", "misses/hop")
    lines = [head]
    for r in rows:
        line = (r["name"], *_figure_cells(r, f"{r['sim_s_per_wall_s']:.2f}"))
        if counted:
            ipp = r.get("instructions_per_hop")
            line += ("n/a" if ipp is None else f"{ipp:.0f}", misses_cell(r))
        lines.append(line)
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    out = []
    for k, row in enumerate(lines):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    notes = sorted({r["instructions_note"] for r in rows if r.get("instructions_note")})
    out += [f"instructions per packet-hop: {n}" for n in notes]
    if any(misses_cell(r) != "n/a" for r in rows):
        out.append(f"misses/hop: {MISSES_NOTE}")
    return "\n".join(out)


#: What the misses/hop column holds.
MISSES_NOTE = (
    "cache misses per packet-hop, LLC (perf's LLC-load-misses) where the CPU counts them, else "
    "L2 (cachegrind's simulated 32 KiB L1d and 1 MiB L2; L1d misses in the comparison)"
)


def misses_cell(r: dict) -> str:
    """The misses/hop cell of a row: perf's LLC misses per hop, else cachegrind's L2 misses."""
    llc, l2 = r.get("llc_misses_per_hop"), r.get("l2_misses_per_hop")
    if llc is not None:
        return f"{llc:.2f} LLC"
    return "n/a" if l2 is None else f"{l2:.2f} L2"


# ---------------------------------------------------------------------------------------------
# Instructions per packet-hop


def _run(argv: Sequence[str], *, cwd: str | Path | None = None, timeout: float | None = None):
    """Runs a command, capturing its text output (the one way this module starts tools, so tests
    can stand in for them). A missing program is an OSError, as subprocess raises it."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


def perf_count(stderr: str) -> int | None:
    """The instruction count in `perf stat -x , -e instructions:u` output; None when perf could
    not count (`<not supported>`, `<not counted>`, no such line)."""
    return perf_counts(stderr).get("instructions")


#: The perf events `--instructions` counts, and the key of each in the counts.
PERF_EVENTS = (("instructions:u", "instructions"), ("LLC-load-misses:u", "llc_misses"))


def perf_counts(stderr: str) -> dict[str, int]:
    """The counts `perf stat -x ,` printed for PERF_EVENTS, by key; an event perf could not
    count (`<not supported>`, `<not counted>`) is left out."""
    counts = {}
    for line in stderr.splitlines():
        fields = line.split(",")
        if len(fields) < 3:
            continue
        name = fields[2].strip().split(":")[0]
        for event, key in PERF_EVENTS:
            if name == event.split(":")[0]:
                try:
                    counts[key] = int(fields[0].strip())
                except ValueError:
                    pass
    return counts


def cachegrind_count(out_file: str | Path | None, stderr: str) -> int | None:
    """The instruction count of a cachegrind run: its output file's `summary:` line, else the
    `I refs:` line it prints on stderr; None when neither is there."""
    return cachegrind_counts(out_file, stderr).get("instructions")


#: The caches cachegrind simulates (`--cache-sim=yes`), the same on every machine: a 32 KiB
#: 8-way L1 and a 1 MiB 16-way L2, 64-byte lines. The L2's misses are the reads and writes that
#: leave a core's private caches: on the benchmark machine (32 KiB L1d, 512 KiB-1 MiB L2, a
#: shared L3) each costs tens of nanoseconds, against a fraction of one for an instruction.
CACHEGRIND_CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64")


def cachegrind_counts(out_file: str | Path | None, stderr: str) -> dict[str, int]:
    """From a cachegrind run: `instructions` (Ir), and with its cache simulation `d1_misses`
    (D1mr + D1mw) and `l2_misses` (DLmr + DLmw, the simulated last level); read from the output
    file's `events:` and `summary:` lines, else the instructions alone from the `I refs:` line
    on stderr; {} when neither is there."""
    if out_file is not None:
        try:
            events: list[str] = []
            for line in Path(out_file).read_text().splitlines():
                if line.startswith("events:"):
                    events = line.split()[1:]
                elif line.startswith("summary:"):
                    by = dict(zip(events or ["Ir"], (int(x) for x in line.split()[1:]), strict=False))
                    counts = {"instructions": by["Ir"]}
                    if {"D1mr", "D1mw", "DLmr", "DLmw"} <= by.keys():
                        counts["d1_misses"] = by["D1mr"] + by["D1mw"]
                        counts["l2_misses"] = by["DLmr"] + by["DLmw"]
                    return counts
        except (OSError, ValueError, IndexError, KeyError):
            pass
    m = re.search(r"I\s+refs:\s+([\d,]+)", stderr)
    return {"instructions": int(m.group(1).replace(",", ""))} if m else {}


def instruction_tool() -> tuple[str | None, str]:
    """Which tool counts instructions here: ("perf", ""), ("cachegrind", "") or (None, why not)."""
    why = []
    if shutil.which("perf"):
        try:
            out = _run(["perf", "stat", "-x", ",", "-e", "instructions:u", "--", "true"], timeout=60)
            if out.returncode == 0 and perf_count(out.stderr) is not None:
                return "perf", ""
            why.append("perf cannot read the instruction counter here")
        except (OSError, subprocess.SubprocessError):
            why.append("perf does not run")
    else:
        why.append("no perf")
    if shutil.which("valgrind"):
        return "cachegrind", ""
    why.append("no valgrind")
    return None, ", ".join(why)


def source_root() -> Path | None:
    """The repository fctlab was installed from (editable install), else the current directory
    if it is one; None when neither holds the core's crate."""
    here = Path(__file__).resolve().parents[3]  # python/fctlab/tools/<this file> in a checkout
    for root in (here, Path.cwd()):
        if (root / "crates" / "fctlab-core" / "Cargo.toml").is_file():
            return root
    return None


def build_run_json(root: Path | None) -> tuple[Path | None, str]:
    """Builds the example `run_json` with cargo (a no-op when it is up to date): (its path, "")
    or (None, why not)."""
    if root is None:
        return None, "no fctlab source tree (crates/fctlab-core) to build run_json from"
    if not shutil.which("cargo"):
        return None, "no cargo to build run_json"
    argv = ["cargo", "build", "--release", "--example", "run_json", "-p", "fctlab-core", "--message-format=json"]
    try:
        out = _run(argv, cwd=root, timeout=3600)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"cargo build of run_json failed: {e}"
    if out.returncode != 0:
        return None, f"cargo build of run_json failed: {_last_line(out.stderr)}"
    for line in out.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "run_json":
            if msg.get("executable"):
                return Path(msg["executable"]), ""
    return None, "cargo built no run_json executable"


class InstructionCounter:
    """Counts instructions per packet-hop of scenarios; finds its tool and builds `run_json` once."""

    def __init__(self) -> None:
        self.tool, why = instruction_tool()
        self.exe: Path | None = None
        self.note = why
        if self.tool is not None:
            self.exe, self.note = build_run_json(source_root())
            if self.exe is None:
                self.tool = None

    def measure(self, path: str, *, hops: int = INSTRUCTION_HOPS) -> dict:
        """{"instructions_per_hop": x or None, ...}: the net instructions of the scenario's first
        `hops` packet-hops (its build subtracted) over the packet-hops of that shortened run."""
        if self.tool is None or self.exe is None:
            return {"instructions_per_hop": None, "instructions_note": f"n/a ({self.note})"}
        try:
            return measure_instructions(path, self.tool, self.exe, hops=hops)
        except _Failed as e:
            return {"instructions_per_hop": None, "instructions_note": f"n/a ({e})"}


class _Failed(Exception):
    """A count that could not be made (the tool failed, its output had no count)."""


def _count(tool: str, argv: list[str], tmp: Path) -> tuple[dict[str, int], dict]:
    """(counts, run_json's JSON figures) of one run of `argv` under the tool: the instructions,
    and the cache misses the tool gives (perf: `llc_misses` where the CPU counts them;
    cachegrind: `d1_misses` and `l2_misses` of its simulated caches)."""
    if tool == "perf":
        events = ",".join(e for e, _ in PERF_EVENTS)
        wrapped = ["perf", "stat", "-x", ",", "-e", events, "--", *argv]
        out_file = None
    else:
        out_file = tmp / "cachegrind.out"
        wrapped = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=yes",
            *CACHEGRIND_CACHES,
            f"--cachegrind-out-file={out_file}",
            *argv,
        ]
    try:
        out = _run(wrapped, cwd=tmp)
    except (OSError, subprocess.SubprocessError) as e:
        raise _Failed(f"{tool} did not run: {e}") from e
    if out.returncode != 0:
        raise _Failed(f"{tool} run failed: {_last_line(out.stderr)}")
    counts = perf_counts(out.stderr) if tool == "perf" else cachegrind_counts(out_file, out.stderr)
    if "instructions" not in counts:
        raise _Failed(f"no instruction count in the output of {tool}")
    try:
        figures = json.loads(_last_line(out.stdout))
    except ValueError as e:
        raise _Failed(f"run_json printed no figures: {_last_line(out.stdout)}") from e
    return counts, figures


#: The cache misses a count may hold, and the key of their figure per packet-hop.
MISS_FIGURES = (
    ("llc_misses", "llc_misses_per_hop"),
    ("d1_misses", "d1_misses_per_hop"),
    ("l2_misses", "l2_misses_per_hop"),
)


def measure_instructions(path: str, tool: str, exe: Path, *, hops: int = INSTRUCTION_HOPS) -> dict:
    """Instructions per packet-hop of one scenario with `tool` ("perf" or "cachegrind") and the
    `run_json` executable `exe`: a run of the first `hops` packet-hops (or the whole scenario if
    it makes fewer) minus the build alone, over that run's packet-hops."""
    from fctlab.run import prepare

    spec, base_dir = prepare(path)
    with tempfile.TemporaryDirectory(prefix="fctlab-bench-") as tmp_name:
        tmp = Path(tmp_name)
        scenario = tmp / "scenario.json"
        scenario.write_text(json.dumps(spec))
        common = [str(exe), str(scenario), "--base", base_dir, "--json"]
        total, run = _count(tool, [*common, "--max-hops", str(hops)], tmp)
        build, _ = _count(tool, [*common, "--build-only"], tmp)
    if not run.get("packet_hops"):
        raise _Failed("the shortened run made no packet-hops")
    net = total["instructions"] - build["instructions"]
    got = {
        "instructions_per_hop": net / run["packet_hops"],
        "instructions": net,
        "instructions_build": build["instructions"],
        "instructions_hops": run["packet_hops"],
        "instructions_max_hops": hops,
        "instructions_sim_s": round(run["sim_s"], 6),
        "instructions_tool": tool,
    }
    for key, figure in MISS_FIGURES:
        if key in total and key in build:
            got[figure] = max(total[key] - build[key], 0) / run["packet_hops"]
    return got


# ---------------------------------------------------------------------------------------------
# The history


def read_history(path: str | Path) -> list[dict]:
    """The entries of a history file, oldest first; [] when the file does not exist."""
    p = Path(path)
    if not p.exists():
        return []
    entries = []
    for n, line in enumerate(p.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as e:
            raise ScenarioError(f"{p} line {n}: not JSON ({e})") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("scenarios"), list):
            raise ScenarioError(f"{p} line {n}: expected an object with a list `scenarios`")
        entries.append(entry)
    return entries


def append_history(path: str | Path, entry: dict) -> None:
    """Appends one entry (one line) to a history file, creating it and its folder if missing;
    the file is rewritten whole under a temporary name, so a failure leaves the old one."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    old = p.read_text() if p.exists() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    write_text(p, old + json.dumps(entry, separators=(", ", ": ")) + "\n")


def markdown_path(history: str | Path) -> Path:
    """The Markdown view of a history file: HISTORY.md beside it."""
    return Path(history).with_name("HISTORY.md")


def _git(root: Path, *args: str) -> str | None:
    try:
        out = _run(["git", *args], cwd=root, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def commit_id(root: Path, ignore: Sequence[Path] = ()) -> str:
    """`git rev-parse --short HEAD`, plus "+dirty" when tracked files differ from it (other than
    the files in `ignore`: the history being written); "unknown" outside git."""
    head = _git(root, "rev-parse", "--short", "HEAD")
    if not head:
        return "unknown"
    excludes = []
    for p in ignore:
        try:
            excludes.append(f":(exclude){Path(p).resolve().relative_to(root.resolve()).as_posix()}")
        except ValueError:
            continue
    status = _git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", *excludes)
    return head + "+dirty" if status else head


def machine() -> dict:
    """The CPU model (from /proc/cpuinfo), the number of cores, the system."""
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
    }


def _version(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    try:
        out = _run(argv, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if out.returncode == 0 and text else None


def tool_versions(instruction_tool: str | None = None) -> dict:
    """Python, fctlab and rustc versions, and the instruction counter's when one was used."""
    from fctlab import __version__

    tools = {"python": platform.python_version(), "fctlab": __version__, "rustc": _version(["rustc", "--version"])}
    if instruction_tool == "perf":
        tools["perf"] = _version(["perf", "--version"])
    elif instruction_tool == "cachegrind":
        tools["valgrind"] = _version(["valgrind", "--version"])
    return {k: v for k, v in tools.items() if v}


#: The figures of a scenario an entry keeps (those of a row that are present and not None).
ENTRY_FIELDS = (
    "name",
    "file",
    "sim_s",
    "wall_s",
    "wall_s_all",
    "cpu_s",
    "packet_hops",
    "events",
    "flows",
    "sim_s_per_wall_s",
    "hops_per_s",
    "events_per_s",
    "hops_per_cpu_s",
    "peak_rss_mb",
    "baseline_rss_mb",
    "instructions_per_hop",
    "instructions",
    "instructions_build",
    "instructions_hops",
    "instructions_max_hops",
    "instructions_sim_s",
    "instructions_tool",
    "llc_misses_per_hop",
    "d1_misses_per_hop",
    "l2_misses_per_hop",
)


def _rounded(key: str, value):
    if key == "wall_s_all":
        return [round(v, 4) for v in value]
    if not isinstance(value, float):
        return value
    if key in ("hops_per_s", "events_per_s", "hops_per_cpu_s"):
        return round(value)
    if key in ("peak_rss_mb", "baseline_rss_mb", "instructions_per_hop"):
        return round(value, 1)
    if key.endswith("_misses_per_hop"):
        return round(value, 2)
    return round(value, 4)


def make_entry(
    rows: list[dict],
    *,
    repeat: int,
    suite: str | None = None,
    note: str | None = None,
    root: Path | None = None,
    ignore: Sequence[Path] = (),
) -> dict:
    """One history entry for the benchmark rows: commit, date, machine, tools, figures."""
    root = root or source_root() or Path.cwd()
    tools = {r.get("instructions_tool") for r in rows} - {None}
    entry = {
        "commit": commit_id(root, ignore),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        # The host's load when the entry was made (1, 5, 15 min): timings from a busy host
        # (other jobs on its cores) are slower with the same code.
        "load": [round(x, 2) for x in os.getloadavg()],
        "tools": tool_versions(next(iter(tools)) if len(tools) == 1 else None),
        "repeat": repeat,
        "suite": suite or "custom",
    }
    if note:
        entry["note"] = note
    entry["scenarios"] = [{k: _rounded(k, r[k]) for k in ENTRY_FIELDS if r.get(k) is not None} for r in rows]
    return entry


def last_for(history: list[dict], file: str) -> tuple[dict, dict] | None:
    """(entry, its figures for `file`) of the last entry in the history holding that scenario."""
    for entry in reversed(history):
        for s in entry["scenarios"]:
            if s.get("file") == file:
                return entry, s
    return None


# ---------------------------------------------------------------------------------------------
# Against the last entry

#: (key, label, scale, unit, which way is better: +1 higher, -1 lower, 0 neither, and the
#: change in the worse direction, in percent, beyond which the figure is flagged). Timings on
#: the benchmark machine drift by up to 15%; instruction counts do not drift.
FIGURES = (
    ("sim_s", "simulated s", 1.0, "", 0, None),
    ("packet_hops", "packet-hops", 1e6, " M", 0, None),
    ("flows", "flows", 1.0, "", 0, None),
    ("wall_s", "wall s", 1.0, "", -1, 15.0),
    ("sim_s_per_wall_s", "sim s / wall s", 1.0, "", +1, 15.0),
    ("hops_per_s", "packet-hops/s", 1e6, " M", +1, 15.0),
    ("events_per_s", "events/s", 1e6, " M", +1, 15.0),
    ("hops_per_cpu_s", "hops per CPU s", 1e6, " M", +1, 15.0),
    ("peak_rss_mb", "peak RSS", 1.0, " MB", -1, 10.0),
    ("instructions_per_hop", "instructions/hop", 1.0, "", -1, 1.0),
    ("llc_misses_per_hop", "LLC misses/hop", 1.0, "", -1, 15.0),
    ("d1_misses_per_hop", "L1d misses/hop", 1.0, "", -1, 5.0),
    ("l2_misses_per_hop", "L2 misses/hop", 1.0, "", -1, 5.0),
)


def change_pct(new: float, old: float) -> float | None:
    """(new - old) / old in percent; None when old is zero."""
    return None if not old else (new - old) / old * 100.0


def _shown(value, scale: float, unit: str) -> str:
    if isinstance(value, int) and scale == 1.0:
        return f"{value}{unit}"
    return f"{_fixed(value / scale)}{unit}"


def compare_figure(key: str, new, old) -> tuple[str, bool]:
    """("13.4 M (last 12.2 M, +9.8%)", worse beyond the drift?) for one figure."""
    _, _, scale, unit, better, flag = next(f for f in FIGURES if f[0] == key)
    now = "n/a" if new is None else _shown(new, scale, unit)
    if old is None:
        return now, False
    was = _shown(old, scale, unit)
    pct = None if new is None else change_pct(new, old)
    if pct is None:
        return f"{now} (last {was})", False
    if abs(pct) < 0.05:
        pct = 0.0  # no "-0.0%" from the rounding of the stored figure
    # Worse by the same factor whichever way the figure goes: a time 15% longer and a rate that
    # fell to 1/1.15 of the last one are the same slowdown.
    factor = None if not new else (new / old if better < 0 else old / new)
    worse = flag is not None and better != 0 and factor is not None and factor - 1 > flag / 100
    return f"{now} (last {was}, {pct:+.1f}%)", worse


def format_comparison(rows: list[dict], history: list[dict], where: str) -> str:
    """Each scenario's figures beside those of the last history entry holding it."""
    out = [f"against the last entry of {where} holding each scenario:"]
    flagged = False
    for r in rows:
        last = last_for(history, r["file"])
        if last is None:
            out.append(f"{r['name']} ({r['file']}): no earlier entry")
            continue
        entry, old = last
        out.append(f"{r['name']} ({r['file']}), last: {entry.get('commit', '?')} of {entry.get('date', '?')}")
        for key, label, *_ in FIGURES:
            counted = ("instructions_per_hop", "llc_misses_per_hop", "d1_misses_per_hop", "l2_misses_per_hop")
            if key in counted and key not in r and key not in old:
                continue
            text, worse = compare_figure(key, r.get(key), old.get(key))
            if key == "instructions_per_hop" and r.get(key) is not None and old.get(key) is not None:
                # The cost per hop changes along a run: counts over shortened runs of different
                # lengths do not compare.
                if r.get("instructions_max_hops") != old.get("instructions_max_hops"):
                    text += (
                        f"; shortened to {r.get('instructions_max_hops')} hops, last to "
                        f"{old.get('instructions_max_hops')}"
                    )
            flagged |= worse
            out.append(f"  {label:<17} {text}{'  !' if worse else ''}")
    if flagged:
        out.append(
            "! = worse than the last entry by more than the host's drift: a factor of 1.15 for times and rates, "
            "1.1 for memory, 1.01 for instructions"
        )
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# The Markdown view


def history_markdown(history: list[dict], source: str = "history.jsonl") -> str:
    """HISTORY.md: the entries, then one table per scenario file, oldest entry first."""
    out = [
        "# Benchmark history",
        "",
        f"Generated from `{source}` by `fctlab bench --record` (or `fctlab bench --render`); do not edit.",
        "See README.md for what the figures mean and how to record an entry. Timings drift with the",
        "host's load (see each entry's note); instruction counts do not.",
        "",
        "## Entries",
        "",
        "| # | commit | date | machine | load (1, 5, 15 min) | repeat | suite | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, e in enumerate(history, start=1):
        m = e.get("machine", {})
        mach = f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores"
        note = str(e.get("note", "")).replace("|", "\\|")
        load = ", ".join(f"{x:.1f}" for x in e.get("load", [])) or "?"
        out.append(
            f"| {i} | {e.get('commit', '?')} | {e.get('date', '?')} | {mach} | {load} | {e.get('repeat', '?')} "
            f"| {e.get('suite', '')} | {note} |"
        )
    files: dict[str, str] = {}
    for e in history:
        for s in e["scenarios"]:
            files.setdefault(s.get("file", "?"), s.get("name", "?"))
    for file, name in files.items():
        out += [
            "",
            f"## {name}",
            "",
            f"`{file}`",
            "",
            "| # | commit | sim s | wall s (median) | sim s / wall s | M hops/s | M events/s | M hops/CPU s "
            "| flows | peak MB | base MB | instr/hop | misses/hop |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for i, e in enumerate(history, start=1):
            for s in e["scenarios"]:
                if s.get("file") != file:
                    continue
                ipp = s.get("instructions_per_hop")
                cells = [
                    str(i),
                    str(e.get("commit", "?")),
                    *_figure_cells(s, _fixed(s["sim_s_per_wall_s"])),
                    "n/a" if ipp is None else f"{ipp:.0f}",
                    misses_cell(s),
                ]
                out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write_markdown(history_path: str | Path) -> Path:
    """Regenerates HISTORY.md beside a history file; returns its path."""
    target = markdown_path(history_path)
    write_text(target, history_markdown(read_history(history_path), Path(history_path).name))
    return target


if __name__ == "__main__":
    print(json.dumps(measure_one(sys.argv[1])))
