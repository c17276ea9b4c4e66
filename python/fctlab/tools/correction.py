"""A learned correction of an estimate (m3's idea, Li et al., SIGCOMM'24: a fast estimate plus
what a model learned of its error on packet-level runs), kept small: a ridge regression in numpy,
fitted on fctlab's own packet-level runs, stored as a few numbers in JSON.

**What it learns.** Per size bin (log2 segments, `analysis.SizeBins`) of an estimate, the log of
the factor by which the packet level's median and p99 slowdown exceed the estimate's:

    c_q = log(p_q(packet) / p_q(estimate)),   q in {p50, p99}

from features the estimate itself has (`FEATURES`): the bin's size, the estimate's p50, p99 and
mean slowdown there, its mean slowdown over all flows (how loaded the fabric looks to it) and
the bin's mean hop count. Each feature is standardised on the training rows; the weights are
the ridge solution (X'X + lambda I) w = X'y, the intercept unpenalised. Training rows are the
bins with `P99_MIN_FLOWS` flows on both sides (a p99 of fewer is a single flow's luck).

**How it applies** (`correct`). A flow at rank u (0..1) of its bin's estimated slowdowns has its
log slowdown raised by c_p50 up to the median, c_p99 from the 99th percentile on, and linearly
in u between: the bin's p50 and p99 move by the predicted factors. A corrected slowdown is never
below 1; a prediction is clipped to a factor of `CLIP` either way (the model is linear and can
be asked far outside what it saw). Unfinished flows stay unfinished; a flow whose corrected
finish passes the run's end becomes one.

It is only as good as the runs it was fitted on: `experiments/estimate/validation` measures it
scenario by scenario, fitted on the other scenarios only (leave one out).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from fctlab.analysis import SizeBins, fct_sample
from fctlab.errors import ScenarioError
from fctlab.result import Result
from fctlab.tools.estimated import P99_MIN_FLOWS, bin_stats, end_s, with_fct

#: The features of one size bin of an estimate, in the order of the weights.
FEATURES = ("segments_log2", "log_p50", "log_p99", "log_mean", "log_mean_all", "hops")
#: The quantiles corrected, with their names in the model.
QUANTILES = {"p50": 0.5, "p99": 0.99}
#: The ridge penalty on the standardised features.
RIDGE = 1.0
#: A predicted factor is clipped to [1 / CLIP, CLIP].
CLIP = 20.0
#: The model file's format version.
VERSION = 1

_BINS = SizeBins(exact=False)


def bin_features(flows: pl.DataFrame) -> pl.DataFrame:
    """Per size bin of a flows table (its measured, finished flows): `key`, `count`, the `p50`,
    `p99` and `mean` slowdown (`estimated.bin_stats`), and the `FEATURES`."""
    sample = fct_sample(flows).filter(pl.col("ideal_fct_s") > 0)
    mean_all = sample.select((pl.col("fct_s") / pl.col("ideal_fct_s")).mean()).item() if sample.height else 1.0
    return bin_stats(flows, _BINS, hops=pl.col("path").list.len().mean().cast(pl.Float64)).with_columns(
        segments_log2=pl.col("key").cast(pl.Float64),
        log_p50=pl.col("p50").log(),
        log_p99=pl.col("p99").log(),
        log_mean=pl.col("mean").log(),
        log_mean_all=pl.lit(math.log(max(mean_all or 1.0, 1e-12))),
    )


@dataclass(frozen=True)
class Correction:
    """A fitted correction: per quantile, an intercept and weights on the standardised
    `FEATURES` (`center`, `scale`)."""

    center: tuple[float, ...]
    scale: tuple[float, ...]
    intercept: Mapping[str, float]
    weights: Mapping[str, tuple[float, ...]]
    ridge: float
    rows: int
    method: str | None = None

    def predict(self, feats: pl.DataFrame) -> dict[str, np.ndarray]:
        """The log factors c_q of each row of `bin_features`, clipped to `CLIP`."""
        x = (feats.select(FEATURES).to_numpy().astype(float) - np.array(self.center)) / np.array(self.scale)
        bound = math.log(CLIP)
        return {q: np.clip(self.intercept[q] + x @ np.array(self.weights[q]), -bound, bound) for q in QUANTILES}

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "features": list(FEATURES),
            "method": self.method,
            "ridge": self.ridge,
            "rows": self.rows,
            "center": list(self.center),
            "scale": list(self.scale),
            "intercept": dict(self.intercept),
            "weights": {q: list(w) for q, w in self.weights.items()},
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "correction") -> Correction:
        """A model from its JSON, every field checked (a clear error names the one that is wrong)."""
        if not isinstance(data, dict):
            raise ScenarioError(f"{where}: expected a JSON object, got {type(data).__name__}")
        if data.get("version") != VERSION:
            raise ScenarioError(f"{where}.version: expected {VERSION}, got {data.get('version')!r}")
        if data.get("features") != list(FEATURES):
            raise ScenarioError(f"{where}.features: expected {list(FEATURES)}, got {data.get('features')!r}")
        n = len(FEATURES)

        def numbers(key: str, value: Any, count: int) -> tuple[float, ...]:
            if (
                not isinstance(value, list)
                or len(value) != count
                or not all(isinstance(v, int | float) and math.isfinite(v) for v in value)
            ):
                raise ScenarioError(f"{where}.{key}: expected {count} finite numbers, got {value!r}")
            return tuple(float(v) for v in value)

        scale = numbers("scale", data.get("scale"), n)
        if any(s <= 0 for s in scale):
            raise ScenarioError(f"{where}.scale: expected positive numbers, got {list(scale)}")
        intercept, weights = {}, {}
        for q in QUANTILES:
            b = (data.get("intercept") or {}).get(q)
            if not isinstance(b, int | float) or not math.isfinite(b):
                raise ScenarioError(f"{where}.intercept.{q}: expected a finite number, got {b!r}")
            intercept[q] = float(b)
            weights[q] = numbers(f"weights.{q}", (data.get("weights") or {}).get(q), n)
        return cls(
            center=numbers("center", data.get("center"), n),
            scale=scale,
            intercept=intercept,
            weights=weights,
            ridge=float(data.get("ridge", RIDGE)),
            rows=int(data.get("rows", 0)),
            method=data.get("method"),
        )

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> Correction:
        p = Path(path)
        try:
            data = json.loads(p.read_text())
        except FileNotFoundError:
            raise ScenarioError(f"correction: no model file {str(p)!r}") from None
        except (OSError, json.JSONDecodeError) as e:
            raise ScenarioError(f"correction: {str(p)!r} is not a readable JSON model ({e})") from None
        return cls.from_json(data, f"correction {p.name}")


def training_rows(estimated: pl.DataFrame, packet: pl.DataFrame) -> pl.DataFrame:
    """The rows one (estimate, packet level) pair gives: its bins with `P99_MIN_FLOWS` flows on
    both sides, their features and the targets `c_p50`, `c_p99`."""
    e, p = bin_features(estimated), bin_stats(packet, _BINS).select("key", "count", *QUANTILES)
    joined = e.join(p, on="key", suffix="_packet")
    joined = joined.filter(pl.min_horizontal("count", "count_packet") >= P99_MIN_FLOWS)
    return joined.with_columns(**{f"c_{q}": (pl.col(f"{q}_packet") / pl.col(q)).log() for q in QUANTILES}).select(
        "key", *FEATURES, *(f"c_{q}" for q in QUANTILES)
    )


def fit(
    pairs: Iterable[tuple[pl.DataFrame, pl.DataFrame]], *, ridge: float = RIDGE, method: str | None = None
) -> Correction:
    """The correction fitted on (estimated flows, packet-level flows) pairs of the same scenarios."""
    rows = pl.concat([training_rows(e, p) for e, p in pairs], how="vertical")
    if rows.height == 0:
        raise ScenarioError("correction: no size bin of the training runs has enough flows on both sides to learn from")
    x = rows.select(FEATURES).to_numpy().astype(float)
    center = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - center) / scale
    gram = z.T @ z + ridge * np.eye(len(FEATURES))
    intercept, weights = {}, {}
    for q in QUANTILES:
        y = rows[f"c_{q}"].to_numpy().astype(float)
        intercept[q] = float(y.mean())
        weights[q] = tuple(float(w) for w in np.linalg.solve(gram, z.T @ (y - y.mean())))
    return Correction(
        center=tuple(float(c) for c in center),
        scale=tuple(float(s) for s in scale),
        intercept=intercept,
        weights=weights,
        ridge=ridge,
        rows=rows.height,
        method=method,
    )


def corrected_fct(flows: pl.DataFrame, model: Correction) -> pl.Series:
    """Each flow's corrected FCT (null where the estimate has none), in the table's order."""
    feats = bin_features(flows)
    c = model.predict(feats)
    factors = feats.select("key", c50=pl.Series(c["p50"]), c99=pl.Series(c["p99"]))
    slow = pl.col("fct_s") / pl.col("ideal_fct_s")
    ranked = (
        flows.with_row_index("_row")
        .with_columns(key=_BINS.key_expr(), _slow=slow)
        .with_columns(
            _u=(pl.col("_slow").rank("ordinal").over("key") - 0.5) / pl.col("_slow").count().over("key"),
        )
        .join(factors, on="key", how="left")
        .sort("_row")
    )
    lo, hi = QUANTILES["p50"], QUANTILES["p99"]
    w = ((pl.col("_u") - lo) / (hi - lo)).clip(0.0, 1.0)
    shift = pl.col("c50") + w * (pl.col("c99") - pl.col("c50"))
    usable = pl.col("fct_s").is_not_null() & (pl.col("ideal_fct_s") > 0) & pl.col("c50").is_not_null()
    new = pl.when(usable).then((pl.col("_slow") * shift.exp()).clip(lower_bound=1.0) * pl.col("ideal_fct_s"))
    return ranked.select(new.otherwise(pl.col("fct_s")).alias("fct"))["fct"]


def correct(result: Result, model: Correction, name: str = "a learned correction") -> Result:
    """The estimate `result` with its slowdowns corrected by `model` (see the module doc)."""
    flows = result.flows
    fct = corrected_fct(flows, model).fill_null(math.inf)
    out = with_fct(flows, fct, end_s(result.scenario))
    meta = dict(result.meta)
    meta["estimate"] = {**meta.get("estimate", {}), "correction": {"model": name, **model.to_json()}}
    finished = out["finish_s"].drop_nulls()
    meta["flows_completed"] = finished.len()
    meta["sim_time_s"] = float(finished.max()) if finished.len() else 0.0
    notices = [*result.notices, f"slowdowns corrected by {name} (fctlab.tools.correction), fitted on packet-level runs"]
    return Result(out, result.links, result.series, meta, result.scenario, notices)
