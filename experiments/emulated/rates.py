"""Rates over time, simulated and emulated: what the dynamics experiments share (RC3 Figs.
16/17, `rc3-fig16-17`; the RCP thesis's testbed, Figs. 6.6 - 6.8, `rcp-fig6-6-8`; seed 003's
Figs. 4 and 10, `explicit-fig4`, `explicit-fig10`): per-flow rates per phase, both ways, their
table, plot and summary.

An emulation records link series but not the endpoints' own (docs/emulate.md), so every flow
in these experiments has an access link of its own (or a receiver's link of its own, in Figs.
16/17) and that link's throughput is the flow's rate, in the simulation and in the emulation
alike. Each phase (a span between joins and departures) is reported by its second half, as the
simulated experiments do; an emulated value is the mean over its repetitions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fctlab.reproduce.framework import EMU, Context, Runs, figure, fmt, window_stat
from fctlab.reproduce.series import Phase, phases
from fctlab_experiments.emulated.emulation import deviation

#: Quick mode: every schedule this many times as long.
QUICK_SCALE = 0.05


def seconds(v: Any) -> float:
    """A time of a scenario (a number of seconds or a quantity such as "30s"), in seconds."""
    from fctlab.quantity import parse_time

    return parse_time(v, "time")


def flows_of(runs: Runs, name: str) -> list[tuple[float, float]]:
    """(start, stop) of every long-lived flow of a run, in workload order."""
    sc = runs.scenario(name, runs.seeds_of(name)[0])
    return [(seconds(f["start"]), seconds(f["stop"])) for w in sc["workload"] for f in w["flows"]]


def stat(runs: Runs, name: str, column: str, a: float, b: float, how: str = "mean") -> tuple[Any, Any]:
    """(simulated value, emulated value: mean over repetitions) of a series column over (a, b]."""
    sim = window_stat(runs.wide_series(name, runs.seeds_of(name)[0]), column, a, b, how)
    emus = [window_stat(runs.wide_series(name + EMU, s), column, a, b, how) for s in runs.seeds_of(name + EMU)]
    emus = [e for e in emus if e is not None]
    return sim, (sum(emus) / len(emus) if emus else None)


def phase_rows(
    runs: Runs,
    name: str,
    links: list[str],
    labels: list[str],
    target: Callable[[int, Phase, int], float | None],
    end: float,
) -> tuple[list[list[str]], list[float]]:
    """Rows (phase, flow, target, simulated, emulated, emulated vs simulated) of one run, and the
    deviations of the emulated rates from the simulated ones (%)."""
    rows, devs = [], []
    for k, ph in enumerate(phases(flows_of(runs, name), end)):
        for j, i in enumerate(ph.flows):
            sim, emu = stat(runs, name, f"{links[i]}_throughput_bps", *ph.steady())
            dev = deviation(sim, emu)
            if dev is not None:
                devs.append(dev)
            rows.append(
                [
                    f"{ph.start:g}-{ph.end:g}" if j == 0 else "",
                    labels[i],
                    fmt(target(k, ph, i), ".2f", 1e6),
                    fmt(sim, ".2f", 1e6),
                    fmt(emu, ".2f", 1e6),
                    fmt(dev, "+.1f"),
                ]
            )
    return rows, devs


def plot_rates(
    ctx: Context, runs: Runs, names: list[str], links: dict[str, list[str]], labels: list[str], file: str, scale: float
) -> None:
    """Per-flow rate against time, one panel per run: simulated solid, emulated (first repetition) dashed."""
    cols = min(2, len(names))
    rows_n = (len(names) + cols - 1) // cols
    with figure(ctx, file, rows_n, cols, figsize=(5.5 * cols, 3.2 * rows_n), squeeze=False) as (fig, axes):
        for ax, n in zip(axes.flat, names):
            sim = runs.wide_series(n, runs.seeds_of(n)[0])
            emu_seeds = runs.seeds_of(n + EMU)
            emu = runs.wide_series(n + EMU, emu_seeds[0]) if emu_seeds else None
            for i, link in enumerate(links[n]):
                col = f"{link}_throughput_bps"
                color = f"C{i}"
                if col in sim.columns:
                    ax.plot(sim["time_s"], sim[col] / scale, "-", color=color, lw=1, label=f"{labels[i]} simulated")
                if emu is not None and col in emu.columns:
                    ax.plot(emu["time_s"], emu[col] / scale, "--", color=color, lw=1, label=f"{labels[i]} emulated")
            ax.set(title=n, xlabel="time (s)", ylabel="Mb/s")
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(names) :]:
            ax.set_visible(False)


def summarize(devs: list[float]) -> str:
    """Deviations of emulated from simulated values (%): their mean magnitude and the worst."""
    if not devs:
        return "-"
    worst = max(devs, key=abs)
    return f"{sum(abs(d) for d in devs) / len(devs):.1f}% mean |dev|, worst {worst:+.1f}%"
