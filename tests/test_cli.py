"""fctlab.cli: exit codes, one-line errors, and what each subcommand prints."""

from __future__ import annotations

import importlib
import json

from fctlab.cli import main
from shared_fixtures import write


def one_line_error(capsys) -> str:
    """The captured stderr, asserted to be exactly one "error: ..." line."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_run_writes_results_and_prints_summary(scenario_file, tmp_path, capsys):
    """`fctlab run` exits 0, writes the results directory and prints the table."""
    assert (
        main(["run", str(scenario_file), "-o", str(tmp_path / "out"), "--seed", "3", "--set", "transport.protocol=rc3"])
        == 0
    )
    out = capsys.readouterr().out
    assert "FCT (ms)" in out and "flows:" in out
    scenario = json.loads((tmp_path / "out" / "scenario.json").read_text())
    assert scenario["seed"] == 3 and scenario["transport"]["protocol"] == "rc3"


def test_missing_scenario_file(tmp_path, capsys):
    """Exit 2 with one line naming the file."""
    assert main(["run", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "o")]) == 2
    assert "scenario file not found" in one_line_error(capsys)


def test_bad_override_syntax(scenario_file, tmp_path, capsys):
    """A --set without '=' is a user error."""
    assert main(["run", str(scenario_file), "-o", str(tmp_path / "o"), "--set", "seed"]) == 2
    assert "bad override `seed`: expected key=value" in one_line_error(capsys)


def test_scenario_error_from_the_core(scenario_file, tmp_path, capsys):
    """The core's refusal is printed as it came, on one line."""
    assert main(["run", str(scenario_file), "-o", str(tmp_path / "o"), "--set", "workload.0.load=1.2"]) == 2
    assert one_line_error(capsys) == "error: field `workload[0].load`: expected 0 < load < 1, got 1.2"


def test_toml_syntax_error(tmp_path, capsys):
    """TOML mistakes are one line naming file and line."""
    bad = write(tmp_path / "bad.toml", "seed = \n")
    assert main(["validate", str(bad)]) == 2
    assert "line 1" in one_line_error(capsys)


def test_argument_errors_are_one_line(capsys):
    """argparse complaints (missing -o) follow the same rule, exit 2."""
    assert main(["run", "x.toml"]) == 2
    assert "-o/--out" in one_line_error(capsys)
    assert main(["sweep", "s.toml", "-o", "o", "-j", "0"]) == 2
    one_line_error(capsys)


def test_missing_core_is_one_line(scenario_file, monkeypatch, capsys):
    """An unbuilt core is reported, not raised."""
    monkeypatch.setattr(importlib.import_module("fctlab.run"), "_core", None)
    assert main(["validate", str(scenario_file)]) == 2
    assert "maturin develop" in one_line_error(capsys)


def test_validate_builds_without_running(scenario_file, fake, capsys):
    """validate constructs the Simulation and never steps it."""
    assert main(["validate", str(scenario_file)]) == 0
    assert len(fake.CALLS["built"]) == 1 and fake.CALLS["run_until"] == []
    assert capsys.readouterr().out.startswith("ok: ")


def test_summary_and_compare(scenario_file, tmp_path, capsys):
    """summary (table and JSON) and compare read results directories."""
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert main(["run", str(scenario_file), "-o", a, "-q"]) == 0
    assert main(["run", str(scenario_file), "-o", b, "-q", "--set", "transport.protocol=rc3"]) == 0
    capsys.readouterr()
    assert main(["summary", a]) == 0 and "mean FCT (ms)" in capsys.readouterr().out
    assert main(["summary", a, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["flows_started"] == 51
    assert main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    assert "over flows" in out and "over bytes" in out and "1460 B" in out
    assert main(["compare", a, b, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["over_flows_pct"] > 0  # the fake's rc3 is faster
    assert main(["summary", str(tmp_path / "nothing")]) == 2
    assert "results directory not found" in one_line_error(capsys)


def test_sweep_exit_code_reflects_failed_runs(tmp_path, scenario_file, capsys):
    """Failed runs give exit 1 and are listed; the others' results stay."""
    sweep = write(
        tmp_path / "s.toml", f'scenario = "{scenario_file}"\nseeds = 1\n[grid]\n"workload.0.load" = [0.3, 1.5]\n'
    )
    assert main(["sweep", str(sweep), "-o", str(tmp_path / "out"), "-j", "1", "-q"]) == 1
    err = capsys.readouterr().err
    assert "1 failed" in err and "workload.0.load=1.5/seed1" in err
    assert (tmp_path / "out" / "workload.0.load=0.3" / "seed1" / "done.json").is_file()


def _results(scenario_file, tmp_path, name: str = "out"):
    out = tmp_path / name
    assert main(["run", str(scenario_file), "-o", str(out), "-q"]) == 0
    return out


def test_damaged_results_are_one_line_errors(scenario_file, tmp_path, capsys):
    """A truncated flows.parquet or meta.json given to summary / compare: one line, exit 2."""
    good = _results(scenario_file, tmp_path, "good")
    bad = _results(scenario_file, tmp_path, "bad")
    flows = (bad / "flows.parquet").read_bytes()
    (bad / "flows.parquet").write_bytes(flows[: len(flows) // 2])
    assert main(["summary", str(bad)]) == 2
    assert "flows.parquet is damaged or not a result file" in one_line_error(capsys)
    assert main(["compare", str(good), str(bad)]) == 2
    assert "flows.parquet is damaged" in one_line_error(capsys)
    (bad / "flows.parquet").write_bytes(flows)
    meta = (bad / "meta.json").read_text()
    (bad / "meta.json").write_text(meta[: len(meta) // 2])
    assert main(["summary", str(bad)]) == 2
    assert "meta.json is damaged" in one_line_error(capsys)


def test_empty_output_directory_is_refused(scenario_file, tmp_path, monkeypatch, capsys):
    """`-o ""` would write into the current directory."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(scenario_file), "-o", ""]) == 2
    assert "expected a results directory, got an empty path" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == [scenario_file.parent]


def test_a_full_disk_is_one_line_and_leaves_nothing_that_looks_complete(scenario_file, tmp_path, monkeypatch, capsys):
    """The last table fails as polars fails on a full disk: one line, no result file appears, and
    the flows table already streamed is kept as flows.partial.parquet, as the error says."""
    import polars as pl

    from fctlab import result

    calls = []
    real = result.write_parquet

    def failing(df, path):
        calls.append(path)
        if len(calls) == 2:  # links, then series (flows were streamed)
            raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")
        real(df, path)

    monkeypatch.setattr(result, "write_parquet", failing)
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "-o", str(out), "-q"]) == 2
    line = one_line_error(capsys)
    assert "No space left on device" in line and "flows.partial.parquet" in line, line
    assert [p.name for p in out.iterdir()] == ["flows.partial.parquet"], "no complete-looking file, no temporary"
    assert pl.read_parquet(out / "flows.partial.parquet").height == 51  # the fake core's 50 flows + 1 long-lived


def test_a_stream_that_cannot_be_written_is_one_line_and_leaves_nothing(scenario_file, tmp_path, monkeypatch, capsys):
    """The flows table's stream fails (a full disk while the run goes): one line, no file left."""
    import polars as pl

    def full(self, path, **kwargs):
        raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", full)
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "-o", str(out), "-q"]) == 2
    line = one_line_error(capsys)
    assert "No space left on device" in line and "flows.parquet" in line, line
    assert list(out.iterdir()) == []


def test_an_interrupted_run_keeps_the_rows_written(scenario_file, tmp_path, monkeypatch, capsys):
    """Ctrl-C in the middle of a run: exit 130, and the rows of the flows that had finished are
    kept, final, in id order, as flows.partial.parquet (the message says where)."""
    import polars as pl

    import fake_core

    real = fake_core.Simulation.run_until

    def interrupted(self, t):
        if self.now >= 0.8 * self.horizon:
            raise KeyboardInterrupt
        return real(self, t)

    monkeypatch.setattr(fake_core.Simulation, "run_until", interrupted)
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "-o", str(out), "-q"]) == 130
    line = one_line_error(capsys)
    assert "interrupted" in line and "flows.partial.parquet" in line, line
    kept = pl.read_parquet(out / "flows.partial.parquet")
    assert [p.name for p in out.iterdir()] == ["flows.partial.parquet"]
    assert 0 < kept.height < 51 and kept["id"].to_list() == list(range(kept.height))
    # A later run that completes removes it.
    monkeypatch.setattr(fake_core.Simulation, "run_until", real)
    assert main(["run", str(scenario_file), "-o", str(out), "-q"]) == 0
    assert "flows.partial.parquet" not in [p.name for p in out.iterdir()]


def test_a_failed_write_keeps_the_earlier_results_whole(scenario_file, tmp_path, monkeypatch, capsys):
    """Writing over an earlier run's directory either replaces all of it or nothing (the new
    run's streamed flows table aside, kept as flows.partial.parquet, as the error says)."""
    out = _results(scenario_file, tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full(path):
        raise OSError(28, "No space left on device", str(path))

    from fctlab import result

    monkeypatch.setattr(result, "_write_json", lambda path, obj: full(path))
    assert main(["run", str(scenario_file), "-o", str(out), "--seed", "9", "-q"]) == 2
    line = one_line_error(capsys)
    assert "No space left on device" in line and "flows.partial.parquet" in line, line
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert after.pop("flows.partial.parquet") and after == before


def test_a_deeply_nested_toml_is_one_line(tmp_path, capsys):
    path = write(tmp_path / "deep.toml", 'duration = "1s"\nx = ' + "[" * 500 + "]" * 500 + "\n")
    assert main(["validate", str(path)]) == 2
    assert "nested too deeply" in one_line_error(capsys)


def test_a_full_disk_while_writing_the_sweep_index_is_one_line(tmp_path, scenario_file, monkeypatch, capsys):
    """The runs are kept; the index fails as polars fails on a full disk, and no partial index is left."""
    import polars as pl

    real = pl.DataFrame.write_parquet

    def full_for_the_index(self, path, *args, **kwargs):
        if "sweep.parquet" in str(path):
            raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full_for_the_index)
    sweep = write(tmp_path / "s.toml", f'scenario = "{scenario_file}"\nseeds = 2\n')
    out = tmp_path / "out"
    assert main(["sweep", str(sweep), "-o", str(out), "-j", "1", "-q"]) == 2
    assert "No space left on device" in one_line_error(capsys)
    assert len(list(out.glob("*/seed*/done.json"))) == 2
    assert not [p for p in out.iterdir() if "sweep.parquet" in p.name]
