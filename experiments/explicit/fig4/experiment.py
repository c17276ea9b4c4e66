"""Seed 003 Fig. 4 (sec. IV-A): long flows on one bottleneck. Three flows join a 1 Gb/s, 50 ms
bottleneck 30 s apart; per-flow rates and the bottleneck queue, phase by phase. Base scenario
`experiments/explicit/single-bottleneck.toml`."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table
from fctlab.reproduce.series import (
    Phase,
    access_link,
    capacity,
    drops,
    first_reach,
    long_flows,
    phases,
    span_stat,
)
from fctlab_experiments.explicit.protocols import WIRE, long_flow_points, quick, utilization
from fctlab_experiments.explicit.rates import flow_rates, port_series, protocols_in
from fctlab_experiments.explicit.report import paper_table, rate_queue_plot

#: Fig. 4's flows: (source, destination, start, stop) in seconds (sec. IV-A: 30 s apart, 90 s each).
FIG4_FLOWS = [("l0", "r0", 0.0, 90.0), ("l1", "r1", 30.0, 120.0), ("l2", "r2", 60.0, 150.0)]
FIG4_END = 150.0


def experiment() -> Experiment:
    """Fig. 4: per-flow rates and the bottleneck queue as three flows join 30 s apart."""
    return Experiment(
        name="fig4",
        title="Seed 003 Fig. 4: three flows join a 1 Gb/s bottleneck 30 s apart",
        base="single-bottleneck.toml",
        points=long_flow_points(["bottleneck"], FIG4_FLOWS, FIG4_END),
        seeds=1,
        analyze=analyze_fig4,
        quick=quick(),
    )


def _phase_numbers(link: pl.DataFrame, rates: pl.DataFrame, ph: Phase) -> dict[str, Any]:
    a, b = ph.steady()
    return {
        "util": span_stat(link, "util", ph.start, ph.end),
        "rates": [span_stat(rates, f"flow{i}", a, b) for i in ph.flows],
        "peak": span_stat(link, "queue_pkts", ph.start, ph.end, "max"),
        "queue": span_stat(link, "queue_pkts", a, b),
    }


def _fig4_run(runs: Runs, p: str, seed: int) -> dict[str, Any]:
    flows = long_flows(runs, p, seed)
    link = port_series(runs, p, seed, "bottleneck")
    rates = flow_rates(runs, p, seed, range(len(flows)))
    cap = capacity(runs, p, seed, "bottleneck")
    phs = phases(flows, runs.window(p, seed)[1])
    join = phs[1].start if len(phs) > 1 else 0.0
    nic = port_series(runs, p, seed, access_link(runs, p, seed, 0))
    return {
        "cap": cap,
        "rtt": float(runs.flows(p, seed)["rtt_prop_s"][0]),
        "phases": phs,
        "numbers": [_phase_numbers(link, rates, ph) for ph in phs],
        "reach": first_reach(rates, "flow0", 0.95 * utilization(p) * cap, 0.0),
        "nic": span_stat(nic, "queue_pkts", join - 1.0, join),
        "drops": drops(runs, p, seed, "bottleneck"),
        "plot": (rates, link.select("time_s", "queue_pkts")),
    }


#: Seed 003 sec. IV-A: RCP's queue reaches "up to 9415 packets" when a flow joins.
PAPER_RCP_PEAK = 9415


def _joins(run: dict[str, Any]) -> list[tuple[Phase, Phase, dict[str, Any]]]:
    """(phase before, phase after, the numbers after) of every phase that starts with a join."""
    phs = run["phases"]
    return [(a, b, n) for a, b, n in zip(phs, phs[1:], run["numbers"][1:]) if len(b.flows) > len(a.flows)]


def _rcp_join_note(run: dict[str, Any]) -> str:
    """RCP's join peaks as time of the newcomer's excess rate: the old fair rate C / n."""
    parts = []
    for before, after, n in _joins(run):
        if n["peak"] is None:
            continue
        excess_s = n["peak"] * WIRE * 8 / (run["cap"] / len(before.flows))
        parts.append(
            f"{n['peak']:.0f} packets at {after.start:.0f} s ({n['peak'] / PAPER_RCP_PEAK:.0%} of the "
            f"paper's peak; {excess_s * 1e3:.0f} ms of the newcomer's rate C / {len(before.flows)}, "
            f"{excess_s / run['rtt']:.1f} round trips)"
        )
    paper_s = PAPER_RCP_PEAK * WIRE * 8 / run["cap"]
    return (
        "**RCP** queues " + "; ".join(parts) + ". A joining RCP flow is handed the current fair rate R = C / n at "
        "once, so the link is offered C + C / n until the router's lower R reaches the senders; the peak is that "
        f"excess times the delay. The paper's 9415 packets would be {paper_s * 1e3:.0f} ms of a 1 Gb/s excess "
        f"({paper_s / run['rtt']:.1f} round trips): its router or hosts took longer to slow the flows down, for a "
        "reason the seed does not give (it names a 10 ms control interval and a 1 ms pacing timer, neither of "
        f"which adds a round trip). From the ns-2 cold start (R = 0.05 C) RCP needs {fmt(run['reach'], '.1f')} s "
        "to bring the first flow within 5% of C, hence its lower utilization in the first phase."
    )


def _xcp_join_note(run: dict[str, Any]) -> str:
    joins = _joins(run)
    if not joins or joins[0][2]["peak"] is None or run["nic"] is None:
        return ""
    bdp = run["cap"] * run["rtt"] / 8 / WIRE
    return (
        f"**XCP** queues {joins[0][2]['peak']:.0f} packets when x2 joins. In the second before, {run['nic']:.0f} "
        f"packets waited in x1's own NIC (its window had grown past the {bdp:.0f}-packet pipe, and a 1 Gb/s access "
        "link is no faster than the bottleneck, so the excess queues where XCP's router cannot see it); when x2 "
        "joins, that backlog moves to the bottleneck. Fig. 5 shows the same effect, larger, with a control run."
    )


def _share_error(numbers: dict[str, Any], share: float) -> float | None:
    got = [r for r in numbers["rates"] if r is not None]
    return max(abs(r - share) / share * 100 for r in got) if got and share > 0 else None


def _fig4_rows(got: dict[str, dict[str, Any]], ps: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    first = got[ps[0]]
    rows = []
    for k, ph in enumerate(first["phases"]):
        if k > 0 and len(ph.flows) > len(first["phases"][k - 1].flows):
            rows.append(
                (
                    f"peak queue after flow {len(ph.flows)} joins at {ph.start:.0f} s (packets)",
                    "RCP: up to 9415 when a flow joins; XCP, JetMax, PIQI-RCP: low",
                    {p: fmt(got[p]["numbers"][k]["peak"], ".0f") for p in ps},
                )
            )
    for k, ph in enumerate(first["phases"]):
        rows.append(
            (
                f"utilization {ph.start:.0f}-{ph.end:.0f} s ({_flows(len(ph.flows))})",
                "high for all, PIQI-RCP slightly less (gamma = 0.95); 1 Gb/s gives 970 Mb/s at the IP layer",
                {p: fmt(got[p]["numbers"][k]["util"], ".3f") for p in ps},
            )
        )
    rows.append(
        (
            "worst deviation from the equal share, steady halves (%)",
            "not stated",
            {p: fmt(max((e for e in _errors(got[p], p) if e is not None), default=None), ".1f") for p in ps},
        )
    )
    rows.append(
        (
            "mean queue over the steady halves (packets)",
            "XCP, JetMax, PIQI-RCP: low; RCP: large only at joins",
            {p: fmt(_mean([n["queue"] for n in got[p]["numbers"]]), ".1f") for p in ps},
        )
    )
    rows.append(("packets dropped at the bottleneck", "none in any experiment", {p: str(got[p]["drops"]) for p in ps}))
    return rows


def _flows(n: int) -> str:
    return f"{n} flow{'' if n == 1 else 's'}"


def _errors(run: dict[str, Any], p: str) -> list[float | None]:
    return [
        _share_error(n, utilization(p) * run["cap"] / len(ph.flows)) for ph, n in zip(run["phases"], run["numbers"])
    ]


def _mean(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return sum(got) / len(got) if got else None


def _fig4_rates_table(got: dict[str, dict[str, Any]], ps: list[str]) -> str:
    first = got[ps[0]]
    rows = []
    for k, ph in enumerate(first["phases"]):
        share = first["cap"] / max(1, len(ph.flows)) / 1e6
        cells = [" / ".join(fmt(r, ".1f", 1e6) for r in got[p]["numbers"][k]["rates"]) or "-" for p in ps]
        rows.append([f"{ph.start:.0f}-{ph.end:.0f}", ", ".join(f"x{i + 1}" for i in ph.flows), f"{share:.1f}", *cells])
    return md_table(["phase (s)", "flows", "C / n (Mb/s)", *(f"{p} (Mb/s)" for p in ps)], rows)


def analyze_fig4(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    ps = protocols_in(runs)
    got = {p: _fig4_run(runs, p, seed) for p in ps}
    if "rcp" in got:
        peaks = [n["peak"] for _, _, n in _joins(got["rcp"]) if n["peak"] is not None]
        ctx.check(
            "sec. IV-A", "rcp: highest queue when a flow joins (packets)", PAPER_RCP_PEAK, max(peaks, default=None)
        )
    for p in ps:
        ctx.check("sec. IV", f"{p}: packets dropped at the bottleneck", 0.0, got[p]["drops"])
    rate_queue_plot(ctx, "fig4.png", {p: got[p]["plot"] for p in ps}, rate_max=1100)
    return (
        "Three long flows through one 1 Gb/s bottleneck with a 50 ms round trip, each on its own 1 Gb/s access "
        "link; they start 30 s apart and each lasts 90 s (sec. IV-A). Rates are each flow's sending rate, averaged "
        "over two round trips (seed 003's footnote 3); steady values are means over the second half of each "
        "phase; the utilization is the bottleneck's departures over the whole phase divided by C; queues are "
        "sampled every 10 ms, in 1500-byte packets.\n\n"
        + paper_table(_fig4_rows(got, ps), ps)
        + "\n\nEach flow's steady rate per phase (x1 / x2 / x3 in the order of the flows column):\n\n"
        + _fig4_rates_table(got, ps)
        + "\n\n![Fig. 4: per-flow sending rates and the bottleneck queue](fig4.png)\n\n"
        + _fig4_notes(got, ps)
    )


def _fig4_notes(got: dict[str, dict[str, Any]], ps: list[str]) -> str:
    worst = [e for p in ps for e in _errors(got[p], p) if e is not None]
    notes = [
        f"Every protocol splits the link equally (worst steady deviation {fmt(max(worst, default=None), '.1f')}% "
        "from C / n times its utilization target), with no drops; JetMax sits at gamma = 0.98 of C by design."
    ]
    if "rcp" in got:
        notes.append(_rcp_join_note(got["rcp"]))
    if "xcp" in got:
        notes.append(_xcp_join_note(got["xcp"]))
    return "\n\n".join(n for n in notes if n)
