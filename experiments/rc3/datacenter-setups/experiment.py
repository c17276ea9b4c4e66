"""RC3 paper sec. 6: which datacenter setting explains the paper's 45% / 66%, each candidate
changing one setting of `datacenter`'s fat tree (`fat_tree.py`)."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, pm
from fctlab_experiments.rc3.comparison import pair_rows
from fctlab_experiments.rc3.fat_tree import QUICK_FAT_TREE, points_dc

#: Candidate settings for the datacenter row, each changing one thing of `points_dc`'s setup:
#: name -> (what it changes, overrides for both protocols, the router buffer).
DC_CANDIDATES: dict[str, tuple[str, dict[str, Any], str]] = {
    "base": ("fctlab's setup above", {}, "1.5MB"),
    "minrto200ms": ("minimum RTO 200 ms (Linux's)", {"transport.min_rto": "200ms"}, "1.5MB"),
    "minrto1s": ("minimum RTO 1 s (ns-3's default)", {"transport.min_rto": "1s"}, "1.5MB"),
    "buffer150KB": ("router buffers of 150 KB (a shallow switch)", {}, "150KB"),
    "load50": ("load 50%", {"workload.0.load": 0.5}, "1.5MB"),
    "websearch": (
        "DCTCP's web-search sizes (mean 1.7 MB)",
        {"workload.0.sizes": {"kind": "cdf", "name": "websearch"}},
        "1.5MB",
    ),
    "datamining": (
        "VL2's data-mining sizes (mean 7.5 MB)",
        {"workload.0.sizes": {"kind": "cdf", "name": "datamining"}},
        "1.5MB",
    ),
}


def points() -> list[tuple[str, dict[str, Any]]]:
    base = dict(points_dc())
    pts = []
    for name, (_, extra, buf) in DC_CANDIDATES.items():
        for proto in ("tcp", "rc3"):
            o = {**base[proto], **extra}
            o["queues.router"] = {**o["queues.router"], "limit": buf}
            pts.append((f"{proto}-{name}", o))
    return pts


def analyze(runs: Runs, ctx: Context) -> str:
    rows = []
    means: dict[str, tuple[float, float]] = {}
    for name, (what, _, _) in DC_CANDIDATES.items():
        r = pair_rows(runs, f"tcp-{name}", f"rc3-{name}")
        rows.append([what, pm(r["a_f"], ".5f"), pm(r["b_f"], ".5f"), pm(r["red_f"]), pm(r["red_b"])])
        if r["red_f"]:
            means[what] = (sum(r["red_f"]) / len(r["red_f"]), sum(r["red_b"]) / len(r["red_b"]))
    paper = (45.0, 66.0)

    def off(v: tuple[float, float]) -> float:
        return max(abs(v[0] - paper[0]), abs(v[1] - paper[1]))

    closest = min(means.items(), key=lambda kv: off(kv[1])) if means else None
    verdict = (
        f"Closest to the paper: {closest[0]} ({closest[1][0]:.1f} / {closest[1][1]:.1f}), "
        + (
            "within 5 points of both numbers."
            if off(closest[1]) <= 5.0
            else f"{off(closest[1]):.0f} points away on one of them: no single setting tried explains the row, "
            "and the paper's workload and topology remain unknown."
        )
        + " The 0.1 s runs hold few flows of the web-search and data-mining sizes: see the spreads over seeds."
        if closest
        else "No runs to compare."
    )
    return (
        "The paper's datacenter row (sec. 6: a 100 Gb/s fat tree, 45% over flows and 66% over bytes) gives no "
        "topology size, buffers, workload, load or RTO, and the authors' repository has none of them. Each row "
        "changes one setting of the `datacenter` experiment's setup (k = 4, 10 us links, 1.5 MB buffers, the "
        "rc3-internet sizes at 30%, minimum RTO 10 ms) to see which moves fctlab towards the paper.\n\n"
        + md_table(
            ["setting", "TCP mean FCT (s)", "RC3 mean FCT (s)", "% reduction over flows", "% reduction over bytes"],
            rows,
        )
        + "\n\nPaper: 45 over flows, 66 over bytes. "
        + verdict
        + "\n"
    )


def experiment() -> Experiment:
    return Experiment(
        name="datacenter-setups",
        title="RC3 paper sec. 6: which datacenter setting explains the paper's 45% / 66%",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK_FAT_TREE,
        # fctlab's own look at sec. 6: settings the paper does not give, tried one at a time. The
        # paper's 45% / 66% are checked in `datacenter`.
        investigation=True,
    )
