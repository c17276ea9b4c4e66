"""fctlab.reproduce.framework: the parts no paper's tests reach."""

from __future__ import annotations

from pathlib import Path

from fctlab.reproduce.framework import analysis_only, run_experiment


def test_analysis_only_experiment_writes_its_report_without_runs(tmp_path: Path):
    seen = []

    def analyze(runs, ctx):
        seen.append((runs.names, ctx.quick, ctx.out))
        return "| a |\n|---|\n| 1 |"

    exp = analysis_only("model", "A model", analyze)
    messages: list[str] = []
    record = run_experiment(
        exp, tmp_path / "paper", tmp_path / "runs", tmp_path / "out", quick=True, jobs=1, say=messages.append
    )
    assert record == {"experiment": "model", "status": "done", "title": "A model"}
    assert seen == [([], True, tmp_path / "out" / "model")]
    report = (tmp_path / "out" / "model" / "README.md").read_text()
    assert report.startswith("# A model\n\n| a |")
    assert "No simulation runs: computed in Python" in report
    assert "`fctlab reproduce paper --only model --quick`" in report
    assert not (tmp_path / "runs").exists()
