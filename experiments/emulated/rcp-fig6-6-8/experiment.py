"""The RCP thesis's Figs. 6.6 - 6.8, simulated and emulated: four R-TCP flows join a 10 Mb/s RCP
router on the thesis's Linux testbed, its schedule shortened for real time. Base scenario
`experiments/emulated/rcp-testbed.toml`."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import EMU, Context, Experiment, Runs, figure, fmt, md_table
from fctlab.reproduce.series import phases
from fctlab_experiments.emulated.emulation import deviation, emulation_tables
from fctlab_experiments.emulated.rates import QUICK_SCALE, flows_of, phase_rows, stat, summarize

#: The testbed (RCP thesis sec. 6.1.2), shortened: (start, stop) of A1 - A4, s; C and eta.
TESTBED_FLOWS = ((0.0, 40.0), (10.0, 50.0), (20.0, 60.0), (30.0, 70.0))
TESTBED_END = 70.0
TESTBED_C, TESTBED_ETA = 10e6, 0.9


def _testbed(scale: float) -> dict[str, Any]:
    return {
        "duration": TESTBED_END * scale,
        "workload.0.flows": [
            {"src": f"l{i}", "dst": f"r{i}", "start": a * scale, "stop": b * scale}
            for i, (a, b) in enumerate(TESTBED_FLOWS)
        ],
    }


def experiment() -> Experiment:
    """The testbed of Figs. 6.6 - 6.8, shortened, both ways."""
    return Experiment(
        name="rcp-fig6-6-8",
        # Not a figure of a paper: the same scenario simulated and emulated, side by side.
        investigation=True,
        title="RCP thesis Figs. 6.6 - 6.8, emulated: four R-TCP flows join a 10 Mb/s RCP router (shortened)",
        base="rcp-testbed.toml",
        points=[("testbed", _testbed(1.0))],
        seeds=1,
        analyze=analyze_testbed,
        quick=lambda n, o: _testbed(QUICK_SCALE),
        emulate={"time_scale": 1.0},
    )


def analyze_testbed(runs: Runs, ctx: Context) -> str:
    n = "testbed"
    end = runs.window(n, runs.seeds_of(n)[0])[1]
    links = [f"l{i}->rl" for i in range(4)]
    labels = [f"A{i + 1}" for i in range(4)]
    rows, devs = phase_rows(runs, n, links, labels, lambda _k, ph, _i: TESTBED_ETA * TESTBED_C / len(ph.flows), end)
    r_rows = []
    for ph in phases(flows_of(runs, n), end):
        if not ph.flows:
            continue
        r_sim, r_emu = stat(runs, n, "bottleneck_rcp_rate_bps", *ph.steady())
        a_sim, a_emu = stat(runs, n, "bottleneck_throughput_bps", *ph.steady())
        q_sim, q_emu = stat(runs, n, "bottleneck_queue_bytes", ph.start, ph.start + (ph.end - ph.start) / 2, "max")
        r_rows.append(
            [
                f"{ph.start:g}-{ph.end:g}",
                str(len(ph.flows)),
                fmt(TESTBED_ETA * TESTBED_C / len(ph.flows), ".2f", 1e6),
                fmt(r_sim, ".2f", 1e6),
                fmt(r_emu, ".2f", 1e6),
                fmt(deviation(r_sim, r_emu), "+.1f"),
                fmt(a_sim, ".2f", 1e6),
                fmt(a_emu, ".2f", 1e6),
                fmt(q_sim, ".0f", 1500),
                fmt(q_emu, ".0f", 1500),
            ]
        )
    joins = []
    flows = flows_of(runs, n)
    for k, (start, _) in enumerate(flows[1:], start=2):
        w = (flows[1][0] - flows[0][0]) / 2  # half the spacing of the joins
        before = stat(runs, n, "bottleneck_rcp_rate_bps", start - w, start)
        low = stat(runs, n, "bottleneck_rcp_rate_bps", start, start + w, "min")
        ratio = [None if b is None or lo is None or b == 0 else lo / b for b, lo in zip(before, low)]
        joins.append([f"A{k} at {start:g} s", fmt(ratio[0], ".2f"), fmt(ratio[1], ".2f"), f"{(k - 1) / k:.2f}"])
    _plot_testbed(ctx, runs, n, links, labels)
    return (
        "The thesis's Linux testbed as `experiments/rcp/fig6-6-8/` simulates it (four R-TCP hosts A1 - A4 on "
        "100 Mb/s, an Appendix F RCP router on the 10 Mb/s bottleneck, eta = 0.9, a 50 ms round trip, a "
        "1000-packet TX queue), shortened for real time: A1 - A4 join every 10 s (the thesis: 20 s) and each "
        "sends 40 s (the thesis: 100 s), 70 s in all"
        + (" (quick mode: twenty times shorter still)" if ctx.quick else "")
        + ". Emulated in network namespaces at time scale 1: the testbed's own speed. The thesis (sec. 6.1.2, "
        "Figs. 6.7 - 6.8): a sudden backlog on the TX queue at each join; R(t) falls to about half at the "
        "second join and similarly at the later ones; R = C/N holds (with eta: eta C / N) and the flows "
        "share equally; iperf reached about 7.5 Mb/s on the link.\n\n"
        "R (mean over the second half of each span), the aggregate throughput of the bottleneck, and the "
        "largest TX queue in the first half (packets of 1500 B: the backlog after a join):\n\n"
        + md_table(
            [
                "span (s)",
                "true N",
                "eta C / N (Mb/s)",
                "R simulated",
                "R emulated",
                "R emulated vs simulated %",
                "aggregate simulated (Mb/s)",
                "aggregate emulated",
                "max queue simulated (pkts)",
                "max queue emulated",
            ],
            r_rows,
        )
        + "\n\nAt each join, R's lowest value in the half spacing after it over its mean in the half before "
        "(the thesis: about half at the second join, 'similarly' later; R = eta C / N would give (N - 1) / N):\n\n"
        + md_table(["join", "simulated", "emulated", "(N - 1) / N"], joins)
        + "\n\nPer-flow throughput (each host's access link, on the wire, second half of each span; "
        "target eta C / N):\n\n"
        + md_table(["span (s)", "flow", "eta C / N (Mb/s)", "simulated", "emulated", "emulated vs simulated %"], rows)
        + f"\n\nEmulated against simulated per-flow rates: {summarize(devs)}.\n\n"
        "![R(t), the TX queue and per-flow throughput, simulated (solid) and emulated (dashed)](fig6-7-8.png)\n\n"
        + emulation_tables(runs, [n])
    )


def _plot_testbed(ctx: Context, runs: Runs, n: str, links: list[str], labels: list[str]) -> None:
    sim = runs.wide_series(n, runs.seeds_of(n)[0])
    emu_seeds = runs.seeds_of(n + EMU)
    emu = runs.wide_series(n + EMU, emu_seeds[0]) if emu_seeds else sim.clear()
    with figure(ctx, "fig6-7-8.png", 1, 3, figsize=(14, 3.5)) as (fig, axes):
        for w, style, what in ((sim, "-", "simulated"), (emu, "--", "emulated")):
            if "bottleneck_rcp_rate_bps" in w.columns:
                axes[0].plot(w["time_s"], w["bottleneck_rcp_rate_bps"] / 1e6, style, label=f"R {what}")
            if "bottleneck_queue_bytes" in w.columns:
                axes[1].plot(w["time_s"], w["bottleneck_queue_bytes"] / 1500, style, label=what)
            for i, link in enumerate(links):
                col = f"{link}_throughput_bps"
                if col in w.columns:
                    axes[2].plot(w["time_s"], w[col] / 1e6, style, color=f"C{i}", lw=0.8, label=f"{labels[i]} {what}")
        axes[0].set(xlabel="time (s)", ylabel="R (Mb/s)")
        axes[1].set(xlabel="time (s)", ylabel="TX queue (packets)")
        axes[2].set(xlabel="time (s)", ylabel="Mb/s")
        for a in axes:
            a.legend(fontsize=6)
