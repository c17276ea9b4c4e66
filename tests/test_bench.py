"""fctlab.tools.bench: the benchmark history, the comparison with its last entry, the instruction count
when its tools are missing or fail, and the benchmark scenarios' generators (fake core)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

from fctlab.cli import main
from fctlab.errors import ScenarioError
from fctlab.tools import bench as b
from shared_fixtures import write

REPO = Path(__file__).resolve().parents[1]
DUMBBELL = REPO / "examples" / "dumbbell-pareto.toml"


def row(file: str = "a.toml", name: str = "a", **figures) -> dict:
    """A benchmark row as `bench()` returns it, with round figures unless given."""
    r = {
        "name": name,
        "file": file,
        "sim_s": 10.0,
        "wall_s": 1.0,
        "wall_s_all": [1.0],
        "packet_hops": 10_000_000,
        "events": 10_000_000,
        "flows": 100,
        "sim_s_per_wall_s": 10.0,
        "hops_per_s": 10_000_000.0,
        "events_per_s": 10_000_000.0,
        "hops_per_cpu_s": 12_000_000.0,
        "cpu_s": 0.8,
        "peak_rss_mb": 100.0,
        "baseline_rss_mb": 50.0,
    }
    r.update(figures)
    return r


def entry(commit: str, *rows: dict) -> dict:
    return {"commit": commit, "date": "2026-01-01T00:00:00Z", "repeat": 1, "scenarios": list(rows)}


# --- the history file ------------------------------------------------------------------------


def test_entries_come_back_as_appended_one_line_each(tmp_path):
    path = tmp_path / "deep" / "history.jsonl"
    assert b.read_history(path) == []
    first = entry("aaaaaaa", row(instructions_per_hop=612.5))
    second = entry("bbbbbbb+dirty", row(), row("b.toml", "b"))
    b.append_history(path, first)
    b.append_history(path, second)
    assert b.read_history(path) == [first, second]
    assert len(path.read_text().splitlines()) == 2
    # a file whose last line lost its newline still gets one line per entry
    path.write_text(path.read_text().rstrip("\n"))
    b.append_history(path, first)
    assert b.read_history(path) == [first, second, first]


def test_a_damaged_history_names_its_line(tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_text(json.dumps(entry("aaaaaaa", row())) + "\n\n{not json\n")
    with pytest.raises(ScenarioError, match=r"history.jsonl line 3: not JSON"):
        b.read_history(path)
    path.write_text('{"commit": "x"}\n')
    with pytest.raises(ScenarioError, match="line 1: expected an object with a list `scenarios`"):
        b.read_history(path)


def test_an_entry_keeps_the_figures_and_drops_what_was_not_measured(tmp_path):
    r = row(instructions_per_hop=None, instructions_note="n/a (no perf, no valgrind)", repeat=3, scenario="x")
    e = b.make_entry([r], repeat=3, suite="default", note="drifts 15%", root=tmp_path)
    assert e["commit"] == "unknown"  # tmp_path is no git repository
    assert e["repeat"] == 3 and e["suite"] == "default" and e["note"] == "drifts 15%"
    assert e["machine"]["cores"] >= 1 and e["machine"]["cpu"] and len(e["load"]) == 3
    assert e["tools"]["python"] and e["tools"]["fctlab"]
    (s,) = e["scenarios"]
    assert "instructions_per_hop" not in s and "instructions_note" not in s and "scenario" not in s
    assert s["file"] == "a.toml" and s["hops_per_s"] == 10_000_000 and s["wall_s_all"] == [1.0]
    assert e["date"].endswith("Z") and len(e["date"]) == len("2026-01-01T00:00:00Z")


def test_the_commit_is_marked_dirty_by_changes_to_tracked_files_but_not_by_the_history(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    write(tmp_path / "code.rs", "fn main() {}\n")
    write(tmp_path / "benchmarks" / "history.jsonl", "")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True
    ).stdout.strip()
    history = tmp_path / "benchmarks" / "history.jsonl"
    assert b.commit_id(tmp_path, [history]) == head
    write(tmp_path / "untracked.txt", "not part of the build\n")
    history.write_text("{}\n")
    assert b.commit_id(tmp_path, [history]) == head
    assert b.commit_id(tmp_path) == head + "+dirty"
    (tmp_path / "code.rs").write_text("fn main() { loop {} }\n")
    assert b.commit_id(tmp_path, [history]) == head + "+dirty"


# --- against the last entry ------------------------------------------------------------------


def test_each_figure_is_compared_with_the_last_entry_holding_the_same_file():
    history = [
        entry("old0001", row(hops_per_s=10.0e6, wall_s=2.0)),
        entry("last002", row(hops_per_s=12.2e6, wall_s=0.5, instructions_per_hop=900.0, instructions_max_hops=1000)),
        entry("other03", row("b.toml", "b", hops_per_s=99.0e6)),  # the last entry, but without a.toml
    ]
    now = row(hops_per_s=13.4e6, wall_s=0.6, instructions_per_hop=918.0, instructions_max_hops=1000)
    assert b.last_for(history, "a.toml")[0]["commit"] == "last002"
    assert b.last_for(history, "c.toml") is None
    text = b.format_comparison([now, row("c.toml", "c")], history, "h.jsonl")
    a_block = text.split("c (c.toml)")[0]
    assert "a (a.toml), last: last002 of 2026-01-01T00:00:00Z" in a_block
    assert "packet-hops/s     13.4 M (last 12.2 M, +9.8%)" in a_block
    assert "wall s            0.60 (last 0.50, +20.0%)  !" in a_block  # slower beyond the drift
    assert "instructions/hop  918 (last 900, +2.0%)  !" in a_block
    assert "hops per CPU s    12.0 M (last 12.0 M, +0.0%)\n" in a_block
    assert "shortened" not in a_block  # the same window
    assert "c (c.toml): no earlier entry" in text
    assert text.rstrip().endswith("1.01 for instructions")


def test_the_sign_and_the_flag_follow_which_way_is_better():
    assert b.compare_figure("hops_per_s", 10.0e6, 12.5e6) == ("10.0 M (last 12.5 M, -20.0%)", True)
    assert b.compare_figure("hops_per_s", 12.5e6, 10.0e6) == ("12.5 M (last 10.0 M, +25.0%)", False)
    assert b.compare_figure("wall_s", 0.8, 1.0) == ("0.80 (last 1.00, -20.0%)", False)
    assert b.compare_figure("hops_per_s", 9.0e6, 10.0e6)[1] is False  # within the 15% drift
    # a time 15.4% longer and a rate 13.4% lower are the same slowdown: both flagged
    assert b.compare_figure("wall_s", 28.12, 24.36) == ("28.1 (last 24.4, +15.4%)", True)
    assert b.compare_figure("hops_per_s", 3.63e6, 4.19e6) == ("3.63 M (last 4.19 M, -13.4%)", True)
    assert b.compare_figure("sim_s", 5.9299, 5.93) == ("5.93 (last 5.93, +0.0%)", False)
    assert b.compare_figure("peak_rss_mb", 120.0, 100.0) == ("120 MB (last 100 MB, +20.0%)", True)
    assert b.compare_figure("instructions_per_hop", 895.0, 900.0) == ("895 (last 900, -0.6%)", False)
    assert b.compare_figure("instructions_per_hop", None, 900.0) == ("n/a (last 900)", False)
    assert b.compare_figure("flows", 101, 100) == ("101 (last 100, +1.0%)", False)  # work: never flagged
    assert b.compare_figure("hops_per_s", 1.0e6, None) == ("1.00 M", False)


def test_counts_over_shortened_runs_of_different_lengths_are_said_to_differ():
    history = [entry("last002", row(instructions_per_hop=900.0, instructions_max_hops=1000))]
    text = b.format_comparison([row(instructions_per_hop=800.0, instructions_max_hops=5000)], history, "h")
    assert "800 (last 900, -11.1%); shortened to 5000 hops, last to 1000" in text
    # no instruction line at all when neither side counted them
    assert "instructions/hop" not in b.format_comparison([row()], [entry("x", row())], "h")


def test_the_markdown_has_one_table_per_scenario_with_every_entry(tmp_path):
    path = tmp_path / "history.jsonl"
    b.append_history(path, entry("first01", row(hops_per_s=5.36e6), row("b.toml", "b")))
    # an entry from before CPU time was kept: n/a in its column
    b.append_history(
        path,
        entry(
            "second2", row(hops_per_s=5.11e6, instructions_per_hop=843.8, hops_per_cpu_s=None, l2_misses_per_hop=3.456)
        ),
    )
    md = b.write_markdown(path).read_text()
    assert md == (tmp_path / "HISTORY.md").read_text()
    a_table = md.split("## a\n")[1].split("## b\n")[0]
    lines = [ln for ln in a_table.splitlines() if ln.startswith("| ") and ln[2].isdigit()]
    assert lines == [
        "| 1 | first01 | 10.00 | 1.00 | 10.0 | 5.36 | 10.00 | 12.00 | 100 | 100 | 50 | n/a | n/a |",
        "| 2 | second2 | 10.00 | 1.00 | 10.0 | 5.11 | 10.00 | n/a | 100 | 100 | 50 | 844 | 3.46 L2 |",
    ]
    assert "second2" not in md.split("## b\n")[1]
    assert md.count("| 1 | first01 | 2026-01-01T00:00:00Z | ?, ? cores | ? | 1 |") == 1


# --- instructions per packet-hop: tools missing or failing -----------------------------------


def completed(argv, returncode=0, stdout="", stderr=""):
    return subprocess.CompletedProcess(argv, returncode, stdout, stderr)


def test_no_tool_means_n_a_never_a_failure(monkeypatch):
    monkeypatch.setattr(b.shutil, "which", lambda name: None)
    monkeypatch.setattr(b, "_run", lambda *a, **k: pytest.fail("no tool may be started"))
    assert b.instruction_tool() == (None, "no perf, no valgrind")
    counter = b.InstructionCounter()
    assert counter.measure(str(DUMBBELL)) == {
        "instructions_per_hop": None,
        "instructions_note": "n/a (no perf, no valgrind)",
    }
    table = b.format_table([row(**counter.measure("x.toml"))])
    assert table.splitlines()[2].endswith("n/a")
    assert table.splitlines()[-1] == "instructions per packet-hop: n/a (no perf, no valgrind)"


def test_perf_without_counters_falls_back_to_cachegrind(monkeypatch):
    monkeypatch.setattr(b.shutil, "which", lambda name: f"/usr/bin/{name}")
    unsupported = "<not supported>,,instructions:u,0,100.00,,\n"
    monkeypatch.setattr(b, "_run", lambda argv, **k: completed(argv, stderr=unsupported))
    assert b.instruction_tool() == ("cachegrind", "")
    monkeypatch.setattr(b, "_run", lambda argv, **k: completed(argv, stderr="1234567,,instructions:u,81,100.00,,\n"))
    assert b.instruction_tool() == ("perf", "")
    monkeypatch.setattr(b.shutil, "which", lambda name: "/usr/bin/perf" if name == "perf" else None)
    monkeypatch.setattr(b, "_run", lambda argv, **k: completed(argv, stderr=unsupported))
    assert b.instruction_tool() == (None, "perf cannot read the instruction counter here, no valgrind")


def test_no_cargo_or_no_source_tree_means_n_a(monkeypatch, tmp_path):
    monkeypatch.setattr(b.shutil, "which", lambda name: None if name == "cargo" else f"/usr/bin/{name}")
    assert b.build_run_json(REPO) == (None, "no cargo to build run_json")
    assert b.build_run_json(None)[0] is None
    monkeypatch.setattr(b, "instruction_tool", lambda: ("cachegrind", ""))
    counter = b.InstructionCounter()
    assert counter.tool is None
    assert counter.measure("x.toml")["instructions_note"] == "n/a (no cargo to build run_json)"


def fake_cachegrind(counts: dict[str, int], hops: int, fail: str | None = None, misses: dict | None = None):
    """Stands in for `valgrind --tool=cachegrind run_json ...`: writes the summary line of the
    count for the run (`--max-hops`) or the build (`--build-only`), with `misses[kind]` =
    (D1mr, D1mw, DLmr, DLmw) when given, and prints run_json's figures."""
    seen = []

    def run(argv, **kwargs):
        seen.append(argv)
        kind = "build" if "--build-only" in argv else "run"
        if fail == kind:
            return completed(argv, 1, stderr="==1== valgrind: fatal error\n")
        out_file = next(a.split("=", 1)[1] for a in argv if a.startswith("--cachegrind-out-file="))
        if misses is None:
            Path(out_file).write_text(f"events: Ir\nsummary: {counts[kind]}\n")
        else:
            d1r, d1w, dlr, dlw = misses[kind]
            Path(out_file).write_text(
                "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
                f"summary: {counts[kind]} 7 7 100 {d1r} {dlr} 100 {d1w} {dlw}\n"
            )
        figures = {"sim_s": 0.5, "wall_s": 1.0, "events": hops, "packet_hops": hops if kind == "run" else 0}
        return completed(argv, stdout=json.dumps(figures) + "\n", stderr=f"==1== I   refs: {counts[kind]:,}\n")

    return run, seen


def test_the_build_is_subtracted_and_the_rest_divided_by_the_shortened_runs_hops(monkeypatch):
    run, seen = fake_cachegrind({"run": 9_000_000, "build": 1_000_000}, hops=10_000)
    monkeypatch.setattr(b, "_run", run)
    got = b.measure_instructions(str(DUMBBELL), "cachegrind", Path("/x/run_json"), hops=9_999)
    assert got["instructions_per_hop"] == 800.0
    assert got["instructions"] == 8_000_000 and got["instructions_build"] == 1_000_000
    assert got["instructions_hops"] == 10_000 and got["instructions_max_hops"] == 9_999
    assert got["instructions_tool"] == "cachegrind"
    run_argv, build_argv = seen
    assert run_argv[:3] == ["valgrind", "--tool=cachegrind", "--cache-sim=yes"]
    assert "--LL=1048576,16,64" in run_argv, "the simulated caches are the same on every machine"
    assert run_argv[run_argv.index("--max-hops") + 1] == "9999" and "--build-only" in build_argv
    assert Path(run_argv[run_argv.index("--base") + 1]) == REPO / "examples"


def test_cache_misses_per_hop_are_the_runs_less_the_builds(monkeypatch):
    misses = {"run": (30_000, 10_000, 20_000, 5_000), "build": (8_000, 2_000, 4_000, 1_000)}
    run, _ = fake_cachegrind({"run": 9_000_000, "build": 1_000_000}, hops=10_000, misses=misses)
    monkeypatch.setattr(b, "_run", run)
    got = b.measure_instructions(str(DUMBBELL), "cachegrind", Path("/x/run_json"), hops=9_999)
    assert got["d1_misses_per_hop"] == 3.0 and got["l2_misses_per_hop"] == 2.0
    assert "llc_misses_per_hop" not in got
    assert b.misses_cell(got) == "2.00 L2"
    assert b.misses_cell({**got, "llc_misses_per_hop": 0.5}) == "0.50 LLC"
    assert b.misses_cell({}) == "n/a"


def test_a_failing_tool_is_n_a_with_its_reason(monkeypatch):
    run, _ = fake_cachegrind({"run": 9_000_000, "build": 1_000_000}, hops=10_000, fail="build")
    monkeypatch.setattr(b, "_run", run)
    counter = b.InstructionCounter.__new__(b.InstructionCounter)
    counter.tool, counter.exe, counter.note = "cachegrind", Path("/x/run_json"), ""
    got = counter.measure(str(DUMBBELL))
    assert got == {
        "instructions_per_hop": None,
        "instructions_note": "n/a (cachegrind run failed: ==1== valgrind: fatal error)",
    }


def test_counts_are_read_from_either_tools_output(tmp_path):
    assert b.perf_count("# started\n8123456789,,instructions:u,2000,100.00,,\n") == 8123456789
    assert b.perf_count("<not counted>,,instructions:u,0,0.00,,\n") is None
    assert b.perf_count("") is None
    out = write(tmp_path / "cg.out", "desc: x\ncmd: run_json\nevents: Ir\nsummary: 42\n")
    assert b.cachegrind_count(out, "") == 42
    assert b.cachegrind_count(tmp_path / "missing", "==7== I   refs:      1,960,549,641\n") == 1960549641
    assert b.cachegrind_count(None, "nothing") is None
    perf = "# started\n8123456789,,instructions:u,2000,100.00,,\n4567,,LLC-load-misses:u,2000,100.00,,\n"
    assert b.perf_counts(perf) == {"instructions": 8123456789, "llc_misses": 4567}
    assert b.perf_counts("8,,instructions:u,1,1,,\n<not supported>,,LLC-load-misses:u,0,0,,\n") == {"instructions": 8}
    sim = write(tmp_path / "sim.out", "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nsummary: 50 1 1 9 4 2 9 3 1\n")
    assert b.cachegrind_counts(sim, "") == {"instructions": 50, "d1_misses": 7, "l2_misses": 3}


# --- the command line (fake core, in this process) -------------------------------------------


@pytest.fixture
def in_process(monkeypatch):
    """Runs each benchmark in this process (the fake core) instead of a fresh interpreter."""
    monkeypatch.setattr(b, "run_in_subprocess", b.measure_one)


def test_record_appends_an_entry_and_the_next_run_compares_with_it(scenario_file, tmp_path, in_process, capsys):
    history = tmp_path / "h" / "history.jsonl"
    args = ["bench", str(scenario_file), "--history", str(history)]
    assert main([*args, "--record", "--note", "first"]) == 0
    out = capsys.readouterr()
    assert "no earlier entry to compare with" in out.err and "recorded" in out.err
    (first,) = b.read_history(history)
    assert first["note"] == "first" and first["suite"] == "custom"
    assert first["scenarios"][0]["file"] == b.scenario_key(scenario_file)
    assert "small" in (tmp_path / "h" / "HISTORY.md").read_text()
    assert main(args) == 0  # no --record: compares, appends nothing
    out = capsys.readouterr().out
    assert f"last: {first['commit']} of {first['date']}" in out and "packet-hops/s" in out
    assert len(b.read_history(history)) == 1


def test_bench_options_that_do_not_fit_are_one_line_errors(scenario_file, tmp_path, capsys):
    for argv, says in [
        (["bench", "--routers", "--record"], "`--record`: not meaningful with --routers"),
        (["bench", str(scenario_file), "--note", "x"], "`--note`: only meaningful with --record"),
        (["bench", str(scenario_file), "--suite", "scaling"], "give scenario files or --suite, not both"),
        (["bench", "--instructions-hops", "5"], "only meaningful with --instructions"),
        (["bench", "--render", "--history", str(tmp_path / "none.jsonl")], "no benchmark history at"),
        (["bench", "--render", "--suite", "all"], "runs nothing"),
        (["bench", "--suite", "huge"], "invalid choice: 'huge'"),
    ]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and says in err and "\n" not in err, (argv, err)


def test_a_damaged_history_is_refused_before_the_runs(scenario_file, tmp_path, monkeypatch, capsys):
    history = write(tmp_path / "history.jsonl", "[1, 2]\n")
    monkeypatch.setattr(b, "run_in_subprocess", lambda p: pytest.fail("ran despite the damaged history"))
    assert main(["bench", str(scenario_file), "--history", str(history), "--record"]) == 2
    assert "line 1" in capsys.readouterr().err
    assert history.read_text() == "[1, 2]\n"


def test_render_rewrites_only_the_markdown(tmp_path, capsys):
    history = tmp_path / "history.jsonl"
    b.append_history(history, entry("first01", row()))
    assert main(["bench", "--render", "--history", str(history)]) == 0
    assert "| 1 | first01 |" in (tmp_path / "HISTORY.md").read_text()


# --- the benchmark scenarios -----------------------------------------------------------------


def test_every_suite_names_files_that_exist():
    assert b.SUITES["default"] == b.DEFAULT_SCENARIOS
    assert set(b.SUITES["all"]) == (
        set(b.DEFAULT_SCENARIOS) | set(b.SCALING_SCENARIOS) | set(b.LARGE_SCENARIOS) | set(b.PLUGIN_SCENARIOS)
    )
    assert b.SUITES["plugins"][:2] == b.DEFAULT_SCENARIOS, "the plug-ins beside the built-ins they copy"
    for path in b.SUITES["all"]:
        assert (REPO / path).is_file(), path


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_generators_rewrite_the_committed_scenarios_byte_for_byte(tmp_path):
    folder = REPO / "benchmarks" / "scenarios"
    graphs = _module(folder / "make_graph.py")
    for routers in (1000, 10000):
        graphs.write(tmp_path, routers)
    fat_tree = _module(folder / "make_fat_tree.py")
    for n in (64, 512, 4096):
        fat_tree.write(n, tmp_path)
    for made in sorted(tmp_path.iterdir()):
        assert made.read_bytes() == (folder / made.name).read_bytes(), made.name
    assert len(list(tmp_path.iterdir())) == 10


def test_the_random_graph_is_connected_with_1000_routers():
    g = json.loads((REPO / "benchmarks" / "scenarios" / "graph-1000.json").read_text())
    routers = {n["name"] for n in g["nodes"] if n["kind"] == "router"}
    assert len(routers) == len(g["nodes"]) == 1000
    adjacent: dict[str, set[str]] = {r: set() for r in routers}
    for link in g["links"]:
        adjacent[link["a"]].add(link["b"])
        adjacent[link["b"]].add(link["a"])
    seen, todo = {"r0"}, ["r0"]
    while todo:
        for nxt in adjacent[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    assert seen == routers
    assert len({frozenset((link["a"], link["b"])) for link in g["links"]}) == len(g["links"]) == 1999
