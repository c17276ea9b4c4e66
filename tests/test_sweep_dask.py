"""Sweeps on a Dask cluster (`fctlab sweep --cluster`, `run_sweep(client=)`), over the compiled core.

Each test starts a Dask scheduler and two workers (`--no-nanny`, one thread each) as separate
processes bound to 127.0.0.1 on free ports, in a session of their own, and kills them all when
it ends, failed or not; the scheduler stops by itself after a minute idle and the workers a
minute after losing it, should the test process itself die.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from fctlab.cli import main
from fctlab.errors import ScenarioError
from fctlab.result import load
from fctlab.tools import cluster
from fctlab.tools.sweep import build_id, run_sweep
from realcore import fake, small_dumbbell, wait_for  # noqa: F401  (fake: the compiled core)

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@dataclass
class DaskCluster:
    address: str
    client: object
    workers: list[subprocess.Popen]
    tmpdir: Path  # the workers' TMPDIR


def _spawn(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        env=env,
        start_new_session=True,  # killed as a group, and a signal to the test reaches none of them
    )


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


@pytest.fixture
def dask_cluster(tmp_path: Path):
    from distributed import Client

    env = {k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}
    wtmp = tmp_path / "worker-tmp"
    wtmp.mkdir()
    env["TMPDIR"] = str(wtmp)
    sched_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen] = []
    client = None
    try:
        procs.append(
            _spawn(
                ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
                + ["--scheduler-file", str(sched_file), "--idle-timeout", "60s"],
                tmp_path / "scheduler.log",
                env,
            )
        )
        wait_for(lambda: sched_file.is_file() and sched_file.stat().st_size > 0, 30, "the scheduler")
        address = json.loads(sched_file.read_text())["address"]
        for i in range(2):
            procs.append(
                _spawn(
                    ["distributed.cli.dask_worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1"]
                    + ["--nthreads", "1", "--no-nanny", "--no-dashboard", "--death-timeout", "60"]
                    + ["--local-directory", str(tmp_path / f"worker{i}")],
                    tmp_path / f"worker{i}.log",
                    env,
                )
            )
        client = Client(address, timeout="20s")
        client.wait_for_workers(2, timeout=30)
        yield DaskCluster(address, client, procs[1:], wtmp)
    finally:
        if client is not None:
            client.close(timeout=5)
        for p in reversed(procs):
            _kill(p)


def _sweep(tmp_path: Path, duration: str, seeds: int, loads: list[float]) -> Path:
    spec = small_dumbbell(duration=duration)
    spec["topology"]["bottleneck_rate"] = "1Gbps"
    (tmp_path / "scenario.json").write_text(json.dumps(spec))
    path = tmp_path / "sweep.toml"
    path.write_text(f'scenario = "scenario.json"\nseeds = {seeds}\n[grid]\n"workload.0.load" = {json.dumps(loads)}\n')
    return path


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _without_wall_time(data: bytes) -> dict:
    d = json.loads(data)
    (d.get("meta") if "fingerprint" in d else d).pop("wall_s")
    return d


def _run_tmpdirs(c: DaskCluster) -> list[Path]:
    return list(c.tmpdir.glob("fctlab-run-*"))


def _start_cli(sweep: Path, out: Path, address: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}
    cmd = [sys.executable, "-m", "fctlab.cli", "sweep", str(sweep), "-o", str(out), "--cluster", address, "-q"]
    return subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)


def _done(out: Path) -> list[Path]:
    return sorted(out.glob("*/seed*/done.json"))


def _children(pid: int) -> set[int]:
    kids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(ppid) == pid and state != "Z":
                kids.add(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_cluster_sweep_writes_the_same_bytes_as_a_local_one(tmp_path, dask_cluster):
    sweep = _sweep(tmp_path, "2s", 2, [0.2, 0.5, 0.8])
    local, remote = tmp_path / "local", tmp_path / "remote"
    run_sweep(sweep, local, jobs=2)
    outcomes = run_sweep(sweep, remote, client=dask_cluster.client)
    assert [o.status for o in outcomes] == ["done"] * 6

    a, b = _files(local), _files(remote)
    assert sorted(a) == sorted(b) and len(a) == 6 * 7 + 1  # six files and done.json a run, the index
    for name in a:
        if name.endswith(("meta.json", "done.json")):  # the wall time differs between any two runs
            assert _without_wall_time(a[name]) == _without_wall_time(b[name]), name
        else:
            assert a[name] == b[name], name
    # Both workers took part, and it made no difference.
    ran = dask_cluster.client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert len(ran) == 2 and all(n > 0 for n in ran.values()), ran
    assert not _run_tmpdirs(dask_cluster), "a worker left its temporary run directory"

    # Resume and caching as for a local sweep: nothing runs again.
    again = run_sweep(sweep, remote, client=dask_cluster.client)
    assert all(o.skipped for o in again)
    assert pl.read_parquet(remote / "sweep.parquet").equals(pl.read_parquet(local / "sweep.parquet"))


def test_a_killed_worker_loses_no_run(tmp_path, dask_cluster):
    sweep = _sweep(tmp_path, "30s", 4, [0.2, 0.4])  # 8 runs of about half a second each
    out = tmp_path / "out"
    proc = _start_cli(sweep, out, dask_cluster.address)
    try:
        client = dask_cluster.client
        wait_for(lambda: _done(out), 60, "a first finished run")
        busy = {a: keys for a, keys in client.processing().items() if keys}
        assert busy, "no worker had a run in flight"
        victim = sorted(busy)[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        assert pid in {w.pid for w in dask_cluster.workers}
        os.kill(pid, signal.SIGKILL)
        rc = proc.wait(60)
        err = proc.stderr.read()
    finally:
        _kill(proc)
    assert rc == 0, err
    assert "8 runs: 8 done" in err and "0 failed" in err
    index = pl.read_parquet(out / "sweep.parquet")
    assert index["status"].to_list() == ["done"] * 8
    for path in index["path"]:
        assert load(out / path).flows.height > 0
    assert not list(out.glob("*/.seed*.tmp-*")) and not list(out.glob("*/seed*.error.txt"))
    # The killed worker's run directory (with its flows table streamed under a temporary name)
    # is gone too: the next run on the machine, and the sweep's end, clear what a dead worker left.
    assert not _run_tmpdirs(dask_cluster), [sorted(p.rglob("*")) for p in _run_tmpdirs(dask_cluster)]


def test_ctrl_c_stops_a_cluster_sweep_at_once(tmp_path, dask_cluster):
    sweep = _sweep(tmp_path, "60s", 6, [0.2, 0.4])  # 12 runs of about a second each
    out = tmp_path / "out"
    proc = _start_cli(sweep, out, dask_cluster.address)
    client = dask_cluster.client
    try:
        wait_for(lambda: _done(out), 60, "a first finished run")
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(30)
        took = time.monotonic() - t0
        err = proc.stderr.read()
        # The runs in flight stop after their next step; nothing is queued or running after that.
        wait_for(lambda: not any(client.processing().values()), 5, "the scheduler to have no run of ours")
        wait_for(
            lambda: not any(client.run(lambda dask_worker: len(dask_worker.state.executing)).values()),
            5,
            "the workers to run nothing",
        )
        stopped = time.monotonic() - t0
    finally:
        _kill(proc)
    print(f"the command stopped {took:.2f} s after SIGINT, the runs in flight within {stopped:.2f} s")
    assert rc == 130, err
    assert "Traceback" not in err
    assert "finished and kept" in err and "run the same command again" in err
    assert took < 2.0, f"took {took:.1f} s to stop"
    assert stopped < 3.0, f"the runs in flight took {stopped:.1f} s to stop"
    assert not _children(proc.pid)
    kept = _done(out)
    assert 1 <= len(kept) < 12, "the sweep ran its queued runs before stopping"
    assert not list(out.glob("*/.seed*.tmp-*")) and not _run_tmpdirs(dask_cluster)
    time.sleep(0.5)
    assert _done(out) == kept, "runs went on being written after the stop"


def test_bad_cluster_values_are_one_line_errors(tmp_path, capsys, monkeypatch, dask_cluster):
    sweep = _sweep(tmp_path, "1s", 1, [0.2])
    assert main(["sweep", str(sweep), "-o", str(tmp_path / "o"), "--cluster", "foo"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --cluster foo: expected local") and err.count("\n") == 1

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    assert main(["sweep", str(sweep), "-o", str(tmp_path / "o"), "--cluster", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --cluster tcp://127.0.0.1:1: cannot reach a Dask scheduler") and err.count("\n") == 1

    # Workers of another build are refused before anything runs.
    with pytest.raises(ScenarioError, match="runs fctlab build .* install the same fctlab"):
        cluster.check_builds(dask_cluster.client, build_id() + "-other")


def test_ctrl_c_stops_a_local_cluster_and_its_worker_processes(tmp_path):
    """`--cluster local:2`: the command's own LocalCluster goes down with it, also when Ctrl-C
    reaches the whole process group as a terminal sends it (the workers leave it to the command)."""
    sweep = _sweep(tmp_path, "60s", 6, [0.2, 0.4])
    out = tmp_path / "out"
    proc = _start_cli(sweep, out, "local:2")
    try:
        wait_for(lambda: _done(out), 60, "a first finished run")
        workers = _children(proc.pid)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        rc = proc.wait(30)
        took = time.monotonic() - t0
        err = proc.stderr.read()
    finally:
        _kill(proc)
    print(f"the command and its LocalCluster stopped {took:.2f} s after SIGINT")
    assert rc == 130, err
    assert "Traceback" not in err and "finished and kept" in err, err
    assert took < 3.0, f"took {took:.1f} s to stop"
    assert len(workers) >= 2, workers
    wait_for(lambda: not any(_alive(w) for w in workers), 5, "the worker processes to be gone")
    kept = _done(out)
    assert 1 <= len(kept) < 12 and not list(out.glob("*/.seed*.tmp-*"))


def test_an_estimate_by_links_on_a_cluster_gives_the_local_bytes(tmp_path, dask_cluster):
    """`fctlab estimate --method links --cluster`: its link problems run on the cluster's
    workers, and the estimate is the one a local run of them gives, byte for byte."""
    from fctlab.tools.estimate import estimate_to

    estimate_to(small_dumbbell(), tmp_path / "local", method="links", jobs=1)
    estimate_to(small_dumbbell(), tmp_path / "remote", method="links", client=dask_cluster.client)
    assert (tmp_path / "remote" / "links" / "solo0" / "seed1" / "flows.parquet").is_file()
    local, remote = (tmp_path / d / "flows.parquet" for d in ("local", "remote"))
    assert remote.read_bytes() == local.read_bytes()
