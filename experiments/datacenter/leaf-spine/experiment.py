"""The datacenter baselines side by side: every protocol of fctlab on pFabric's leaf-spine
fabric, as FCT slowdown per size bin against load, beside the PS and SRPT ideals.

The setup (pFabric, Alizadeh et al. SIGCOMM 2013, sec. 5.1, and the studies after it): 144
hosts in 9 racks of 16 under 4 spines, 10 Gb/s edge and 40 Gb/s core links, ECMP; Poisson
arrivals between uniformly chosen hosts at a load relative to the hosts' links; web-search
(DCTCP) and data-mining (VL2) sizes. Base scenario `experiments/datacenter/leaf-spine.toml`.

Each protocol runs with its own queues (`fabric.PROTOCOLS`), slowdowns as `fabric` says. The
ideals are fluid schedules of the same flows (same starts, sizes and paths, from the TCP run):
max-min fair sharing (PS, `fctlab.reference.ps_fct`) and greedy shortest-remaining-first (SRPT,
`fctlab.reference.srpt_fct`, pFabric's "ideal"), each with the same 1.5 round trips added.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reference import ps_fct, srpt_fct
from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table, plt
from fctlab_experiments.datacenter.fabric import BINS, LARGE, PROTOCOLS, SMALL, bin_stats, size_bin, slowdowns

LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
WORKLOADS = {"websearch": "websearch", "datamining": "datamining"}


def point_name(workload: str, load: float, protocol: str) -> str:
    return f"{workload}-load{load:g}-{protocol}"


def points() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for w, cdf in WORKLOADS.items():
        for load in LOADS:
            for p, o in PROTOCOLS.items():
                over = {"workload.0.load": load, "workload.0.sizes": {"kind": "cdf", "name": cdf}, **o}
                out.append((point_name(w, load, p), over))
    return out


def _ideals(runs: Runs, name: str, seed: int) -> dict[str, pl.DataFrame]:
    """PS and SRPT slowdowns of the measured flows of run `name` (their own starts and paths)."""
    flows, links = runs.flows(name, seed), runs.links(name, seed)
    measured = flows.filter(pl.col("measured") & (pl.col("size_bytes") >= 0))
    out = {}
    for label, fn, col in (("ps", ps_fct, "ps_fct_s"), ("srpt", srpt_fct, "srpt_fct_s")):
        ref = fn(flows, links).join(measured.select("id", "size_bytes", "ideal_fct_s"), on="id")
        out[label] = ref.select(
            "id", "size_bytes", slowdown=pl.col(col) / pl.col("ideal_fct_s"), bin=size_bin(pl.col("size_bytes"))
        )
    return out


def analyze(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    rows = []
    table: dict[tuple[str, float, str], dict[str, tuple[float | None, float | None, int]]] = {}
    incomplete: dict[str, int] = {}
    for w in WORKLOADS:
        for load in LOADS:
            if point_name(w, load, "tcp") not in runs.names:
                continue
            for label, frame in _ideals(runs, point_name(w, load, "tcp"), seed).items():
                table[(w, load, label)] = bin_stats(frame, "slowdown")
            for p in PROTOCOLS:
                name = point_name(w, load, p)
                table[(w, load, p)] = bin_stats(slowdowns(runs, name, seed), "slowdown")
                f = runs.flows(name, seed)
                incomplete[name] = f.filter(
                    pl.col("measured") & (pl.col("size_bytes") >= 0) & pl.col("fct_s").is_null()
                ).height
    names = [*PROTOCOLS, "ps", "srpt"]
    for (w, load, p), st in table.items():
        rows.append(
            [w, f"{load:g}", p]
            + [f"{fmt(st[b][0], '.2f')} / {fmt(st[b][1], '.2f')} ({st[b][2]})" for b in BINS]
            + [str(incomplete.get(point_name(w, load, p), "-"))]
        )
    rank = _ranking(table)
    _check_ranking(table, ctx)
    _plot(table, ctx)
    return (
        "Every protocol on pFabric's leaf-spine fabric (144 hosts, 9 racks, 4 spines, 10/40 Gb/s, ECMP), Poisson "
        "arrivals between uniform host pairs, measured flows starting in [5 ms, 50 ms) and run to completion (at most "
        "1 s). Cells: mean / 99th-percentile FCT slowdown (FCT over the flow alone on the empty fabric) and the number "
        f"of flows, per size bin: small < {SMALL // 1000} KB, large > {LARGE // 1_000_000} MB. `ps` and `srpt` are the "
        "fluid ideals of the same flows (from the TCP run). Last column: measured flows of the run that never "
        "completed (left out of the statistics).\n\n"
        + md_table(
            ["workload", "load", "protocol", "small", "medium", "large", "incomplete"],
            rows,
        )
        + "\n\n## Ranking by small flows' mean slowdown\n\n"
        + rank
        + "\n\n![mean slowdown of small flows against load](small-flows.png)\n"
        + "\n\nProtocols: "
        + ", ".join(names)
        + ".\n\n"
        + "**Where this setup differs from the papers'.** fctlab's flows open with a handshake (the papers' "
        "simulators send at once), so every FCT here has one more round trip than theirs, a few percent of a small "
        "flow's; TCP's, DCTCP's and RC3's RTO is at least 1 ms (also before the first RTT sample), RCP's routers "
        "start from a 15 us average RTT; one seed and 45 ms of arrivals per point, so the large-flow bin holds few "
        "flows (its count is in each cell). The paper's comparison is a ranking, checked above and at the end; "
        "the exact values of its Figs. 9-10 are not reproduced here.\n"
    )


#: pFabric's Figs. 9-10 (sec. 5.2): for small flows pFabric is close to the ideal and far ahead
#: of DCTCP, which is ahead of TCP; the ranking checked, not the paper's exact values.
PAPER_ORDER = ["pfabric", "dctcp", "tcp"]


def _ranking(table: dict) -> str:
    lines = [
        "| workload | load | small-flow ranking (mean slowdown) | paper's order (pFabric < DCTCP < TCP) |",
        "|---|---|---|---|",
    ]
    for w in WORKLOADS:
        for load in LOADS:
            means = {p: table.get((w, load, p), {}).get("small", (None,))[0] for p in PAPER_ORDER}
            if any(v is None for v in means.values()):
                continue
            order = sorted(means, key=lambda p: means[p])
            agree = "agrees" if order == PAPER_ORDER else "differs"
            lines.append(f"| {w} | {load:g} | {' < '.join(f'{p} {means[p]:.2f}' for p in order)} | {agree} |")
    return "\n".join(lines)


def _check_ranking(table: dict, ctx: Context) -> None:
    """Figs. 9-10's ranking as checks, per workload and load: DCTCP's small-flow mean slowdown over
    pFabric's, and TCP's over DCTCP's, each at least 1 (a match; within 10% of 1, a near tie,
    partial)."""
    for w in WORKLOADS:
        for load in LOADS:
            means = {p: table.get((w, load, p), {}).get("small", (None,))[0] for p in PAPER_ORDER}
            if all(v is None for v in means.values()):
                continue
            for better, worse in zip(PAPER_ORDER, PAPER_ORDER[1:]):
                ctx.check(
                    "Figs. 9-10",
                    f"{w}, load {load:g}: {worse}'s small-flow mean slowdown over {better}'s",
                    (1.0, None),
                    ratio(means[worse], means[better]),
                    tolerance=0.0,
                    partial=0.1,
                )


def _plot(table: dict, ctx: Context) -> None:
    p = plt()
    fig, axes = p.subplots(1, len(WORKLOADS), figsize=(11, 3.5), squeeze=False)
    for ax, w in zip(axes[0], WORKLOADS):
        for name in [*PROTOCOLS, "ps", "srpt"]:
            xs = [load for load in LOADS if (w, load, name) in table and table[(w, load, name)]["small"][0] is not None]
            ys = [table[(w, load, name)]["small"][0] for load in xs]
            if xs:
                ax.plot(xs, ys, marker="o", ms=3, label=name, ls="--" if name in ("ps", "srpt") else "-")
        ax.set(
            title=f"{w}: small flows (< {SMALL // 1000} KB)", xlabel="load", ylabel="mean FCT slowdown", yscale="log"
        )
        if ax.lines:
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "small-flows.png", dpi=110)
    p.close(fig)


def experiment() -> Experiment:
    return Experiment(
        name="leaf-spine",
        title="Datacenter baselines on pFabric's leaf-spine: FCT slowdown by size bin against load",
        base="leaf-spine.toml",
        points=points(),
        seeds=1,
        analyze=analyze,
        quick={"duration": 0.01, "measure_from": 0.001, "max_time": 0.1},
        quick_points=[point_name("websearch", load, p) for load in (0.3, 0.6) for p in PROTOCOLS],
    )
