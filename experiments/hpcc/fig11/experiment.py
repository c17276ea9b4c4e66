"""HPCC's Fig. 11 (Li et al., SIGCOMM 2019): FCT slowdown by flow size of HPCC, DCQCN, TIMELY and
DCTCP on the paper's own fabric, the 320-server fat tree at 100/400 Gb/s, lossless (shared-buffer
switches with PFC), the hosts RDMA NICs (queue pairs without handshake, served round robin):
web search at 30% load, with and without incast, and at 50%; FB_Hadoop at 30%.

Each transport as the authors' `run.py` configures it for a 100 Gb/s NIC (`PROTOCOLS`, each
constant's source beside it); the ECN thresholds are run.py's maps (DCTCP: a step at K); the
switches' buffer 32 MB (BUFFER_SIZE 32). T, HPCC's base RTT, is the fabric's largest (GLOBAL_T
1): 2 x 6 us of propagation plus a 1000-byte packet's serialization on each of the 6 hops,
12.24 us (third.cc's `maxRtt`).

Slowdown is a flow's FCT over its standalone FCT as the authors' simulator computes it
(`fctlab.tools.hpcc_files.standalone_fct_ns`: the base RTT of its path plus its bytes with
headers at the path's slowest rate), and the tables are the authors' `analysis/fct_analysis.py`
(`slowdown.py`): 20 groups of 5% of the flows by size, 50th/95th/99th percentiles. The paper's
own 95th percentiles, read off the authors' results page for HPCC and DCTCP at 30% and 50%
(six size ranges), are the checks.

Incast, when on: every millisecond, 20 servers of other racks send 50 KB each to one server
(fctlab's choice; the paper's incast parameters were not available here).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab.tools.hpcc_files import standalone_fct_ns
from fctlab_experiments.hpcc.incast import incast_flows as make_incast
from fctlab_experiments.hpcc.slowdown import LABELS, PAPER_P95, by_range, groups

#: HPCC's base RTT T (third.cc's maxRtt on this fabric) and the NIC's rate.
MAX_RTT, NIC = "12240ns", "100Gbps"
#: The transports, as overrides of `fat-tree.toml`: run.py's settings for `--bw 100`.
PROTOCOLS: dict[str, dict[str, Any]] = {
    # CC_MODE 3, U_TARGET 0.95, MI_THRESH 0 (the authors: maxStage 0 in the simulations), RATE_AI
    # 10 x bw / 25 = 40 Mb/s = fctlab's default W_AI (W_init / 2500); INT at every switch port.
    "hpcc": {
        "queues.router": {"kind": "hpcc"},
        "transport": {"protocol": "hpcc", "line_rate": NIC, "base_rtt": MAX_RTT, "eta": 0.95, "max_stage": 0},
    },
    # CC_MODE 1 (`dcqcn`): RATE_AI 5 x bw / 25 = 20 Mb/s, RATE_HAI 50 x bw / 25 = 200 Mb/s,
    # MIN_RATE 1000 Mb/s, EWMA_GAIN 1/256, RP_TIMER 300 us, FAST_RECOVERY_TIMES 1,
    # ALPHA_RESUME_INTERVAL 1 us, RATE_DECREASE_INTERVAL 4 us, CLAMP_TARGET_RATE 0; the authors'
    # NIC: a CNP on every marked packet's ACK, a cut checked every 4 us, no byte counter, its
    # hyper-additive steps R_HAI each. ACK_HIGH_PRIO 1: the NICs' ACKs pass a pause. The
    # simulator's NIC takes a queue pair's packets one at a time (nic_pull), as for TIMELY.
    "dcqcn": {
        "fabric.control_pauses": False,
        "transport": {
            "protocol": "dcqcn",
            "line_rate": NIC,
            "min_rate": "1Gbps",
            "rate_ai": "20Mbps",
            "rate_hai": "200Mbps",
            "dcqcn_g": 0.00390625,
            "timer": "300us",
            "fast_recovery": 1,
            "alpha_timer": "1us",
            "cnp_interval": "0us",
            "rate_decrease_interval": "4us",
            "byte_counter": 0,
            "clamp_target": False,
            "hyper_step": "fixed",
            "nic_pull": True,
        },
    },
    # CC_MODE 7 (`timely`): RATE_AI 10 x bw / 10 = 100 Mb/s, RATE_HAI 500 Mb/s.
    # MIN_RATE 1000 Mb/s, ACK_HIGH_PRIO 1; the simulator's TIMELY: HAI after five increases in
    # a row, its constants the paper's (rdma-hw.cc), a timestamp in every data packet (8 B).
    "timely": {
        "fabric.control_pauses": False,
        "transport": {
            "protocol": "timely",
            "line_rate": NIC,
            "min_rate": "1Gbps",
            "delta": "100Mbps",
            "hai_after": "increases",
            "header": 56,
            "nic_pull": True,
        },
    },
    # CC_MODE 8 (`dctcp`): a step at K = 30 x bw / 10 KB (300 KB at 100 Gb/s, 1200 KB at 400), g =
    # 1/16 (EWMA_GAIN 0.0625), a window of one BDP at the start and at most (HAS_WIN: maxBdp = 153 KB).
    "dctcp": {
        "fabric.ecn": [
            {"rate": "100Gbps", "kmin": "300KB", "kmax": "300KB", "pmax": 1.0},
            {"rate": "400Gbps", "kmin": "1200KB", "kmax": "1200KB", "pmax": 1.0},
        ],
        "transport": {"protocol": "tcp", "cc": "dctcp", "dctcp_g": 0.0625, "iw": 153, "rwnd": 153_000},
    },
}
#: (name, load, sizes, incast) of the panels.
PANELS = [
    ("ws30", 0.3, "websearch", False),
    ("ws30-incast", 0.3, "websearch", True),
    ("ws50", 0.5, "websearch", False),
    ("fb30", 0.3, "fb-hadoop", False),
]
SERVERS, RACK = 320, 16
INCAST_EVERY_S, INCAST_SENDERS, INCAST_BYTES = 1e-3, 20, 50_000
DURATION_S = 0.02


def incast_flows(duration_s: float) -> list[dict[str, Any]]:
    """The incast events of a run of `duration_s` (`hpcc/incast.py`)."""
    return make_incast(
        duration_s, SERVERS, RACK, "n", every_s=INCAST_EVERY_S, senders=INCAST_SENDERS, size=INCAST_BYTES
    )


def workloads(load: float, sizes: str, incast: bool, duration_s: float) -> list[dict[str, Any]]:
    """The background traffic, and the incast events if `incast`."""
    background = {"kind": "poisson", "load": load, "sizes": {"kind": "cdf", "name": sizes}}
    background["pairs"] = {"kind": "uniform"}
    return [background, {"kind": "flows", "flows": incast_flows(duration_s)}] if incast else [background]


def point_name(panel: str, protocol: str) -> str:
    return f"{panel}-{protocol}"


def overrides(protocol: str) -> dict[str, Any]:
    """A transport's overrides of `fat-tree.toml`, its `transport` keys as dotted paths: they
    join the base's `[transport]` (queue pairs, packet sizes) instead of replacing it."""
    out: dict[str, Any] = {}
    for key, value in PROTOCOLS[protocol].items():
        if key == "transport":
            out.update({f"transport.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def points() -> list[tuple[str, dict[str, Any]]]:
    return [
        (point_name(panel, p), {"workload": workloads(load, sizes, incast, DURATION_S), **overrides(p)})
        for panel, load, sizes, incast in PANELS
        for p in PROTOCOLS
    ]


#: Quick mode: 2 ms of arrivals.
QUICK_S = 0.002


def quick(name: str, over: dict[str, Any]) -> dict[str, Any]:
    """Quick mode's overrides of point `name`: a shorter run, its incast events if any."""
    _, load, sizes, incast = next(p for p in PANELS if p[0] == name.rsplit("-", 1)[0])
    return {"duration": QUICK_S, "max_time": 0.5, "workload": workloads(load, sizes, incast, QUICK_S)}


def slowdowns(runs: Runs, name: str, seed: int) -> tuple[list[int], list[float]]:
    """(size, slowdown) of the completed background flows of a run, each flow ending when its
    sender had every byte acknowledged (`acked_s`) and its standalone FCT computed on its path,
    both as the authors' simulator does."""
    flows = runs.flows(name, seed)
    links = runs.links(name, seed)
    rate = dict(zip(links["id"].to_list(), links["rate_bps"].to_list(), strict=True))
    delay = dict(zip(links["id"].to_list(), (round(d * 1e9) for d in links["delay_s"].to_list()), strict=True))
    done = flows.filter((pl.col("workload") == "w0") & pl.col("acked_s").is_not_null())
    done = done.with_columns(fct=pl.col("acked_s") - pl.col("start_s"))
    sizes, slow = [], []
    columns = (done["size_bytes"].to_list(), done["path"].to_list(), done["fct"].to_list())
    for size, path, fct in zip(*columns, strict=True):
        alone = standalone_fct_ns(size, [rate[k] for k in path], [delay[k] for k in path])
        sizes.append(size)
        slow.append(fct * 1e9 / alone)
    return sizes, slow


def analyze(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    body = []
    missed: list[str] = []
    ranges: dict[tuple[str, str], dict[float, dict[str, tuple[float | None, int]]]] = {}
    for panel, load, sizes_name, incast in PANELS:
        names = [(p, point_name(panel, p)) for p in PROTOCOLS if point_name(panel, p) in runs.names]
        if not names:
            continue
        body.append(f"## {panel}: {sizes_name}, load {load:g}{' + incast' if incast else ''}\n")
        rows = []
        for p, name in names:
            sz, sl = slowdowns(runs, name, seed)
            meta = runs.meta(name, seed)
            fab = meta.get("fabric") or {}
            ranges[(panel, p)] = {q: by_range(sz, sl, q) for q in (0.5, 0.95, 0.99)}
            for g in groups(sz, sl):
                if g.upto in (0.25, 0.5, 0.75, 0.9, 0.95, 1.0):
                    rows.append([p, f"{g.upto:.2f}", str(g.size), f"{g.p50:.2f}", f"{g.p95:.2f}", f"{g.p99:.2f}"])
            body.append(
                f"- {p}: {len(sz)} flows completed of {meta.get('flows_started', '?')}, dropped packets "
                f"{meta.get('dropped_pkts', 0)}, PAUSE frames {fab.get('pause_frames', 0)}"
            )
        body.append(
            "\nThe authors' table (`fct_analysis.py`): flows sorted by size in groups of 5%; a row of every few groups "
            "(up to: the fraction of flows; size: the group's largest).\n"
        )
        body.append(md_table(["protocol", "up to", "size (B)", "p50", "p95", "p99"], rows))
        body.append("")
        for p in PROTOCOLS:
            st = ranges.get((panel, p))
            if st is None or incast or sizes_name != "websearch" or p not in PAPER_P95:
                continue
            for b, paper in zip(LABELS, PAPER_P95[p][load], strict=True):
                got = st[0.95][b][0]
                ctx.check(
                    "Fig. 11 (authors' page)",
                    f"{p}, web search {load:g}: p95 slowdown, {b} (ratio)",
                    paper,
                    got,
                    tolerance=0.15,
                )
                if got is not None and abs(got - paper) > 0.15 * paper:
                    missed.append(f"{p} at {load:g}, {b}: {got:.2f} against {paper:g} ({(got - paper) / paper:+.0%})")
    _plot(ranges, ctx)
    first = next(n for n in runs.names)
    duration = runs.scenario(first, seed).get("duration")
    head = (
        "FCT slowdown by size on the HPCC paper's fat tree (320 servers, 100/400 Gb/s, lossless, RDMA queue pairs "
        "on round-robin NICs), each transport as the authors' run.py sets it; "
        f"{duration} of Poisson arrivals per run (s), one seed.\n\n"
        "![95th-percentile slowdown by size range](p95-slowdown.png)\n\n"
    )
    ranges_table = _ranges_table(ranges)
    return head + ranges_table + "\n\n" + "\n".join(body) + "\n" + _not_reached(missed) + SAME_FLOWS


def _not_reached(missed: list[str]) -> str:
    """What of the paper's numbers these runs miss by more than 15%, and what is known of why."""
    if not missed:
        return "\n**Every p95 of the paper's page is reached within 15%.**\n"
    return (
        "\n**Not reached (more than 15% from the paper's page):** "
        + "; ".join(missed)
        + ". Why is open: HPCC's simulator has been run here only at 30% load (`REFERENCE.md`), where it and "
        "fctlab agree with the paper, so at 50% a gap of fctlab's cannot yet be told from one of the flows' (one "
        "seed of 20 ms of fctlab's own arrivals) or from the page's reading (about 10%).\n"
    )


#: What the runs of this experiment cannot show alone.
SAME_FLOWS = """
**The same flows as the authors.** These runs draw their flows from fctlab's Poisson generator,
one seed, so a range with few long flows moves with the seed. `experiments/hpcc/REFERENCE.md`
runs fctlab and HPCC's simulator on the authors' own flows (their `traffic_gen.py`, 20 ms of web
search at 30%, seeded with 1) and their own configuration files, and sets both beside the paper's
p95 by size range and beside each other. The paper's values are read off the authors' results
page to about 10%.
"""


def _ranges_table(ranges: dict) -> str:
    rows = []
    for (panel, p), st in ranges.items():
        rows.append([panel, p] + [f"{fmt(st[0.95][b][0], '.2f')} ({st[0.95][b][1]})" for b in LABELS])
        load = 0.5 if panel == "ws50" else 0.3
        if panel in ("ws30", "ws50") and p in PAPER_P95:
            rows.append([panel, f"{p}, paper"] + [f"{x:g}" for x in PAPER_P95[p][load]])
    return (
        "95th-percentile slowdown (flows) per size range of the authors' figures; the `paper` rows are read off "
        "their results page.\n\n" + md_table(["panel", "protocol", *LABELS], rows)
    )


COLORS = {"hpcc": "tab:blue", "dcqcn": "tab:green", "timely": "tab:red", "dctcp": "tab:orange"}


def _plot(ranges: dict, ctx: Context) -> None:
    panels = [p for p, *_ in PANELS]
    with figure(ctx, "p95-slowdown.png", 1, len(panels), figsize=(16, 3.4), squeeze=False) as (fig, axes):
        for k, panel in enumerate(panels):
            ax = axes[0][k]
            for proto, color in COLORS.items():
                st = ranges.get((panel, proto))
                if st:
                    xs = [i for i, b in enumerate(LABELS) if st[0.95][b][0] is not None]
                    ax.plot(xs, [st[0.95][LABELS[i]][0] for i in xs], marker="o", color=color, label=proto)
                if panel in ("ws30", "ws50") and proto in PAPER_P95:
                    load = 0.5 if panel == "ws50" else 0.3
                    ax.plot(range(len(LABELS)), PAPER_P95[proto][load], ls="--", color=color, alpha=0.5)
            ax.set(title=panel, ylabel="p95 slowdown", yscale="log")
            ax.set_xticks(range(len(LABELS)), LABELS, rotation=30, fontsize=7)
            if any(not line.get_label().startswith("_") for line in ax.lines):
                ax.legend(fontsize=6)


def experiment() -> Experiment:
    return Experiment(
        name="fig11",
        title="Fig. 11: FCT slowdown of HPCC, DCQCN, TIMELY and DCTCP on the lossless fat tree",
        base="fat-tree.toml",
        points=points(),
        seeds=1,
        analyze=analyze,
        quick=quick,
        quick_points=[point_name("ws30", p) for p in PROTOCOLS],
    )
