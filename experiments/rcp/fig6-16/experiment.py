"""The RCP thesis (Dukkipati), sec. 6.2.1, Fig. 6.16: Poisson arrivals of RCP and TCP flows with
Pareto sizes on the coexistence scheme's port: long RCP and TCP flows should share equally, and
RCP keep its short flows' FCTs. Base scenario `experiments/rcp/ch6-coexist.toml`.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce import checks
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp.coexist import QUICK_SCALE, SCHEME, scaled

#: Offered load, half RCP and half TCP flows; Pareto sizes of mean 25 packets (ch. 4's E[L]),
#: shape 1.2, cut at 10 MB.
FIG616 = {"load": 0.7, "mean": 25_000, "shape": 1.2, "max": "10MB", "end": 100.0, "warmup": 10.0}
#: Size bins (bytes) of the FCT table.
BINS = [0, 10_000, 100_000, 1_000_000, 10**12]
#: Flows at least this large are "long" for the throughput comparison.
LONG = 500_000


def _fig616_points(scale: float) -> dict[str, dict[str, Any]]:
    g = FIG616
    sizes = {"kind": "pareto", "shape": g["shape"], "mean": g["mean"], "round_to": 948, "max": g["max"]}

    def wl(mix: float) -> dict[str, Any]:
        return {
            "duration": g["end"] * scale,
            "measure_from": g["warmup"] * scale,
            "topology.hosts_per_side": 10,
            "queues.links.bottleneck": SCHEME,
            "workload": [
                {
                    "kind": "poisson",
                    "load": g["load"],
                    "load_on": "bottleneck",
                    "sizes": sizes,
                    "label": "poisson",
                    **({"mix": [{"transport": "tcp", "fraction": mix}]} if mix > 0 else {}),
                }
            ],
            "output.series.links": ["bottleneck"],
        }

    return {"mix": wl(0.5), "rcp-only": wl(0.0)}


#: Labels of the size bins.
BIN_LABELS = ["< 10 KB", "10-100 KB", "100 KB-1 MB", ">= 1 MB"]


def _by_bin(sample: pl.DataFrame) -> pl.DataFrame:
    """Per class and size bin (in size order): flows, mean FCT, mean size/FCT."""
    size = pl.col("size_bytes")
    index = sum((size >= edge).cast(pl.Int32) for edge in BINS[1:-1])
    return (
        sample.with_columns(
            b=index,
            tput=size * 8 / pl.col("fct_s"),
            cls=pl.when(pl.col("protocol") == "tcp").then(pl.lit("TCP")).otherwise(pl.lit("RCP")),
        )
        .group_by("cls", "b")
        .agg(n=pl.len(), fct=pl.col("fct_s").mean(), tput=pl.col("tput").mean())
        .sort("cls", "b")
        .with_columns(bin=pl.col("b").map_elements(lambda i: BIN_LABELS[i], return_dtype=pl.String))
    )


def analyze_fig6_16(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    tables = {n: _by_bin(runs.sample(n, seed)) for n in runs.names}
    rows = []
    for n, t in tables.items():
        for r in t.iter_rows(named=True):
            rows.append([n, r["cls"], str(r["bin"]), r["n"], fmt(r["fct"], ".3f"), fmt(r["tput"], ".2f", 1e6)])

    def stat(run: str, cls: str, col: str, long: bool) -> float | None:
        s = runs.sample(run, seed).with_columns(tput=pl.col("size_bytes") * 8 / pl.col("fct_s"))
        s = s.filter((pl.col("protocol") == "tcp") == (cls == "TCP"))
        s = s.filter(pl.col("size_bytes") >= LONG) if long else s.filter(pl.col("size_bytes") < 10_000)
        v = s[col].mean() if s.height else None
        return None if v is None else float(v)

    long_r, long_t = stat("mix", "RCP", "tput", True), stat("mix", "TCP", "tput", True)
    short_r, short_t = stat("mix", "RCP", "fct_s", False), stat("mix", "TCP", "fct_s", False)
    short_alone = stat("rcp-only", "RCP", "fct_s", False)
    ctx.check(
        "Fig. 6.16",
        f"long flows (>= {LONG // 1000} KB): RCP's mean size/FCT over TCP's (shared equally)",
        1.0,
        checks.ratio(long_r, long_t),
    )
    _plot_fig616(ctx, tables)
    g = FIG616
    return (
        f"Poisson arrivals at load {g['load']} of the 100 Mb/s bottleneck (80 ms round trip; two-queue `rcp-tcp`, "
        f"500 KB per queue), Pareto sizes of mean {g['mean'] // 1000} KB (shape {g['shape']}, cut at {g['max']}); in "
        "`mix` half the flows are TCP, in `rcp-only` none (the reference for RCP's FCTs). The thesis gives no load "
        "or sizes: these are ch. 4's. Flows starting in the first tenth are not measured.\n\n"
        + md_table(["run", "class", "size", "flows", "mean FCT (s)", "mean size/FCT (Mb/s)"], rows)
        + "\n\n| thesis (Fig. 6.16) | fctlab |\n|---|---|\n"
        + f"| long RCP flows share the bandwidth equally with long TCP flows | flows of {LONG // 1000} KB or more: RCP "
        f"{fmt(long_r, '.2f', 1e6)}, TCP {fmt(long_t, '.2f', 1e6)} Mb/s mean size/FCT |\n"
        + f"| RCP keeps short flow-completion times | flows under 10 KB: RCP {fmt(short_r, '.3f')} s, TCP "
        f"{fmt(short_t, '.3f')} s; RCP alone on the link {fmt(short_alone, '.3f')} s |\n"
        + "\nThe long flows do not share equally here: long TCP flows finish faster than long RCP flows. The scheme "
        "equalizes the classes' average per-flow rates y/N, with N the zombie lists' estimates, which count flows by "
        "their packets (1/sum of squared shares): in a heavy-tailed mix the few long flows carry most packets, so "
        "both N are small and the per-flow rates compared are roughly the long flows' own. But within its class "
        "RCP gives every flow the same R = C_R/(flows in C_R), short ones included (processor sharing), while "
        "TCP's long flows leave slow start and take more than the short TCP flows that share their queue; the "
        'thesis does not say which flows its "long" are or how it averaged. The short-flow claim holds: short RCP '
        "flows finish about a third sooner than short TCP flows, and within about 20% of RCP alone on the link.\n"
        + "\n![Fig. 6.16: mean FCT by size bin and class](fig6-16.png)\n"
    )


def _plot_fig616(ctx: Context, tables: dict[str, pl.DataFrame]) -> None:
    with figure(ctx, "fig6-16.png", figsize=(7, 3.2)) as (fig, ax):
        for n, t in tables.items():
            for cls in ("RCP", "TCP"):
                s = t.filter(pl.col("cls") == cls)
                if s.height:
                    ax.plot([str(b) for b in s["bin"]], s["fct"], "o-", label=f"{n}: {cls}")
        ax.set(xlabel="flow size", ylabel="mean FCT (s)", yscale="log")
        ax.legend(fontsize=7)


def experiment() -> Experiment:
    """Fig. 6.16: Poisson arrivals of RCP and TCP flows with Pareto sizes on the scheme's port."""
    pts = {s: _fig616_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-16",
        title="RCP thesis Fig. 6.16: a Poisson/Pareto mix of RCP and TCP flows",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_16,
        quick=scaled(pts),
    )
