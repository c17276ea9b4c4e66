"""The router-cost micro-benchmark (seed 003 sec. IV-E and IV-I): nanoseconds per packet of each
explicit router law, beside the paper's count of its per-packet arithmetic.

`fctlab bench --routers` times every port of `ROUTER_LAWS` (the core's `qdisc/cost.rs`: a
1 Gb/s port fed 1500-byte packets of 64 flows, one enqueue and one dequeue per packet, the
control ticks of a saturated link included), `repeat` times each, interleaved so that a slow
moment of the machine does not fall on one law, and reports the median and the excess over the
drop-tail baseline. The figures are this machine's, not simulation results.
"""

from __future__ import annotations

import platform
import statistics

from fctlab._core import ROUTER_LAWS, router_cost

#: Seed 003 sec. IV-I: each router law's arithmetic per packet, as the paper counts it.
PAPER_OPS = {
    "droptail": "(baseline: no law)",
    "xcp": "6 additions + 3 multiplications (the most)",
    "rcp": "2 additions + 2 multiplications",
    "jetmax": "the fewest: 3 additions per packet of a flow bottlenecked here, 2 otherwise; no multiplication",
    "piqi": "not given (one addition per packet: the input count; eq. 6 once per interval)",
    "hpcc": "not in seed 003 (HPCC: one telemetry record pushed per data packet, one addition of transmission time)",
}

NAMES = {"droptail": "drop-tail", "xcp": "XCP", "rcp": "RCP", "jetmax": "JetMax", "piqi": "PIQI-RCP", "hpcc": "HPCC"}


def measure(packets: int = 2_000_000, repeat: int = 5) -> list[dict]:
    """Median ns per packet of every law over `repeat` interleaved rounds of `packets` packets."""
    samples: dict[str, list[float]] = {law: [] for law in ROUTER_LAWS}
    for _ in range(repeat):
        for law in ROUTER_LAWS:
            samples[law].append(router_cost(law, packets))
    base = statistics.median(samples["droptail"])
    rows = []
    for law in ROUTER_LAWS:
        med = statistics.median(samples[law])
        rows.append(
            {
                "law": law,
                "ns_per_packet": med,
                "ns_over_droptail": med - base,
                "min_ns": min(samples[law]),
                "max_ns": max(samples[law]),
                "packets": packets,
                "repeat": repeat,
            }
        )
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table."""
    head = ("router", "ns/packet", "over drop-tail", "range")
    lines = [head] + [
        (
            NAMES[r["law"]],
            f"{r['ns_per_packet']:.1f}",
            f"{r['ns_over_droptail']:+.1f}",
            f"{r['min_ns']:.1f}-{r['max_ns']:.1f}",
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

    out = [line(row) for row in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def markdown(rows: list[dict]) -> str:
    """A report: the paper's operation counts beside the measured cost."""
    r0 = rows[0]
    body = [
        "# Router cost per packet (seed 003 sec. IV-E and IV-I)",
        "",
        "Sec. IV-E measures the routers' CPU load for a gigabit transfer: about 30% for TCP, XCP, "
        "JetMax, RCP and PIQI-RCP alike, mostly interrupt handling, which a simulator does not have. "
        "Sec. IV-I counts each law's arithmetic per packet. fctlab times the same work: a 1 Gb/s port "
        "fed 1500-byte packets of 64 flows, one enqueue and one dequeue per packet (the header "
        "stamped on the way out), the law's control interval ticking as on a saturated link "
        "(`crates/fctlab-core/src/qdisc/cost.rs`). Median of "
        f"{r0['repeat']} interleaved rounds of {r0['packets']:,} packets each; the range is the "
        "fastest and slowest round.",
        "",
        "| router | per-packet operations (seed 003 sec. IV-I) | ns per packet | over drop-tail | range |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        body.append(
            f"| {NAMES[r['law']]} | {PAPER_OPS[r['law']]} | {r['ns_per_packet']:.1f} | "
            f"{r['ns_over_droptail']:+.1f} | {r['min_ns']:.1f} - {r['max_ns']:.1f} |"
        )
    body += [
        "",
        "The law's cost is the excess over drop-tail; the rest is the FIFO itself. Measured on "
        f"{' '.join(filter(None, (platform.machine(), platform.processor())))} with Python "
        f"{platform.python_version()}; "
        "regenerate with `fctlab bench --routers --report experiments/explicit/router-cost.md`.",
        "",
    ]
    return "\n".join(body)
