"""Python values in scenarios and overrides: numpy scalars accepted, the rest refused by name."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

import fctlab
from fctlab.errors import ScenarioError
from fctlab.run import prepare
from fctlab.values import MAX_DEPTH, plain

BASE = {"duration": "1s", "workload": [{"load": 0.3}], "transport": {"protocol": "tcp"}}


def test_numpy_scalars_and_tuples_become_plain_values():
    spec, _ = prepare(
        BASE,
        seed=np.int64(7),
        overrides={"workload.0.load": np.float32(0.5), "transport.iw": np.int32(4), "x": (1, 2), "y": np.bool_(True)},
    )
    assert spec["seed"] == 7 and type(spec["seed"]) is int
    assert spec["workload"][0]["load"] == 0.5 and type(spec["workload"][0]["load"]) is float
    assert spec["transport"]["iw"] == 4 and type(spec["transport"]["iw"]) is int
    assert spec["x"] == [1, 2] and spec["y"] is True


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"workload.0.load": None}, r"field `workload.0.load`: expected .*got None \(leave the field out"),
        ({"workload.0.sizes": {1, 2}}, r"field `workload.0.sizes`: expected a list, got a set"),
        ({"workload.0.load": Decimal("0.5")}, r"field `workload.0.load`: expected .*got Decimal"),
        ({"seed": 2**64}, r"field `seed`: expected an integer in \[-2\^63, 2\^64 - 1\], got 18446744073709551616"),
        ({"transport.iw": -(2**63) - 1}, r"field `transport.iw`: expected an integer"),
        ({"transport.cc": object()}, r"field `transport.cc`: expected .*got object"),
        ({"transport.x": b"ab"}, r"field `transport.x`: expected .*got bytes"),
    ],
)
def test_values_the_core_cannot_take_are_refused_by_field(overrides, message):
    with pytest.raises(ScenarioError, match=message):
        prepare(BASE, overrides=overrides)


def test_a_list_of_overrides_is_refused_with_fctlabs_error():
    with pytest.raises(ScenarioError, match=r"overrides: expected a mapping of dotted paths .*got list"):
        prepare(BASE, overrides=[("workload.0.load", 0.5)])


def test_a_scenario_that_is_neither_a_path_nor_a_dict_is_refused():
    with pytest.raises(ScenarioError, match=r"scenario: expected a path .*got int"):
        fctlab.run(3)


def test_nesting_deeper_than_the_limit_is_refused():
    deep: object = 1
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(ScenarioError, match="levels of nested"):
        plain({"x": deep})


@pytest.mark.parametrize("open_, close", [("[", "]"), ("{a=", "}")])
def test_a_toml_file_nested_500_deep_is_one_clear_error(tmp_path, open_, close):
    path = tmp_path / "deep.toml"
    inner = "1" if open_ != "[" else ""
    path.write_text(f'duration = "1s"\nx = {open_ * 500}{inner}{close * 500}\n')
    with pytest.raises(ScenarioError, match="nested too deeply|levels of nested"):
        prepare(path)
