"""fctlab.topology: topohub graphs expanded into the core's `graph` spec."""

from __future__ import annotations

import itertools

import pytest

from fctlab.errors import ScenarioError
from fctlab.scenario import load_scenario, resolve_scenario, with_overrides
from fctlab.topology import SECONDS_PER_KM, expand_topohub, mean_rtt
from shared_fixtures import write

ABILENE = {
    "kind": "topohub",
    "name": "topozoo/Abilene",
    "hosts_per_router": 2,
    "access_rate": "1Gbps",
    "access_delay": "1ms",
    "core_rate": "10Gbps",
}


def rtt_over_host_pairs(graph: dict) -> float:
    """Independent check: Floyd-Warshall over routers *and* hosts, mean RTT over host pairs on
    different routers, delays as emitted (access links counted at both ends)."""
    h, access = graph["hosts_per_router"], float(graph["access_delay"].rstrip("ms")) * 1e-3
    routers = [n["name"] for n in graph["nodes"]]
    hosts = [(r, f"{r}_h{i}") for r in routers for i in range(h)]
    names = routers + [name for _, name in hosts]
    idx = {n: i for i, n in enumerate(names)}
    inf = float("inf")
    d = [[0.0 if i == j else inf for j in range(len(names))] for i in range(len(names))]
    edges = [(l["a"], l["b"], l["delay"]) for l in graph["links"]] + [(r, name, access) for r, name in hosts]
    for a, b, w in edges:
        d[idx[a]][idx[b]] = d[idx[b]][idx[a]] = min(d[idx[a]][idx[b]], w)
    for k, i, j in itertools.product(range(len(names)), repeat=3):
        if d[i][k] + d[k][j] < d[i][j]:
            d[i][j] = d[i][k] + d[k][j]
    pairs = [(x, y) for (rx, x), (ry, y) in itertools.product(hosts, hosts) if rx != ry]
    return sum(2 * d[idx[x]][idx[y]] for x, y in pairs) / len(pairs)


def test_abilene_scaled_to_40ms_mean_rtt():
    """11 routers, 14 core links, and a 40 ms mean RTT over host pairs within 0.1%."""
    g = expand_topohub({**ABILENE, "mean_rtt": "40ms"})
    assert g["kind"] == "graph" and g["hosts_per_router"] == 2
    assert len(g["nodes"]) == 11 and all(n["kind"] == "router" for n in g["nodes"])
    assert len(g["links"]) == 14 and all(l["rate"] == "10Gbps" for l in g["links"])
    assert rtt_over_host_pairs(g) == pytest.approx(0.040, rel=1e-3)
    assert mean_rtt(g) == pytest.approx(0.040, rel=1e-9)


def test_abilene_delays_from_distance_without_mean_rtt():
    """5 us per km: New York - Chicago is 1146.16 km, so 5.7308 ms one way."""
    g = expand_topohub(ABILENE)
    link = next(l for l in g["links"] if {l["a"], l["b"]} == {"New_York", "Chicago"})
    assert link["delay"] == pytest.approx(1146.16 * SECONDS_PER_KM)
    # Geographic Abilene: mean one-way core path 2305 km -> RTT 23.05 ms, plus 4 x 1 ms access.
    assert rtt_over_host_pairs(g) == pytest.approx(0.02305 + 0.004, rel=1e-3)


def test_node_names_are_safe_for_link_names():
    """Spaces become underscores so host and link names need no quoting."""
    names = [n["name"] for n in expand_topohub(ABILENE)["nodes"]]
    assert "Washington_DC" in names and all(" " not in n for n in names)


def test_unknown_name_suggests_close_keys():
    """A typo names the field, the value, and close matches."""
    with pytest.raises(
        ScenarioError, match=r'field `topology.name`: unknown topohub topology "topozoo/Abilen".*topozoo/Abilene'
    ):
        expand_topohub({**ABILENE, "name": "topozoo/Abilen"})


@pytest.mark.parametrize(
    "change, message",
    [
        ({"mean_rtt": "3ms"}, r"field `topology.mean_rtt`: expected more than .*4 ms.*got \"3ms\""),
        ({"hosts_per_router": 0}, r"field `topology.hosts_per_router`: expected an integer >= 1, got 0"),
        ({"access_delay": "1 parsec"}, r"field `topology.access_delay`: expected a duration"),
        ({"core_rate": None}, r"field `topology.core_rate`"),
        ({"colour": "red"}, r"field `topology.colour`: unknown field"),
    ],
)
def test_bad_fields_are_named(change, message):
    """Every refusal names the field, and the value where there is one."""
    with pytest.raises(ScenarioError, match=message):
        expand_topohub({k: v for k, v in {**ABILENE, **change}.items() if v is not None})


def test_expansion_from_a_scenario_file_after_overrides(tmp_path):
    """load_scenario expands topohub; an override of mean_rtt applies before the expansion."""
    path = write(
        tmp_path / "abilene.toml",
        """
        seed = 1
        [topology]
        kind = "topohub"
        name = "topozoo/Abilene"
        access_rate = "1Gbps"
        access_delay = "1ms"
        core_rate = "10Gbps"
        mean_rtt = "40ms"
    """,
    )
    spec, _ = load_scenario(path)
    assert spec["topology"]["kind"] == "graph" and mean_rtt(spec["topology"]) == pytest.approx(0.040)
    from fctlab.scenario import read_scenario

    raw, _ = read_scenario(path)
    spec = resolve_scenario(with_overrides(raw, {"topology.mean_rtt": "80ms"}))
    assert mean_rtt(spec["topology"]) == pytest.approx(0.080)
