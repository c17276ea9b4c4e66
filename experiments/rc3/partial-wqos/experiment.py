"""RC3 paper sec. 6: partial deployment of priorities, a share of the Internet-2 routers
forwarding RC3's low-priority packets as normal traffic."""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, pm
from fctlab_experiments.rc3.common import QUICK, RC3, SEG, TCP
from fctlab_experiments.rc3.comparison import pair_rows, per_size, per_size_rows, size_table


def points() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("tcp", TCP),
        ("rc3", RC3),
        ("rc3-20", {**RC3, "queues.routers_without_priorities": 0.2}),
        ("rc3-50", {**RC3, "queues.routers_without_priorities": 0.5}),
        ("rc3-0", {**RC3, "queues.routers_without_priorities": 1.0}),
        (
            "rc3-0-fifo-nic",
            {**RC3, "queues.routers_without_priorities": 1.0, "queues.host": {"kind": "droptail"}},
        ),
    ]


def _one_decimal(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def _small_penalty(runs: Runs, name: str) -> float | None:
    """The worst FCT change (%, positive = slower than TCP) of 1-3 segment flows in run `name`."""
    sizes, means, _ = size_table(per_size(runs, "tcp", name))
    small = [m for size, m in zip(sizes, means, strict=True) if size <= 3 * SEG]
    return -min(small) if small else None


def analyze(runs: Runs, ctx: Context) -> str:
    overall = []
    for name, label in (
        ("rc3", "every router"),
        ("rc3-20", "80% of routers"),
        ("rc3-50", "50% of routers"),
        ("rc3-0", "no router (hosts only)"),
        ("rc3-0-fifo-nic", "none, not even the hosts' NICs"),
    ):
        r = pair_rows(runs, "tcp", name)
        overall.append([label, pm(r["red_f"]), pm(r["red_b"])])
    rows = per_size_rows(runs, "tcp", ["rc3", "rc3-20", "rc3-50", "rc3-0", "rc3-0-fifo-nic"])
    return (
        "Internet-2 at 30% load, RC3 when a fraction of the routers (chosen by the seed) ignore priorities and "
        "forward low-priority packets as normal traffic through a drop-tail FIFO of the same 5 MB. The paper "
        "(sec. 6, no table): with 20% of routers without priorities FCTs still improve for all flows; with 50%, "
        "small flows lose 6-7%, medium flows gain around 36%, large flows 70-76%.\n\n"
        + md_table(["routers with priorities", "% reduction over flows", "% reduction over bytes"], overall)
        + "\n\nReduction per flow size (%):\n\n"
        + md_table(["segments", "every router", "80%", "50%", "none", "none, FIFO NICs"], rows)
        + "\n\nThe paper's small-flow penalty at 50% is not reproduced with routers alone. The gain of 1-3 "
        "segment flows falls about linearly with the share of routers without priorities and becomes a "
        f"penalty of at most {_one_decimal(_small_penalty(runs, 'rc3-0'))}% only when no router keeps them (only the "
        "hosts' NICs do). The queue where RC3's low-priority packets wait is the sender's NIC: the hosts' 1 "
        "Gb/s uplinks are the busiest links, and low-priority packets reach a router no faster than the "
        "uplink sends them. With FIFO NICs as well (the last column) the smallest flows are "
        f"{_one_decimal(_small_penalty(runs, 'rc3-0-fifo-nic'))}% slower than under TCP. Half of that is of the order "
        "of the paper's 6-7% at 50%. That fits a setup in which the queues holding RC3's low-priority backlog "
        "were among those without priorities; the paper does not say which ports its routers without "
        "priorities had.\n"
    )


def experiment() -> Experiment:
    return Experiment(
        name="partial-wqos",
        title="RC3 paper sec. 6: partial deployment of priorities",
        base="internet2.toml",
        points=points(),
        seeds=2,
        analyze=analyze,
        quick=QUICK,
    )
