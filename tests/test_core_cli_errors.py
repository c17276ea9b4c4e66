"""Bad input through the `fctlab` command, refused by the compiled core or the front end.

Each case runs `fctlab run` in a fresh interpreter and must exit 2 with exactly one line on
stderr, "error: ...", naming the field and the value; no traceback, nothing on stdout, and no
results directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from realcore import cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)


def with_sizes(sizes: dict) -> dict:
    spec = small_dumbbell()
    spec["workload"][0]["sizes"] = sizes
    return spec


def with_topology(**fields) -> dict:
    spec = small_dumbbell()
    spec["topology"].update(fields)
    return spec


def with_load(load: float) -> dict:
    spec = small_dumbbell()
    spec["workload"][0]["load"] = load
    return spec


# (case id, scenario dict, or a raw file text for syntax errors, then the fragments the one line must hold)
CASES = [
    ("unknown-field", with_topology(buffer="1MB"), ["topology.buffer", "unknown field `buffer`"]),
    (
        "negative-rate",
        with_topology(bottleneck_rate="-10Mbps"),
        ["topology.bottleneck_rate", "expected a rate > 0", '"-10Mbps"'],
    ),
    ("negative-rate-number", with_topology(access_rate=-1e9), ["topology.access_rate", "> 0", "-1000000000"]),
    ("load-one", with_load(1.0), ["workload[0].load", "(0, 1)", "got 1"]),
    ("load-above-one", with_load(1.5), ["workload[0].load", "got 1.5"]),
    ("empty-cdf", with_sizes({"kind": "cdf", "points": []}), ["workload[0].sizes.points", "got none"]),
    (
        "missing-cdf-file",
        with_sizes({"kind": "cdf", "file": "no-such-cdf.txt"}),
        ["workload[0].sizes.file", "no-such-cdf.txt", "cannot read"],
    ),
    (
        "unknown-topology-kind",
        small_dumbbell(topology={"kind": "ring", "hosts": 3}),
        ["topology", "unknown variant `ring`", "dumbbell"],
    ),
    ("toml-syntax", 'seed = 1\nduration = "1s\n', ["syntax.toml", "TOML syntax error", "line 2"]),
    (
        "handshake-rcp-without-fixed-rate",
        small_dumbbell(transport={"protocol": "rcp", "handshake": False}),
        ["transport.handshake", "got false", "fixed_rate"],
    ),
    (
        "handshake-tcp",
        small_dumbbell(transport={"protocol": "tcp", "handshake": False}),
        ["transport.handshake", "got false", "fixed-rate RCP"],
    ),
]


def one_line(done) -> str:
    """The single stderr line of a failed run, after checking the failure's shape."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("case, scenario, wanted", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_is_one_line_naming_field_and_value(case, scenario, wanted, tmp_path):
    """The line names the field and the value seen."""
    if isinstance(scenario, str):
        path = tmp_path / "syntax.toml"
        path.write_text(scenario)
    else:
        path = tmp_path / f"{case}.json"
        path.write_text(json.dumps(scenario))
    line = one_line(cli("run", str(path), "-o", str(tmp_path / "out")))
    for w in wanted:
        assert w in line, f"{w!r} not in {line!r}"
    assert not (tmp_path / "out").exists(), "a refused scenario must not leave a results directory"


def test_missing_scenario_file(tmp_path):
    """A scenario path that does not exist is named."""
    missing = tmp_path / "nowhere.toml"
    line = one_line(cli("run", str(missing), "-o", str(tmp_path / "out")))
    assert "scenario file not found" in line and str(missing) in line


def test_bad_override_value_is_refused_by_the_core(tmp_path):
    """--set reaches the core, whose refusal names the overridden field; without it the file is fine."""
    path = Path(tmp_path / "ok.json")
    path.write_text(json.dumps(small_dumbbell()))
    line = one_line(cli("validate", str(path), "--set", "transport.iw=0"))
    assert "transport.iw" in line and "got 0" in line
    ok = cli("validate", str(path))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: "), ok.stderr
