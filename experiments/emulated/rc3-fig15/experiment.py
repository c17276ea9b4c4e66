"""RC3 paper Fig. 15, simulated and emulated: single flows at 1 Gb/s x 20 ms, TCP NewReno and
RC3, emulated at time scale 10 (100 Mb/s on the wall), as seed 002 scaled it. Base scenario
`experiments/emulated/single-flows.toml`."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import EMU, Context, Experiment, Runs, fmt, md_table
from fctlab_experiments.emulated.emulation import cpu_table, deviation, lateness_table, warnings_text
from fctlab_experiments.emulated.single_flows import one_at_a_time, per_flow, plot_fct

#: RC3 Fig. 15 at 1 Gb/s x 20 ms, emulated at time scale 10 (100 Mb/s on the wall), as seed 002
#: scaled it: a log-spaced subset of the paper's 1 - 2000 segments.
FIG15_SIZES = [1, 5, 20, 100, 500, 2000]
FIG15_RATE = 1e9
FIG15_SCALE = 10.0
FIG15_TOPOLOGY = {
    "kind": "dumbbell",
    "hosts_per_side": 1,
    "bottleneck_rate": "1Gbps",
    "bottleneck_delay": "10ms",
    "access_rate": "1Gbps",
    "access_delay": "0s",
}
FIG15_VARIANTS: dict[str, dict[str, Any]] = {
    "tcp": {"transport.protocol": "tcp"},
    "rc3": {"transport.protocol": "rc3"},
}
# Linux kernel TCP (the paper's testbed) cannot run here: its timers follow the wall clock, so it
# cannot be time-scaled to 1 Gb/s; it runs at 10 Mb/s x 20 ms in fct-accuracy. A run named
# FIG15_LINUX would add a column.
FIG15_LINUX = "linux"


def experiment() -> Experiment:
    """RC3 Fig. 15 at 1 Gb/s x 20 ms, emulated at time scale 10."""
    extra = {"topology": FIG15_TOPOLOGY, "queues.router": {"kind": "prio", "limit": "50MB"}}
    extra["queues.host"] = {"kind": "prio"}
    return Experiment(
        name="rc3-fig15",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="RC3 paper Fig. 15, emulated: single flows at 1 Gb/s x 20 ms (time scale 10)",
        base="single-flows.toml",
        points=[(p, one_at_a_time(FIG15_SIZES, FIG15_RATE, 0.3, {**extra, **o})) for p, o in FIG15_VARIANTS.items()],
        seeds=1,
        analyze=analyze_fig15,
        quick=lambda n, o: one_at_a_time(FIG15_SIZES[:3], FIG15_RATE, 0.1, {**extra, **FIG15_VARIANTS[n]}),
        emulate={"time_scale": FIG15_SCALE},
        emulate_seeds=2,
    )


def analyze_fig15(runs: Runs, ctx: Context) -> str:
    variants = [n for n in (*FIG15_VARIANTS, FIG15_LINUX) if n in runs.names]
    per = {n: per_flow(runs, n) for n in variants if n + EMU in runs.names}
    rows = []
    for i, f in enumerate(per["tcp"]):
        cells = [str(f["segments"])]
        for n in per:
            g = per[n][i]
            emu = sum(g["emu"]) / len(g["emu"]) if g["emu"] else None
            cells += [fmt(g["sim"], ".2f", 1e-3), fmt(emu, ".2f", 1e-3), fmt(deviation(g["sim"], emu), "+.1f")]
        tcp, rc3 = per["tcp"][i], per["rc3"][i]
        gain_sim = None if not tcp["sim"] else (tcp["sim"] - rc3["sim"]) / tcp["sim"] * 100
        te = sum(tcp["emu"]) / len(tcp["emu"]) if tcp["emu"] else None
        re_ = sum(rc3["emu"]) / len(rc3["emu"]) if rc3["emu"] else None
        gain_emu = None if te is None or re_ is None else (te - re_) / te * 100
        cells += [fmt(gain_sim, ".1f"), fmt(gain_emu, ".1f")]
        rows.append(cells)
    header = ["segments"]
    for n in per:
        header += [f"{n} simulated (ms)", f"{n} emulated (ms)", f"{n} dev %"]
    header += ["RC3 gain over TCP, simulated %", "RC3 gain, emulated %"]
    plot_fct(ctx, per, "fig15.png")
    names = list(per)
    reps = len(runs.seeds_of(names[0] + EMU))
    return (
        "RC3 Fig. 15's real side, as seed 002 scaled it: single flows on an idle dumbbell of 1 Gb/s with a "
        "20 ms round trip (1 Gb/s access links, a 50 MB priority buffer at the router, priority queues at the "
        "hosts), TCP NewReno and RC3 on it, IW 10 (Linux's), one flow at a time, sizes "
        + ", ".join(str(s) for s in (FIG15_SIZES[:3] if ctx.quick else FIG15_SIZES))
        + f" segments (a log-spaced subset of the paper's 1 - 2000). The emulation runs at time scale "
        f"{FIG15_SCALE:g} (a run-time second lasts {FIG15_SCALE:g} wall seconds: 100 Mb/s and 200 ms round trips "
        f"on the wall), {reps} repetitions, and its FCTs are in run time, so they compare with the simulation "
        "directly. The paper's figure gives no numbers; its shape: RC3 below TCP as soon as a flow exceeds "
        "the initial window, the gap shrinking at 1 Gb/s for the largest flows as serialization dominates "
        "(`experiments/rc3/fig15-single-flows/` has the simulated 10 Gb/s side). Linux's kernel TCP "
        "cannot be time-scaled (its timers follow the wall clock): it is set beside fctlab's TCP at 10 Mb/s x "
        "20 ms in [fct-accuracy](../fct-accuracy/README.md).\n\n"
        + md_table(header, rows)
        + "\n\n![FCT against size: simulated (lines), emulated (points); deviation](fig15.png)\n\n"
        + lateness_table(runs, names)
        + "\n\n"
        + warnings_text(runs, names)
        + "\n\n"
        + cpu_table(runs, names)
    )
