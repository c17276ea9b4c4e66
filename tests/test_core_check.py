"""The conformance kit (`fctlab check`, python/fctlab/tools/check.py): every built-in protocol passes its
battery; a failing check is reported as such; an unknown protocol is a clear error."""

from __future__ import annotations

import pytest

from fctlab.errors import ScenarioError
from fctlab.tools import check
from realcore import cli, fake  # noqa: F401  (fake: the compiled core)

NAMES = [p["name"] for p in check.protocols()]


@pytest.mark.parametrize("name", NAMES)
def test_every_builtin_passes_the_battery(name):
    verdicts = check.run_checks(name)
    assert [v.check for v in verdicts] == [c[0] for c in check.CHECKS]
    failed = [f"{v.check}: {v.detail}" for v in verdicts if v.status == check.FAIL]
    assert not failed, failed
    beside = next(v for v in verdicts if v.check == "beside TCP")
    assert beside.status == check.REPORT and "of the bottleneck against NewReno's" in beside.detail
    garbage = next(v for v in verdicts if v.check == "garbage headers refused")
    own = check.protocol(name)["wire_tags"]
    assert garbage.status == check.PASS and f"tags {', '.join(map(str, own)) or 'none'} (own)" in garbage.detail


def test_a_failing_check_is_reported_and_the_command_exits_1(monkeypatch, capsys):
    from fctlab.cli import main

    def broken(p):
        return False, "sent 10, delivered 9, dropped 0, left 0"

    monkeypatch.setattr(check, "CHECKS", [("conserves packets", broken, True)])
    assert main(["check", "newreno"]) == 1
    out = capsys.readouterr().out
    assert "conserves packets" in out and "FAIL" in out and "delivered 9" in out


def test_a_refused_scenario_fails_its_check_with_the_error():
    def refused(p):
        raise ScenarioError("field `workload[0]`: too large")

    check.CHECKS.append(("refused", refused, True))
    try:
        verdict = check.run_checks("newreno")[-1]
    finally:
        check.CHECKS.pop()
    assert verdict.status == check.FAIL and "refused: field `workload[0]`" in verdict.detail


def test_the_cli_prints_the_table_and_refuses_an_unknown_protocol(tmp_path):
    report = tmp_path / "conformance.md"
    done = cli("check", "cubic", "xcp", "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cubic:") and "\nxcp:" in done.stdout and done.stdout.count("pass") >= 14
    table = report.read_text()
    assert "| check | cubic | xcp |" in table
    assert "| conserves packets | pass | pass |" in table and "| beside TCP | report | report |" in table
    done = cli("check", "vegas")
    assert done.returncode == 2
    assert "protocol: expected one of newreno, cubic" in done.stderr and "got 'vegas'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_wire_decoder_refuses_garbage_by_field_and_keeps_what_it_accepts():
    from fctlab.run import core

    decode = core().decode_header
    nan = 0x7FC00000
    with pytest.raises(ValueError, match=r"^cc\.cwnd: refused"):
        decode(3, (nan, 0, 0))  # XCP's window as NaN
    with pytest.raises(ValueError, match=r"^cc_tag: refused"):
        decode(12, (0, 0, 0))  # a tag no protocol uses
    with pytest.raises(ValueError, match=r"^cc: refused"):
        decode(2, (1, 2, 0))  # RCP's echo with a word it leaves unused
    assert decode(1, (10, 20, 30)) == (1, 10, 20, 30)
    assert decode(200, (nan, nan, nan)) == (200, nan, nan, nan), "a plug-in's tag carries any words"


def test_the_garbage_check_fails_a_decoder_that_changes_what_it_accepts(monkeypatch):
    from fctlab.run import core

    real = core().decode_header
    monkeypatch.setattr(core(), "decode_header", lambda tag, w: real(tag, w) if tag != 1 else (1, 0, 0, 0))
    ok, detail = check.check_garbage_headers(check.protocol("rcp"))
    assert not ok and "accepted as (1, 0, 0, 0)" in detail
