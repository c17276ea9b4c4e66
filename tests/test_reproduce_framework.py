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


def test_figure_saves_the_plot_and_closes_it_and_saves_nothing_when_the_block_fails(tmp_path: Path):
    from fctlab.reproduce.framework import Context, figure, plt

    ctx = Context(out=tmp_path, quick=True, seeds=[1])
    open_before = plt().get_fignums()  # figures other code left open in this process
    with figure(ctx, "two.png", 1, 2, figsize=(4, 2)) as (fig, axes):
        assert len(axes) == 2
        axes[0].plot([0, 1], [1, 0])
    assert (tmp_path / "two.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    try:
        with figure(ctx, "broken.png") as (fig, ax):
            ax.plot([0, 1], [0, 1])
            raise KeyError("a column the runs lack")
    except KeyError:
        pass
    assert not (tmp_path / "broken.png").exists()
    assert plt().get_fignums() == open_before, "both figures closed"
