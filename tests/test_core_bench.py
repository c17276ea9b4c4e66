"""`fctlab bench --record --history`: the compiled core, a tiny scenario, a history in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

from fctlab.tools import bench as b
from realcore import cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)


def tiny_scenario(tmp_path: Path) -> Path:
    """SMALL_DUMBBELL cut to 200 ms of arrivals, as a TOML file."""
    spec = small_dumbbell(name="tiny-dumbbell", duration="200ms", measure_from="0s")
    lines = [f'name = "{spec["name"]}"', f"seed = {spec['seed']}", f'duration = "{spec["duration"]}"']
    lines += ["[topology]"] + [f"{k} = {json.dumps(v)}" for k, v in spec["topology"].items()]
    lines += ["[queues.router]"] + [f"{k} = {json.dumps(v)}" for k, v in spec["queues"]["router"].items()]
    lines += ["[[workload]]", 'kind = "poisson"', "load = 0.3", 'load_on = "bottleneck"']
    lines += ['sizes = { kind = "fixed", size = 14600 }']
    path = tmp_path / "tiny.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_record_twice_then_the_second_run_is_compared_with_the_first_entry(tmp_path: Path):
    scenario = tiny_scenario(tmp_path)
    history = tmp_path / "bench" / "history.jsonl"
    first = cli("bench", str(scenario), "--history", str(history), "--record", "--repeat", "2", "--note", "one")
    assert first.returncode == 0, first.stderr
    assert "tiny-dumbbell" in first.stdout and "no earlier entry" in first.stderr
    (entry,) = b.read_history(history)
    (s,) = entry["scenarios"]
    assert entry["note"] == "one" and entry["repeat"] == 2 and entry["commit"]
    assert s["name"] == "tiny-dumbbell" and s["flows"] > 0 and s["packet_hops"] > 0 and len(s["wall_s_all"]) == 2
    assert s["sim_s"] >= 0.2 and s["peak_rss_mb"] >= s["baseline_rss_mb"] > 0
    assert "instructions_per_hop" not in s  # not asked for

    second = cli("bench", str(scenario), "--history", str(history), "--record")
    assert second.returncode == 0, second.stderr
    assert f"last: {entry['commit']} of {entry['date']}" in second.stdout
    # the same scenario and seed make the same work, so its figures match the entry's exactly
    assert f"packet-hops       {s['packet_hops'] / 1e6:.2f} M (last {s['packet_hops'] / 1e6:.2f} M, +0.0%)" in (
        second.stdout
    )
    assert f"flows             {s['flows']} (last {s['flows']}, +0.0%)" in second.stdout
    entries = b.read_history(history)
    assert len(entries) == 2 and entries[0] == entry
    assert entries[1]["scenarios"][0]["packet_hops"] == s["packet_hops"]
    md = (tmp_path / "bench" / "HISTORY.md").read_text()
    table = md.split("## tiny-dumbbell\n")[1]
    assert table.count(f" | {entry['commit']} | {s['sim_s']:.2f} | ") == 2 and "| one |" in md


def test_instructions_are_counted_where_a_tool_is_and_n_a_where_none_is(tmp_path: Path):
    scenario = tiny_scenario(tmp_path)
    out_json = tmp_path / "rows.json"
    done = cli("bench", str(scenario), "--instructions", "--instructions-hops", "1000", "--json", str(out_json))
    assert done.returncode == 0, done.stderr
    (r,) = json.loads(out_json.read_text())
    tool, why = b.instruction_tool()
    if tool is None or b.build_run_json(b.source_root())[0] is None:
        assert r["instructions_per_hop"] is None and "n/a" in done.stdout
        return
    assert r["instructions_tool"] == tool and r["instructions_max_hops"] == 1000
    # a shortened run: whole 10 ms steps until at least 1,000 packet-hops, fewer than the whole run
    assert 1000 <= r["instructions_hops"] < r["packet_hops"]
    assert r["instructions"] > 0 and r["instructions_build"] > 0
    assert 100 < r["instructions_per_hop"] < 100_000
    assert r["instructions_per_hop"] == r["instructions"] / r["instructions_hops"]
