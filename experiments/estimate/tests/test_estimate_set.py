"""The validation set of `fctlab estimate` (validation/experiment.py): it spans what issue 38 asks
of it, and every one of its scenarios builds."""

from __future__ import annotations

from fctlab.reproduce import papers
from fctlab.reproduce.discover import experiment_module
from fctlab.run import build
from fctlab.scenario import read_scenario, with_overrides
from realcore import REPO, fake  # noqa: F401  (fake: the compiled core)

# The experiment's own module, as `fctlab reproduce` imports it (an experiment folder is not a
# package: `discover.experiment_module`).
validation = experiment_module(REPO, "estimate", "validation")
SET, experiment = validation.SET, validation.experiment


def test_the_set_has_twenty_scenarios_across_every_dimension():
    assert len(SET) >= 20 and len({tuple(s) for s in SET}) == len(SET)
    topologies, sizes, loads, transports, bursty = (set(x) for x in zip(*SET, strict=True))
    assert topologies == {"ls", "over", "ft4"}
    assert sizes == {"ws", "dm", "hd"}
    assert min(loads) <= 0.3 and max(loads) >= 0.7
    assert transports == {"tcp", "dctcp", "hpcc", "dcqcn"}
    assert bursty == {True, False}


def test_every_scenario_of_the_set_builds():
    assert "estimate" in papers(REPO)
    base, _ = read_scenario(REPO / "experiments" / "estimate" / "base.toml")
    for name, overrides in experiment().points:
        sim, spec = build(with_overrides(base, overrides))
        assert sim is not None, name


def test_the_scale_experiments_packet_level_is_reused_only_for_the_same_scenario_and_build(tmp_path):
    """The whole fabric's packet level takes half an hour: a second reproduction reuses it, but
    not for another scenario or another build."""
    scale = experiment_module(REPO, "estimate", "scale")
    spec = scale.scenario(scale.QUICK)
    first = scale.packet_level(spec, tmp_path / "p")
    stamp = (tmp_path / "p" / "meta.json").stat().st_mtime_ns
    again = scale.packet_level(spec, tmp_path / "p")
    assert again.flows.equals(first.flows) and (tmp_path / "p" / "meta.json").stat().st_mtime_ns == stamp
    other = scale.packet_level({**spec, "seed": 2}, tmp_path / "p")
    assert not other.flows.equals(first.flows)
    (tmp_path / "p" / scale.BUILD_FILE).write_text("another build\n")
    scale.packet_level({**spec, "seed": 2}, tmp_path / "p")
    assert (tmp_path / "p" / scale.BUILD_FILE).read_text().strip() != "another build"
