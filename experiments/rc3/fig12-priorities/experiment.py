"""RC3 paper Fig. 12 (sec. 5.1.2): the number of RC3's priority levels, at 100 Mb/s x 40 ms
(RTT x BW = 500 KB, Fig. 9's setting from `rttbw.py`)."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, pm
from fctlab_experiments.rc3.common import QUICK
from fctlab_experiments.rc3.comparison import pair_rows, seed_mean
from fctlab_experiments.rc3.rttbw import points_rttbw

#: Fig. 12 (its numbers, as for Fig. 8): "tcp" -> regular FCT over flows, over bytes (s); an RC3
#: setting -> (RC3 FCT over flows, over bytes (s), % reduction over flows, over bytes).
FIG12 = {
    "tcp": (0.167, 0.691),
    "rc3-1": (0.126, 0.496, 24.55, 28.22),
    "rc3-3": (0.110, 0.442, 33.98, 36.05),
    "rc3-4": (0.112, 0.434, 32.94, 37.19),
}


def points() -> list[tuple[str, dict[str, Any]]]:
    base = points_rttbw()
    tcp = next(o for n, o in base if n == "tcp-100Mbps-40ms")
    rc3 = next(o for n, o in base if n == "rc3-100Mbps-40ms")
    return [
        ("tcp", tcp),
        ("rc3-1", {**rc3, "transport.rc3_buckets": []}),
        ("rc3-3", rc3),
        ("rc3-4", {**rc3, "transport.rc3_buckets": [10, 100, 1000, 10000]}),
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    rows = []
    for name, label in (
        ("rc3-1", "1 RC3 priority level"),
        ("rc3-3", "3 levels (40, 400, 4000)"),
        ("rc3-4", "4 levels (10, 100, 1000, 10000)"),
    ):
        r = pair_rows(runs, "tcp", name)
        p = FIG12[name]
        for quantity, paper, got in (
            ("mean FCT over flows (s)", p[0], r["b_f"]),
            ("mean FCT over bytes (s)", p[1], r["b_b"]),
            ("FCT reduction over flows (%)", p[2], r["red_f"]),
            ("FCT reduction over bytes (%)", p[3], r["red_b"]),
        ):
            ctx.check("Fig. 12", f"{label}: {quantity}", paper, seed_mean(got))
        rows.append(
            [
                label,
                f"{p[0]:.3f}",
                pm(r["b_f"], ".3f"),
                f"{p[2]:.2f}",
                pm(r["red_f"]),
                f"{p[1]:.3f}",
                pm(r["b_b"], ".3f"),
                f"{p[3]:.2f}",
                pm(r["red_b"]),
            ]
        )
    base = pair_rows(runs, "tcp", "rc3-3")
    ctx.check("Fig. 12", "regular TCP: mean FCT over flows (s)", FIG12["tcp"][0], seed_mean(base["a_f"]))
    ctx.check("Fig. 12", "regular TCP: mean FCT over bytes (s)", FIG12["tcp"][1], seed_mean(base["a_b"]))
    head = (
        f"Regular TCP: paper {FIG12['tcp'][0]:.3f} s over flows and {FIG12['tcp'][1]:.3f} s over bytes; "
        f"fctlab {pm(base['a_f'], '.3f')} s and {pm(base['a_b'], '.3f')} s.\n\n"
    )
    return (
        "Internet-2 at 100 Mb/s x 40 ms (RTT x BW = 500 KB), 30% load; RC3 with one low-priority level "
        "(everything at P1), the default buckets (40, 400, 4000: P1..P4; the paper calls these 3 levels) and "
        "(10, 100, 1000, 10000). The paper: several levels beat one, and the two bucketings differ "
        "little.\n\n"
        + head
        + md_table(
            [
                "RC3 setting",
                "paper FCT flows (s)",
                "fctlab",
                "paper % flows",
                "fctlab %",
                "paper FCT bytes (s)",
                "fctlab",
                "paper % bytes",
                "fctlab %",
            ],
            rows,
        )
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig12-priorities",
        title="RC3 paper Fig. 12: number of priority levels",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
    )
