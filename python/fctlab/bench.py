"""The speed benchmark: runs scenarios, each in a fresh process, and reports its own figures.

For each scenario: wall time of the simulation proper (build excluded), simulated seconds per
wall second, packet-hops per second (one packet crossing one link), events per second, and the
process's peak resident memory, with the memory the interpreter and libraries held before the
scenario was built (so the simulation's own footprint is the difference). Each scenario runs in
its own process so that one run's memory does not hide another's; `--repeat N` reports the
median of N runs of each.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: The benchmark scenarios of the foundation issue, relative to the repository root.
DEFAULT_SCENARIOS = ("examples/dumbbell-pareto.toml", "examples/internet2-rc3.toml")


def _peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure_one(path: str) -> dict:
    """Runs one scenario in this process and returns its figures."""
    from fctlab.run import build

    base_mb = _peak_rss_mb()
    sim, spec = build(path)
    t0 = time.perf_counter()
    horizon = float(sim.horizon)
    t = 0.0
    while not sim.run_until(t):
        t += max(horizon, 1e-3)
    wall = time.perf_counter() - t0
    meta = sim.results()["meta"]
    return {
        "scenario": path,
        "name": spec.get("name", Path(path).stem),
        "sim_s": meta["sim_time_s"],
        "wall_s": wall,
        "events": meta["events"],
        "packet_hops": meta["packet_hops"],
        "flows": meta["flows_started"],
        "sim_s_per_wall_s": meta["sim_time_s"] / wall,
        "hops_per_s": meta["packet_hops"] / wall,
        "events_per_s": meta["events"] / wall,
        "peak_rss_mb": _peak_rss_mb(),
        "baseline_rss_mb": base_mb,
    }


def run_in_subprocess(path: str) -> dict:
    """Runs `measure_one(path)` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-m", "fctlab.bench", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark of {path} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def bench(paths: list[str], repeat: int = 1) -> list[dict]:
    """Each scenario `repeat` times, each run in its own process; the median run per scenario."""
    rows = []
    for p in paths:
        runs = [run_in_subprocess(p) for _ in range(repeat)]
        med = statistics.median(r["wall_s"] for r in runs)
        best = min(runs, key=lambda r: abs(r["wall_s"] - med))
        best["repeat"] = repeat
        best["wall_s_all"] = [r["wall_s"] for r in runs]
        rows.append(best)
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table of benchmark rows."""
    head = ("scenario", "sim s", "wall s", "sim s/wall s", "M hops/s", "M events/s", "flows", "peak MB", "base MB")
    lines = [head]
    for r in rows:
        lines.append(
            (
                r["name"],
                f"{r['sim_s']:.2f}",
                f"{r['wall_s']:.2f}",
                f"{r['sim_s_per_wall_s']:.2f}",
                f"{r['hops_per_s'] / 1e6:.2f}",
                f"{r['events_per_s'] / 1e6:.2f}",
                str(r["flows"]),
                f"{r['peak_rss_mb']:.0f}",
                f"{r['baseline_rss_mb']:.0f}",
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    out = []
    for k, row in enumerate(lines):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


if __name__ == "__main__":
    print(json.dumps(measure_one(sys.argv[1])))
