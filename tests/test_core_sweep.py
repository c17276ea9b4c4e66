"""A sweep over the compiled core in which one grid value is invalid: the others are not lost."""

from __future__ import annotations

import json

import polars as pl

from fctlab.cli import main
from fctlab.result import load
from realcore import fake, small_dumbbell  # noqa: F401  (fake: the compiled core)


def test_failing_run_does_not_lose_the_others(tmp_path, capsys):
    """load = 1.5 is refused by the core; the two valid loads finish, in worker processes."""
    (tmp_path / "scenario.json").write_text(json.dumps(small_dumbbell()))
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('scenario = "scenario.json"\nseeds = 1\n[grid]\n"workload.0.load" = [0.2, 1.5, 0.4]\n')
    out = tmp_path / "out"

    assert main(["sweep", str(sweep), "-o", str(out), "-j", "2", "-q"]) == 1
    err = capsys.readouterr().err
    assert "2 done" in err and "1 failed" in err
    assert "workload.0.load=1.5/seed1" in err and "workload[0].load" in err and "got 1.5" in err

    index = pl.read_parquet(out / "sweep.parquet")  # rows in grid order
    assert index["status"].to_list() == ["done", "failed", "done"]
    assert index["workload.0.load"].to_list() == [0.2, 1.5, 0.4] and index["error"][0] is None
    assert "workload[0].load" in index["error"][1]
    assert (out / "workload.0.load=1.5" / "seed1.error.txt").is_file()
    assert not (out / "workload.0.load=1.5" / "seed1").exists()

    low, high = (load(out / f"workload.0.load={x}" / "seed1") for x in ("0.2", "0.4"))
    assert low.scenario["workload"][0]["load"] == 0.2 and high.scenario["workload"][0]["load"] == 0.4
    assert 0 < low.flows.height < high.flows.height, "twice the load, more flows"
    assert index["flows_started"].to_list()[::2] == [low.flows.height, high.flows.height]

    # A second pass redoes only the failed run, which fails again; the done runs are kept.
    assert main(["sweep", str(sweep), "-o", str(out), "-j", "1", "-q"]) == 1
    assert "(2 skipped as already done)" in capsys.readouterr().err
