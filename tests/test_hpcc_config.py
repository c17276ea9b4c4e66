"""`fctlab hpcc run CONFIG.txt` (fctlab.tools.hpcc_config): HPCC's simulator's configuration file
read as a scenario. Runs of CC_MODE 3 and 8 through the command (fct.txt and pfc.txt written,
into OUT and where the file says), the keys of the authors' sample configuration read and mapped
(values our own), each kind of refused key named, --lenient's warnings, and a bad value as one
line. The configuration files are written here; none of the authors' files is used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fctlab
from fctlab.errors import ScenarioError
from fctlab.tools import hpcc_config, hpcc_files
from realcore import cli, fake  # noqa: F401  (fake: the compiled core, not conftest's stand-in)

# Hosts 0 and 1 on switch 4, hosts 2 and 3 on switch 5, 2 us links, the switches joined at 400 Gb/s.
TOPOLOGY = """\
6 2 5
4 5
0 4 100Gbps 0.002ms 0
1 4 100Gbps 0.002ms 0
4 5 400Gbps 0.002ms 0
5 2 100Gbps 0.002ms 0
5 3 100Gbps 0.002ms 0
"""
# An incast of three 1 MB flows into host 2 (enough to make a 1 MB buffer pause), and two short ones.
FLOWS = """\
5
0 2 3 100 1000000 2
1 2 3 100 1000000 2
3 2 3 100 1000000 2
0 2 3 100 2500 2.000001
3 0 3 100 30000 2.000003
"""
# maxRtt: host 0 to host 2 over three links, 2 x 6 us of delay plus one 1000-byte packet's
# serialization on each (80 + 20 + 80 ns); maxBdp: that times 100 Gb/s, in bytes.
MAX_RTT_NS = 2 * 6000 + 80 + 20 + 80
MAX_BDP = MAX_RTT_NS * 100 // 8

# The keys of the authors' sample configuration (simulation/mix/config.txt), in its order, with
# values of our own that fctlab models; the maps cover this topology's two switch port rates.
SAMPLE_KEYS = {
    "ENABLE_QCN": "1",
    "USE_DYNAMIC_PFC_THRESHOLD": "1",
    "PACKET_PAYLOAD_SIZE": "1000",
    "TOPOLOGY_FILE": "mix/topo.txt",
    "FLOW_FILE": "mix/flows.txt",
    "TRACE_FILE": "mix/trace.txt",
    "TRACE_OUTPUT_FILE": "mix/out.tr",
    "FCT_OUTPUT_FILE": "mix/fct_out.txt",
    "PFC_OUTPUT_FILE": "mix/pfc_out.txt",
    "SIMULATOR_STOP_TIME": "2.5",
    "CC_MODE": "3",
    "ALPHA_RESUME_INTERVAL": "2",
    "RATE_DECREASE_INTERVAL": "8",
    "CLAMP_TARGET_RATE": "1",
    "RP_TIMER": "300",
    "EWMA_GAIN": "0.0625",
    "FAST_RECOVERY_TIMES": "2",
    "RATE_AI": "40Mb/s",
    "RATE_HAI": "200Mb/s",
    "MIN_RATE": "1000Mb/s",
    "DCTCP_RATE_AI": "615Mb/s",
    "ERROR_RATE_PER_LINK": "0.0000",
    "L2_CHUNK_SIZE": "4000",
    "L2_ACK_INTERVAL": "1",
    "L2_BACK_TO_ZERO": "0",
    "HAS_WIN": "1",
    "GLOBAL_T": "1",
    "VAR_WIN": "1",
    "FAST_REACT": "1",
    "U_TARGET": "0.9",
    "MI_THRESH": "3",
    "INT_MULTI": "4",
    "MULTI_RATE": "0",
    "SAMPLE_FEEDBACK": "0",
    "PINT_LOG_BASE": "1.01",
    "PINT_PROB": "0.5",
    "RATE_BOUND": "1",
    "ACK_HIGH_PRIO": "0",
    "LINK_DOWN": "0 0 0",
    "ENABLE_TRACE": "0",
    "KMAX_MAP": "2 100000000000 1600 400000000000 6400",
    "KMIN_MAP": "2 100000000000 400 400000000000 1600",
    "PMAX_MAP": "2 100000000000 0.2 400000000000 0.1",
    "BUFFER_SIZE": "1",
    "QLEN_MON_FILE": "mix/qlen.txt",
    "QLEN_MON_START": "3000000000",
    "QLEN_MON_END": "3010000000",
}


def write_config(tmp_path: Path, drop: tuple[str, ...] = (), flows: str = FLOWS, **keys: str) -> Path:
    """simulation/mix/config.txt under tmp_path, with the topology and flows beside it: the
    sample's keys, `keys` over them (a value None leaves the key out), `drop` left out."""
    mix = tmp_path / "simulation" / "mix"
    mix.mkdir(parents=True, exist_ok=True)
    (mix / "topo.txt").write_text(TOPOLOGY)
    (mix / "flows.txt").write_text(flows)
    values = {**SAMPLE_KEYS, **keys}
    lines = [f"{k} {v}" for k, v in values.items() if k not in drop]
    path = mix / "config.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def line_of(path: Path, key: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.split()[0] == key)


# run.py's DCTCP: one threshold, K = 30 KB per 10 Gb/s, for both maps (a step, not a ramp).
DCTCP_MAPS = {"KMIN_MAP": "2 100000000000 300 400000000000 1200", "KMAX_MAP": "2 100000000000 300 400000000000 1200"}


@pytest.mark.parametrize(("mode", "keys"), [("1", {"HAS_WIN": "0"}), ("8", DCTCP_MAPS)])
@pytest.mark.parametrize("size", [2500, 1_000_000])
def test_a_queue_pair_alone_takes_hpccs_standalone_fct(tmp_path, mode, keys, size):
    """A flow alone on the empty fabric, DCQCN or DCTCP starting at line rate, ends (its last ACK
    back at the sender, as fct.txt counts) within 1% of HPCC's standalone_fct: no handshake, no
    window to grow, the same store-and-forward. Measured 0.995 and 0.999 of it."""
    config = write_config(tmp_path, flows=f"1\n0 2 3 100 {size} 2\n", CC_MODE=mode, **keys)
    cfg = hpcc_config.read_config(config, None)
    result = fctlab.run(cfg.scenario)
    lines = hpcc_files.fct_lines(result, cfg.flow_file, payload=cfg.payload, header=hpcc_files.HEADER)
    fct, alone = (int(x) for x in lines[0].split()[6:8])
    assert fct == pytest.approx(alone, rel=0.01), (fct, alone)
    receiver = hpcc_files.fct_lines(
        result, cfg.flow_file, payload=cfg.payload, header=hpcc_files.HEADER, completion="receiver"
    )
    # Ended at the receiver instead, the flow is a one-way trip (6 us and three ACKs) sooner.
    assert 6000 <= fct - int(receiver[0].split()[6]) <= 6500


@pytest.mark.parametrize(
    ("mode", "keys"),
    [
        ("3", {}),
        ("8", DCTCP_MAPS),
    ],
)
def test_a_configuration_runs_end_to_end_and_writes_fct_and_pfc(tmp_path, mode, keys):
    config = write_config(tmp_path, CC_MODE=mode, **keys)
    out = tmp_path / "out"
    p = cli("hpcc", "run", str(config), "-o", str(out), "-q")
    assert p.returncode == 0, p.stderr
    fct = (out / "fct.txt").read_text().splitlines()
    assert len(fct) == 5 and all(len(line.split()) == 8 for line in fct)
    # Also where FCT_OUTPUT_FILE and PFC_OUTPUT_FILE say, relative to simulation/.
    mix = config.parent
    assert (mix / "fct_out.txt").read_text().splitlines() == fct
    pfc = (out / "pfc.txt").read_text()
    assert (mix / "pfc_out.txt").read_text() == pfc
    assert pfc, "three 1 MB flows into one host over a 1 MB buffer pause their links"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["dropped_pkts"] == 0 and meta["fabric"]["pause_frames"] == len(
        [x for x in pfc.splitlines() if x.split()[-1] == "1"]
    )
    spec = json.loads((out / "scenario.json").read_text())
    t = spec["transport"]
    assert t["queue_pair"] is True and spec["queues"]["host"] == {"kind": "round_robin"}
    assert spec["fabric"]["buffer"] == 2**20 and spec["fabric"]["pfc"] is True
    assert spec["fabric"]["control_first"] == "hosts" and spec["fabric"]["control_pauses"] is True
    if mode == "3":
        assert t["protocol"] == "hpcc" and t["base_rtt"] == f"{MAX_RTT_NS}ns"
        assert spec["queues"]["router"]["kind"] == "hpcc"
    else:
        assert (t["protocol"], t["cc"], t["dctcp_g"]) == ("tcp", "dctcp", 0.0625)
        assert t["iw"] == -(-MAX_BDP // 1000) and t["rwnd"] == MAX_BDP


def test_the_sample_configurations_keys_are_read_and_mapped(tmp_path):
    config = write_config(tmp_path)
    cfg = hpcc_config.read_config(config)
    assert cfg.warnings == []
    assert list(cfg.settings) == list(SAMPLE_KEYS)
    assert set(SAMPLE_KEYS) | {"PAUSE_TIME", "DATA_RATE", "LINK_DELAY"} == set(hpcc_config.KEYS)
    assert cfg.root == config.parent.parent and cfg.flow_file == config.parent / "flows.txt"
    assert cfg.fct_output == config.parent / "fct_out.txt"
    spec = cfg.scenario
    # HPCC: T is third.cc's maxRtt (GLOBAL_T 1), W_AI = RATE_AI x T, eta and maxStage.
    assert spec["transport"] == {
        "protocol": "hpcc",
        "line_rate": "100000000000bps",
        "base_rtt": f"{MAX_RTT_NS}ns",
        "eta": 0.9,
        "max_stage": 3,
        "w_ai": round(40e6 * MAX_RTT_NS / 8e9),
        "mss": 1000,
        "header": hpcc_files.HEADER,
        "priority": 3,
        "queue_pair": True,
    }
    assert hpcc_config.base_rtt(hpcc_files.parse_topology(cfg.topology_file), 1000) == (MAX_RTT_NS, MAX_BDP)
    # The maps' thresholds in KB of 1000 bytes (ConfigEcn), BUFFER_SIZE in MB of 2^20 bytes.
    assert spec["fabric"] == {
        "buffer": 2**20,
        "pfc": True,
        "control_first": "hosts",
        "control_pauses": True,
        "ecn": [
            {"rate": "100000000000bps", "kmin": 400_000, "kmax": 1_600_000, "pmax": 0.2},
            {"rate": "400000000000bps", "kmin": 1_600_000, "kmax": 6_400_000, "pmax": 0.1},
        ],
    }
    assert spec["max_time"] == "2500000000ns" and spec["drain"] is True
    assert len(spec["workload"][0]["flows"]) == 5 and "loss" not in spec
    # ENABLE_QCN 0: no marking; PAUSE_TIME below 1 us: every PAUSE is a RESUME, so no PFC.
    spec, warnings = hpcc_config.config_scenario(write_config(tmp_path, ENABLE_QCN="0", PAUSE_TIME="0.5"))
    assert "ecn" not in spec["fabric"] and spec["fabric"]["pfc"] is False and warnings == []
    # ERROR_RATE_PER_LINK: loss on every link whose own error rate is 0, both ways.
    spec, _ = hpcc_config.config_scenario(write_config(tmp_path, ERROR_RATE_PER_LINK="0.001"))
    assert len(spec["loss"]) == 10 and {x["p"] for x in spec["loss"]} == {0.001}


def test_ack_high_prio_says_whether_the_nics_acks_pass_a_pause(tmp_path):
    """The NICs send ACKs first either way (control_first = "hosts"); ACK_HIGH_PRIO 1 lets them
    pass a pause of the data (run.py's DCQCN setting)."""
    spec, warnings = hpcc_config.config_scenario(write_config(tmp_path, ACK_HIGH_PRIO="1"))
    assert warnings == []
    assert (spec["fabric"]["control_first"], spec["fabric"]["control_pauses"]) == ("hosts", False)


def test_clamp_target_rate_0_keeps_dcqcns_target_through_cuts(tmp_path):
    """run.py's DCQCN settings have CLAMP_TARGET_RATE 0: fctlab's DCQCN keeps RT through a run
    of cuts (`clamp_target = false`), no warning."""
    spec, warnings = hpcc_config.config_scenario(
        write_config(tmp_path, CC_MODE="1", HAS_WIN="0", CLAMP_TARGET_RATE="0")
    )
    assert warnings == [] and spec["transport"]["clamp_target"] is False


def test_dcqcn_and_timely_map_their_keys(tmp_path):
    """CC_MODE 1 and 7 as scenario dicts (their protocols come with another branch: not run here)."""
    spec, warnings = hpcc_config.config_scenario(write_config(tmp_path, CC_MODE="1", HAS_WIN="0"))
    assert warnings == []
    assert spec["transport"] == {
        "protocol": "dcqcn",
        "line_rate": "100000000000bps",
        "min_rate": "1000000000bps",
        "dcqcn_g": 0.0625,
        "alpha_timer": "2000ns",
        "timer": "300000ns",
        "byte_counter": 0,
        "fast_recovery": 2,
        "rate_ai": "40000000bps",
        "rate_hai": "200000000bps",
        "cnp_interval": "0ns",
        "rate_decrease_interval": "8000ns",
        "clamp_target": True,
        "hyper_step": "fixed",
        "nic_pull": True,
        "mss": 1000,
        "header": hpcc_files.HEADER,
        "priority": 3,
        "queue_pair": True,
    }
    assert "router" not in spec["queues"]
    spec, warnings = hpcc_config.config_scenario(write_config(tmp_path, CC_MODE="7", HAS_WIN="0"))
    assert warnings == []
    assert spec["transport"] == {
        "protocol": "timely",
        "line_rate": "100000000000bps",
        "min_rate": "1000000000bps",
        "delta": "40000000bps",
        "timely_alpha": 0.875,
        "timely_beta": 0.8,
        "t_low": "50us",
        "t_high": "500us",
        "min_rtt": "20us",
        "hai": 5,
        "hai_after": "increases",
        "nic_pull": True,
        "mss": 1000,
        "header": hpcc_files.HEADER + hpcc_config.TIMELY_TS_BYTES,
        "priority": 3,
        "queue_pair": True,
    }


# (keys over the sample's, keys left out, the refused key, what the message says)
REFUSED = [
    ({"CC_MODE": "10"}, (), "CC_MODE", "HPCC-PINT"),
    ({"MULTI_RATE": "1"}, (), "MULTI_RATE", "one rate per hop"),
    ({}, ("MULTI_RATE",), "MULTI_RATE", "third.cc's default"),
    ({"SAMPLE_FEEDBACK": "1"}, (), "SAMPLE_FEEDBACK", "once per round trip"),
    ({"FAST_REACT": "0"}, (), "FAST_REACT", "every ACK"),
    ({"HAS_WIN": "0"}, (), "HAS_WIN", "no window"),
    ({"VAR_WIN": "0"}, (), "VAR_WIN", "fixed"),
    ({"GLOBAL_T": "0"}, (), "GLOBAL_T", "own base RTT"),
    ({"MIN_RATE": "100Mb/s"}, (), "MIN_RATE", "1% of the line rate"),
    ({"L2_BACK_TO_ZERO": "1"}, (), "L2_BACK_TO_ZERO", "go-back-0"),
    ({"L2_ACK_INTERVAL": "3000"}, (), "L2_ACK_INTERVAL", "ACKs every packet"),
    ({"LINK_DOWN": "10 4 5"}, (), "LINK_DOWN", "link down"),
    ({"RATE_BOUND": "0"}, (), "RATE_BOUND", "whatever the rate law says"),
    ({"QLEN_MON_START": "2000000000"}, (), "QLEN_MON_START", "QLEN_MON_FILE mix/qlen.txt"),
    ({"ENABLE_TRACE": "1"}, (), "ENABLE_TRACE", "the 2 nodes TRACE_FILE mix/trace.txt lists"),
    ({"CC_MODE": "1", "HAS_WIN": "1"}, (), "HAS_WIN", "a window on top of DCQCN"),
    ({"CC_MODE": "7", "HAS_WIN": "0", "RATE_HAI": "100Mb/s"}, (), "RATE_HAI", "5 x RATE_AI (200Mb/s)"),
    ({"FLOW_CONTROL": "1"}, (), "FLOW_CONTROL", "not a key third.cc reads"),
]


@pytest.mark.parametrize(("keys", "drop", "key", "says"), REFUSED, ids=[r[2] + "-" + r[3][:12] for r in REFUSED])
def test_a_key_fctlab_does_not_model_is_refused_by_name(tmp_path, keys, drop, key, says):
    config = write_config(tmp_path, drop, **keys)
    (config.parent / "trace.txt").write_text("2\n0 2\n")
    with pytest.raises(ScenarioError) as e:
        hpcc_config.read_config(config)
    message = str(e.value)
    assert "\n" not in message
    assert key in message and says in message, message
    assert "--lenient" in message and "not modeled by fctlab" in message
    if key not in drop:
        assert f"line {line_of(config, key)}:" in message, message
        assert f'"{keys[key]}"' in message or f'"{key} {keys[key]}"' in message, message
    # With lenient it is a warning saying what fctlab runs instead.
    cfg = hpcc_config.read_config(config, lenient=True)
    assert len(cfg.warnings) == 1 and key in cfg.warnings[0] and "fctlab " in cfg.warnings[0].split("; ")[-1]


def test_the_command_refuses_by_name_and_lenient_warns(tmp_path):
    config = write_config(tmp_path, MULTI_RATE="1", LINK_DOWN="100 4 5")
    p = cli("hpcc", "run", str(config), "-o", str(tmp_path / "strict"), "-q")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f'line {line_of(config, "MULTI_RATE")}: MULTI_RATE "1"' in lines[0] and "1 more refused" in lines[0]
    assert not (tmp_path / "strict").exists()
    p = cli("hpcc", "run", str(config), "-o", str(tmp_path / "lenient"), "-q", "--lenient")
    assert p.returncode == 0, p.stderr
    warnings = [x for x in p.stderr.splitlines() if x.startswith("warning: ")]
    assert len(warnings) == 2
    assert (
        "MULTI_RATE" in warnings[0]
        and 'LINK_DOWN "100 4 5"' in warnings[1]
        and "fctlab keeps every link up" in warnings[1]
    )
    assert len((tmp_path / "lenient" / "fct.txt").read_text().splitlines()) == 5


def test_a_bad_value_is_one_line_naming_key_value_and_line(tmp_path):
    config = write_config(tmp_path, BUFFER_SIZE="x")
    p = cli("hpcc", "run", str(config), "-o", str(tmp_path / "o"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    n = line_of(config, "BUFFER_SIZE")
    assert f"line {n}: field `BUFFER_SIZE`: expected a whole number" in lines[0] and 'got "x"' in lines[0]


@pytest.mark.parametrize(
    ("keys", "drop", "parts"),
    [
        ({"CC_MODE": "5"}, (), ["field `CC_MODE`", "1 (DCQCN), 3 (HPCC)", 'got "5"']),
        ({"CC_MODE": "8"}, ("EWMA_GAIN",), ["field `EWMA_GAIN`", "integer arithmetic", "not set"]),
        ({}, ("RATE_AI",), ["field `RATE_AI`", "every CC_MODE"]),
        ({"RATE_HAI": "fast"}, (), ["field `RATE_HAI`", 'a rate > 0 like "100Gbps"', 'got "fast"']),
        ({"KMIN_MAP": "1 100000000000 400"}, (), ["field `KMIN_MAP`", "none for 400000000000"]),
        (
            {"KMAX_MAP": "2 100000000000 1600 400000000000"},
            (),
            ["field `KMAX_MAP`", "a threshold in KB", 'got "KMIN_MAP"'],
        ),
        (
            {"KMAX_MAP": "2 100000000000 399 400000000000 6400"},
            (),
            ["field `KMAX_MAP`", "kmax at least kmin (400 KB) at 100000000000 bit/s"],
        ),
        ({"U_TARGET": "1.5"}, (), ["field `U_TARGET`", "(0, 1]", 'got "1.5"']),
        ({"L2_ACK_INTERVAL": "0"}, (), ["field `L2_ACK_INTERVAL`", "no flow completes"]),
        ({"SIMULATOR_STOP_TIME": "2"}, (), ["field `SIMULATOR_STOP_TIME`", "after the last flow's start"]),
        ({"CC_MODE": "1", "HAS_WIN": "0"}, ("RP_TIMER",), ["field `RP_TIMER`", "above 0"]),
        ({}, ("FLOW_FILE",), ["field `FLOW_FILE`", "missing"]),
    ],
)
def test_bad_values_name_key_and_value(tmp_path, keys, drop, parts):
    with pytest.raises(ScenarioError) as e:
        hpcc_config.read_config(write_config(tmp_path, drop, **keys))
    message = str(e.value)
    assert "\n" not in message and all(part in message for part in parts), message


def test_a_key_twice_and_the_root(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "CC_MODE 8\n")
    with pytest.raises(ScenarioError, match=r"field `CC_MODE`: expected each key once"):
        hpcc_config.read_config(config)
    # Relative paths start at --root; absolute ones stay.
    config = write_config(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "mix").mkdir(parents=True)
    with pytest.raises(ScenarioError, match="topology file not found"):
        hpcc_config.read_config(config, elsewhere)
    moved = write_config(
        tmp_path, TOPOLOGY_FILE=str(config.parent / "topo.txt"), FLOW_FILE=str(config.parent / "flows.txt")
    )
    assert hpcc_config.read_config(moved, elsewhere).fct_output == elsewhere / "mix" / "fct_out.txt"
