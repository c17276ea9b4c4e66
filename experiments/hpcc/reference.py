"""fctlab against HPCC's own simulator on the same flows: two `fct.txt` files (the simulator's, and
the one `fctlab hpcc run CONFIG.txt` writes from the same configuration), each cut into the
authors' 20 groups of 5% of the flows by size (`slowdown.groups`, `analysis/fct_analysis.py`'s
type 0: flows to port 100; like that script, the largest flow is left out), side by side with
fctlab's relative difference per group and percentile.

    python experiments/hpcc/reference.py REF_FCT FCTLAB_FCT --label hpcc >> experiments/hpcc/REFERENCE.md

The simulator is not part of fctlab: `experiments/hpcc/REFERENCE.md` says how its run was made.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from slowdown import LABELS, PAPER_P95, Group, by_range, groups  # type: ignore[no-redef]
else:
    from .slowdown import LABELS, PAPER_P95, Group, by_range, groups

#: The goal: every percentile of every group within this relative difference.
GOAL = 0.15


def read_fct(path: Path) -> tuple[list[int], list[float]]:
    """(size, slowdown) of the normal flows (dport 100) of an fct.txt, the largest left out."""
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "100":
            continue
        rows.append((int(f[4]), int(f[6]) / int(f[7])))
    rows.sort(key=lambda r: r[0])
    rows = rows[:-1]
    return [r[0] for r in rows], [r[1] for r in rows]


def table(ref: list[Group], ours: list[Group], label: str) -> tuple[str, int, int]:
    """The markdown table of both analyses, and how many of the percentiles are within GOAL."""
    lines = [
        f"| {label}: up to | size (B) | p50 ref | p50 fctlab | p95 ref | p95 fctlab | p99 ref | p99 fctlab |",
        "|---|---|---|---|---|---|---|---|",
    ]
    within = total = 0
    for r, o in zip(ref, ours, strict=True):
        cells = []
        for a, b in ((r.p50, o.p50), (r.p95, o.p95), (r.p99, o.p99)):
            d = (b - a) / a
            total += 1
            within += abs(d) <= GOAL
            cells += [f"{a:.2f}", f"{b:.2f} ({d:+.0%})"]
        lines.append(f"| {r.upto:.2f} | {r.size} | " + " | ".join(cells) + " |")
    return "\n".join(lines), within, total


def paper_table(ref: tuple[list[int], list[float]], ours: tuple[list[int], list[float]], key: str, load: float) -> str:
    """The paper's 95th percentiles by size range (`PAPER_P95[key][load]`, Fig. 11) beside the
    simulator's and fctlab's on the same flows, each with its difference from the paper's."""
    paper = PAPER_P95[key][load]
    sim, fct = by_range(*ref, 0.95), by_range(*ours, 0.95)
    rows = [f"| {key}, load {load:g}: p95 | " + " | ".join(LABELS) + " |", "|---" * (len(LABELS) + 1) + "|"]
    rows.append("| paper | " + " | ".join(f"{v:g}" for v in paper) + " |")
    for name, got in (("simulator", sim), ("fctlab", fct)):
        cells = []
        for b, want in zip(LABELS, paper, strict=True):
            v = got[b][0]
            cells.append("-" if v is None else f"{v:.2f} ({(v - want) / want:+.0%})")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ref", type=Path, help="HPCC's simulator's fct.txt")
    p.add_argument("ours", type=Path, help="fctlab's fct.txt of the same configuration")
    p.add_argument("--label", default="run")
    p.add_argument(
        "--paper",
        metavar="PROTOCOL:LOAD",
        help="also the paper's Fig. 11 p95 by size range beside both (hpcc or dctcp, load 0.3 or 0.5)",
    )
    a = p.parse_args(argv)
    if a.paper is not None:
        key, _, load = a.paper.partition(":")
        if key not in PAPER_P95 or load not in ("0.3", "0.5"):
            print(
                f"error: --paper: expected one of hpcc:0.3, hpcc:0.5, dctcp:0.3, dctcp:0.5, got {a.paper}",
                file=sys.stderr,
            )
            return 2
        print(paper_table(read_fct(a.ref), read_fct(a.ours), key, float(load)) + "\n")
    ref, ours = groups(*read_fct(a.ref)), groups(*read_fct(a.ours))
    if len(ref) != len(ours):
        print(f"error: {len(ref)} groups against {len(ours)}: not the same flows", file=sys.stderr)
        return 2
    text, within, total = table(ref, ours, a.label)
    print(text)
    print(f"\n{within} of {total} percentiles within {GOAL:.0%} of the simulator's.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
