"""RC3 paper Fig. 8 at 30 and 50% load against the authors' ns-3.16 code (NetSys/RC3): fctlab's
default beside the authors' window accounting, and every difference found in their code."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_std, pm
from fctlab_experiments.rc3.common import FIG8, QUICK, RC3, TCP, merged
from fctlab_experiments.rc3.comparison import pair_rows

#: What the authors' ns-3.16 code (NetSys/RC3: tcp-rc3-sack.cc, priority-queue.cc,
#: scratch/wan-internet2-sack.cc, run-baseline) does, beside fctlab's default.
AUTHORS_CODE = [
    [
        "bucket boundaries",
        "priority = ceil(log10(9k / (10 x PrioritySlots) + 1)), PrioritySlots = 4, k = segments from the tail: "
        "P1 for k <= 40, P2 <= 440, P3 <= 4440",
        "40 / 440 / 4440 (sec. 2.1's sizes 40, 400, 4000): the same",
    ],
    [
        "router queues",
        "5 bands, one 5 MB buffer; an arrival that does not fit pushes out the tail of the lowest non-empty "
        "band below its own, else is dropped",
        "8 bands (RC3 uses 5), the same push-out: the same for these flow sizes (at most P3)",
    ],
    [
        "sender NIC queue",
        "the same priority queue, 2 GB (never full)",
        "`prio`, unlimited: the same",
    ],
    [
        "low-priority packets",
        "full segments counted back from the tail, one pass per write; never retransmitted",
        "the same (every flow size is a multiple of 1460 B)",
    ],
    [
        "ACKs",
        "low-priority data ACKed at once at its priority with SACK blocks; priority-0 data ACKed per segment",
        "the same",
    ],
    [
        "low-priority ACKs at the sender",
        "update the scoreboard only (acked and SACKed marks); the window's left edge moves with priority-0 ACKs",
        "update the scoreboard and the cumulative point",
    ],
    [
        "primary loop's window",
        "ns-3's cwnd - (NextTxSequence - HeadSequence): delivered data skipped by the primary loop stays in "
        "the window until a priority-0 ACK covers it",
        'RFC 6675 pipe (default); the authors\' accounting as `rc3_window = "span"`',
    ],
    [
        "loss recovery",
        "NewReno-style fast recovery (cwnd inflation) over the SACK scoreboard, min RTO 200 ms, initial RTO 1 s",
        "RFC 6675 SACK recovery; TCP's averages match the paper within 2% at every load",
    ],
    [
        "FCT",
        "from the sender's start (handshake included) to the receiver holding every byte",
        "the same",
    ],
    [
        "averaging",
        "flows starting in [2 s, 5 s) that both runs completed, RC3's by 5 s, TCP's by 10 s",
        "every flow starting in [2 s, 5 s), drained (the cut is shown in `internet2-load`)",
    ],
]


def points() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{name}-{load}", merged(proto, {"workload.0.load": load / 100}))
        for load in (30, 50)
        for name, proto in (("tcp", TCP), ("rc3", RC3), ("rc3-span", {**RC3, "transport.rc3_window": "span"}))
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    rows, closed = [], []
    for load in (30, 50):
        paper = FIG8[load]
        d = pair_rows(runs, f"tcp-{load}", f"rc3-{load}")
        a = pair_rows(runs, f"tcp-{load}", f"rc3-span-{load}")
        for k, col, what in (("red_f", 4, "over flows"), ("red_b", 5, "over bytes")):
            gap = mean_std(d[k])[0] - paper[col]
            moved = mean_std(d[k])[0] - mean_std(a[k])[0]
            closed.append(f"{load}% {what}: {moved:.2f} of the {gap:.2f} points")
        rows += [
            [f"{load}% load", "RC3 FCT over flows (s)", f"{paper[2]:.3f}", pm(d["b_f"], ".3f"), pm(a["b_f"], ".3f")],
            ["", "RC3 FCT over bytes (s)", f"{paper[3]:.3f}", pm(d["b_b"], ".3f"), pm(a["b_b"], ".3f")],
            ["", "% reduction over flows", f"**{paper[4]:.2f}**", f"**{pm(d['red_f'])}**", f"**{pm(a['red_f'])}**"],
            ["", "% reduction over bytes", f"**{paper[5]:.2f}**", f"**{pm(d['red_b'])}**", f"**{pm(a['red_b'])}**"],
        ]
    return (
        "Fig. 8's Internet-2 runs at 30 and 50% load (the setup of `internet2-load`), RC3 with fctlab's "
        "default and with the one choice of the authors' ns-3.16 code (NetSys/RC3) that differs in a way "
        "fctlab can express, the primary loop's window accounting (`rc3_window`). TCP is the same run for "
        "both. Mean over seeds ± standard deviation.\n\n"
        + md_table(["setting", "", "paper", 'fctlab default ("pipe")', 'authors\' window ("span")'], rows)
        + "\n\nHow much of the gap between fctlab's default and the paper the authors' window accounting closes "
        "(reduction with pipe minus reduction with span, against pipe minus paper): "
        + "; ".join(closed)
        + ". The rest of the gap is not explained by any difference found in the published code (table below); "
        "the code published is the 30% baseline only, without the workload files (flow arrivals, sizes, "
        "endpoints), so the workload itself could not be compared.\n\n## The authors' code against fctlab\n\n"
        + md_table(["", "authors' ns-3.16 code", "fctlab"], AUTHORS_CODE)
    )


def experiment() -> Experiment:
    return Experiment(
        name="authors-code",
        title="RC3 paper Fig. 8 at 30 and 50% load: fctlab's choices against the authors' ns-3.16 code",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
        # fctlab's own look at Fig. 8: its gap to the paper taken apart against the authors' code. The
        # paper's numbers it sets beside its runs are Fig. 8's, which `internet2-load` checks.
        investigation=True,
    )
