"""A report's numbers against the paper's: each check's status, the experiment's, the report's
table and checks.json, and the index of every experiment (`fctlab reproduce all` / `index`)."""

from __future__ import annotations

import json
import math

import pytest

from fctlab.cli import main
from fctlab.reproduce import checks
from fctlab.reproduce.checks import INVESTIGATION, MATCH, MISS, PARTIAL, UNDECLARED, Check, experiment_status
from fctlab.reproduce.framework import analysis_only, run_experiment
from fctlab.reproduce.index import NOT_RUN, gather, write_index


@pytest.mark.parametrize(
    "paper, fctlab, status",
    [
        (10.0, 10.9, MATCH),  # 9% off
        (10.0, 11.1, PARTIAL),  # 11%
        (10.0, 7.1, PARTIAL),  # 29% below
        (10.0, 6.9, MISS),  # 31%
        ((1.0, 1.15), 1.1, MATCH),  # inside a range
        ((1.0, 1.15), 1.3, PARTIAL),  # 13% above its top
        ((None, 2.0), 0.1, MATCH),  # "at most 2"
        ((0.5, None), 0.3, MISS),  # "at least 0.5": 40% short
        (10.0, None, MISS),  # no value
        (10.0, math.nan, MISS),
        (0.0, 0.0, MATCH),
        (0.0, 0.1, MISS),  # no relative distance from zero
    ],
)
def test_a_checks_status_follows_its_distance_from_the_papers_number(paper, fctlab, status):
    assert Check("Fig. 1", "x", paper, fctlab).status == status


def test_a_checks_own_tolerances_decide():
    assert Check("Fig. 1", "x", 10.0, 12.0, tolerance=0.25, partial=0.5).status == MATCH
    assert Check("Fig. 1", "x", 10.0, 12.0, tolerance=0.0, partial=0.1).status == MISS


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"paper": (2.0, 1.0)}, "reversed"),
        ({"paper": (None, None)}, "no end"),
        ({"tolerance": 0.5, "partial": 0.2}, "tolerance <= partial"),
    ],
)
def test_a_malformed_check_is_refused(kwargs, says):
    with pytest.raises(ValueError, match=says):
        Check(**{"figure": "Fig. 1", "quantity": "x", "paper": 1.0, "fctlab": 1.0, **kwargs})


def test_an_experiment_matches_only_when_every_check_does():
    m, p, x = Check("f", "a", 1.0, 1.0), Check("f", "b", 1.0, 1.2), Check("f", "c", 1.0, 3.0)
    assert experiment_status([m, m]) == MATCH
    assert experiment_status([m, x]) == PARTIAL
    assert experiment_status([p]) == PARTIAL
    assert experiment_status([x, x]) == MISS
    assert experiment_status([]) == UNDECLARED
    assert experiment_status([], investigation=True) == INVESTIGATION
    assert experiment_status([x], investigation=True) == MISS, "an investigation's checks still judge it"


def test_a_ratio_is_missing_without_both_values_or_over_zero():
    assert checks.ratio(3.0, 2.0) == 1.5 and checks.ratio(0.0, 2.0) == 0.0
    assert checks.ratio(None, 2.0) is None and checks.ratio(3.0, None) is None and checks.ratio(3.0, 0.0) is None


def test_checks_json_round_trips(tmp_path):
    cs = [Check("Fig. 2", "rate", (1.0, None), 0.8, tolerance=0.05, partial=0.3), Check("Fig. 3", "n", 4.0, None)]
    checks.write(tmp_path / "checks.json", cs)
    assert checks.read(tmp_path / "checks.json") == cs
    doc = json.loads((tmp_path / "checks.json").read_text())
    assert doc["status"] == PARTIAL and [c["status"] for c in doc["checks"]] == [PARTIAL, MISS]
    assert checks.read(tmp_path / "absent.json") == []


def _model(name: str, values: list[float] | None):
    """An analytic experiment whose analysis checks `values` against a paper's 1.0 (none: no checks)."""

    def analyze(runs, ctx):
        for i, v in enumerate(values or []):
            ctx.check("Fig. 9", f"quantity {i}", 1.0, v)
        return "Body."

    return analysis_only(name, f"Model {name}", analyze)


def test_the_report_ends_with_its_checks_and_checks_json_goes_beside_it(tmp_path):
    exp = _model("m", [1.0, 1.5])
    run_experiment(exp, tmp_path / "paper", tmp_path / "cache", tmp_path / "out", quick=False, jobs=1, say=print)
    report = (tmp_path / "out" / "m" / "README.md").read_text()
    assert "## Paper against fctlab" in report and "Status: **partial** (1 of 2 numbers" in report
    assert "| Fig. 9 | quantity 1 | 1.00 | 1.50 | miss |" in report
    assert report.index("Body.") < report.index("## Paper against fctlab") < report.index("Mode: full")
    assert json.loads((tmp_path / "out" / "m" / "checks.json").read_text())["status"] == PARTIAL
    # An analysis that no longer declares checks leaves no stale verdict behind.
    run_experiment(
        _model("m", None), tmp_path / "paper", tmp_path / "c", tmp_path / "out", quick=False, jobs=1, say=print
    )
    assert not (tmp_path / "out" / "m" / "checks.json").exists()
    assert "Paper against fctlab" not in (tmp_path / "out" / "m" / "README.md").read_text()


def _investigation(name: str):
    exp = _model(name, None)
    exp.investigation = True
    return exp


def test_the_index_has_a_row_per_check_and_one_per_experiment_without_checks(tmp_path):
    papers = {
        "p1": lambda: [_model("good", [1.0, 1.02]), _model("prose", None), _investigation("why")],
        "p2": lambda: [_model("later", [1.0])],
    }
    for exp in papers["p1"]():
        run_experiment(exp, tmp_path / "p1", tmp_path / "c", tmp_path / "p1", quick=False, jobs=1, say=print)
    entries = gather(tmp_path, papers)
    assert [(e.paper, e.name, e.status) for e in entries] == [
        ("p1", "good", MATCH),
        ("p1", "prose", UNDECLARED),
        ("p1", "why", INVESTIGATION),
        ("p2", "later", NOT_RUN),
    ]
    md, page, _ = write_index(tmp_path, papers, quick=False)
    text = md.read_text()
    assert "Status: 1 match, 1 investigation, 1 not declared, 1 not run (4 experiments)." in text
    assert "| p1 | [good](p1/good/) | Fig. 9 | quantity 1 | 1.00 | 1.02 | match |" in text
    assert "| p1 | [prose](p1/prose/) | Model prose |  |  |  | not declared |" in text
    assert "| p1 | [why](p1/why/) | Model why |  |  |  | investigation |" in text
    html = page.read_text()
    assert html.count('<tr data-status="match">') == 2 and html.count('data-status="not run"') == 1
    assert html.count('<tr data-status="investigation">') == 1
    # `fctlab pages` renders every README but leaves the index page alone.
    from fctlab.html.experiments import write_all

    assert [p.parent.name for p in write_all(tmp_path)] == ["good", "prose", "why"]
    assert page.read_text() == html
    # The same reports give the same bytes.
    first = (text, html)
    write_index(tmp_path, papers, quick=False)
    assert (md.read_text(), page.read_text()) == first


@pytest.mark.parametrize(
    "args, says",
    [
        (["reproduce", "nonsense"], "unknown paper 'nonsense'; expected all, index or one of"),
        (["reproduce", "all", "--only", "fig3-3"], "--only: names an experiment of one paper"),
    ],
)
def test_reproduce_refuses_what_it_cannot_do(args, says, capsys):
    assert main(args) == 2
    assert says in capsys.readouterr().err


def test_checks_json_keeps_twelve_significant_digits_so_the_last_bits_of_a_sum_do_not_show(tmp_path):
    a = Check("Fig. 1", "q", 4.8, 4.829830671766996)
    b = Check("Fig. 1", "q", 4.8, 4.829830671766983)
    checks.write(tmp_path / "a.json", [a])
    checks.write(tmp_path / "b.json", [b])
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert checks.read(tmp_path / "a.json")[0].fctlab == 4.82983067177
