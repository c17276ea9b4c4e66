"""Protocol plug-ins (crates/fctlab-core/src/plugin/, crates/fctlab-plugin, python/fctlab/plugins.py and
tools/plugins.py):
a host law or router law in the user's own folder, in Rust or Python, gives the built-in's results
when it copies it; faults stop the run naming the plug-in, the hook, the flow and the time, and
keep the rows already written; a library of another API version, or none at all, is refused."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path

import polars as pl
import pytest

import fctlab
from fctlab.errors import PluginError, ScenarioError
from fctlab.tools import check, plugins
from realcore import REPO, cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

PY_NEWRENO = f"python:{REPO / 'examples/plugins/newreno.py'}:NewReno"
LOSS = [{"link": "bottleneck", "p": 0.02}]


@pytest.fixture(scope="module")
def template() -> str:
    """The template plug-in, built as a user builds it: `rust:` and its library's path."""
    return f"rust:{plugins.build(REPO / 'examples/plugins/template', quiet=True)}"


def _same_flows(a: pl.DataFrame, b: pl.DataFrame) -> None:
    cols = [c for c in a.columns if c != "protocol"]
    assert a.height == b.height > 0
    assert a.select(cols).equals(b.select(cols)), "flows tables differ"


def _tcp(cc: str, **top) -> dict:
    return small_dumbbell(transport={"cc": cc, "iw": 4}, loss=LOSS, **top)


def test_newreno_as_a_rust_and_a_python_plugin_gives_the_builtins_flows_bit_for_bit(template):
    builtin = fctlab.run(_tcp("newreno")).flows
    assert builtin["retx_bytes"].sum() > 0, "losses exercise the loss hooks"
    for spelling in (template, PY_NEWRENO):
        flows = fctlab.run(_tcp(spelling)).flows
        _same_flows(builtin, flows)
    # Labelled by the name the plug-in exports (`export_plugin!(name = "template")`), not by
    # its file (libfctlab_template.so); a Python one by its class.
    assert fctlab.run(_tcp(template)).flows["protocol"][0] == "tcp-rs-template-iw4"
    assert fctlab.run(_tcp(PY_NEWRENO)).flows["protocol"][0] == "tcp-py-newreno-iw4"


def test_rcps_router_law_as_a_rust_plugin_gives_the_builtins_flows_bit_for_bit(template):
    def rcp(kind: str) -> dict:
        return small_dumbbell(
            transport={"protocol": "rcp"}, queues={"router": {"kind": kind, "limit": "250KB"}}, loss=LOSS
        )

    _same_flows(fctlab.run(rcp("rcp")).flows, fctlab.run(rcp(template)).flows)


def test_a_plugin_in_the_scenarios_folder_is_found_relative_to_it(tmp_path):
    (tmp_path / "cc.py").write_text((REPO / "examples/plugins/newreno.py").read_text())
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(_tcp("python:cc.py:NewReno")))
    _same_flows(fctlab.run(_tcp("newreno")).flows, fctlab.run(scenario).flows)


RATE_CAP = """
class RateCap:
    '''Stamps at most `kbps` into RCP's forward rate field (tag 1, word 0), and counts.'''

    def __init__(self, port, params):
        self.kbps = params["kbps"]
        self.port = port
        self.seen = 0

    def on_arrival(self, port, now, pkt, queued):
        self.seen += 1

    def on_departure(self, port, now, pkt, queued):
        tag, rate, rtt, age = pkt.header
        if tag == 1 and rate > self.kbps:
            pkt.header = (tag, self.kbps, rtt, age)

    def first_tick(self):
        return 0.01

    def tick(self, port, now, queued):
        assert port.capacity_bps > 0
        return now + 0.01
"""


def test_a_python_router_law_stamps_the_header_rcp_hosts_follow(tmp_path):
    law = tmp_path / "cap.py"
    law.write_text(RATE_CAP)
    kind = f"python:{law}:RateCap"
    spec = small_dumbbell(
        transport={"protocol": "rcp"}, queues={"router": {"kind": kind, "kbps": 5000, "limit_packets": 1000}}
    )
    flows = fctlab.run(spec).flows.drop_nulls("fct_s")
    assert flows.height > 10
    # 14,600 bytes at 5 Mb/s take 23.4 ms at least; alone on 100 Mb/s they would take ~1.2 ms.
    assert (flows["fct_s"] > 14600 * 8 / 5e6).all()
    with pytest.raises(ScenarioError, match=r"queues.router.kind`: plug-in .*KeyError: 'kbps'"):
        fctlab.run(small_dumbbell(transport={"protocol": "rcp"}, queues={"router": {"kind": kind}}))


FAULTY = """
class Faulty:
    def __init__(self, conn):
        self.flow = conn.flow
        self.acks = 0

    def on_ack(self, w, now, acked, srtt):
        self.acks += 1
        if self.flow == 20 and self.acks == 3:
            raise ValueError("window went negative")
        w.cwnd += min(acked, w.abc) if w.cwnd < w.ssthresh else max(w.mss * w.mss // w.cwnd, 1)

    def on_congestion(self, w, now, flight):
        w.ssthresh = max(flight // 2, 2 * w.mss)
        w.cwnd = w.ssthresh
"""


def test_a_python_exception_stops_the_run_naming_plugin_hook_flow_and_time(tmp_path):
    (tmp_path / "faulty.py").write_text(FAULTY)
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(small_dumbbell(transport={"cc": "python:faulty.py:Faulty"})))
    with pytest.raises(PluginError) as e:
        fctlab.run(scenario)
    msg = str(e.value)
    assert msg.startswith("plug-in python:faulty.py:Faulty failed in on_ack for flow 20 at t = 0.")
    assert "ValueError: window went negative" in msg and "faulty.py, line 10, in on_ack" in msg
    # Through the CLI: exit 1, one line, the rows of the flows that finished before are kept.
    done = cli("run", str(scenario), "-o", str(tmp_path / "out"), "-q")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "failed in on_ack for flow 20" in done.stderr
    kept = tmp_path / "out" / "flows.partial.parquet"
    assert "are kept in" in done.stderr and kept.exists()
    assert pl.read_parquet(kept).height > 0, "flows 0.. that retired before the fault"


PANICKING = """
use fctlab_plugin::{HostInit, HostLaw, Ps, Window};

pub struct Panicky { flow: u32 }

impl HostLaw for Panicky {
    fn new(init: &HostInit) -> Result<Self, String> {
        Ok(Panicky { flow: init.flow })
    }
    fn on_ack(&mut self, w: &mut Window, _now: Ps, acked: u64, _srtt: Option<Ps>) {
        if self.flow == 7 {
            panic!("index out of range in flow {}", self.flow);
        }
        w.cwnd += acked;
    }
    fn on_congestion(&mut self, w: &mut Window, _now: Ps, _flight: u64) {
        w.cwnd = 2 * w.mss;
    }
}

fctlab_plugin::export_plugin!(name = "panicky", host = Panicky);
"""


def _crate(folder: Path, lib_rs: str) -> Path:
    """A user's plug-in crate in `folder`, against the API crate of this repository."""
    (folder / "src").mkdir(parents=True)
    api = REPO / "crates" / "fctlab-plugin"
    (folder / "Cargo.toml").write_text(
        textwrap.dedent(f"""
        [package]
        name = "panicky"
        version = "0.1.0"
        edition = "2021"

        [lib]
        crate-type = ["cdylib"]

        [dependencies]
        fctlab-plugin = {{ path = "{api}" }}

        [workspace]
        """)
    )
    (folder / "src" / "lib.rs").write_text(lib_rs)
    return folder


def test_a_rust_panic_is_contained_and_named(tmp_path):
    lib = plugins.build(_crate(tmp_path / "panicky", PANICKING), quiet=True)
    with pytest.raises(PluginError) as e:
        fctlab.run(small_dumbbell(transport={"cc": f"rust:{lib}"}))
    msg = str(e.value)
    assert "failed in on_ack for flow 7 at t = " in msg and msg.endswith("index out of range in flow 7")


WRAPPING_RS = """
use fctlab_plugin::{HostInit, HostLaw, Ps, Window};

pub struct Wrapping;

impl HostLaw for Wrapping {
    fn new(_init: &HostInit) -> Result<Self, String> {
        Ok(Wrapping)
    }
    fn on_ack(&mut self, w: &mut Window, _now: Ps, acked: u64, _srtt: Option<Ps>) {
        w.cwnd += acked.min(w.abc);
    }
    fn on_congestion(&mut self, w: &mut Window, _now: Ps, _flight: u64) {
        // A decrease written as a difference of unsigned integers: it wraps to about 2^64.
        w.cwnd = w.cwnd.wrapping_sub(10 * w.cwnd);
    }
}

fctlab_plugin::export_plugin!(name = "wrapping", host = Wrapping);
"""

WRAPPING_PY = """
class Wrapping:
    def __init__(self, conn):
        pass

    def on_ack(self, w, now, acked, srtt):
        w.cwnd += min(acked, w.abc)

    def on_congestion(self, w, now, flight):
        w.cwnd = WINDOW
"""


def test_a_window_beyond_the_bounds_stops_the_run_naming_the_field_for_rust_and_python(tmp_path):
    """A Rust law whose decrease wraps to about 2^64 ran on (it retransmitted most of its flow);
    the same law in Python was refused by a conversion error naming no field. Both are now the
    plug-in's fault, naming the hook, the flow and the field, and so is a window above 2^50 B."""
    lib = plugins.build(_crate(tmp_path / "wrapping", WRAPPING_RS), quiet=True)
    with pytest.raises(PluginError) as e:
        fctlab.run(_tcp(f"rust:{lib}"))
    msg = str(e.value)
    assert re.search(r"failed in on_congestion for flow \d+ at t = [\d.]+ s: cwnd = 18446744073\d{9} B: ", msg), msg
    assert "expected at most 2^50 B (1.1e15 B)" in msg and "went below zero" in msg
    for i, (window, expected) in enumerate(
        [
            ("w.cwnd - 10 * w.cwnd", r"ValueError: cwnd = -\d+: expected bytes >= 0"),
            ("2 ** 50 + 1", r"ValueError: cwnd = 1125899906842625 B: expected at most 2\^50 B"),
            ("2 ** 64", r"ValueError: cwnd = 18446744073709551616 B: expected at most 2\^50 B"),
            ("float('nan')", r"ValueError: cwnd = nan: expected a finite number of bytes"),
            ("'10'", r"TypeError: cwnd = '10': expected a number of bytes"),
        ]
    ):
        law = tmp_path / f"wrapping{i}.py"  # a file of its own: a loaded class is kept per file
        law.write_text(WRAPPING_PY.replace("WINDOW", window))
        with pytest.raises(PluginError) as e:
            fctlab.run(_tcp(f"python:{law}:Wrapping"))
        msg = str(e.value)
        assert "failed in on_congestion for flow" in msg and re.search(expected, msg), (window, msg)
        assert f"wrapping{i}.py, line 10, in on_congestion)" in msg, msg
    # A loss reaction that leaves ssthresh at "no threshold" (2^64 - 1): the default
    # on_recovery_end (cwnd = ssthresh) used to give the connection a window of 2^64 - 1 bytes.
    law = tmp_path / "no_ssthresh.py"
    law.write_text(WRAPPING_PY.replace("WINDOW", "max(flight // 2, 2 * w.mss)"))
    with pytest.raises(PluginError) as e:
        fctlab.run(_tcp(f"python:{law}:Wrapping"))
    msg = str(e.value)
    assert re.search(r"failed in on_recovery_end for flow \d+ at t = [\d.]+ s: cwnd = 18446744073709551615 B: ", msg)
    assert "the default on_recovery_end, cwnd = ssthresh, after a loss reaction that left ssthresh unset" in msg


def test_a_huge_legal_window_on_a_long_lived_flow_sends_a_bounded_burst(tmp_path):
    """A window of 2^64 - 1 on a long-lived flow used to queue packets without bound inside one
    event (about 1 GB/s) until "memory allocation of 2147483648 bytes failed". 2^64 - 1 is now
    refused (above); the largest legal window, 2^50 B, runs under a 3 GiB address-space limit:
    the sender keeps at most 2^20 segments in flight, so its host's NIC never holds more."""
    import resource
    import subprocess
    import sys

    huge = WRAPPING_PY.replace("WINDOW", "2 ** 50").replace("w.cwnd += min(acked, w.abc)", "w.cwnd = 2 ** 50")
    (tmp_path / "huge.py").write_text(huge)
    spec = small_dumbbell(
        duration="200ms",
        transport={"cc": "python:huge.py:Wrapping"},
        workload=[{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}]}],
    )
    (tmp_path / "s.json").write_text(json.dumps(spec))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "run", "s.json", "-o", "out", "-q"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        preexec_fn=limit,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    links = pl.read_parquet(tmp_path / "out" / "links.parquet")
    nic = links.filter(pl.col("name") == "l0->rl")
    cap = (1 << 20) * (1460 + 40)
    assert cap * 0.99 < nic["queue_max_bytes"].item() <= cap, "the burst reached the cap and no more"


FLOAT_DECREASE = """
class Decrease:
    def __init__(self, conn):
        pass

    def on_ack(self, w, now, acked, srtt):
        if w.cwnd < w.ssthresh:
            w.cwnd += min(acked, w.abc)
        else:
            w.cwnd += w.mss * w.mss / w.cwnd  # a float: rounded down

    def on_congestion(self, w, now, flight):
        w.ssthresh = max(w.cwnd * 0.7, 2 * w.mss)  # the usual multiplicative decrease
        w.cwnd = w.ssthresh
"""


def test_a_python_law_may_set_the_window_to_floats_which_are_rounded_down(tmp_path):
    """`w.ssthresh = w.cwnd * 0.7` failed with "'float' object cannot be interpreted as an
    integer", naming neither the field nor the rule: a float is now rounded down to whole bytes,
    the same run as the law written with integer division."""
    floats = tmp_path / "floats.py"
    floats.write_text(FLOAT_DECREASE)
    ints = tmp_path / "ints.py"
    ints.write_text(
        FLOAT_DECREASE.replace("w.mss * w.mss / w.cwnd", "w.mss * w.mss // w.cwnd").replace(
            "w.cwnd * 0.7", "w.cwnd * 7 // 10"
        )
    )
    a = fctlab.run(_tcp(f"python:{floats}:Decrease")).flows
    assert a["retx_bytes"].sum() > 0, "losses call on_congestion"
    _same_flows(a, fctlab.run(_tcp(f"python:{ints}:Decrease")).flows)
    # The pacing rate, too, may be a float (bit/s, rounded down); 0 is refused naming it.
    paced = FLOAT_DECREASE.replace("        pass", "        self.pacing_rate = RATE", 1)
    assert a["fct_s"].min() < 14600 * 8 / 1e6
    for rate in ("1e6", "0"):
        law = tmp_path / f"paced_{rate}.py"
        law.write_text(paced.replace("RATE", rate))
        if rate != "0":
            flows = fctlab.run(_tcp(f"python:{law}:Decrease")).flows
            assert flows["fct_s"].min() > 14600 * 8 / 1e6, "paced at 1 Mb/s"
        else:
            expected = r"failed in pacing_rate for flow 0 at t = [\d.]+ s: pacing_rate = 0 bit/s: expected 1 bit/s"
            with pytest.raises(PluginError, match=expected):
                fctlab.run(_tcp(f"python:{law}:Decrease"))


XCP_INF = """
import struct

class Stamps:
    def __init__(self, conn):
        pass

    def on_ack(self, w, now, acked, srtt):
        w.cwnd += min(acked, w.abc)

    def on_congestion(self, w, now, flight):
        w.ssthresh = max(flight // 2, 2 * w.mss)
        w.cwnd = w.ssthresh

    def header(self, w, kind, srtt, sent_bytes):
        if kind != "data":
            return None
        bits = struct.unpack("<I", struct.pack("<f", VALUE))[0]
        return (3, WORDS)  # XCP's forward header: cwnd, RTT (us), feedback
"""


@pytest.mark.parametrize(
    ("value", "words", "field"),
    [
        ("float('inf')", "bits, 0, 0", "cc.cwnd"),
        ("float('nan')", "bits, 0, 0", "cc.cwnd"),
        ("float('inf')", "1000, 0, bits", "cc.feedback"),
        ("-float('inf')", "1000, 0, bits", "cc.feedback"),
    ],
)
def test_an_infinite_xcp_field_written_by_a_plugin_is_refused_as_nan_is(tmp_path, value, words, field):
    law = tmp_path / "stamps.py"
    law.write_text(XCP_INF.replace("VALUE", value).replace("WORDS", words))
    with pytest.raises(PluginError) as e:
        fctlab.run(_tcp(f"python:{law}:Stamps"))
    msg = str(e.value)
    assert "failed in header for flow" in msg and f"was refused: field {field}" in msg, msg


def test_a_library_built_against_another_api_version_is_refused_naming_both(tmp_path):
    src = tmp_path / "old.c"
    src.write_text("unsigned int fctlab_plugin_api_version(void) { return 999; }\n")
    lib = tmp_path / "libold.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    from fctlab.run import core

    with pytest.raises(ScenarioError) as e:
        fctlab.run(small_dumbbell(transport={"cc": f"rust:{lib}"}))
    msg = str(e.value)
    assert "transport.cc" in msg
    assert f"built against fctlab plug-in API 999, but this fctlab has API {core().PLUGIN_API_VERSION}" in msg


@pytest.mark.parametrize(
    ("cc", "expected"),
    [
        ("rust:nowhere.so", "no such file"),
        ("python:nowhere.py:X", "no such file"),
        ("python:vegas.py", "expected python:FILE:CLASS"),
        (f"python:{REPO / 'examples/plugins/newreno.py'}:Vegas", "has no class 'Vegas' (its classes: NewReno)"),
        (f"rust:{Path(subprocess.__file__)}", "cannot load it"),
    ],
)
def test_a_plugin_that_cannot_be_loaded_is_a_scenario_error_naming_the_field(cc, expected):
    with pytest.raises(ScenarioError) as e:
        fctlab.run(small_dumbbell(transport={"cc": cc}))
    assert "transport.cc" in str(e.value) and expected in str(e.value)


def test_a_router_law_named_as_a_host_law_is_refused(tmp_path):
    (tmp_path / "cap.py").write_text(RATE_CAP)
    with pytest.raises(ScenarioError, match=r"transport.cc`: plug-in .* has no host law \(only a router law\)"):
        fctlab.run(small_dumbbell(transport={"cc": f"python:{tmp_path / 'cap.py'}:RateCap"}))


def test_the_conformance_kit_checks_plugins(template):
    verdicts = check.run_checks(PY_NEWRENO)
    failed = [f"{v.check}: {v.detail}" for v in verdicts if v.status == check.FAIL]
    assert not failed, failed
    verdicts = check.run_checks("rcp", router=template)
    failed = [f"{v.check}: {v.detail}" for v in verdicts if v.status == check.FAIL]
    assert not failed, failed


def test_plugin_build_prints_the_spelling_and_refuses_a_folder_without_a_crate(tmp_path):
    done = cli("plugin", "build", str(REPO / "examples/plugins/template"))
    assert done.returncode == 0, done.stderr
    assert 'cc = "rust:' in done.stdout and "libfctlab_template.so" in done.stdout
    done = cli("plugin", "build", str(tmp_path))
    assert done.returncode == 2 and "no Cargo.toml" in done.stderr and "Traceback" not in done.stderr


def test_plugin_new_writes_a_crate_that_builds_outside_the_repository_against_this_checkout(tmp_path):
    """The API crate was reachable only from a checkout (the template's relative path): `fctlab
    plugin new` writes a crate depending on this checkout's API crate by absolute path, which
    builds in a folder outside the repository and runs as NewReno, labelled by the name given."""
    from fctlab.tools.plugins import api_crate_of_checkout, new_crate

    folder = tmp_path / "elsewhere" / "my_cc"
    checkout = REPO / "crates" / "fctlab-plugin"
    if api_crate_of_checkout() is not None:  # an editable install: the CLI finds the checkout
        done = cli("plugin", "new", "elsewhere/my_cc", "--name", "mine", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert f"by absolute path ({checkout})" in done.stdout, done.stdout
        assert "build it with: fctlab plugin build elsewhere/my_cc" in done.stdout
    else:
        # Installed as a wheel (scripts/test.sh): the CLI writes a copy (the next test); the
        # checkout's crate is given as the CLI gives it from an editable install.
        made = new_crate(folder, name="mine", api=checkout)
        assert made.api == checkout and not made.copied, made
    assert f'fctlab-plugin = {{ path = "{REPO / "crates" / "fctlab-plugin"}" }}' in (folder / "Cargo.toml").read_text()
    built = cli("plugin", "build", "elsewhere/my_cc", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    lib = folder / "target" / "release" / "libmy_cc.so"
    assert f"built {lib}" in built.stdout
    flows = fctlab.run(_tcp(f"rust:{lib}")).flows
    _same_flows(fctlab.run(_tcp("newreno")).flows, flows)
    assert flows["protocol"][0] == "tcp-rs-mine-iw4"
    # Never over a crate, nor with a name a crate cannot take: one line, exit 2.
    for args, expected in [
        (["elsewhere/my_cc"], "not an empty folder"),
        (["9lives"], "'9lives' cannot name a crate"),
        (["ok", "--name", 'a"b'], "--name 'a\"b': expected letters, digits"),
    ]:
        done = cli("plugin", "new", *args, cwd=tmp_path)
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_plugin_new_without_a_checkout_copies_the_api_crate_into_the_crate(tmp_path, monkeypatch):
    """Installed without a checkout, the crate gets a copy of the API crate this core was built
    against (kept in the core): it builds anywhere, and the copy is the repository's crate."""
    monkeypatch.setattr(plugins, "api_crate_of_checkout", lambda: None)
    made = plugins.new_crate(tmp_path / "standalone")
    assert made.copied and made.api == tmp_path / "standalone" / "fctlab-plugin" and made.name == "standalone"
    api = REPO / "crates" / "fctlab-plugin"
    ours = sorted(str(f.relative_to(api)) for f in api.rglob("*") if f.is_file() and "target" not in f.parts)
    copied = sorted(str(f.relative_to(made.api)) for f in made.api.rglob("*") if f.is_file())
    assert copied == ours, "every file of the API crate is kept in the core"
    assert all((made.api / f).read_text() == (api / f).read_text() for f in ours)
    assert 'fctlab-plugin = { path = "fctlab-plugin" }' in (made.folder / "Cargo.toml").read_text()
    lib = plugins.build(made.folder, quiet=True)
    assert fctlab.run(_tcp(f"rust:{lib}")).flows["protocol"][0] == "tcp-rs-standalone-iw4"


def test_plugins_in_a_partitioned_run_give_the_same_bytes_on_one_and_two_threads_and_stop_together(template, tmp_path):
    from test_core_parallel import fat_tree

    spec = fat_tree(2)
    spec["transport"]["cc"] = template
    spec["queues"]["router"] = {"kind": template, "limit_packets": 8}  # RCP's law, on TCP traffic
    for threads in (1, 2):
        fctlab.run_to(spec, tmp_path / str(threads), threads=threads)
    for name in ("flows.parquet", "links.parquet"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name
    assert fctlab.load(tmp_path / "1").flows.height > 50
    # A fault on one partition's thread stops both; the error is the same on one thread.
    (tmp_path / "faulty.py").write_text(FAULTY.replace("self.flow == 20 and self.acks == 3", "self.flow >= 20"))
    spec["transport"]["cc"] = f"python:{tmp_path / 'faulty.py'}:Faulty"
    messages = []
    for threads in (1, 2):
        with pytest.raises(PluginError, match=r"failed in on_ack for flow \d+ at t = ") as e:
            fctlab.run(spec, threads=threads)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


@pytest.mark.timeout(180)
def test_a_fault_stops_both_threads_of_a_partitioned_run_every_time(tmp_path):
    """Whichever thread raises and whenever: 150 faulty runs on two threads all end with the
    error. The threads once read the shared fault flag after the barrier, where a thread already
    in the next window could raise it between the other's reads: that one stopped, this one
    waited at the next barrier for ever (six series of runs here hung at the 4th to the 22nd run)."""
    from test_core_parallel import fat_tree

    (tmp_path / "faulty.py").write_text(FAULTY.replace("self.flow == 20 and self.acks == 3", "self.flow >= 20"))
    spec = fat_tree(2)
    spec["transport"]["cc"] = f"python:{tmp_path / 'faulty.py'}:Faulty"
    spec["queues"]["router"] = {"kind": "rcp", "limit_packets": 8}
    for _ in range(150):
        with pytest.raises(PluginError, match="failed in on_ack"):
            fctlab.run(spec, threads=2)


def test_plugin_equivalence_reports_each_pair_and_exits_by_the_comparison(tmp_path, monkeypatch, capsys):
    from fctlab.cli import main

    scenario = tmp_path / "small.json"
    scenario.write_text(json.dumps(_tcp("newreno")))
    monkeypatch.setattr(plugins, "BENCHMARK_SCENARIOS", (str(scenario),))
    report = tmp_path / "equivalence.md"
    assert main(["plugin", "equivalence", "--root", str(REPO), "-q", "--report", str(report)]) == 0
    text = report.read_text()
    assert text.count("| small | ") == 3 and text.count("| identical: ") == 3 and "All identical: yes." in text
    # A pair whose flows differ (the built-in side given another window) fails the command.
    real = plugins.equivalence_pairs
    monkeypatch.setattr(
        plugins,
        "equivalence_pairs",
        lambda root, lib: [(s, w, {**b, "transport.iw": 10}, p) for s, w, b, p in real(root, lib)],
    )
    assert main(["plugin", "equivalence", "--root", str(REPO), "-q"]) == 1
    assert "DIFFERENT" in capsys.readouterr().out
