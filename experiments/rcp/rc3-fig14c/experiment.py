"""The RC3 paper (Mittal et al., "Recursively Cautious Congestion Control", NSDI 2014), Fig. 14(c)
(sec. 5.1.4): RC3 and RCP against TCP on Internet-2 at 30% load, the mean FCT over flows and over
bytes and its reduction from TCP, overall and per flow size. It runs on the RC3 paper's baseline
(`experiments/rc3/internet2.toml`) with the RC3 paper's TCP and RC3 overrides and quick mode, and
stays with the RCP thesis's experiments as their comparison with RC3.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_fct, pm, reduction
from fctlab_experiments.rc3.common import QUICK, RC3, SEG, TCP
from fctlab_experiments.rc3.comparison import per_size_rows, seed_mean

#: Fig. 14(c)'s table: regular TCP, RCP and RC3 mean FCT (s) over flows and over bytes, and the
#: reductions (%) from TCP.
FIG14C = {"tcp": (0.135, 0.443), "rcp": (0.088, 0.117, 33.86, 73.58), "rc3": (0.076, 0.114, 43.54, 74.35)}


#: "RCP actually imposes a penalty for the very smallest (1-4 packet) flows" (sec. 5.1.4): its
#: reduction from TCP for them at most 0.
SMALLEST = 4
PENALTY = (None, 0.0)


def small_flow_reduction(runs: Runs, seeds: list[int], of: str) -> list[float]:
    """Per seed, `of`'s reduction (%) of the mean FCT from TCP's over the flows of at most
    `SMALLEST` segments."""
    out = []
    for sd in seeds:
        a, b = (runs.sample(n, sd).filter(pl.col("size_bytes") <= SMALLEST * SEG)["fct_s"].mean() for n in ("tcp", of))
        if a is not None and b is not None:
            out.append(reduction(float(a), float(b)))
    return out


def check_fig14c(ctx: Context, vals: dict[str, dict[str, list[float]]], small: list[float]) -> None:
    """Fig. 14(c)'s table (`vals`: per run, the mean FCT over flows "f" and over bytes "b" per seed;
    the reductions from TCP per seed, "red_f" and "red_b", for RCP and RC3), and RCP's penalty on the
    smallest flows (`small`: its reduction for them per seed)."""
    ctx.check("Fig. 14(c)", "regular TCP: mean FCT over flows (s)", FIG14C["tcp"][0], seed_mean(vals["tcp"]["f"]))
    ctx.check("Fig. 14(c)", "regular TCP: mean FCT over bytes (s)", FIG14C["tcp"][1], seed_mean(vals["tcp"]["b"]))
    for n, label in (("rcp", "RCP"), ("rc3", "RC3")):
        p = FIG14C[n]
        for quantity, paper, key in (
            ("mean FCT over flows (s)", p[0], "f"),
            ("mean FCT over bytes (s)", p[1], "b"),
            ("FCT reduction over flows (%)", p[2], "red_f"),
            ("FCT reduction over bytes (%)", p[3], "red_b"),
        ):
            ctx.check("Fig. 14(c)", f"{label}: {quantity}", paper, seed_mean(vals[n][key]))
    ctx.check(
        "sec. 5.1.4",
        f"RCP: FCT reduction from TCP, flows of 1 - {SMALLEST} segments (%) (a penalty)",
        PENALTY,
        seed_mean(small),
    )


def experiment() -> Experiment:
    rcp = {
        "transport.protocol": "rcp",
        "queues.host": {"kind": "droptail"},
        "queues.router": {"kind": "rcp", "limit": "5MB", "initial_rtt": 0.044, "initial_rate": 0.5},
    }

    def analyze(runs: Runs, ctx: Context) -> str:
        vals: dict[str, dict[str, list[float]]] = {n: {"f": [], "b": []} for n in ("tcp", "rcp", "rc3")}
        for n in vals:
            for sd in runs.seeds_of("tcp", "rcp", "rc3"):
                f, b = mean_fct(runs.sample(n, sd))
                vals[n]["f"].append(f)
                vals[n]["b"].append(b)
        rows = [["Regular (TCP) FCT (s)", "0.135", pm(vals["tcp"]["f"], ".3f"), "0.443", pm(vals["tcp"]["b"], ".3f")]]
        for n, label in (("rcp", "RCP"), ("rc3", "RC3")):
            p = FIG14C[n]
            red_f = vals[n]["red_f"] = [reduction(a, b) for a, b in zip(vals["tcp"]["f"], vals[n]["f"])]
            red_b = vals[n]["red_b"] = [reduction(a, b) for a, b in zip(vals["tcp"]["b"], vals[n]["b"])]
            rows.append(
                [f"{label} FCT (s)", f"{p[0]:.3f}", pm(vals[n]["f"], ".3f"), f"{p[1]:.3f}", pm(vals[n]["b"], ".3f")]
            )
            rows.append(
                [f"{label} % reduction", f"**{p[2]:.2f}**", f"**{pm(red_f)}**", f"**{p[3]:.2f}**", f"**{pm(red_b)}**"]
            )
        per = per_size_rows(runs, "tcp", ["rcp", "rc3"])
        check_fig14c(ctx, vals, small_flow_reduction(runs, runs.seeds_of("tcp", "rcp"), "rcp"))
        return (
            "Internet-2 at 30% load (the RC3 baseline, `experiments/rc3/internet2.toml`): TCP (NewReno, SACK, IW 4) "
            "over 5 MB drop-tail queues, RC3 over 5 MB priority queues, RCP over 5 MB `rcp` queues at every "
            "router port (R starts at 0.5 C, d at 44 ms, the mean path RTT; flows from 2 s are measured). RCP "
            "uses its default 52-byte headers, TCP and RC3 40. RC3 paper sec. 5.1.4: for large flows the two "
            "schemes are roughly neck and neck; RCP imposes a penalty on the smallest (1-4 packet) flows, partly "
            "because it paces packets at the assigned rate.\n\n"
            + md_table(["", "paper: over flows", "fctlab: over flows", "paper: over bytes", "fctlab: over bytes"], rows)
            + "\n\nReduction from TCP per flow size (%), mean over seeds:\n\n"
            + md_table(["segments", "RCP", "RC3"], per)
        )

    return Experiment(
        "rc3-fig14c",
        "RC3 paper Fig. 14(c): RC3 and RCP against TCP on Internet-2",
        "../rc3/internet2.toml",
        [("tcp", TCP), ("rcp", rcp), ("rc3", RC3)],
        2,
        analyze,
        quick=QUICK,
    )
