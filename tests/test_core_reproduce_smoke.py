"""Every experiment of every paper, end to end on tiny runs: runs, analysis, report.

An analysis only runs after all of its simulations, so a report bug (a name that no longer
exists, a column renamed) used to surface after minutes or hours of a full reproduction. Here
each experiment runs in quick mode with every run's duration, warm-up and hard stop multiplied
by a small factor (`time_scale`), and its analysis must write a report with a table. The
numbers mean nothing; the code paths are the real ones.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fctlab.reproduce import papers
from fctlab.reproduce.framework import run_experiment
from realcore import REPO, fake  # noqa: F401  (fake: the compiled core)

#: Most experiments still have flows to analyse at 5% of their quick length.
TIME_SCALE = 0.05
#: These need flows that start later in the run: the pacing experiment's video flow, Fig. 15's
#: single flows at fixed times, Fig. 3.5's short flows beside the long one.
SLOWER = {"pacing": 0.3, "fig15-single-flows": 0.3, "fig3-5": 0.3}

EXPERIMENTS = [(paper, e) for paper, make in papers(REPO).items() for e in make()]


@pytest.mark.parametrize("paper, exp", EXPERIMENTS, ids=[f"{p}-{e.name}" for p, e in EXPERIMENTS])
def test_every_experiment_writes_its_report(paper, exp, tmp_path: Path):
    messages: list[str] = []
    record = run_experiment(
        exp,
        REPO / "experiments" / paper,
        tmp_path / "runs",
        tmp_path / "out",
        quick=True,
        jobs=2,
        say=messages.append,
        time_scale=SLOWER.get(exp.name, TIME_SCALE),
    )
    assert record["status"] == "done", record
    report = (tmp_path / "out" / exp.name / "README.md").read_text()
    assert report.startswith(f"# {exp.title}\n")
    assert "|---" in report, "no table in the report"
    assert "Mode: quick" in report
    # An analytic model (no base scenario) has no runs, so no run cache, and ignores time_scale.
    assert ("No simulation runs" if exp.base is None else "reused from the run cache") in report
    assert f"`fctlab reproduce {paper} --only {exp.name} --quick`" in report
    page = (tmp_path / "out" / exp.name / "index.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page, "no index.html with the README's tables"
