"""Papers kept as folders: `experiments/<paper>/paper.toml` and one `experiment.py` per
experiment folder, found by `fctlab reproduce` in the checkout or under `--root`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fctlab.cli import main
from fctlab.errors import ScenarioError
from fctlab.reproduce import discover, papers
from realcore import REPO

EXPERIMENT = """
from fctlab.reproduce.framework import analysis_only
from fctlab_experiments.toy.shared import ANSWER


def experiment():
    return analysis_only("{name}", "Toy {name}", lambda runs, ctx: f"The answer is {{ANSWER}}.")
"""


def toy(root: Path, names=("first", "second"), listed=None, title="A toy paper") -> Path:
    """A checkout with the paper folder `toy`: a shared module and one experiment per name."""
    paper = root / "experiments" / "toy"
    paper.mkdir(parents=True)
    (paper / "shared.py").write_text("ANSWER = 42\n")
    listed = list(names) if listed is None else listed
    (paper / "paper.toml").write_text(f"title = {title!r}\nexperiments = {listed!r}\n")
    for n in names:
        (paper / n).mkdir()
        (paper / n / "experiment.py").write_text(EXPERIMENT.format(name=n))
    return root


def test_a_paper_folder_lists_its_experiments_in_its_order_and_they_share_its_code(tmp_path):
    found = papers(toy(tmp_path, listed=["second", "first"]))
    assert list(found)[-1] == "toy"
    exps = found["toy"]()
    assert [e.name for e in exps] == ["second", "first"]
    assert exps[0].analyze(None, None) == "The answer is 42."


def test_papers_toml_orders_the_paper_folders_and_the_unlisted_follow_by_name(tmp_path):
    root = toy(tmp_path)
    for name in ("beta", "alpha"):
        (root / "experiments" / name).mkdir()
        (root / "experiments" / name / "paper.toml").write_text(f"title = {name!r}\nexperiments = ['x']\n")
    assert list(discover.folder_papers(root)) == ["alpha", "beta", "toy"]
    (root / "experiments" / "papers.toml").write_text("papers = ['toy', 'beta']\n")
    assert list(discover.folder_papers(root)) == ["toy", "beta", "alpha"]
    (root / "experiments" / "papers.toml").write_text("papers = ['toy', 'gamma']\n")
    with pytest.raises(ScenarioError, match=r"papers.toml: field `papers`: no paper.toml in the folder of gamma"):
        discover.folder_papers(root)
    (root / "experiments" / "papers.toml").write_text("papers = 'toy'\n")
    with pytest.raises(ScenarioError, match=r"field `papers`: expected a list of distinct paper folder names"):
        discover.folder_papers(root)


def test_the_checkouts_papers_come_in_the_order_of_papers_toml():
    assert list(papers(REPO)) == ["rc3", "rcp", "explicit", "emulated", "datacenter", "hpcc", "estimate"]


def test_the_checkouts_rc3_paper_is_a_folder_in_the_papers_order():
    assert [e.name for e in papers(REPO)["rc3"]()] == [
        "fig4-model",
        "internet2-load",
        "fig9-rttbw",
        "table1-robustness",
        "fig11-loss",
        "fig12-priorities",
        "pacing",
        "rc3-with-tcp",
        "partial-wqos",
        "fig14a-iw",
        "fig14b-qos",
        "authors-code",
        "datacenter",
        "downlink",
        "datacenter-setups",
        "fig15-single-flows",
        "fig16-17-priority",
    ]


def test_the_checkouts_datacenter_paper_is_a_folder():
    assert [e.name for e in papers(REPO)["datacenter"]()] == [
        "leaf-spine",
        "dctcp-queue",
        "dctcp-convergence",
        "dctcp-benchmark",
        "hpcc-fct",
        "pfabric-buffers",
    ]


@pytest.mark.parametrize(
    "paper_toml, says",
    [
        ('experiments = ["first"]\n', "field `title`"),
        ('title = "T"\nexperiments = []\n', "field `experiments`"),
        ('title = "T"\nexperiments = ["first", "first"]\n', "listed twice"),
        ("title = ", "paper.toml"),
    ],
)
def test_a_bad_paper_toml_names_its_field(tmp_path, paper_toml, says):
    toy(tmp_path)
    (tmp_path / "experiments/toy/paper.toml").write_text(paper_toml)
    with pytest.raises(ScenarioError, match=says):
        discover.read_paper(tmp_path / "experiments/toy")


def test_an_experiment_must_be_named_as_its_folder_and_exist(tmp_path):
    toy(tmp_path, listed=["first", "missing"])
    with pytest.raises(ScenarioError, match="no .*missing/experiment.py"):
        papers(tmp_path)["toy"]()
    other = tmp_path / "other"
    toy(other)
    (other / "experiments/toy/first/experiment.py").write_text(EXPERIMENT.format(name="renamed"))
    with pytest.raises(ScenarioError, match="must return the Experiment named 'first'.*got 'renamed'"):
        papers(other)["toy"]()


def test_reproduce_runs_the_papers_of_the_checkout_it_is_given(tmp_path, capsys, monkeypatch):
    toy(tmp_path)
    monkeypatch.chdir(tmp_path / "experiments")  # not a checkout: --root says where
    assert main(["reproduce", "toy", "--root", str(tmp_path), "--only", "second"]) == 0
    report = (tmp_path / "experiments/toy/second/README.md").read_text()
    assert report.startswith("# Toy second\n\nThe answer is 42.")
    assert main(["reproduce", "toy", "--root", str(tmp_path / "experiments")]) == 2
    assert "--root" in capsys.readouterr().err


def test_listing_into_a_closed_pipe_ends_quietly_with_sigpipes_code():
    """`fctlab reproduce all --list | head -2`: the reader goes away; no traceback, exit 141."""
    read, write = os.pipe()
    os.close(read)  # every write to the pipe now fails: the reader is gone
    try:
        done = subprocess.run(
            [sys.executable, "-m", "fctlab.cli", "reproduce", "all", "--list"],
            stdout=write,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env={k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"},  # the installed package's own core
            timeout=120,
        )
    finally:
        os.close(write)
    assert done.returncode == 141
    assert done.stderr == b""
