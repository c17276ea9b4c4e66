"""`fctlab bench --routers`: the per-packet cost of each router law (seed 003 sec. IV-I)."""

from __future__ import annotations

from pathlib import Path

import pytest

from realcore import cli, fake  # noqa: F401  (fake: the compiled core)


def test_every_law_is_timed_beside_the_papers_operation_counts(tmp_path: Path):
    from fctlab.tools import router_cost

    rows = router_cost.measure(packets=5_000, repeat=1)
    assert [r["law"] for r in rows] == ["droptail", "xcp", "rcp", "jetmax", "piqi", "hpcc"]
    assert all(r["ns_per_packet"] > 0 for r in rows)
    assert rows[0]["ns_over_droptail"] == 0.0
    report = router_cost.markdown(rows)
    assert "6 additions + 3 multiplications" in report and "2 additions + 2 multiplications" in report
    assert report.count("\n| ") == 1 + len(rows)


def test_the_cli_writes_the_report_and_refuses_what_does_not_apply(tmp_path: Path):
    out = tmp_path / "cost.md"
    done = cli("bench", "--routers", "--packets", "2000", "--report", str(out))
    assert done.returncode == 0, done.stderr
    assert "PIQI-RCP" in done.stdout and "PIQI-RCP" in out.read_text()
    bad = cli("bench", "--report", str(tmp_path / "x.md"))
    assert bad.returncode == 2 and "--report" in bad.stderr and "Traceback" not in bad.stderr


def test_an_unknown_law_is_refused_naming_the_field():
    from fctlab._core import router_cost

    with pytest.raises(ValueError, match='field `law`.*"red"'):
        router_cost("red", 10)
