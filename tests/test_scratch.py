"""fctlab.scratch: a run directory whose process was killed is removed by the next clearing; one
whose process lives, or that is still being made, is left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from fctlab import scratch

# Makes a run directory, writes into it as a run would, says where, then waits to be killed.
HOLDER = """
import sys, time
from fctlab.scratch import private_dir
with private_dir() as d:
    (d / "run").mkdir()
    (d / "run" / ".flows.parquet.tmp-1").write_bytes(b"x" * 1000)
    print(d, flush=True)
    time.sleep(600)
"""


def _holder(tmp: Path) -> tuple[subprocess.Popen, Path]:
    env = {**{k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}, "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline().strip()
    assert line, "the holder made no directory"
    return proc, Path(line)


def test_a_killed_owners_directory_is_cleared_and_a_live_ones_kept(tmp_path):
    killed, dead_dir = _holder(tmp_path)
    alive, live_dir = _holder(tmp_path)
    try:
        killed.send_signal(signal.SIGKILL)  # no `finally` runs: the directory stays
        killed.wait(10)
        assert (dead_dir / "run" / ".flows.parquet.tmp-1").is_file()
        being_made = tmp_path / f"{scratch.PREFIX}being-made"
        being_made.mkdir()  # no lock yet: its maker may be between mkdtemp and the lock
        assert scratch.clear_abandoned(root=tmp_path) == [dead_dir]
        assert not dead_dir.exists()
        assert live_dir.is_dir() and being_made.is_dir()
        assert scratch.clear_abandoned(root=tmp_path) == [], "nothing more to clear"
    finally:
        alive.kill()
        alive.wait(10)
    assert scratch.clear_abandoned(root=tmp_path) == [live_dir], "its owner is gone now"


def test_a_run_directory_is_removed_when_its_block_ends(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with scratch.private_dir() as d:
        assert d.parent == tmp_path and (d / scratch.LOCK).is_file()
        assert scratch.clear_abandoned(root=tmp_path) == [], "its own lock is held"
    assert not d.exists()
