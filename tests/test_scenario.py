"""fctlab.scenario: reading files, dotted overrides, command-line assignments."""

from __future__ import annotations

import pytest

from fctlab.errors import ScenarioError
from fctlab.scenario import load_scenario, parse_assignment, read_scenario, resolve_scenario, with_overrides
from shared_fixtures import write


def test_reads_toml_with_base_dir_of_the_file(scenario_file):
    """Relative paths in a scenario start at the file's directory."""
    spec, base = read_scenario(scenario_file)
    assert spec["workload"][0]["load"] == 0.3 and base == scenario_file.parent.resolve()


def test_dict_is_copied_not_shared():
    """Later overrides must not reach back into the caller's dict."""
    original = {"workload": [{"load": 0.3}]}
    spec, _ = load_scenario(original)
    spec["workload"][0]["load"] = 0.9
    assert original["workload"][0]["load"] == 0.3


def test_missing_file_names_the_path(tmp_path):
    """A missing scenario is a user error naming the path."""
    with pytest.raises(ScenarioError, match="scenario file not found: .*nope.toml"):
        read_scenario(tmp_path / "nope.toml")


def test_toml_syntax_error_names_the_line(tmp_path):
    """TOML mistakes point at the line."""
    bad = write(tmp_path / "bad.toml", 'seed = 1\nduration = "1s"\nload = = 3\n')
    with pytest.raises(ScenarioError, match=r"bad.toml: TOML syntax error: .*line 3"):
        read_scenario(bad)


def test_json_scenarios_are_accepted(tmp_path):
    """A .json scenario reads like TOML (the core's native format)."""
    spec, _ = read_scenario(write(tmp_path / "s.json", '{"seed": 4}'))
    assert spec == {"seed": 4}


def test_overrides_set_top_level_list_items_and_new_tables():
    """Dotted paths: integers index lists; missing tables are created; the input is untouched."""
    spec = {"seed": 1, "workload": [{"load": 0.3}, {"load": 0.1}]}
    out = with_overrides(spec, {"seed": 3, "workload.1.load": 0.5, "topology.core_rate": "10Gbps"})
    assert out == {"seed": 3, "workload": [{"load": 0.3}, {"load": 0.5}], "topology": {"core_rate": "10Gbps"}}
    assert spec["seed"] == 1 and spec["workload"][1]["load"] == 0.1


@pytest.mark.parametrize(
    "key, message",
    [
        ("workload.2.load", r"`workload` has 1 entries; index 2 is out of range"),
        ("workload.x.load", r"`workload` is a list; expected an index, got `x`"),
        ("seed.value", r"`seed` is 1, not a table or list"),
        ("workload..load", r"empty component"),
    ],
)
def test_override_errors_name_the_path(key, message):
    """Each bad path says which override and which part is wrong."""
    with pytest.raises(ScenarioError, match=message) as e:
        with_overrides({"seed": 1, "workload": [{"load": 0.3}]}, {key: 1})
    assert f"override `{key}`" in str(e.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("seed=3", ("seed", 3)),
        ("workload.0.load=0.5", ("workload.0.load", 0.5)),
        ("transport.protocol=rc3", ("transport.protocol", "rc3")),
        ('name="a b"', ("name", "a b")),
        ("sizes=[1460, 2920]", ("sizes", [1460, 2920])),
        ("flag=true", ("flag", True)),
        ("topology.core_rate=10Gbps", ("topology.core_rate", "10Gbps")),
    ],
)
def test_assignment_values_read_as_toml_else_text(text, expected):
    """`--set` values are typed like TOML; bare words stay strings."""
    assert parse_assignment(text) == expected


@pytest.mark.parametrize("text", ["seed", "=3", "a..b=1", ".a=1"])
def test_bad_assignment_syntax(text):
    """Without `key=` or with a broken key, a --set is refused with the expected form."""
    with pytest.raises(ScenarioError, match="bad override"):
        parse_assignment(text)


def test_resolve_leaves_core_schema_alone():
    """Only Python-side sugar is rewritten."""
    spec = {"topology": {"kind": "dumbbell", "hosts_per_side": 2}, "seed": 1}
    assert resolve_scenario(spec) == spec
