"""Golden outputs: every golden scenario's results equal the checked-in ones, byte for byte.

These protect the simulator's behaviour through refactoring: a change to the core that moves
any FCT, counter or series value of the benchmark scenarios or of the per-protocol scenarios in
`tests/golden/scenarios/` fails here. Regenerate with `python tests/golden.py --update` only on
an intended change, and say in the commit which outputs moved and why (see tests/golden.py).
"""

from __future__ import annotations

import pytest

import golden
from realcore import fake  # noqa: F401  (the compiled core)

NAMES = list(golden.scenarios())


def test_every_protocol_and_queue_has_a_golden_scenario():
    """The small scenarios cover each built-in protocol and each queue discipline."""
    texts = "\n".join(p.read_text() for p in golden.scenarios().values())
    for protocol in ("rc3", "rcp", "rtcp", "xcp", "jetmax", "piqi"):
        assert f'protocol = "{protocol}"' in texts, protocol
    for cc in ("newreno", "cubic"):
        assert f'cc = "{cc}"' in texts, cc
    for queue in ("droptail", "prio", "drr", "rcp", "xcp", "jetmax", "piqi", "rcp-tcp"):
        assert f'kind = "{queue}"' in texts, queue


@pytest.mark.parametrize("name", NAMES)
def test_results_equal_the_golden_outputs(name):
    """The run's tables, summary and counters are the checked-in text, byte for byte."""
    directory = golden.EXPECTED / name
    assert directory.is_dir(), f"no golden outputs for {name}: run `python tests/golden.py --update {name}`"
    expected = golden.read_expected(directory)
    got = golden.run(name)
    assert got["flows.csv"].count("\n") > 3, name
    got = golden.comparable(expected, got)
    assert sorted(got) == sorted(expected), f"{name}: files {sorted(got)} vs golden {sorted(expected)}"
    for file in sorted(expected):
        if got[file] != expected[file]:
            pytest.fail(golden.first_difference(file, expected[file], got[file]))


def test_a_changed_result_is_caught(tmp_path):
    """The comparison sees a one-bit change of one FCT (the check can fail)."""
    files = golden.run("tcp-newreno")
    lines = files["flows.csv"].splitlines()
    header = lines[0].split(",")
    col = header.index("fct_s")
    row = next(i for i, line in enumerate(lines[1:], 1) if line.split(",")[col])
    cells = lines[row].split(",")
    cells[col] = repr(float(cells[col]) + 1e-12)
    lines[row] = ",".join(cells)
    changed = "\n".join(lines) + "\n"
    assert changed != files["flows.csv"]
    message = golden.first_difference("flows.csv", files["flows.csv"], changed)
    assert f"line {row + 1} differs" in message
    golden.write_expected(tmp_path, {"flows.csv": changed})
    assert golden.read_expected(tmp_path)["flows.csv"] == changed
