"""The RC3 paper's simulation results (sec. 5.1) and the simulated side of sec. 5.2.

Every experiment runs the base scenario `experiments/rc3/internet2.toml` (or another base)
under named overrides. TCP baselines use drop-tail FIFOs of the same buffer: with every packet
at priority 0 a strict-priority queue behaves exactly like one, and the FIFO path is faster.
Paper numbers are copied from the paper's text (figures without numbers in the text are
compared by shape only, and say so).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.models import larger_iw_model_reduction, rc3_model_reduction
from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_fct, mean_std, plt, pm, reduction

SEG = 1460
#: Overrides that turn the base scenario into the TCP baseline.
TCP = {"transport.protocol": "tcp", "queues.router": {"kind": "droptail", "limit": "5MB"},
       "queues.host": {"kind": "droptail"}}
RC3 = {"transport.protocol": "rc3"}
#: Quick mode: shorter runs (arrivals for 1.5 s, the last second measured).
QUICK = {"duration": "1.5s", "measure_from": "0.5s"}

#: Fig. 8 (and the 1 Gb/s x 40 ms row of Fig. 9): load -> (TCP flows, TCP bytes, RC3 flows, RC3 bytes, % flows, % bytes).
FIG8 = {
    10: (0.125, 0.423, 0.068, 0.091, 45.56, 78.36),
    30: (0.135, 0.443, 0.076, 0.114, 43.54, 74.35),
    50: (0.150, 0.498, 0.088, 0.176, 41.44, 64.88),
}


def _with(*parts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in parts:
        out.update(p)
    return out


def _fmt_s(x: float) -> str:
    return f"{x:.3f}"


def _pair_rows(runs: Runs, a: str, b: str) -> dict[str, list[float]]:
    """Per seed: mean FCT over flows and over bytes of runs a and b, and the reductions."""
    out: dict[str, list[float]] = {"a_f": [], "a_b": [], "b_f": [], "b_b": [], "red_f": [], "red_b": []}
    for s in runs.seeds:
        af, ab = mean_fct(runs.sample(a, s))
        bf, bb = mean_fct(runs.sample(b, s))
        for k, v in (("a_f", af), ("a_b", ab), ("b_f", bf), ("b_b", bb),
                     ("red_f", reduction(af, bf)), ("red_b", reduction(ab, bb))):
            out[k].append(v)
    return out


def _per_size(runs: Runs, a: str, b: str) -> pl.DataFrame:
    """Per flow size and seed: mean FCT of a and b and the reduction."""
    rows = []
    for s in runs.seeds:
        ga = runs.sample(a, s).group_by("size_bytes").agg(pl.col("fct_s").mean().alias("a"), pl.len().alias("n"))
        gb = runs.sample(b, s).group_by("size_bytes").agg(pl.col("fct_s").mean().alias("b"))
        j = ga.join(gb, on="size_bytes").with_columns(seed=pl.lit(s))
        rows.append(j)
    df = pl.concat(rows).with_columns(red=(pl.col("a") - pl.col("b")) / pl.col("a") * 100.0)
    return df.sort(["size_bytes", "seed"])


def _size_table(df: pl.DataFrame) -> tuple[list[int], list[float], list[float]]:
    sizes, means, stds = [], [], []
    for size, g in df.group_by("size_bytes", maintain_order=True):
        m, sd = mean_std(g["red"].to_list())
        sizes.append(int(size[0]))
        means.append(m)
        stds.append(sd)
    return sizes, means, stds


def _mean_rtt(runs: Runs, name: str) -> float:
    return float(runs.sample(name, runs.seeds[0])["rtt_prop_s"].mean())


def _two_way_table(runs: Runs, rows: list[tuple[str, str, str, tuple | None]]) -> str:
    """The paper's table layout: per setting, regular and RC3 mean FCT over flows and bytes."""
    header = ["setting", "", "paper: over flows", "fctlab: over flows", "paper: over bytes", "fctlab: over bytes"]
    out = []
    for label, a, b, paper in rows:
        r = _pair_rows(runs, a, b)
        p = paper or (None,) * 6
        ps = (lambda x: "-" if x is None else f"{x:.3f}")
        pp = (lambda x: "-" if x is None else f"**{x:.2f}**")
        out.append([label, "Regular FCT (s)", ps(p[0]), pm(r["a_f"], ".3f"), ps(p[1]), pm(r["a_b"], ".3f")])
        out.append(["", "RC3 FCT (s)", ps(p[2]), pm(r["b_f"], ".3f"), ps(p[3]), pm(r["b_b"], ".3f")])
        out.append(["", "% reduction", pp(p[4]), f"**{pm(r['red_f'])}**", pp(p[5]), f"**{pm(r['red_b'])}**"])
    return md_table(header, out)


# ---------------------------------------------------------------------------------------------
# Fig. 4: the model alone.


def analyze_fig4(runs: Runs, ctx: Context) -> str:
    pyplot = plt()
    sizes = [1.2 ** k for k in range(0, 60)]
    bw, u, rtt = 1e9, 0.3, 0.04
    fig, ax = pyplot.subplots(figsize=(6, 3.5))
    ax.plot(sizes, [rc3_model_reduction(n, bw, u, rtt, 4) for n in sizes], label="RC3 (IW 4 baseline)")
    for iw in (10, 50):
        ax.plot(sizes, [larger_iw_model_reduction(n, bw, u, rtt, 4, iw) for n in sizes], "--", label=f"IW {iw}")
    ax.set_xscale("log")
    ax.set_xlabel("flow size (segments)")
    ax.set_ylabel("FCT reduction over TCP IW 4 (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "fig4.png", dpi=120)
    rows = [[n, f"{rc3_model_reduction(n, bw, u, rtt, 4):.1f}", f"{larger_iw_model_reduction(n, bw, u, rtt, 4, 10):.1f}",
             f"{larger_iw_model_reduction(n, bw, u, rtt, 4, 50):.1f}"] for n in (1, 4, 5, 10, 40, 100, 400, 1000, 2107, 10000)]
    return (
        "The performance model of sec. 3 (`fctlab.models`): FCT reduction against flow size for RC3 and for "
        "larger initial windows, at BW = 1 Gb/s, utilization u = 0.3, RTT = 40 ms, baseline IW 4. TCP spends "
        "log2(min(N, A x RTT)/i) round trips in slow start (A = (1 - u) BW); RC3 sends the whole flow at A. "
        "The paper gives Fig. 4 as a curve without numbers; its stated shape is what the plot shows: no gain "
        "up to the initial window, a peak near N = A x RTT, then a decline as 1/N; a larger initial window "
        "always below RC3.\n\n"
        + md_table(["size (segments)", "RC3 (%)", "IW 10 (%)", "IW 50 (%)"], rows)
        + "\n\n![Fig. 4](fig4.png)\n"
    )


# ---------------------------------------------------------------------------------------------
# Figs. 7, 8, 10, 13: Internet-2 at 10 / 30 / 50% load.


def analyze_load(runs: Runs, ctx: Context) -> str:
    pyplot = plt()
    parts = []
    parts.append(
        "Internet-2, RTT x BW = 5 MB, TCP (NewReno, SACK, IW 4) against RC3 at 10, 30 and 50% load. "
        "Mean over seeds ± standard deviation across seeds. Flows starting in [2 s, 5 s) are measured; "
        "fctlab drains the network so every measured flow completes (the authors' script cut RC3 flows at 5 s "
        "and TCP flows at 10 s, which drops the slowest late flows from their averages).\n\n"
        "## Fig. 8: load\n\n"
        + _two_way_table(runs, [(f"{load}% load", f"tcp-{load}", f"rc3-{load}", FIG8[load]) for load in (10, 30, 50)])
    )

    # Fig. 7: per-size reduction at 30% with the model.
    df = _per_size(runs, "tcp-30", "rc3-30")
    sizes, means, stds = _size_table(df)
    rtt = _mean_rtt(runs, "tcp-30")
    model = [rc3_model_reduction(s / SEG, 1e9, 0.3, rtt, 4) for s in sizes]
    rows = [[f"{s // SEG}", f"{s}", f"{mo:.1f}", f"{m:.1f} ± {sd:.1f}"] for s, mo, m, sd in zip(sizes, model, means, stds)]
    fig, ax = pyplot.subplots(figsize=(6, 3.5))
    segs = [s / SEG for s in sizes]
    ax.errorbar(segs, means, yerr=stds, fmt="o-", capsize=3, label="fctlab simulation")
    ax.plot(segs, model, "s--", label=f"model (u = 0.3, RTT = {rtt * 1e3:.1f} ms)")
    ax.set_xscale("log")
    ax.set_xlabel("flow size (segments)")
    ax.set_ylabel("FCT reduction (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "fig7.png", dpi=120)
    parts.append(
        "## Fig. 7: reduction per flow size, model against simulation (30% load)\n\n"
        f"The model uses the measured flows' mean round-trip propagation ({rtt * 1e3:.1f} ms). The paper reports "
        "no gain up to the initial window (4 segments) and 40 - 75% for larger flows, simulation tracking the "
        "model, slightly below it for large flows (queueing) and above it for flows of <= 4 segments.\n\n"
        + md_table(["segments", "bytes", "model (%)", "fctlab (%)"], rows)
        + "\n\n![Fig. 7](fig7.png)"
    )

    # Fig. 10: CDFs of the 7.3 KB and 1.7 MB flows at 30% load.
    fig, axes = pyplot.subplots(1, 2, figsize=(9, 3.5))
    prow = []
    for ax, size, label in ((axes[0], 7300, "7.3 KB"), (axes[1], 1733020, "1.7 MB")):
        for name, style in (("tcp-30", "-"), ("rc3-30", "--")):
            fct = pl.concat([runs.sample(name, s) for s in runs.seeds]).filter(pl.col("size_bytes") == size)["fct_s"].sort()
            n = len(fct)
            ax.plot(fct.to_list(), [(i + 1) / n for i in range(n)], style, label=name.split("-")[0].upper())
            q = [fct.quantile(p, "linear") for p in (0.01, 0.5, 0.99)]
            prow.append([label, name.split("-")[0].upper(), n] + [f"{x * 1e3:.1f}" for x in q])
        ax.set_title(label)
        ax.set_xlabel("FCT (s)")
        ax.set_ylabel("CDF")
        ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "fig10.png", dpi=120)
    parts.append(
        "## Fig. 10: FCT distribution of the 7.3 KB and 1.7 MB flows (30% load)\n\n"
        "The paper shows the CDFs without numbers: RC3 improves every percentile, 1st to 99th, with steps at "
        "multiples of the path RTTs. fctlab's percentiles (ms, all seeds pooled):\n\n"
        + md_table(["flow size", "protocol", "flows", "p1", "p50", "p99"], prow)
        + "\n\n![Fig. 10](fig10.png)"
    )

    # Fig. 13: median throughput per flow size (30% load).
    trow = []
    for size in sizes:
        vals = []
        for name in ("tcp-30", "rc3-30"):
            f = pl.concat([runs.sample(name, s) for s in runs.seeds]).filter(pl.col("size_bytes") == size)
            vals.append(float((f["size_bytes"] * 8 / f["fct_s"]).median()) / 1e6)
        trow.append([f"{size // SEG}", f"{vals[0]:.2f}", f"{vals[1]:.2f}"])
    parts.append(
        "## Fig. 13: median flow throughput (size / FCT, Mb/s) per flow size (30% load)\n\n"
        "The paper (no numbers in the text): TCP's throughput is near-optimal up to 4 segments, very low for "
        "medium flows and only slightly higher for the largest; RC3 keeps it high for every size, with a "
        "slight bias towards medium flows.\n\n"
        + md_table(["segments", "TCP (Mb/s)", "RC3 (Mb/s)"], trow)
    )
    return "\n\n".join(parts)


def experiments() -> list[Experiment]:
    """The RC3 paper's simulation experiments, in paper order."""
    loads = [(f"{p}-{load}", _with(proto, {"workload.0.load": load / 100})) for load in (10, 30, 50)
             for p, proto in (("tcp", TCP), ("rc3", RC3))]
    return [
        Experiment("fig4-model", "RC3 paper Fig. 4: the performance model", "internet2.toml", [], 1, analyze_fig4),
        Experiment("internet2-load", "RC3 paper Figs. 7, 8, 10, 13: Internet-2 at 10, 30 and 50% load",
                   "internet2.toml", loads, 10, analyze_load, quick_seeds=1, quick=QUICK),
    ]
