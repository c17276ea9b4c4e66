"""RC3 paper Fig. 9 (sec. 5.1.2): the gain against RTT x BW, Internet-2 at 30% load scaled to
100 Mb/s or 1 Gb/s and 40 or 400 ms (the settings are `rttbw.py`)."""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab_experiments.rc3.common import QUICK
from fctlab_experiments.rc3.comparison import cut_table, mean_rtt, pair_rows, seed_mean, two_way_table
from fctlab_experiments.rc3.rttbw import FIG9, points_rttbw


def analyze(runs: Runs, ctx: Context) -> str:
    rows = [
        (f"{bw} bottleneck, {rtt} avg. RTT", f"tcp-{bw}-{rtt}", f"rc3-{bw}-{rtt}", paper)
        for (bw, rtt), paper in FIG9.items()
    ]
    rtts = {f"{rtt}": mean_rtt(runs, f"tcp-{bw}-{rtt}") * 1e3 for (bw, rtt) in FIG9}
    table = two_way_table(runs, rows, ctx, "Fig. 9")
    # fctlab's four FCTs at 100 Mb/s x 40 ms against the paper's, for the text.
    slow = pair_rows(runs, "tcp-100Mbps-40ms", "rc3-100Mbps-40ms")
    paper = FIG9[("100Mbps", "40ms")]
    above = [(seed_mean(slow[k]) or 0.0) / paper[i] * 100 - 100 for i, k in enumerate(("a_f", "a_b", "b_f", "b_b"))]
    return (
        "Internet-2 at 30% load with the bottleneck (access) rate and the delays scaled: 100 Mb/s scales "
        "the core rates by 0.1; the 400 ms setting uses 10 ms access and 100 ms core delays (mean path RTT "
        f"{rtts['400ms']:.0f} ms, against {rtts['40ms']:.1f} ms for the 40 ms setting). Buffers are RTT x BW: "
        "500 KB, 5 MB, 5 MB, 50 MB. The paper expects the gain to grow with RTT x BW. At 400 ms a 3 MB TCP "
        "flow needs about ten round trips of slow start (over 4 s), so the authors' cut at 10 s removes many "
        "large late TCP flows from their averages; the second table applies it.\n\n"
        + table
        + "\n\n"
        + cut_table(rows, runs)
        + "\n\nThe checks (below) take the drained averages of the first table. At 400 ms TCP's FCTs and the "
        "reductions over flows miss the paper's by far: the authors' cut drops the slowest TCP flows, and with it "
        "(the second table) fctlab's reductions at 400 ms come within a few points of the paper's. RC3's FCT over "
        "bytes at 100 Mb/s x 400 ms misses as well, and stays above the paper's with the cut. At 100 Mb/s x 40 ms "
        "fctlab's FCTs, TCP's and RC3's alike, are "
        f"{min(above):.0f} - {max(above):.0f}% above the paper's while the reductions stay near its own; the cut "
        "moves those reductions further from the paper's, so it does not explain the gap, whose cause is not "
        "known.\n"
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig9-rttbw",
        title="RC3 paper Fig. 9: RTT x BW",
        base="internet2.toml",
        points=points_rttbw(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
    )
