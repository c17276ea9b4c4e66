"""The RCP thesis (Dukkipati), sec. 6.2.1, Fig. 6.15: six long flows over two bottlenecks running the
coexistence scheme (two of them cross both): all RCP, all TCP, and a mix where every RCP flow should
get the single-hop TCP rate. Base scenario `experiments/rcp/ch6-coexist-two-bottlenecks.toml`.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce import checks
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp.coexist import QUICK_SCALE, avg, duration_of, rate_of, scaled

#: (source, destination, uplink) of the six flows: 0 and 1 cross both links.
FIG615_FLOWS = [
    ("s0", "d0", "s0->a"),
    ("s1", "d1", "s1->a"),
    ("s2", "d2", "s2->a"),
    ("s3", "d3", "s3->a"),
    ("s4", "d4", "s4->b"),
    ("s5", "d5", "s5->b"),
]
FIG615_RUNS = {"all-rcp": [0, 1, 2, 3, 4, 5], "all-tcp": [], "mix": [1, 3, 5]}


def _fig615_points(scale: float) -> dict[str, dict[str, Any]]:
    out = {}
    for name, rcp in FIG615_RUNS.items():

        def flows(ids: list[int]) -> list[dict[str, Any]]:
            return [{"src": FIG615_FLOWS[i][0], "dst": FIG615_FLOWS[i][1], "start": 0.0} for i in ids]

        tcp = [i for i in range(6) if i not in rcp]
        # A workload entry needs a flow: an empty class gets a flow that starts after the end
        # (the run does not drain, so it never starts); a long-lived flow past the end needs a stop.
        never = [{"src": "s0", "dst": "d0", "start": 1e6 * scale, "stop": 2e6 * scale}]
        out[name] = {
            "duration": 100.0 * scale,
            "workload.0.flows": flows(rcp) or never,
            "workload.1.flows": flows(tcp) or never,
        }
    return out


def analyze_fig6_15(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got: dict[str, list[float | None]] = {}
    for name in FIG615_RUNS:
        w = runs.wide_series(name, seed)
        end = duration_of(runs, name, seed)
        got[name] = [rate_of(w, up, end / 2, end) for _, _, up in FIG615_FLOWS]
    rows = []
    for i in range(6):
        kind = {n: ("RCP" if i in FIG615_RUNS[n] else "TCP") for n in FIG615_RUNS}
        rows.append(
            [f"{i} ({'two-hop' if i < 2 else 'one-hop'})"]
            + [f"{fmt(got[n][i], '.1f', 1e6)} ({kind[n]})" for n in FIG615_RUNS]
        )
    _plot_fig615(ctx, got)
    mix = got["mix"]

    def mean(ids: list[int], run: str) -> float | None:
        return avg([x for x in (got[run][i] for i in ids) if x is not None])

    rcp_mix, tcp_one = mean([1, 3, 5], "mix"), mean([2, 4], "mix")
    for i, rate in enumerate(got["all-rcp"]):
        ctx.check("Fig. 6.15", f"all RCP: flow {i}'s rate, Mb/s (C/4)", 25.0, None if rate is None else rate / 1e6)
    ctx.check(
        "Fig. 6.15",
        "mix: RCP flows' mean rate / single-hop TCP flows' (the same rate)",
        1.0,
        checks.ratio(rcp_mix, tcp_one),
    )
    return (
        "Two 100 Mb/s bottlenecks in series (20 ms each way each), both running the `rcp-tcp` queue (two-queue, "
        "500 KB per queue). Flows 0 and 1 cross both links, 2 and 3 the first, 4 and 5 the second; all start at 0 s. "
        "Per-flow sending rates (Mb/s, wire bytes) over the second half of the run:\n\n"
        + md_table(["flow", *FIG615_RUNS], rows)
        + "\n\n| thesis (Fig. 6.15) | fctlab |\n|---|---|\n"
        + f"| all RCP: every flow gets the same rate (C/4 = 25 Mb/s) | "
        f"{', '.join(fmt(x, '.1f', 1e6) for x in got['all-rcp'])} |\n"
        + f"| all TCP: the two-hop flows are throttled | two-hop {fmt(mean([0, 1], 'all-tcp'), '.1f', 1e6)}, "
        f"one-hop {fmt(mean([2, 3, 4, 5], 'all-tcp'), '.1f', 1e6)} Mb/s on average |\n"
        + f"| mix (1, 3, 5 RCP; 0, 2, 4 TCP): every RCP flow gets the single-hop TCP rate | RCP flows 1, 3, 5: "
        f"{', '.join(fmt(mix[i], '.1f', 1e6) for i in (1, 3, 5))} (mean {fmt(rcp_mix, '.1f', 1e6)}); "
        f"single-hop TCP flows 2, 4: {fmt(tcp_one, '.1f', 1e6)} Mb/s on average; two-hop TCP flow 0: "
        f"{fmt(mix[0], '.1f', 1e6)} |\n" + "\n![Fig. 6.15: per-flow rates in the three runs](fig6-15.png)\n"
    )


def _plot_fig615(ctx: Context, got: dict[str, list[float | None]]) -> None:
    with figure(ctx, "fig6-15.png", figsize=(7, 3.2)) as (fig, ax):
        width = 0.27
        for k, (n, rates) in enumerate(got.items()):
            xs = [i + (k - 1) * width for i in range(6)]
            ax.bar(xs, [(r or 0) / 1e6 for r in rates], width, label=n)
        ax.set(xlabel="flow (0, 1 two-hop)", ylabel="Mb/s", xticks=range(6))
        ax.legend(fontsize=7)


def experiment() -> Experiment:
    """Fig. 6.15: six long flows over two bottlenecks, two of them crossing both."""
    pts = {s: _fig615_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-15",
        title="RCP thesis Fig. 6.15: RCP and TCP over two bottlenecks",
        base="ch6-coexist-two-bottlenecks.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_15,
        quick=scaled(pts),
    )
