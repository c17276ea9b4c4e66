"""`fctlab estimate`: a scenario's flow completion times estimated without the packet level, and
the estimate's error measured against fctlab's own packet level (`validate`).

The estimate reads any scenario `fctlab run` reads and builds it as a run would (topology,
routing with ECMP, the flow plan: every flow's start, size, path, propagation RTT and ideal
FCT), then, instead of simulating packets:

- **fluid** (flowSim's model): the flows share the links max-min fairly as fluid, rates
  recomputed at every arrival and departure (`_core.local_fct`, `reference/local.rs`). A flow's
  estimated FCT is its fixed part, what its ideal FCT adds to the bottleneck's serialization
  (the handshake's round trip if its transport has one, and the last byte's one-way trip), plus
  its fluid transfer time:

      fct = (ideal_fct - wire_bits / C_bottleneck) + fluid_transfer

  so a flow alone on its path gets exactly its ideal FCT (slowdown 1). The model knows nothing of
  the transport beyond that: no slow start, no queueing delay, no loss, no priorities; every
  protocol gets the same estimate.
- **links** (Parsimon's decomposition, `fctlab.tools.linksim`): one small packet-level run per
  busy link, the flows' delays there added along their paths; its problems run as a sweep in
  `OUT/links` (processes or a Dask cluster, resumable).

Both refuse long-lived flows (their share of the links until they stop is not a completion
time) and scenarios whose links change rate.

The results directory is a run's: the same six files and columns (`acked_s`, `first_write_s`
null, no retransmissions or timeouts, the links' counters zero: nothing was sent), with
`meta.json` holding `estimate` (the method and its settings) and a notice that says the numbers
are an estimate, which `fctlab summary` prints and `fctlab compare` and the HTML report repeat.

`validate` also runs the packet level on the same scenario and writes the error table, per size
bin (`analysis.SizeBins`): each side's mean, p50 and p99 slowdown and the estimate's relative
error, and each side's wall time (`validation.parquet`, `validation.md`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from fctlab.analysis import SizeBins, fct_sample
from fctlab.errors import ScenarioError
from fctlab.result import Result
from fctlab.scenario import ScenarioLike
from fctlab.tools.estimated import P99_MIN_FLOWS, bin_stats, end_s, with_fct

#: The estimation methods, with what each models (`meta.json`'s `estimate.model`).
METHODS = {
    "fluid": "max-min fair fluid sharing over the routed paths, recomputed at each arrival and departure",
    "links": "one packet-level run per busy link, each flow's delays added along its path (Parsimon)",
}
#: What a scenario may set that the fluid does not model, said in a notice when set.
FLUID_IGNORES = {"loss": "packets lost on links", "fabric": "PFC pauses and shared buffers"}
#: Where `fctlab estimate --validate-duration` validates a shortened copy, inside OUT.
COPY_DIR = "copy"
#: Where the links method runs its link problems, inside the estimate's directory.
LINKS_DIR = "links"
#: The counters of a run's meta that an estimate has no value for (nothing was simulated).
_PACKET_COUNTERS = (
    "events",
    "packet_hops",
    "sent_pkts",
    "sent_bytes",
    "delivered_pkts",
    "delivered_bytes",
    "dropped_pkts",
    "dropped_bytes",
    "in_network_pkts",
    "in_network_bytes",
)
#: The validation table's file names in the estimate's directory.
VALIDATION_TABLE = "validation.parquet"
VALIDATION_TEXT = "validation.md"
#: Where `validate` writes the packet-level run, inside the estimate's directory.
PACKET_DIR = "packet"


def notice(method: str) -> str:
    """The notice an estimate's results carry."""
    return (
        f"these completion times are an estimate (fctlab estimate --method {method}: {METHODS[method]}), "
        "not a packet-level run; `fctlab estimate --validate` measures its error"
    )


def estimate(
    scenario: ScenarioLike,
    *,
    method: str = "fluid",
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    base_dir: str | os.PathLike | None = None,
    workdir: str | os.PathLike | None = None,
    jobs: int | None = None,
    client: Any | None = None,
    progress: bool = False,
    epsilon: float | None = None,
    correction: str | os.PathLike | Any | None = None,
) -> Result:
    """The estimated results of a scenario (a Result like a run's; see the module doc). The links
    method runs its link problems as a sweep in `workdir` (required), in `jobs` processes or on
    the Dask cluster of `client`, and reuses the problems already run there; links whose
    features differ by at most `epsilon` share one problem (`fctlab.tools.linkclusters`,
    default `EPSILON`; 0: every busy link runs). `correction` (a model file or a
    `correction.Correction`) corrects the slowdowns last (`fctlab.tools.correction`)."""
    from fctlab.run import build, core

    if method not in METHODS:
        raise ScenarioError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if method == "links" and workdir is None:
        raise ScenarioError("workdir: the links method needs a directory for its link problems' runs")
    if method != "links" and epsilon is not None:
        raise ScenarioError(f"epsilon: only the links method clusters links, not method {method!r}")
    model, model_name = _correction(correction)
    started = time.perf_counter()
    sim, spec = build(scenario, seed=seed, overrides=overrides, base_dir=base_dir)
    raw = dict(sim.results())
    del sim
    planned = Result.from_core(raw, spec)
    _refuse_what_the_model_lacks(planned.flows, spec)
    flows = planned.flows.sort("id")
    if method == "fluid":
        fct, stats = _fluid(flows, planned.links, core())
    else:
        from fctlab.tools.linkclusters import EPSILON
        from fctlab.tools.linksim import estimate_links

        fct, stats = estimate_links(
            spec,
            flows,
            planned.links,
            workdir,
            jobs=jobs,
            client=client,
            progress=progress,
            epsilon=EPSILON if epsilon is None else epsilon,
        )
    flows = with_fct(flows, fct, end_s(spec))
    meta = {k: v for k, v in planned.meta.items() if k not in _PACKET_COUNTERS and k != "wall_s"}
    finished = flows["finish_s"].drop_nulls()
    meta.update(
        {
            "sim_time_s": float(finished.max()) if finished.len() else 0.0,
            "flows_started": flows.height,
            "flows_completed": finished.len(),
            "estimate": {"method": method, "model": METHODS[method], **stats},
            "wall_s": time.perf_counter() - started,
        }
    )
    notices = [*planned.notices, notice(method)]
    if method == "fluid":
        notices += [
            f"the fluid leaves out the scenario's `{key}` ({what}): its estimate is the same without it"
            for key, what in FLUID_IGNORES.items()
            if spec.get(key)
        ]
    result = Result(flows, planned.links, planned.series, meta, spec, notices)
    if model is not None:
        from fctlab.tools.correction import correct

        result = correct(result, model, model_name)
        result.meta["wall_s"] = time.perf_counter() - started
    return result


def _correction(correction: str | os.PathLike | Any | None) -> tuple[Any, str]:
    """The correction model asked for (loaded from its file) and the name the results give it."""
    from fctlab.tools.correction import Correction

    if correction is None or isinstance(correction, Correction):
        return correction, "a learned correction"
    return Correction.load(correction), f"the learned correction {Path(correction).name}"


def estimate_to(scenario: ScenarioLike, outdir: str | os.PathLike, **kwargs: Any) -> Result:
    """`estimate(...)`, its results directory written to `outdir` (all files or none); the links
    method's problems run in `outdir/links`."""
    if not str(outdir).strip():
        raise ScenarioError("results directory: expected a path, got an empty string")
    if kwargs.get("method") == "links" and kwargs.get("workdir") is None:
        kwargs["workdir"] = Path(outdir) / LINKS_DIR
    result = estimate(scenario, **kwargs)
    result.write(outdir)
    return result


def _refuse_what_the_model_lacks(flows: pl.DataFrame, spec: Mapping[str, Any]) -> None:
    """A clear error for a scenario the fluid model cannot estimate (instead of a wrong answer)."""
    long_lived = flows.filter(pl.col("size_bytes") < 0).height
    if long_lived:
        raise ScenarioError(
            f"workload: {long_lived} long-lived flow(s); expected finite flows only: an estimate gives "
            "completion times, and a long-lived flow's share of the links until it stops is not one "
            "(give the flows a size, or run the packet level)"
        )
    if spec.get("link_rate"):
        raise ScenarioError(
            "link_rate: the scenario changes link rates during the run; expected fixed rates: the fluid "
            "estimate shares each link's one capacity (run the packet level)"
        )


def _fluid(flows: pl.DataFrame, links: pl.DataFrame, compiled: Any) -> tuple[pl.Series, dict]:
    """Each flow's fluid FCT (by id): its fixed part (`ideal_fct_s` less the bottleneck's
    serialization of its wire bits) plus its max-min fluid transfer; and what the fluid did
    (`_core.local_fct`'s counts)."""
    from fctlab.reference import _wire_bits

    rates = links.sort("id")["rate_bps"].cast(pl.Float64).to_list()
    bits = flows.select(_wire_bits(flows, None, None, "estimate"))["bits"]
    paths = flows["path"].to_list()
    fluid, stats = compiled.local_fct(rates, flows["start_s"].to_list(), bits.to_list(), paths)
    bottleneck = pl.Series([min((rates[link] for link in p), default=math.inf) for p in paths], dtype=pl.Float64)
    fixed = (flows["ideal_fct_s"] - bits / bottleneck).clip(lower_bound=0.0)
    return (fixed + pl.Series(fluid, dtype=pl.Float64)).alias("fct"), dict(stats)


# ---------------------------------------------------------------------------------------------
# Validation against the packet level


def validate(
    scenario: ScenarioLike,
    outdir: str | os.PathLike,
    *,
    method: str = "fluid",
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
    jobs: int | None = None,
    client: Any | None = None,
    epsilon: float | None = None,
    note: str | None = None,
    correction: str | os.PathLike | Any | None = None,
) -> tuple[Result, Result, pl.DataFrame]:
    """Estimates the scenario into `outdir`, runs the packet level into `outdir/packet`, and
    writes the error table (`validation.parquet`, `validation.md`, which `note` opens); returns
    (estimate, packet level, table). The estimate goes first, so a scenario it refuses fails
    before the packet level's long run, and a packet level that fails or is interrupted keeps
    the estimate."""
    from fctlab.run import run_to

    out = Path(outdir)
    est = estimate_to(
        scenario,
        out,
        method=method,
        seed=seed,
        overrides=overrides,
        jobs=jobs,
        client=client,
        progress=progress,
        epsilon=epsilon,
        correction=correction,
    )
    t0 = time.perf_counter()
    packet = run_to(scenario, out / PACKET_DIR, seed=seed, overrides=overrides, progress=progress)
    packet_wall = time.perf_counter() - t0
    table = error_table(est.flows, packet.flows)
    walls = {"estimate_wall_s": est.meta["wall_s"], "packet_wall_s": packet_wall}
    from fctlab.result import write_parquet

    write_parquet(table, out / VALIDATION_TABLE)
    (out / VALIDATION_TEXT).write_text(validation_markdown(table, method, walls, note))
    return est, packet, table


def error_table(estimated: pl.DataFrame, packet: pl.DataFrame) -> pl.DataFrame:
    """Per size bin (bins chosen on both samples): flows, the estimate's and the packet level's
    mean, p50 and p99 slowdown, and the estimate's relative error of each ((est - packet) /
    packet); bins with flows on one side only are left out. One row per bin, smallest first.
    `p99_judged` says whether the bin has `P99_MIN_FLOWS` flows on both sides (`p99_summary`
    counts only those)."""
    both = pl.concat([fct_sample(estimated)["size_bytes"], fct_sample(packet)["size_bytes"]])
    bins = SizeBins.for_sizes(both)
    e, p = bin_stats(estimated, bins), bin_stats(packet, bins)
    joined = e.join(p, on="key", suffix="_packet").sort("key")
    rows = []
    for r in joined.iter_rows(named=True):
        row = {**bins.bounds(r["key"]), "flows": r["count_packet"]}
        row["p99_judged"] = min(r["count"], r["count_packet"]) >= P99_MIN_FLOWS
        for q in ("mean", "p50", "p99"):
            est, pkt = r[q], r[f"{q}_packet"]
            row[f"{q}_estimate"] = est
            row[f"{q}_packet"] = pkt
            row[f"{q}_error"] = (est - pkt) / pkt if pkt else None
        rows.append(row)
    schema = {"label": pl.String, "lo_bytes": pl.Int64, "hi_bytes": pl.Int64, "flows": pl.Int64}
    schema["p99_judged"] = pl.Boolean
    for q in ("mean", "p50", "p99"):
        schema.update({f"{q}_estimate": pl.Float64, f"{q}_packet": pl.Float64, f"{q}_error": pl.Float64})
    return pl.DataFrame(rows, schema=schema)


def p99_summary(table: pl.DataFrame, close: float = 0.10) -> dict[str, Any]:
    """The p99 verdict of an `error_table` over its judged bins (`P99_MIN_FLOWS`): `bins` judged,
    the share `close` (|error| <= `close`) and the mean |error|; shares and means are None when
    no bin is judged."""
    errors = table.filter(pl.col("p99_judged"))["p99_error"].drop_nulls().abs()
    n = errors.len()
    return {
        "bins": n,
        "close": float((errors <= close).mean()) if n else None,
        "mean_abs": float(errors.mean()) if n else None,  # type: ignore[arg-type]
    }


def validation_markdown(table: pl.DataFrame, method: str, walls: Mapping[str, float], note: str | None = None) -> str:
    """The error table as Markdown, with both wall times (and `note`, what was validated, first)."""
    lines = [
        f"# Estimate ({method}) against the packet level",
        "",
        *([note, ""] if note else []),
        f"Wall time: estimate {walls['estimate_wall_s']:.3f} s, packet level {walls['packet_wall_s']:.3f} s "
        f"({walls['packet_wall_s'] / max(walls['estimate_wall_s'], 1e-9):.1f}x).",
        "",
        "Slowdown (FCT / ideal FCT) per size bin; error = (estimate - packet) / packet. A p99 "
        f"error marked * is of a bin with fewer than {P99_MIN_FLOWS} flows on a side: its p99 is "
        "that of a handful of flows, and the verdict below leaves it out.",
        "",
        _p99_verdict(table),
        "",
        "| size | flows | mean est | mean pkt | err | p50 est | p50 pkt | err | p99 est | p99 pkt | err |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:+.1f}%"

    for r in table.iter_rows(named=True):
        cells = [r["label"], str(r["flows"])]
        for q in ("mean", "p50", "p99"):
            few = q == "p99" and not r["p99_judged"]
            cells += [f"{r[f'{q}_estimate']:.3f}", f"{r[f'{q}_packet']:.3f}", pct(r[f"{q}_error"]) + " *" * few]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _p99_verdict(table: pl.DataFrame) -> str:
    v = p99_summary(table)
    if not v["bins"]:
        return f"No size bin has {P99_MIN_FLOWS} flows on both sides: no p99 is judged."
    return (
        f"p99 within 10% on {v['close']:.0%} of the {v['bins']} bins with {P99_MIN_FLOWS} flows or "
        f"more on both sides; mean |p99 error| there {v['mean_abs']:.0%}."
    )
