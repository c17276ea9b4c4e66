"""Chapter 4's flows against the thesis's eq. 4.1 (the M/G/1-PS curve, 1.5 RTPD + L / (C (1 - rho))),
as the two investigations of its misses read them (`fig4-14-10ms`, `fig4-2-tcp`): a run's completed
flows with the curve and their size in packets, the AFCT and its ratio to the curve over a window
of sizes, and the packets a run dropped.
"""

from __future__ import annotations

import polars as pl

from fctlab import reference
from fctlab.reproduce.framework import Runs
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp.reports import Setup


def sample(runs: Runs, name: str, setup: Setup) -> pl.DataFrame:
    """Measured completed flows with packets and the eq. 4.1 PS curve."""
    f = pl.concat([runs.sample(name, s) for s in runs.seeds_of(name)])
    curves = reference.reference_curves(f, setup.capacity, setup.load, iw=2)
    return f.join(curves.drop("size_bytes"), on="id").with_columns(
        packets=(pl.col("size_bytes") / ra.MSS).ceil().cast(pl.Int64)
    )


def split(t: pl.DataFrame, lo: int, hi: int | None) -> tuple[int, float | None, float | None]:
    """(flows, AFCT, AFCT / mean eq. 4.1) of the flows of lo <= packets < hi (no upper bound: hi None)."""
    g = t.filter((pl.col("packets") >= lo) & ((pl.col("packets") < hi) if hi else pl.lit(True)))
    if g.height == 0:
        return 0, None, None
    return g.height, float(g["fct_s"].mean()), float(g["fct_s"].mean() / g["ps_curve_s"].mean())


def drops(runs: Runs, name: str) -> int:
    """Packets dropped in a run, every link and seed."""
    return int(sum(runs.links(name, s)["drops_pkts"].sum() for s in runs.seeds_of(name)))
