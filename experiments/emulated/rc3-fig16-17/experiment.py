"""RC3 paper Figs. 16 and 17, simulated and emulated: strict priority at a NIC and at a router
port, the simulated experiment's very runs emulated at time scale 10. Base scenario
`experiments/emulated/priority.toml`."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table
from fctlab.reproduce.series import Phase
from fctlab_experiments.emulated.emulation import emulation_tables
from fctlab_experiments.emulated.rates import QUICK_SCALE, phase_rows, plot_rates, seconds, summarize

# The rc3 paper's Figs. 16/17 points: the very runs of its simulated experiment.
from fctlab_experiments.rc3.common import points_priority

#: Figs. 16/17: the simulated experiment's runs, emulated at this time scale (1 Gb/s is 100 Mb/s
#: on the wall); the receivers' links carry the two priorities.
PRIORITY_SCALE = 10.0
PRIORITY_LINKS = {"hi": "to_d0", "lo": "to_d1"}


def _scaled(o: dict[str, Any], scale: float) -> dict[str, Any]:
    """A run's overrides with its duration and flow schedules times `scale`."""
    out = dict(o)
    if "duration" in out:
        out["duration"] = seconds(out["duration"]) * scale
    if "workload" in out:
        out["workload"] = [{**w, "flows": [_scaled_flow(f, scale) for f in w["flows"]]} for w in out["workload"]]
    return out


def _scaled_flow(f: dict[str, Any], scale: float) -> dict[str, Any]:
    return {**f, "start": seconds(f["start"]) * scale, "stop": seconds(f["stop"]) * scale}


def experiment() -> Experiment:
    """The simulated Figs. 16/17 runs, emulated at time scale 10."""
    points = points_priority()  # the very runs of the simulated experiment
    return Experiment(
        name="rc3-fig16-17",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="RC3 paper Figs. 16 and 17, emulated: strict priority at a NIC and at a router",
        base="priority.toml",
        points=points,
        seeds=1,
        analyze=analyze_priority,
        quick=lambda n, o: _scaled(o, QUICK_SCALE),
        # Each emulation lasts at least its half a second of grace, ten times over: two in quick mode.
        quick_points=["nic-low-first", "router-high-first"],
        emulate={"time_scale": PRIORITY_SCALE},
    )


def analyze_priority(runs: Runs, ctx: Context) -> str:
    names = [n for n in ("nic-high-first", "nic-low-first", "router-high-first", "router-low-first") if n in runs.names]
    parts, all_devs, links, labels_of = [], [], {}, {}
    for n in names:
        sc = runs.scenario(n, runs.seeds_of(n)[0])
        order = [w["label"] for w in sc["workload"]]
        labels = [("high priority" if lab == "hi" else "low priority") for lab in order]
        links[n] = [PRIORITY_LINKS[lab] for lab in order]
        labels_of[n] = labels
        end = runs.window(n, runs.seeds_of(n)[0])[1]

        def target(_k: int, ph: Phase, i: int, order: list[str] = order) -> float | None:
            if len(ph.flows) == 1:
                return 1e9
            return 1e9 if order[i] == "hi" else 0.0

        rows, devs = phase_rows(runs, n, links[n], labels, target, end)
        all_devs += devs
        parts.append(
            f"### {n}\n\n"
            + md_table(
                ["phase (s)", "flow", "expected (Mb/s)", "simulated", "emulated", "emulated vs simulated %"], rows
            )
        )
    plot_rates(ctx, runs, names, links, ["first flow", "second flow"], "fig16-17.png", 1e6)
    return (
        "The runs of `experiments/rc3/fig16-17-priority/` (two TCP bulk flows at priorities 0 and 1 on a 1 Gb/s "
        "bottleneck: the sender's NIC with 512 packets, Fig. 16, or a router's port, Fig. 17; one flow from 0 "
        "to 3 s, the other from 1 to 2 s, in both orders), emulated at time scale "
        f"{PRIORITY_SCALE:g} (100 Mb/s on the wall, so the router process keeps up); the priorities travel "
        "in the DSCP bits between the processes and the emulated queues serve them strictly. The paper "
        "(Linux NIC and switch tests): the high-priority flow takes the link at once and gives it back when "
        "it ends. Each flow's rate is its receiver link's throughput, mean over the second half of each "
        "phase (Mb/s; 'expected' is the paper's statement: all of the link for a flow alone or at high "
        "priority, nothing at low priority during the overlap).\n\n"
        + "\n\n".join(parts)
        + f"\n\nEmulated against simulated, every flow and phase: {summarize(all_devs)}.\n\n"
        "![Per-flow throughput over time, simulated (solid) and emulated (dashed)](fig16-17.png)\n\n"
        + emulation_tables(runs, names)
    )
