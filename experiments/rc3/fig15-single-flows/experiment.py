"""RC3 paper Fig. 15, the simulated side (sec. 5.2): single flows on an idle path of 20 ms at
10 Gb/s and 1 Gb/s, under TCP's and RC3's senders."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, plt, reduction
from fctlab_experiments.rc3.common import SEG

#: Fig. 15's flow sizes (segments), one flow at a time.
FIG15_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
#: Fig. 15's initial window (segments).
FIG15_IW = 10
#: Fig. 15's senders: the ns-3-style ones (an ACK per segment, +1 segment per ACK in slow
#: start), Linux's growth per delayed ACK (an ACK per two segments, RFC 3465 L = 2), the same
#: with stretch ACKs of 8 segments (what receive offload's batches do at 10 Gb/s, sec. 5.2), and
#: CUBIC.
FIG15_VARIANTS: dict[str, dict[str, Any]] = {
    "tcp": {"transport.protocol": "tcp"},
    "rc3": {"transport.protocol": "rc3"},
    "tcp-linux": {"transport.protocol": "tcp", "transport.delayed_ack": {"count": 2}, "transport.abc": 2},
    "tcp-stretch8": {"transport.protocol": "tcp", "transport.delayed_ack": {"count": 8}, "transport.abc": 2},
    "tcp-cubic": {"transport.protocol": "tcp", "transport.cc": "cubic"},
    "rc3-cubic": {"transport.protocol": "rc3", "transport.cc": "cubic"},
}
FIG15_LABELS = {
    "tcp": "TCP (ns-3 style)",
    "tcp-linux": "TCP, delayed ACK 2, L = 2",
    "tcp-stretch8": "TCP, stretch ACK 8, L = 2",
    "rc3": "RC3",
    "tcp-cubic": "TCP CUBIC",
    "rc3-cubic": "RC3 CUBIC",
}


def points() -> list[tuple[str, dict[str, Any]]]:
    flows = [{"src": "l0", "dst": "r0", "start": 2 * i, "size": n * SEG} for i, n in enumerate(FIG15_SIZES)]
    pts = []
    for bw in ("10Gbps", "1Gbps"):
        topo = {
            "kind": "dumbbell",
            "hosts_per_side": 1,
            "bottleneck_rate": bw,
            "bottleneck_delay": "10ms",
            "access_rate": bw,
            "access_delay": "0s",
        }
        for p, extra in FIG15_VARIANTS.items():
            pts.append(
                (
                    f"{p}-{bw}",
                    {
                        **extra,
                        "topology": topo,
                        "transport.iw": FIG15_IW,
                        "duration": f"{2 * len(FIG15_SIZES)}s",
                        "measure_from": "0s",
                        "queues.router": {"kind": "prio", "limit": "50MB"},
                        "workload": [{"kind": "flows", "flows": flows}],
                    },
                )
            )
    return pts


def analyze(runs: Runs, ctx: Context) -> str:
    pyplot = plt()
    parts = []
    fig, axes = pyplot.subplots(1, 2, figsize=(10, 4))
    names = list(FIG15_LABELS)
    for ax, bw in zip(axes, ("10Gbps", "1Gbps")):
        fct = {n: runs.flows(f"{n}-{bw}", runs.seeds[0]).sort("id")["fct_s"].to_list() for n in names}
        rows = [
            [n] + [f"{fct[k][i] * 1e3:.2f}" for k in names] + [f"{reduction(fct['tcp'][i], fct['rc3'][i]):.1f}"]
            for i, n in enumerate(FIG15_SIZES[: len(fct["tcp"])])
        ]
        # Fig. 15 has no numbers; its stated shape, RC3 below TCP once a flow exceeds the initial
        # window, reads as RC3's FCT over TCP's below 1 at every such size.
        pairs = zip(FIG15_SIZES, fct["tcp"], fct["rc3"])
        above = [r / t for n, t, r in pairs if n > FIG15_IW and t and r is not None]
        ctx.check(
            "Fig. 15",
            f"20 ms x {bw}: RC3's FCT over TCP's, largest over flows above the initial window (ratio)",
            (None, 1.0),
            max(above, default=None),
        )
        parts.append(
            f"### 20 ms x {bw} (FCT in ms)\n\n"
            + md_table(["segments"] + [FIG15_LABELS[k] for k in names] + ["% RC3 vs TCP"], rows)
        )
        for k, style in zip(names, ("o-", "s-", "^--", "v--", "x:", "+:")):
            ax.plot(FIG15_SIZES[: len(fct[k])], fct[k], style, label=FIG15_LABELS[k])
        ax.set_xscale("log")
        ax.set_title(f"20 ms x {bw}")
        ax.set_xlabel("flow size (segments)")
        ax.set_ylabel("FCT (s)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig15.png", dpi=120)
    return (
        "One flow at a time on an idle path of 20 ms RTT at 10 Gb/s and at 1 Gb/s, IW 10, FCT including the "
        "handshake. The paper plots its NS-3 and Linux values (Fig. 15) without numbers in the text, so only "
        "the shape can be compared: RC3 below TCP as soon as a flow exceeds the initial window, by several "
        "round trips for the largest flows at 10 Gb/s; at 1 Gb/s the serialization of large flows narrows the "
        "gap. Linux's TCP was slower than the simulation at 10 Gb/s because a delayed ACK grows cwnd by at most "
        "two segments however many it covers; at 1 Gb/s, where an ACK covers at most two segments, it tracked "
        "the simulation. fctlab models that growth with `abc = 2` (RFC 3465's L) and `delayed_ack = {count}`: "
        "an ACK per two segments grows the window as fast as an ACK per segment, so only ACKs covering more "
        "than two segments slow TCP down; fctlab has no receive-offload model that would make them, so the "
        "stretch-ACK column imposes them (8 segments per ACK) to show the size of the effect. The paper "
        "averaged 100 samples of a testbed; an fctlab run on an idle path is deterministic, so one run "
        "stands for all of them. The paper reports CUBIC FCTs 'very close' to NewReno's.\n\n"
        + "\n\n".join(parts)
        + "\n\n![Fig. 15](fig15.png)"
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig15-single-flows",
        title="RC3 paper Fig. 15 (simulated side): single flows at 20 ms RTT",
        base="internet2.toml",
        points=points(),
        seeds=1,
        analyze=analyze,
    )
