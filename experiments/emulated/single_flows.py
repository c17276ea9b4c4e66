"""Single flows, simulated and emulated: what issue 11's acceptance test (`fct-accuracy`) and
RC3's Fig. 15 at a scaled rate (`rc3-fig15`) share.

Both send one flow at a time from l0 to r0 over an idle dumbbell (`experiments/emulated/
single-flows.toml`), spaced so that no two overlap, and compare each flow's FCT in the
simulation with its mean over the emulation's repetitions. An idle path makes a simulation
deterministic, so any difference is the emulation's: a process waking late for a timer or a
packet, a flow starting late, a loss recovered differently.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import EMU, Context, Runs, figure
from fctlab_experiments.emulated.emulation import deviation

#: Payload bytes per segment.
SEG = 1460
#: Bytes of a segment on the wire (payload and TCP/IP headers), for the spacing of flows.
WIRE = 1500
#: The acceptance test's bound (issue 11), %: also the band of every FCT plot.
BOUND_PCT = 5.0


def flow_list(sizes: list[int], rate_bps: float, gap_s: float = 0.3) -> list[dict[str, Any]]:
    """One flow per size from l0 to r0, each starting `gap_s` plus twice the previous flow's
    serialization time after the previous one (so that it has finished, losses included)."""
    flows, t = [], 0.0
    for n in sizes:
        flows.append({"src": "l0", "dst": "r0", "start": round(t, 6), "size": n * SEG})
        t += gap_s + 2 * n * WIRE * 8 / rate_bps
    return flows


def one_at_a_time(sizes: list[int], rate_bps: float, gap_s: float, extra: dict[str, Any]) -> dict[str, Any]:
    """A run's overrides: `extra`, and one flow per size (`flow_list`), the run ending `gap_s`
    after the last one starts."""
    flows = flow_list(sizes, rate_bps, gap_s)
    return {**extra, "duration": flows[-1]["start"] + gap_s, "workload": [{"kind": "flows", "flows": flows}]}


def per_flow(runs: Runs, name: str) -> list[dict[str, Any]]:
    """Per flow (by id): size, planned start, the simulated FCT, timeouts and retransmitted bytes,
    and the emulations' FCTs, start lags, timeouts and retransmissions (one entry per repetition)."""
    sim = runs.flows(name, runs.seeds_of(name)[0]).sort("id")
    planned = [float(f["start"]) for f in runs.scenario(name, runs.seeds_of(name)[0])["workload"][0]["flows"]]
    emus = [runs.flows(name + EMU, s).sort("id") for s in runs.seeds_of(name + EMU)]
    out = []
    for i, row in enumerate(sim.iter_rows(named=True)):
        em = [e.row(i, named=True) for e in emus if e.height > i]
        out.append(
            {
                "segments": row["size_bytes"] // SEG,
                "sim": row["fct_s"],
                "sim_timeouts": row["timeouts"],
                "sim_retx": row["retx_bytes"],
                "emu": [e["fct_s"] for e in em if e["fct_s"] is not None],
                "start_lag": [e["start_s"] - planned[i] for e in em if e["start_s"] is not None],
                "emu_timeouts": [e["timeouts"] for e in em],
                "emu_retx": [e["retx_bytes"] for e in em],
            }
        )
    return out


def plot_fct(ctx: Context, per: dict[str, list[dict[str, Any]]], file: str) -> None:
    """FCT against size, simulated (lines) and emulated (points), and the deviation against the
    `BOUND_PCT` band."""
    with figure(ctx, file, 1, 2, figsize=(11, 4)) as (fig, axes):
        for (n, flows), c in zip(per.items(), ("C0", "C1", "C2", "C3")):
            sizes = [f["segments"] for f in flows]
            axes[0].plot(sizes, [f["sim"] * 1e3 for f in flows], "-", color=c, label=f"{n} simulated")
            xs = [f["segments"] for f in flows for _ in f["emu"]]
            axes[0].plot(xs, [v * 1e3 for f in flows for v in f["emu"]], "o", color=c, ms=4, label=f"{n} emulated")
            devs = [deviation(f["sim"], sum(f["emu"]) / len(f["emu"]) if f["emu"] else None) for f in flows]
            axes[1].plot(sizes, [d if d is not None else float("nan") for d in devs], "o-", color=c, label=n)
        axes[0].set(xscale="log", yscale="log", xlabel="flow size (segments)", ylabel="FCT (ms)")
        axes[1].axhspan(-BOUND_PCT, BOUND_PCT, color="0.9")
        axes[1].set(xscale="log", xlabel="flow size (segments)", ylabel="emulated vs simulated (%)")
        for a in axes:
            a.legend(fontsize=7)
