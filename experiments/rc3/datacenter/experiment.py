"""RC3 paper sec. 6: a 100 Gb/s fat tree (the setup is `fat_tree.py`), TCP against RC3."""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, pm
from fctlab_experiments.rc3.comparison import mean_rtt, pair_rows, seed_mean
from fctlab_experiments.rc3.fat_tree import QUICK_FAT_TREE, points_dc

#: Sec. 6: RC3's FCT reduction in the paper's 100 Gb/s fat tree, % over flows and over bytes.
DC_PAPER = (45.0, 66.0)


def analyze(runs: Runs, ctx: Context) -> str:
    r = pair_rows(runs, "tcp", "rc3")
    ctx.check("sec. 6", "FCT reduction over flows (%)", DC_PAPER[0], seed_mean(r["red_f"]))
    ctx.check("sec. 6", "FCT reduction over bytes (%)", DC_PAPER[1], seed_mean(r["red_b"]))
    rtt = mean_rtt(runs, "tcp") * 1e6
    return (
        "A k = 4 fat tree (16 hosts, 20 switches) with 100 Gb/s links of 10 us, ECMP, 1.5 MB buffers "
        f"(about RTT x BW: mean path RTT {rtt:.0f} us), the rc3-internet flow sizes at 30% of every host link, "
        "TCP NewReno IW 4 with a 10 ms minimum RTO. The paper (sec. 6) reports 45% over flows and 66% over "
        "bytes for its (unspecified) 100 Gb/s fat tree; settings tried against it: "
        "[datacenter-setups](../datacenter-setups/).\n\n"
        + md_table(
            ["", "TCP (s)", "RC3 (s)", "fctlab % reduction", "paper % reduction"],
            [
                ["over flows", pm(r["a_f"], ".5f"), pm(r["b_f"], ".5f"), pm(r["red_f"]), f"{DC_PAPER[0]:g}"],
                ["over bytes", pm(r["a_b"], ".5f"), pm(r["b_b"], ".5f"), pm(r["red_b"]), f"{DC_PAPER[1]:g}"],
            ],
        )
    )


def experiment() -> Experiment:
    return Experiment(
        name="datacenter",
        title="RC3 paper sec. 6: a 100 Gb/s fat tree",
        base="internet2.toml",
        points=points_dc(),
        seeds=2,
        analyze=analyze,
        quick=QUICK_FAT_TREE,
    )
