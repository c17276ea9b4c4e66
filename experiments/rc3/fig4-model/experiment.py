"""RC3 paper Fig. 4: the performance model of sec. 3 alone (`experiments/rc3/models.py`), RC3
against larger initial windows; no runs."""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, plt
from fctlab_experiments.rc3.models import larger_iw_model_reduction, rc3_model_reduction


def analyze(runs: Runs, ctx: Context) -> str:
    pyplot = plt()
    sizes = [1.2**k for k in range(0, 60)]
    bw, u, rtt = 1e9, 0.3, 0.04
    fig, ax = pyplot.subplots(figsize=(6, 3.5))
    ax.plot(sizes, [rc3_model_reduction(n, bw, u, rtt, 4) for n in sizes], label="RC3 (IW 4 baseline)")
    for iw in (10, 50):
        ax.plot(sizes, [larger_iw_model_reduction(n, bw, u, rtt, 4, iw) for n in sizes], "--", label=f"IW {iw}")
    ax.set_xscale("log")
    ax.set_xlabel("flow size (segments)")
    ax.set_ylabel("FCT reduction over TCP IW 4 (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "fig4.png", dpi=120)
    rows = [
        [
            n,
            f"{rc3_model_reduction(n, bw, u, rtt, 4):.1f}",
            f"{larger_iw_model_reduction(n, bw, u, rtt, 4, 10):.1f}",
            f"{larger_iw_model_reduction(n, bw, u, rtt, 4, 50):.1f}",
        ]
        for n in (1, 4, 5, 10, 40, 100, 400, 1000, 2107, 10000)
    ]
    # Fig. 4 has no numbers; two of its stated shapes have a numeric reading: no gain for a flow
    # that fits in the initial window, and a larger initial window never above RC3.
    ctx.check(
        "Fig. 4",
        "RC3's FCT reduction for flows within the initial window, 1 - 4 segments (%)",
        0.0,
        max(rc3_model_reduction(n, bw, u, rtt, 4) for n in (1, 2, 3, 4)),
    )
    ratios = [
        larger_iw_model_reduction(n, bw, u, rtt, 4, iw) / rc3_model_reduction(n, bw, u, rtt, 4)
        for n in sizes
        for iw in (10, 50)
        if rc3_model_reduction(n, bw, u, rtt, 4) > 0
    ]
    ctx.check("Fig. 4", "IW 10 or IW 50's reduction over RC3's, largest over sizes (ratio)", (None, 1.0), max(ratios))
    return (
        "The performance model of sec. 3 (`experiments/rc3/models.py`): FCT reduction against flow size for RC3 "
        "and for larger initial windows, at BW = 1 Gb/s, utilization u = 0.3, RTT = 40 ms, baseline IW 4. TCP spends "
        "log2(min(N, A x RTT)/i) round trips in slow start (A = (1 - u) BW); RC3 sends the whole flow at A. "
        "The paper gives Fig. 4 as a curve without numbers; its stated shape is what the plot shows: no gain "
        "up to the initial window, a peak near N = A x RTT, then a decline as 1/N; a larger initial window "
        "always below RC3.\n\n"
        + md_table(["size (segments)", "RC3 (%)", "IW 10 (%)", "IW 50 (%)"], rows)
        + "\n\n![Fig. 4](fig4.png)\n"
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig4-model",
        title="RC3 paper Fig. 4: the performance model",
        base="internet2.toml",
        points=[],
        seeds=1,
        analyze=analyze,
    )
