"""Seed 003 Figs. 9(b) and 10 (sec. IV-H), simulated and emulated: max-min rates in the parking
lot, every rate / 100, every protocol of the explicit paper. Base scenario
`experiments/emulated/explicit-parking-lot.toml`."""

from __future__ import annotations

from fctlab.reference import max_min_rates
from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab.reproduce.series import Phase
from fctlab_experiments.emulated.explicit_report import explicit_report
from fctlab_experiments.emulated.rates import QUICK_SCALE
from fctlab_experiments.explicit import protocols as ex
from fctlab_experiments.explicit.protocols import long_flow_points

#: Seed 003 Fig. 10 at rates / 100 and 10 s phases: (source, destination, start, stop), each
#: flow's access link, and the links its path crosses that the protocol's router runs.
FIG10_FLOWS = [("h1", "d1", 0.0, 30.0), ("h2", "d2", 10.0, 40.0), ("h3", "d3", 20.0, 40.0)]
FIG10_END = 40.0
FIG10_LINKS = ["x1_access", "x2_access", "x3_access"]
FIG10_PATHS = [["l1", "l2"], ["l1"], ["l2"]]
FIG10_CAPS = {"l1": 9.7e6, "l2": 8e6}
#: The paper's (seed 003's) max-min rates of Fig. 10 at full scale, Mb/s, per phase.
FIG10_PAPER = [[800], [485, 485], [400, 570, 400], [970, 800]]


def experiment() -> Experiment:
    """Seed 003 Fig. 10 at rates / 100 and 10 s phases, every protocol, both ways."""
    return Experiment(
        name="explicit-fig10",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="Seed 003 Figs. 9(b) and 10, emulated: max-min rates in a parking lot (rates / 100)",
        base="explicit-parking-lot.toml",
        points=long_flow_points(["l1", "l2"], FIG10_FLOWS, FIG10_END),
        seeds=1,
        analyze=analyze_fig10,
        quick=lambda n, o: ex.scale_times(o, QUICK_SCALE),
        emulate={"time_scale": 1.0},
    )


def analyze_fig10(runs: Runs, ctx: Context) -> str:
    def target(p: str, k: int, ph: Phase, i: int) -> float | None:
        fair = max_min_rates([FIG10_PATHS[j] for j in ph.flows], FIG10_CAPS)
        return ex.utilization(p) * fair[ph.flows.index(i)]

    table, parts = explicit_report(runs, ctx, FIG10_LINKS, target, ["l1", "l2"], "fig10.png")
    paper = "; ".join(
        f"phase {k + 1}: " + " / ".join(f"{r / 100:g}" for r in rates) for k, rates in enumerate(FIG10_PAPER)
    )
    return (
        "Seed 003 Figs. 9(b) and 10 (sec. IV-H), scaled for real time: every rate / 100 (l1 = 9.7 Mb/s, l2 = "
        "8 Mb/s; the paper: 970 and 800 Mb/s), phases of 10 s (the paper: 30 s), 25 ms each way on each link: "
        "x1 crosses both links from 0 to 30 s, x2 crosses l1 from 10 s, x3 crosses l2 from 20 s, both to 40 s"
        + (" (quick mode: twenty times shorter)" if ctx.quick else "")
        + ". The paper: all four methods reach the max-min rates, which at this scale are (Mb/s) "
        + paper
        + "; the target is that times the protocol's utilization (JetMax 0.98, PIQI-RCP 0.95). Each flow's "
        "rate is its access link's throughput, mean over the second half of each phase. The simulated full-"
        "scale run (`experiments/explicit/fig10/`) shows XCP's x2 5% short of 570 Mb/s in the third phase, an "
        "effect of XCP's own controllers; the same should appear here both ways.\n\n"
        + table
        + "\n\n![Per-flow rates, simulated (solid) and emulated (dashed)](fig10.png)\n\n"
        + parts
    )
