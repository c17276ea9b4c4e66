"""Seed 003 Fig. 4 (sec. IV-A), simulated and emulated: three flows join a bottleneck 10 s
apart, every rate / 100, every protocol of the explicit paper. Base scenario
`experiments/emulated/explicit-single-bottleneck.toml`."""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab.reproduce.series import Phase
from fctlab_experiments.emulated.explicit_report import explicit_report
from fctlab_experiments.emulated.rates import QUICK_SCALE
from fctlab_experiments.explicit import protocols as ex
from fctlab_experiments.explicit.protocols import long_flow_points

#: Seed 003 Fig. 4 at rates / 100 and 10 s phases: (source, destination, start, stop),
#: each flow's access link, and the links its path crosses that the protocol's router runs.
FIG4_FLOWS = [("l0", "r0", 0.0, 30.0), ("l1", "r1", 10.0, 40.0), ("l2", "r2", 20.0, 50.0)]
FIG4_END = 50.0
FIG4_LINKS = ["l0->rl", "l1->rl", "l2->rl"]


def experiment() -> Experiment:
    """Seed 003 Fig. 4 at rates / 100 and 10 s phases, every protocol, both ways."""
    return Experiment(
        name="explicit-fig4",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="Seed 003 Fig. 4, emulated: three flows join a bottleneck 10 s apart (rates / 100)",
        base="explicit-single-bottleneck.toml",
        points=long_flow_points(["bottleneck"], FIG4_FLOWS, FIG4_END),
        seeds=1,
        analyze=analyze_fig4,
        quick=lambda n, o: ex.scale_times(o, QUICK_SCALE),
        emulate={"time_scale": 1.0},
    )


def analyze_fig4(runs: Runs, ctx: Context) -> str:
    def target(p: str, _k: int, ph: Phase, _i: int) -> float:
        return ex.utilization(p) * 10e6 / len(ph.flows)

    table, parts = explicit_report(runs, ctx, FIG4_LINKS, target, ["bottleneck"], "fig4.png")
    return (
        "Seed 003 Fig. 4 (sec. IV-A), scaled for real time: every rate / 100 (a 10 Mb/s bottleneck; the paper: "
        "1 Gb/s), phases of 10 s (the paper: 30 s), the 50 ms round trip kept: three long flows start at 0, "
        "10 and 20 s and each lasts 30 s"
        + (" (quick mode: twenty times shorter)" if ctx.quick else "")
        + ". XCP, RCP, JetMax and PIQI-RCP as `fctlab reproduce explicit` runs them (seed 003's gains, "
        "1500-byte packets, the protocol's router on the bottleneck). The paper: every method converges to "
        "the equal share C / N after each join (JetMax and PIQI-RCP to their virtual capacity, gamma C / N); "
        "RCP alone builds a large queue at each join (up to 9415 packets at 1 Gb/s); utilization high. "
        "Each flow's rate is its access link's throughput (on the wire), mean over the second half of each "
        "phase; the target is the (virtual) capacity over N. The emulation runs in network namespaces at "
        "time scale 1.\n\n"
        + table
        + "\n\n![Per-flow rates, simulated (solid) and emulated (dashed)](fig4.png)\n\n"
        + parts
    )
