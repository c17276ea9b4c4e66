"""RC3 paper Fig. 14(a) (sec. 5.1.4): TCP with larger initial windows against RC3."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, pm
from fctlab_experiments.rc3.common import QUICK, RC3, TCP
from fctlab_experiments.rc3.comparison import pair_rows, per_size_rows

#: Fig. 14(a)'s table (seed 000 only): % reduction from TCP IW 4 (over flows, over bytes).
FIG14A = {"tcp-iw10": ("13.21", "17.87"), "tcp-iw50": ("24.33", "38.24"), "rc3": ("43.54", "74.35")}


def points() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("tcp-iw4", TCP),
        ("tcp-iw10", {**TCP, "transport.iw": 10}),
        ("tcp-iw50", {**TCP, "transport.iw": 50}),
        ("rc3", RC3),
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    overall = []
    for name, label in (("tcp-iw10", "TCP IW 10"), ("tcp-iw50", "TCP IW 50"), ("rc3", "RC3 (IW 4)")):
        r = pair_rows(runs, "tcp-iw4", name)
        pf, pb = FIG14A[name]
        overall.append([label, pf, pm(r["red_f"]), pb, pm(r["red_b"])])
    rows = per_size_rows(runs, "tcp-iw4", ["tcp-iw10", "tcp-iw50", "rc3"])
    return (
        "Internet-2 at 30% load: TCP with initial windows of 10 and 50 segments against the IW 4 baseline, "
        "beside RC3. The paper: averaged over flows RC3 gains 44%, IW 10 13% and IW 50 24%; larger initial "
        "windows penalize flows of <= 4 segments (more queueing), RC3 never makes a flow slower.\n\n"
        + md_table(
            [
                "against TCP IW 4",
                "paper % over flows",
                "fctlab % over flows",
                "paper % over bytes",
                "fctlab % over bytes",
            ],
            overall,
        )
        + "\n\nReduction per flow size (%):\n\n"
        + md_table(["segments", "IW 10", "IW 50", "RC3"], rows)
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig14a-iw",
        title="RC3 paper Fig. 14(a): larger initial windows",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
    )
