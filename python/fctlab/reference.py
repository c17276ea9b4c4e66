"""Fluid references for a packet-level run: what each flow's completion time would be if the
network were a fluid, with no slow start, no queues and no losses, shared max-min fairly
(processor sharing) or scheduled shortest-remaining-first (pFabric's "Ideal").

- `ps_fct(result)`: per flow, the exact fluid max-min completion time of the run's own flows
  (same starts, sizes and routed paths; computed in the core, `reference::ps`), plus the
  thesis's fixed terms: `ps_fct_s = 1.5 x rtt_prop_s + ps_fluid_s` (handshake + last byte's
  one-way propagation).
- `srpt_fct(result)`: the same flows under pFabric's "Ideal" (SIGCOMM 2013, sec. 4.3/5), greedy
  SRPT generalized from the paper's big switch to the run's paths: at every arrival and
  departure the active flows, fewest bits left first, each take what their path's links have
  left (core, `reference::srpt`); `srpt_fct_s = 1.5 x rtt_prop_s + srpt_fluid_s`.
- M/G/1-PS closed forms for one link (with the RCP thesis's eq. 6.1, `ps_afct_with_setup`),
  and the thesis's curves per flow (`reference_curves`), each a closed form of a flow's
  packets (`ps_curve`, `lower_bound_curve`, `slow_start_curve`).
- `max_min_rates(paths, capacities)`: the max-min fair rates of long-lived flows (water-filling),
  what RCP should converge to (thesis sec. 3.2.1, Fig. 3.3).

Wire bits of a flow of `size` payload bytes: `(size + ceil(size / mss) x header) x 8`, as the
core's `ideal_fct_s` counts them, with each flow's own `mss` and `header`: the flows table's
`mss_bytes` and `header_bytes` (its transport's segment size and headers on the wire, congestion
header included: HPCC's flows count 82 bytes, a run of HPCC's files 1,000-byte segments, each
flow of a mix its own). The keywords `mss=` and `header=` override them for every flow. Rates in
bit/s, times in seconds.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence

import polars as pl

from fctlab.result import Result


def wire_bits(size_bytes: int, mss: int = 1460, header: int = 40) -> float:
    """Bits on the wire for `size_bytes` of payload in segments of `mss` with `header` bytes each
    (the defaults: fctlab's TCP, `[transport]` without `mss` and `header`)."""
    return (size_bytes + math.ceil(size_bytes / mss) * header) * 8.0


def ps_fct(
    result_or_flows: Result | pl.DataFrame,
    links: pl.DataFrame | Sequence[float] | None = None,
    *,
    mss: int | None = None,
    header: int | None = None,
) -> pl.DataFrame:
    """Max-min fluid (processor-sharing) completion times of a run's finite flows.

    `result_or_flows` is a `Result`, or a flows table with `id`, `size_bytes`, `start_s`,
    `rtt_prop_s`, `path`, `mss_bytes` and `header_bytes`; `links` is then the links table
    (`id`, `rate_bps`) or the capacities (bit/s) indexed by link id. Each flow's wire bits count
    its own segments and headers (`mss_bytes`, `header_bytes`) unless `mss` / `header` give
    one value for every flow. Long-lived flows (size -1) are left out: the table does not say
    when they stop. Returns one row per finite flow, by id: `id`, `ps_fluid_s` (the fluid
    transfer alone) and `ps_fct_s` (= 1.5 x `rtt_prop_s` + `ps_fluid_s`).
    """
    return _fluid("ps", result_or_flows, links, mss, header)


def srpt_fct(
    result_or_flows: Result | pl.DataFrame,
    links: pl.DataFrame | Sequence[float] | None = None,
    *,
    mss: int | None = None,
    header: int | None = None,
) -> pl.DataFrame:
    """Greedy SRPT fluid completion times (pFabric's "Ideal") of a run's finite flows.

    At every arrival and departure the active flows are taken by fewest bits left (then earlier
    start, then lower id) and each gets the smallest capacity its path's links still have,
    which those links then lose: on a big switch whose core never limits, a flow runs at line
    rate if its source and destination ports are free, else waits, as in the paper. Arguments
    as `ps_fct`. Returns one row per finite flow, by id: `id`, `srpt_fluid_s` (the fluid
    transfer alone) and `srpt_fct_s` (= 1.5 x `rtt_prop_s` + `srpt_fluid_s`).
    """
    return _fluid("srpt", result_or_flows, links, mss, header)


def _fluid(
    kind: str,
    result_or_flows: Result | pl.DataFrame,
    links: pl.DataFrame | Sequence[float] | None,
    mss: int | None,
    header: int | None,
) -> pl.DataFrame:
    """The core's `<kind>_fct` fluid ("ps" or "srpt") of the finite flows: `id`, `<kind>_fluid_s`,
    `<kind>_fct_s` (= 1.5 x `rtt_prop_s` + the fluid time)."""
    name = f"{kind}_fct"
    if isinstance(result_or_flows, Result):
        flows = result_or_flows.flows
        links = result_or_flows.links if links is None else links
    else:
        flows = result_or_flows
    if links is None:
        raise TypeError(f"{name}: pass `links` (the links table or capacities in bit/s) with a flows table")
    if "path" not in flows.columns:
        raise ValueError("the flows table has no `path` column: it was written by an older fctlab; run it again")
    capacities = _capacities(links)
    finite = flows.filter(pl.col("size_bytes") >= 0).sort("id")
    bits = finite.select(_wire_bits(finite, mss, header, name))["bits"].to_list()
    compute = getattr(_compiled(), name)
    fluid = compute(capacities, finite["start_s"].to_list(), bits, finite["path"].to_list())
    return finite.select("id", pl.Series(f"{kind}_fluid_s", fluid, dtype=pl.Float64)).with_columns(
        (1.5 * finite["rtt_prop_s"] + pl.col(f"{kind}_fluid_s")).alias(f"{kind}_fct_s")
    )


def _packet_sizes(flows: pl.DataFrame, mss: int | None, header: int | None, caller: str) -> tuple[pl.Expr, pl.Expr]:
    """Each flow's (segment, header) bytes as expressions over `flows`: its `mss_bytes` and
    `header_bytes`, or the value given for every flow. A ValueError names the caller and says
    what to pass when the table lacks a column (a table written before fctlab kept them)."""
    out = []
    for given, column, key in ((mss, "mss_bytes", "mss"), (header, "header_bytes", "header")):
        if given is not None:
            if isinstance(given, bool) or not isinstance(given, int) or given < (1 if key == "mss" else 0):
                floor = "1" if key == "mss" else "0"
                raise ValueError(f"{caller}: {key}: expected a whole number of bytes >= {floor}, got {given!r}")
            out.append(pl.lit(given, dtype=pl.Int64))
        elif column in flows.columns:
            out.append(pl.col(column))
        else:
            raise ValueError(
                f"{caller}: the flows table has no `{column}` column (it was written by an older fctlab): "
                f"pass {key}= (the run's segment size and header bytes per packet), or run it again"
            )
    return out[0], out[1]


def _wire_bits(flows: pl.DataFrame, mss: int | None, header: int | None, caller: str) -> pl.Expr:
    """`bits`: each flow's wire bits, `(size + ceil(size / mss) x header) x 8` with its own
    packet sizes (`_packet_sizes`)."""
    m, h = _packet_sizes(flows, mss, header, caller)
    size = pl.col("size_bytes")
    return ((size + (size + m - 1) // m * h) * 8).cast(pl.Float64).alias("bits")


def mg1_ps_fct(size_bits: float, capacity: float, load: float) -> float:
    """M/G/1-PS mean response time of a job of `size_bits`: E[T | x] = x / (C (1 - rho))."""
    _check_load(load)
    return size_bits / (capacity * (1.0 - load))


def mg1_ps_mean_fct(mean_size_bits: float, capacity: float, load: float) -> float:
    """M/G/1-PS mean response time over all jobs: E[T] = E[S] / (C (1 - rho))."""
    return mg1_ps_fct(mean_size_bits, capacity, load)


def ps_afct_with_setup(mean_size_bits: float, capacity: float, load: float, rtt: float) -> float:
    """The RCP thesis's eq. 6.1 (sec. 6.3.1, 004:3414-3425): the mean FCT if RCP implemented
    processor sharing, 2 RTT + E[L] / (C (1 - rho)), two round trips counting the connection
    setup. (Chapter 4's eq. 4.1 and `ps_fct` count 1.5 RTPD: the thesis's sec. 6.3 flow
    completes when the sender learns that the receiver has every packet, half a round trip
    later than fctlab's FCT, which ends when the receiver holds the last byte.)"""
    _check_load(load)
    if rtt < 0.0:
        raise ValueError(f"rtt: expected a round-trip time >= 0 s, got {rtt}")
    return 2.0 * rtt + mg1_ps_mean_fct(mean_size_bits, capacity, load)


def mg1_ps_mean_in_system(load: float) -> float:
    """M/G/1-PS mean number of jobs in the system: rho / (1 - rho) (as M/M/1, by insensitivity)."""
    _check_load(load)
    return load / (1.0 - load)


def ps_curve(size_pkts: float, capacity: float, rtpd: float, load: float, packet_bits: float) -> float:
    """Processor sharing on one link, the RCP thesis's curve: 1.5 RTPD + L / (C (1 - rho))."""
    return 1.5 * rtpd + size_pkts * packet_bits / (capacity * (1.0 - load))


def lower_bound_curve(size_pkts: float, capacity: float, rtpd: float, packet_bits: float) -> float:
    """No flow can beat 1.5 RTPD + L / C."""
    return 1.5 * rtpd + size_pkts * packet_bits / capacity


def slow_start_curve(size_pkts: float, capacity: float, rtpd: float, packet_bits: float, iw: int = 1) -> float:
    """TCP without loss, the RCP thesis's form: (ceil(log2(L/i + 1)) + 1/2) RTPD + L/C."""
    rounds = math.ceil(math.log2(size_pkts / iw + 1.0))
    return (rounds + 0.5) * rtpd + size_pkts * packet_bits / capacity


def reference_curves(
    flows: pl.DataFrame,
    capacity: float,
    load: float,
    *,
    iw: int = 1,
    mss: int | None = None,
    header: int | None = None,
) -> pl.DataFrame:
    """The thesis's curves for each finite flow of a flows table, one bottleneck of `capacity`
    at `load`, with RTPD = the flow's `rtt_prop_s`: `ps_curve_s` (1.5 RTPD + L / (C (1 - rho))),
    `lower_bound_s` (1.5 RTPD + L / C) and `slow_start_s` (slow start from `iw` without loss).

    L counts ceil(size / mss) packets whose wire bits add up to `wire_bits(size, mss, header)`,
    with each flow's `mss_bytes` and `header_bytes` unless `mss` / `header` are given."""
    _check_load(load)
    finite = flows.filter(pl.col("size_bytes") >= 0).sort("id")
    m, h = _packet_sizes(finite, mss, header, "reference_curves")
    sizes = finite.with_columns(m.alias("mss"), h.alias("header"))
    ps, lower, slow = [], [], []
    for size, rtpd, mss_i, header_i in zip(
        finite["size_bytes"].to_list(),
        finite["rtt_prop_s"].to_list(),
        sizes["mss"].to_list(),
        sizes["header"].to_list(),
        strict=True,
    ):
        pkts = math.ceil(size / mss_i)
        packet_bits = wire_bits(size, mss_i, header_i) / pkts if pkts else (mss_i + header_i) * 8.0
        ps.append(ps_curve(pkts, capacity, rtpd, load, packet_bits))
        lower.append(lower_bound_curve(pkts, capacity, rtpd, packet_bits))
        slow.append(slow_start_curve(pkts, capacity, rtpd, packet_bits, iw))
    return finite.select("id", "size_bytes").with_columns(
        ps_curve_s=pl.Series(ps, dtype=pl.Float64),
        lower_bound_s=pl.Series(lower, dtype=pl.Float64),
        slow_start_s=pl.Series(slow, dtype=pl.Float64),
    )


def _capacities(links: pl.DataFrame | Sequence[float]) -> list[float]:
    """Capacities (bit/s) indexed by link id."""
    if not isinstance(links, pl.DataFrame):
        return [float(c) for c in links]
    ids = links["id"].to_list()
    if sorted(ids) != list(range(len(ids))):
        raise ValueError(f"links table: expected ids 0..{len(ids) - 1}, got {sorted(ids)[:10]}...")
    return [float(c) for c in links.sort("id")["rate_bps"].to_list()]


def _check_load(load: float) -> None:
    if not 0.0 <= load < 1.0:
        raise ValueError(f"load: expected 0 <= load < 1, got {load}")


def _compiled():
    """The compiled core: the fluid simulation always runs there (tests' stand-in cores included)."""
    try:
        return importlib.import_module("fctlab._core")
    except ImportError as e:
        raise RuntimeError("fctlab._core is not built: run `maturin develop --release` in the repository") from e


def max_min_rates(paths: Sequence[Sequence[str]], capacities: dict[str, float]) -> list[float]:
    """Max-min fair rates (bit/s) of long-lived flows, one per path (a list of link names), by
    water-filling: raise every unfrozen flow's rate together until a link fills, freeze the flows
    crossing it, repeat. Links missing from `capacities` are unlimited."""
    rates = [0.0] * len(paths)
    frozen = [False] * len(paths)
    left = dict(capacities)
    while not all(frozen):
        counts = {name: sum(1 for i, p in enumerate(paths) if not frozen[i] and name in p) for name in left}
        shares = {name: left[name] / n for name, n in counts.items() if n > 0}
        if not shares:
            raise ValueError("max_min_rates: a flow crosses no capacity-limited link")
        step = min(shares.values())
        full = {name for name, s in shares.items() if s <= step * (1.0 + 1e-12)}
        for i, p in enumerate(paths):
            if not frozen[i]:
                rates[i] += step
                for name in p:
                    if name in left:
                        left[name] -= step
        for i, p in enumerate(paths):
            if not frozen[i] and full.intersection(p):
                frozen[i] = True
    return rates
