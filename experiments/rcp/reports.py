"""Report builders of the RCP thesis's chapter 4: per-size figures (AFCT and maximum FCT against
flow size for RCP, TCP and XCP beside PS and the slow-start curve), parameter sweeps (AFCT of
short and long flows against one parameter) and active-flow counts. Each builder returns an
`analyze(runs, ctx)` for an `Experiment`; `combine` joins several. `Setup` is a bottleneck's
reference parameters, `SizeClaim` and `SweepClaim` the thesis's numbers the reports check,
`CLOSE_TO_PS` how they read its "close to PS".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from fctlab.reproduce.checks import PaperValue, ratio
from fctlab.reproduce.framework import Context, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import analysis as ra

#: Protocol labels, in plotting order, and their styles.
PROTOCOLS = ("RCP", "TCP", "XCP")
STYLE = {"RCP": "o-", "TCP": "s-", "XCP": "^-"}
#: The thesis's "close to PS" (or "follows PS", "like PS"), read as an AFCT at most 15% above
#: PS's.
CLOSE_TO_PS = (None, 1.15)


@dataclass
class Setup:
    """One bottleneck's reference parameters: capacity (bit/s), RTPD (s), offered load."""

    capacity: float
    rtpd: float
    load: float


@dataclass(frozen=True)
class SizeClaim:
    """A thesis number on AFCT by size: `protocol`'s AFCT over `against`'s, or over the exact PS
    of the same flows when `against` is "PS", for the flows of lo <= packets < hi."""

    figure: str
    protocol: str
    against: str
    lo: int
    hi: int
    paper: PaperValue


def check_sizes(ctx: Context, tables: dict[str, pl.DataFrame], claims: Sequence[SizeClaim], where: str) -> None:
    """Declares each claim's thesis number against fctlab's ratio (`Context.check`)."""
    for c in claims:
        if c.against == "PS":
            value = ra.window_ratio(tables[c.protocol], c.lo, c.hi)[1]
        else:
            mine, theirs = (ra.window_afct(tables[p], c.lo, c.hi) for p in (c.protocol, c.against))
            value = ratio(mine, theirs)
        sizes = f"{c.lo:,} - {c.hi - 1:,}" if c.lo > 1 else f"< {c.hi:,}"
        ctx.check(c.figure, f"{c.protocol} AFCT / {c.against}, flows of {sizes} packets ({where})", c.paper, value)


@dataclass(frozen=True)
class SweepClaim:
    """A thesis number of a sweep, at every point: `protocol`'s AFCT over `against`'s (or over
    the exact PS of the same flows when `against` is "PS"), of the small or large flows."""

    figure: str
    protocol: str
    against: str
    side: str
    paper: PaperValue


def run_name(prefix: str, proto: str) -> str:
    """The run of `proto` in configuration `prefix` (e.g. "setup1-rcp")."""
    return f"{prefix}-{proto.lower()}" if prefix else proto.lower()


def _plot_sizes(ctx: Context, png: str, tables: dict[str, pl.DataFrame], title: str) -> None:
    with figure(ctx, png, 1, 2, figsize=(11, 4)) as (fig, axes):
        first = None
        for p, t in tables.items():
            b = ra.per_bin(t)
            first = b if first is None else first
            axes[0].plot(b["mean_pkts"].to_list(), b["afct"].to_list(), STYLE.get(p, "o-"), label=p, ms=4)
            axes[1].plot(b["mean_pkts"].to_list(), b["max_fct"].to_list(), STYLE.get(p, "o-"), label=p, ms=4)
        if first is not None:
            for ax in axes:
                ax.plot(first["mean_pkts"].to_list(), first["ps"].to_list(), "k-", lw=2, label="PS (exact, same flows)")
                ax.plot(first["mean_pkts"].to_list(), first["ps_curve"].to_list(), "k--", label="PS eq. 4.1")
                ax.plot(first["mean_pkts"].to_list(), first["slow_start"].to_list(), "k:", label="slow start (IW 2)")
        for ax, what in zip(axes, ("average FCT (s)", "maximum FCT (s)")):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("flow size (packets)")
            ax.set_ylabel(what)
            ax.legend(fontsize=7)
        fig.suptitle(title, fontsize=9)


def size_tables(
    runs: Runs, prefix: str, setup: Setup, protocols=PROTOCOLS, workload: str | None = None
) -> dict[str, pl.DataFrame]:
    """Pooled flow tables (over seeds) of each protocol's run of one configuration."""
    return {p: ra.pooled(runs, run_name(prefix, p), setup.capacity, setup.load, workload=workload) for p in protocols}


def size_section(
    runs: Runs,
    ctx: Context,
    prefix: str,
    setup: Setup,
    heading: str,
    paper: str,
    png: str,
    protocols=PROTOCOLS,
    workload: str | None = None,
    claims: Sequence[SizeClaim] = (),
    tables: dict[str, pl.DataFrame] | None = None,
) -> str:
    """A per-size section: per-bin AFCT table with ratios to PS, the ratios near 2,000
    packets, the maximum FCT per bin, the share of TCP flows on the slow-start curve, a plot;
    `claims`, the thesis's numbers on these ratios, checked. `tables`: the configuration's
    `size_tables` when the caller has them already (for checks across sections)."""
    if tables is None:
        tables = size_tables(runs, prefix, setup, protocols, workload)
    check_sizes(ctx, tables, claims, heading)
    header, rows = ra.ratio_rows(tables)
    _plot_sizes(ctx, png, tables, heading)
    near = []
    for p, t in tables.items():
        n, r_ps, r_curve = ra.window_ratio(t, *ra.NEAR_2000)
        n_all, r_all, r_all_curve = ra.window_ratio(t, 1, 2000)
        near.append(
            [
                p,
                str(n),
                fmt(r_ps, ".2f"),
                fmt(r_curve, ".2f"),
                str(n_all),
                fmt(r_all, ".3f"),
                fmt(r_all_curve, ".3f"),
            ]
        )
    maxes = {p: ra.per_bin(t) for p, t in tables.items()}
    first = next(iter(maxes.values()))
    mrows = []
    for r in first.iter_rows(named=True):
        row = [f"{r['lo']}-{r['hi']}", fmt(r["ps_curve"], ".3f")]
        for p in tables:
            m = maxes[p].filter(pl.col("bin") == r["bin"])
            row.append("-" if m.height == 0 else fmt(m["max_fct"][0], ".3f"))
        mrows.append(row)
    extra = ""
    if "TCP" in tables:
        t = tables["TCP"]
        on, med = ra.on_slow_start(t)
        on_small, med_small = ra.on_slow_start(t.filter(pl.col("pkts") < 2000))
        extra = (
            f"\n\nTCP against its slow-start curve (IW 2, no loss): {on * 100:.1f}% of {t.height} flows within "
            f"25% of it (median FCT / curve {med:.2f}); under 2,000 packets {on_small * 100:.1f}% "
            f"(median {med_small:.2f})."
        )
    return (
        f"## {heading}\n\n{paper}\n\n"
        "AFCT per size bin (seeds pooled); `X/PS` = AFCT / mean exact PS FCT of the same flows:\n\n"
        + md_table(header, rows)
        + "\n\nRatios over windows of sizes (AFCT / mean PS of the same flows; exact PS and eq. 4.1):\n\n"
        + md_table(
            ["protocol", "flows 1000-2999 pkts", "/PS", "/eq. 4.1", "flows < 2000 pkts", "/PS", "/eq. 4.1"], near
        )
        + extra
        + "\n\nMaximum FCT per size bin (s), beside the eq. 4.1 mean:\n\n"
        + md_table(["packets", "PS eq. 4.1"] + list(tables), mrows)
        + f"\n\n![{heading}]({png})"
    )


def size_figure(
    setups: list[tuple[str, Setup, str, str]], intro: str, claims: dict[str, Sequence[SizeClaim]] | None = None
) -> Callable[[Runs, Context], str]:
    """An analysis of per-size sections, one per (prefix, setup, heading, paper text); `claims`
    by prefix, the thesis's numbers checked in that section."""

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        for i, (prefix, setup, heading, paper) in enumerate(setups):
            parts.append(
                size_section(
                    runs, ctx, prefix, setup, heading, paper, f"sizes{i + 1}.png", claims=(claims or {}).get(prefix, ())
                )
            )
        return "\n\n".join(parts)

    return analyze


def _time_avg_active(flows: pl.DataFrame, t0: float, t1: float, steps: int = 200) -> float:
    times = [t0 + (t1 - t0) * (i + 0.5) / steps for i in range(steps)]
    counts = ra.active_flows(flows, times)
    return sum(counts) / len(counts)


def active_section(
    runs: Runs,
    ctx: Context,
    prefixes: list[tuple[str, Setup, str]],
    window: tuple[float, float],
    png: str,
    workload: str | None = None,
) -> str:
    """Mean number of active flows in the measurement window per configuration and protocol,
    beside Little's law for PS (arrival rate x mean eq. 4.1 FCT), and N(t) plotted."""
    rows = []
    t0, t1 = window
    with figure(ctx, png, 1, len(prefixes), figsize=(5 * len(prefixes), 3.5), squeeze=False) as (fig, axes):
        for ax, (prefix, setup, label) in zip(axes[0], prefixes):
            little = None
            row = [label]
            for p in PROTOCOLS:
                name = run_name(prefix, p)
                seed = runs.seeds_of(name)[0]
                flows = runs.flows(name, seed)
                if workload is not None:
                    flows = flows.filter(pl.col("workload") == workload)
                incomplete = int(
                    flows.filter(pl.col("measured") & (pl.col("size_bytes") >= 0) & pl.col("fct_s").is_null()).height
                )
                row.append(
                    f"{_time_avg_active(flows, t0, t1):.0f}" + (f" ({incomplete} unfinished)" if incomplete else "")
                )
                times = [t1 * i / 300 for i in range(301)]
                ax.plot(times, ra.active_flows(flows, times), label=p)
                if little is None:
                    t = ra.flow_table(runs, name, seed, setup.capacity, setup.load)
                    if workload is not None:
                        t = t.filter(pl.col("workload") == workload)
                    rate = flows.filter((pl.col("start_s") >= t0) & (pl.col("start_s") < t1)).height / (t1 - t0)
                    little = rate * float(t["ps_curve_s"].mean())
            row.insert(1, f"{little:.0f}")
            rows.append(row)
            ax.set_title(label, fontsize=8)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("active flows")
            ax.legend(fontsize=7)
    return (
        f"Mean number of active flows over [{t0:g} s, {t1:g} s) (seed 1), beside Little's law for PS "
        "(measured arrival rate x mean eq. 4.1 FCT); measured flows still unfinished at the end in brackets:\n\n"
        + md_table(["configuration", "PS (Little)"] + list(PROTOCOLS), rows)
        + f"\n\n![active flows]({png})"
    )


def _over(s: dict[str, float | None], rcp: dict[str, float | None], side: str) -> str:
    """AFCT of one side (small or large flows) over RCP's."""
    a, b = s[f"{side}_afct"], rcp[f"{side}_afct"]
    return "-" if a is None or not b else f"{a / b:.2f}"


def unfinished(runs: Runs, name: str, workload: str | None = None) -> int:
    """Measured finite flows of a run (all seeds) that had not completed when it stopped."""
    n = 0
    for s in runs.seeds_of(name):
        f = runs.flows(name, s).filter(pl.col("measured") & (pl.col("size_bytes") >= 0) & pl.col("fct_s").is_null())
        n += (f if workload is None else f.filter(pl.col("workload") == workload)).height
    return n


def _sweep_point(
    runs: Runs, prefix: str, x: float, setup: Setup, threshold: int, link: str, workload: str | None
) -> tuple[dict[str, dict[str, float | None]], list[list[str]], list[str]]:
    """One point of a sweep (`x`, configuration `prefix`): each protocol's AFCT below and at or
    above `threshold` packets (`ra.split_afct`, with PS's), its table rows, and the row of `link`'s
    mean queue / (C x RTPD)."""
    rows = []
    qrow = [f"{x:g}"]
    split: dict[str, dict[str, float | None]] = {}
    for p in PROTOCOLS:
        name = run_name(prefix, p)
        t = ra.pooled(runs, name, setup.capacity, setup.load, workload=workload)
        s = split[p] = ra.split_afct(t, threshold)
        if p == "RCP":
            rcp = s
        rs = None if s["small_afct"] is None else s["small_afct"] / s["small_ps"]
        rl = None if s["large_afct"] is None else s["large_afct"] / s["large_ps"]
        rows.append(
            [
                f"{x:g}",
                p,
                f"{s['small_n']:.0f}",
                fmt(s["small_afct"], ".3f"),
                fmt(s["small_ps"], ".3f"),
                fmt(s["small_curve"], ".3f"),
                fmt(rs, ".2f"),
                _over(s, rcp, "small"),
                f"{s['large_n']:.0f}",
                fmt(s["large_afct"], ".3f"),
                fmt(s["large_ps"], ".3f"),
                fmt(s["large_curve"], ".3f"),
                fmt(rl, ".2f"),
                _over(s, rcp, "large"),
                str(unfinished(runs, name, workload)),
            ]
        )
        lk = runs.links(name, runs.seeds_of(name)[0]).filter(pl.col("name") == link)
        qrow.append(f"{float(lk['queue_avg_bytes'][0]) * 8 / (setup.capacity * setup.rtpd):.4f}")
    return split, rows, qrow


def _check_sweep_point(
    ctx: Context,
    claims: Sequence[SweepClaim],
    split: dict[str, dict[str, float | None]],
    threshold: int,
    param: str,
    x: float,
) -> None:
    """Declares each claim's thesis number at one point of the sweep (`Context.check`)."""
    for c in claims:
        mine = split[c.protocol][f"{c.side}_afct"]
        theirs = split[c.protocol if c.against == "PS" else c.against][
            f"{c.side}_{'ps' if c.against == 'PS' else 'afct'}"
        ]
        sizes = f"< {threshold}" if c.side == "small" else f">= {threshold}"
        ctx.check(
            c.figure,
            f"{c.protocol} AFCT / {c.against}, flows of {sizes} packets, {param} {x:g}",
            c.paper,
            ratio(mine, theirs),
        )


def _sweep_series(splits: list[dict[str, dict[str, float | None]]]) -> dict[str, dict[str, list[float | None]]]:
    """Each protocol's (and PS's, from the first protocol's flows) AFCT of the small and the large
    flows, a value per point."""
    series: dict[str, dict[str, list[float | None]]] = {p: {"small": [], "large": []} for p in PROTOCOLS + ("PS",)}
    for split in splits:
        for side in ("small", "large"):
            series["PS"][side].append(split[PROTOCOLS[0]][f"{side}_ps"])
            for p in PROTOCOLS:
                series[p][side].append(split[p][f"{side}_afct"])
    return series


def _plot_afct_sweep(
    ctx: Context, png: str, param: str, threshold: int, xs: list[float], series: dict[str, dict[str, list]]
) -> None:
    """AFCT of the small flows (left) and of the large (right) against the parameter."""
    with figure(ctx, png, 1, 2, figsize=(11, 4)) as (fig, axes):
        for ax, side, lab in (
            (axes[0], "small", f"< {threshold} pkts"),
            (axes[1], "large", f">= {threshold} pkts"),
        ):
            for p in PROTOCOLS + ("PS",):
                ys = series[p][side]
                pts = [(a, b) for a, b in zip(xs, ys) if b is not None]
                ax.plot([a for a, _ in pts], [b for _, b in pts], "k--" if p == "PS" else STYLE[p], label=p)
            ax.set_xlabel(param)
            ax.set_ylabel(f"AFCT (s), flows {lab}")
            ax.set_yscale("log")
            ax.legend(fontsize=7)


def _sweep_text(
    intro: str, param: str, threshold: int, link: str, png: str, rows: list[list[str]], qrows: list[list[str]]
) -> str:
    """The introduction, the AFCT table, the queue table and the plot."""
    return (
        intro
        + "\n\n"
        + md_table(
            [
                param,
                "protocol",
                f"flows < {threshold}",
                "AFCT (s)",
                "PS (s)",
                "eq. 4.1 (s)",
                "/PS",
                "/RCP",
                f"flows >= {threshold}",
                "AFCT (s)",
                "PS (s)",
                "eq. 4.1 (s)",
                "/PS",
                "/RCP",
                "unfinished",
            ],
            rows,
        )
        + f"\n\nMean queue of `{link}` over the run / (C x RTPD):\n\n"
        + md_table([param] + list(PROTOCOLS), qrows)
        + f"\n\n![sweep]({png})"
    )


def sweep_figure(
    param: str,
    values: list[tuple[str, float, Setup]],
    threshold: int,
    intro: str,
    link: str = "bottleneck",
    workload: str | None = None,
    png: str = "sweep.png",
    claims: Sequence[SweepClaim] = (),
    across: Callable[[Context, dict[float, dict[str, dict[str, float | None]]]], None] | None = None,
) -> Callable[[Runs, Context], str]:
    """AFCT of flows below and at or above `threshold` packets against a parameter, with PS
    (exact and eq. 4.1), the ratios to PS, and the bottleneck's mean queue / (C x RTPD);
    `claims`, the thesis's numbers on these ratios, checked at every point; `across`, checks
    that compare points, given each point's `analysis.split_afct` by protocol ({x: {protocol:
    split}})."""

    def analyze(runs: Runs, ctx: Context) -> str:
        rows, qrows, xs, splits = [], [], [], []
        for prefix, x, setup in values:
            split, point_rows, qrow = _sweep_point(runs, prefix, x, setup, threshold, link, workload)
            xs.append(x)
            splits.append(split)
            rows += point_rows
            qrows.append(qrow)
            _check_sweep_point(ctx, claims, split, threshold, param, x)
        if across is not None:
            across(ctx, dict(zip(xs, splits, strict=True)))
        _plot_afct_sweep(ctx, png, param, threshold, xs, _sweep_series(splits))
        return _sweep_text(intro, param, threshold, link, png, rows, qrows)

    return analyze


def combine(*parts: Callable[[Runs, Context], str]) -> Callable[[Runs, Context], str]:
    """One analysis made of several, their texts joined."""
    return lambda runs, ctx: "\n\n".join(p(runs, ctx) for p in parts)
