"""The learned correction of an estimate (fctlab.tools.correction): what it fits, how it moves a
bin's quantiles, that it carries over to other flows of the same scenario, and its model file."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from fctlab.errors import ScenarioError
from fctlab.result import load
from fctlab.run import run
from fctlab.tools.correction import FEATURES, Correction, correct, corrected_fct, fit
from fctlab.tools.estimate import error_table, estimate, p99_summary
from realcore import cli, fake  # noqa: F401  (fake: the compiled core)

#: Hadoop sizes at 50% on a 32-host leaf-spine for 40 ms: about 6,700 flows, enough for a p99 in
#: most size bins, a packet level of a second.
LEAF_SPINE = {
    "name": "correction",
    "seed": 1,
    "duration": "40ms",
    "measure_from": "5ms",
    "topology": {
        "kind": "leaf_spine",
        "leaves": 4,
        "hosts_per_leaf": 8,
        "spines": 2,
        "host_rate": "10Gbps",
        "fabric_rate": "40Gbps",
        "host_delay": "1us",
        "fabric_delay": "1us",
    },
    "queues": {"router": {"kind": "droptail", "limit_packets": 200}},
    "transport": {"protocol": "tcp", "cc": "newreno", "iw": 10, "min_rto": "1ms"},
    "workload": [{"kind": "poisson", "load": 0.5, "sizes": {"kind": "cdf", "name": "fb-hadoop"}}],
}


def flows_table(seed: int, n: int = 3000) -> pl.DataFrame:
    """Made-up finished flows: sizes over four decades, slowdowns from 1 up, two or four hops."""
    rng = np.random.default_rng(seed)
    ideal = rng.uniform(1e-5, 1e-3, n)
    return pl.DataFrame(
        {
            "id": np.arange(n),
            "size_bytes": rng.integers(100, 10_000_000, n),
            "ideal_fct_s": ideal,
            "fct_s": ideal * (1 + rng.exponential(2.0, n)),
            "measured": [True] * n,
            "path": [[0, 1] if i % 2 else [0, 1, 2, 3] for i in range(n)],
        }
    )


def test_a_uniform_bias_is_learned_and_undone():
    """A packet level twice as slow as the estimate in every flow: the model learns log 2 for both
    quantiles and nothing from the features, and the corrected estimate is the packet level."""
    pairs = []
    for seed in (1, 2, 3):
        est = flows_table(seed)
        pairs.append((est, est.with_columns(fct_s=pl.col("fct_s") * 2)))
    model = fit(pairs)
    assert model.intercept["p50"] == pytest.approx(math.log(2)) and model.intercept["p99"] == pytest.approx(math.log(2))
    assert np.abs(model.weights["p99"]).max() < 1e-9
    est, pkt = pairs[0]
    fixed = est.with_columns(fct_s=corrected_fct(est, model))
    assert fixed["fct_s"].to_numpy() == pytest.approx(pkt["fct_s"].to_numpy())


def test_a_bin_moves_by_its_p50_and_p99_factors_and_never_below_its_ideal():
    """Factors of 1/4 at the median and 3 at the p99: the bin's p50 and p99 move by them (its
    tail rank by rank between), and a flow the factor would push below its ideal FCT stays at it."""
    est = flows_table(5)
    lo = dict.fromkeys(FEATURES, 0.0)
    model = Correction(
        center=tuple(lo.values()),
        scale=tuple(1.0 for _ in FEATURES),
        intercept={"p50": math.log(0.25), "p99": math.log(3.0)},
        weights={"p50": tuple(0.0 for _ in FEATURES), "p99": tuple(0.0 for _ in FEATURES)},
        ridge=1.0,
        rows=0,
    )
    fixed = est.with_columns(fct_s=corrected_fct(est, model))
    assert (fixed["fct_s"] >= fixed["ideal_fct_s"] * (1 - 1e-12)).all()
    slow = (pl.col("fct_s") / pl.col("ideal_fct_s")).alias("s")
    top = fixed.select(slow)["s"].max() / est.select(slow)["s"].max()
    assert top == pytest.approx(3.0), "the largest slowdown of each bin is at rank > 0.99"


def test_a_model_fitted_on_one_seed_shrinks_the_error_on_another():
    """The fluid's p99 error on seed 2, corrected by a model fitted on seed 1 of the same
    scenario, is at most three quarters of the uncorrected one (measured: 95% -> 48%)."""
    model = fit([(estimate(LEAF_SPINE, seed=1).flows, run(LEAF_SPINE, seed=1).flows)])
    raw = estimate(LEAF_SPINE, seed=2)
    packet = run(LEAF_SPINE, seed=2).flows
    before = p99_summary(error_table(raw.flows, packet))["mean_abs"]
    fixed = correct(raw, model)
    after = p99_summary(error_table(fixed.flows, packet))["mean_abs"]
    assert after < 0.75 * before, (before, after)
    assert fixed.meta["estimate"]["correction"]["rows"] == model.rows
    assert any("corrected" in n for n in fixed.notices)


def test_the_model_file_round_trips_and_a_bad_field_is_named(tmp_path):
    model = fit([(flows_table(1), flows_table(2))], method="fluid")
    model.save(tmp_path / "m.json")
    assert Correction.load(tmp_path / "m.json") == model
    data = json.loads((tmp_path / "m.json").read_text())
    for key, value, needle in (
        ("version", 9, "version"),
        ("scale", [1.0], "scale"),
        ("weights", {"p50": [0.0] * len(FEATURES)}, "weights.p99"),
        ("center", ["x"] * len(FEATURES), "center"),
    ):
        with pytest.raises(ScenarioError, match=needle):
            Correction.from_json({**data, key: value})
    with pytest.raises(ScenarioError, match="no model file"):
        Correction.load(tmp_path / "none.json")


def test_correction_on_the_cli(tmp_path):
    fit([(flows_table(1), flows_table(2))]).save(tmp_path / "m.json")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({**LEAF_SPINE, "duration": "5ms", "measure_from": 0}))
    proc = cli("estimate", str(scenario), "-o", str(tmp_path / "c"), "--correction", str(tmp_path / "m.json"))
    assert proc.returncode == 0, proc.stderr
    assert "corrected by the learned correction m.json" in proc.stdout
    assert load(tmp_path / "c").meta["estimate"]["correction"]["model"] == "the learned correction m.json"
    bad = cli("estimate", str(scenario), "-o", str(tmp_path / "d"), "--correction", str(tmp_path / "none.json"))
    assert bad.returncode != 0 and "no model file" in bad.stderr and "Traceback" not in bad.stderr
