"""HPCC's simulator's configuration file (`mix/config.txt`, which `simulation/scratch/third.cc`
reads) as an fctlab scenario: what `fctlab hpcc run CONFIG.txt` runs.

third.cc reads the file as a stream of whitespace-separated tokens, a key and then its value(s),
and skips a key it does not know without a word. Here each of the keys it reads is read with the
value syntax it reads (whole numbers, reals, ns-3 rate strings, the `*_MAP` lists, `LINK_DOWN t a
b`), and then is one of three things:

- mapped onto the scenario (the topology and flow files it names, the fabric, the transport);
- accepted, because its value changes nothing fctlab models (`ENABLE_TRACE 0`, a key of another
  `CC_MODE`, an output file's name);
- refused, because fctlab does not model what it asks for: an error naming the key, its value,
  its line, why, and what fctlab runs instead. With `lenient=True` a refusal is a warning and
  the run goes on as the warning says. A key third.cc does not know is refused too.

A key the file leaves out has third.cc's default (its global's initial value), and is decided
the same way: `MULTI_RATE`, absent, is 1 (one rate per hop), which fctlab's HPCC does not model.
A value third.cc cannot read or would crash on is an error (`ScenarioError`) naming the file,
the line, the key, the value and what was expected. The table of every key is in
docs/hpcc-files.md ("Configuration file").

- `read_config(path, root=None, lenient=False)`: the `Config`: scenario, warnings, the files.
- `config_scenario(path, root=None, lenient=False)`: its scenario dict and warnings.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fctlab.errors import ScenarioError
from fctlab.tools import hpcc_files
from fctlab.tools.hpcc_files import Topology

_U32 = 2**32 - 1
_U64 = 2**64 - 1
_UINT = re.compile(r"\d+", re.ASCII)
# A real as C++'s `>> double` reads one token (a sign allowed; no "inf" or "nan").
_REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_SPACE = re.compile(r"[ \t\n\v\f\r]+")

#: third.cc's congestion controls (`CC_MODE`) and what fctlab runs for each.
CC_MODES = {1: "DCQCN", 3: "HPCC", 7: "TIMELY", 8: "DCTCP", 10: "HPCC-PINT"}
#: TIMELY's constants in HPCC's simulator (`rdma-hw.cc`'s attribute defaults, which third.cc
#: leaves alone): alpha, beta, Tlow, Thigh, minRTT; and the increases before HAI (fixed at 5).
TIMELY_CONSTANTS = {
    "timely_alpha": 0.875,
    "timely_beta": 0.8,
    "t_low": "50us",
    "t_high": "500us",
    "min_rtt": "20us",
    "hai": 5,
    # m_incStage: HAI after five increases in a row, whichever branch (UpdateRateTimely).
    "hai_after": "increases",
}
#: Bytes of TIMELY's timestamp (`IntHeader`'s TS mode), carried by every data packet.
TIMELY_TS_BYTES = 8


@dataclass(frozen=True)
class _Key:
    """How third.cc reads a key's value, and the value it has when the file leaves it out."""

    kind: str  # "u32", "u64", "real", "text", "rate", "kmap", "pmap", "link_down"
    default: str  # as written in a file; "" where third.cc's global starts empty


#: Every key third.cc reads, in its order, with its global's initial value.
KEYS: dict[str, _Key] = {
    "ENABLE_QCN": _Key("u32", "1"),
    "USE_DYNAMIC_PFC_THRESHOLD": _Key("u32", "1"),
    "CLAMP_TARGET_RATE": _Key("u32", "0"),
    "PAUSE_TIME": _Key("real", "5"),
    "DATA_RATE": _Key("text", ""),
    "LINK_DELAY": _Key("text", ""),
    "PACKET_PAYLOAD_SIZE": _Key("u32", "1000"),
    "L2_CHUNK_SIZE": _Key("u32", "0"),
    "L2_ACK_INTERVAL": _Key("u32", "0"),
    "L2_BACK_TO_ZERO": _Key("u32", "0"),
    "TOPOLOGY_FILE": _Key("text", ""),
    "FLOW_FILE": _Key("text", ""),
    "TRACE_FILE": _Key("text", ""),
    "TRACE_OUTPUT_FILE": _Key("text", ""),
    "SIMULATOR_STOP_TIME": _Key("real", "3.01"),
    "ALPHA_RESUME_INTERVAL": _Key("real", "55"),
    "RP_TIMER": _Key("real", "0"),
    # `ewma_gain = 1 / 16` in third.cc: integer division, so 0.
    "EWMA_GAIN": _Key("real", "0"),
    "FAST_RECOVERY_TIMES": _Key("u32", "5"),
    "RATE_AI": _Key("rate", ""),
    "RATE_HAI": _Key("rate", ""),
    "ERROR_RATE_PER_LINK": _Key("real", "0"),
    "CC_MODE": _Key("u32", "1"),
    "RATE_DECREASE_INTERVAL": _Key("real", "4"),
    "MIN_RATE": _Key("rate", "100Mb/s"),
    "FCT_OUTPUT_FILE": _Key("text", "fct.txt"),
    "HAS_WIN": _Key("u32", "1"),
    "GLOBAL_T": _Key("u32", "1"),
    "MI_THRESH": _Key("u32", "5"),
    "VAR_WIN": _Key("u32", "0"),
    "FAST_REACT": _Key("u32", "1"),
    "U_TARGET": _Key("real", "0.95"),
    "INT_MULTI": _Key("u32", "1"),
    "RATE_BOUND": _Key("u32", "1"),
    "ACK_HIGH_PRIO": _Key("u32", "0"),
    "DCTCP_RATE_AI": _Key("rate", "1000Mb/s"),
    "PFC_OUTPUT_FILE": _Key("text", "pfc.txt"),
    "LINK_DOWN": _Key("link_down", "0 0 0"),
    "ENABLE_TRACE": _Key("u32", "1"),
    "KMAX_MAP": _Key("kmap", "0"),
    "KMIN_MAP": _Key("kmap", "0"),
    "PMAX_MAP": _Key("pmap", "0"),
    "BUFFER_SIZE": _Key("u32", "16"),
    "QLEN_MON_FILE": _Key("text", ""),
    "QLEN_MON_START": _Key("u64", "2000000000"),
    "QLEN_MON_END": _Key("u64", "2100000000"),
    "MULTI_RATE": _Key("u32", "1"),
    "SAMPLE_FEEDBACK": _Key("u32", "0"),
    "PINT_LOG_BASE": _Key("real", "1.05"),
    "PINT_PROB": _Key("real", "1.0"),
}


@dataclass(frozen=True)
class Setting:
    """A key's value: as third.cc reads it (`value`), as written (`text`), and its line (None:
    the file leaves the key out, and this is third.cc's default)."""

    key: str
    value: Any
    text: str
    line: int | None


@dataclass
class Config:
    """A configuration file read: the scenario to run, the warnings (refusals `lenient` let
    through, one line each), the files it names (absolute), and the payload bytes per packet."""

    path: Path
    root: Path
    scenario: dict[str, Any]
    warnings: list[str]
    topology_file: Path
    flow_file: Path
    fct_output: Path
    pfc_output: Path
    payload: int
    settings: dict[str, Setting] = field(default_factory=dict)


def config_scenario(
    path: str | Path, root: str | Path | None = None, *, lenient: bool = False, extra_lines: str = "error"
) -> tuple[dict[str, Any], list[str]]:
    """The scenario of an HPCC configuration file and the warnings `lenient` turned refusals
    into (`read_config`)."""
    cfg = read_config(path, root, lenient=lenient, extra_lines=extra_lines)
    return cfg.scenario, cfg.warnings


# --- reading the file ------------------------------------------------------------------------


def _tokens(path: Path) -> list[tuple[int, str]]:
    """The file's tokens with their line numbers."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"configuration file not found: {path}") from None
    except IsADirectoryError:
        raise ScenarioError(f"configuration file {path} is a directory, expected a text file") from None
    except OSError as e:
        raise ScenarioError(f"cannot read configuration file {path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"configuration file {path}: not text (byte {e.start})") from None
    return [(n, t) for n, line in enumerate(io.StringIO(text, newline="\n"), 1) for t in _SPACE.split(line) if t]


class _Stream:
    """The tokens, taken one at a time, each value checked as third.cc's `>>` reads it."""

    def __init__(self, path: Path, tokens: list[tuple[int, str]]) -> None:
        self.path = path
        self.tokens = tokens
        self.at = 0

    def more(self) -> bool:
        return self.at < len(self.tokens)

    def peek(self) -> str:
        return self.tokens[self.at][1]

    def text(self, since: int) -> str:
        """The tokens taken since position `since`, as written."""
        return " ".join(t for _, t in self.tokens[since : self.at])

    def error(self, line: int, key: str, expected: str, got: str) -> ScenarioError:
        return ScenarioError(f'{self.path} line {line}: field `{key}`: expected {expected}, got "{got}"')

    def take(self, key: str, line: int, expected: str) -> tuple[int, str]:
        if not self.more():
            raise ScenarioError(f"{self.path} line {line}: field `{key}`: expected {expected}, got the end of the file")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def uint(self, key: str, line: int, top: int, what: str = "a whole number") -> int:
        expected = f"{what} from 0 to {top}"
        n, t = self.take(key, line, expected)
        if not _UINT.fullmatch(t) or int(t) > top:
            raise self.error(n, key, expected, t)
        return int(t)

    def real(self, key: str, line: int) -> float:
        n, t = self.take(key, line, "a number")
        if not _REAL.fullmatch(t):
            raise self.error(n, key, "a number", t)
        return float(t)

    def rate(self, key: str, line: int) -> int:
        n, t = self.take(key, line, hpcc_files.RATE_EXPECTED)
        bps = hpcc_files.ns3_rate_bps(t)
        if bps is None or bps < 1:
            raise self.error(n, key, hpcc_files.RATE_EXPECTED, t)
        return bps


def _read(s: _Stream, key: str, spec: _Key, line: int) -> Any:
    """One key's value, from the stream."""
    if spec.kind == "u32":
        return s.uint(key, line, _U32)
    if spec.kind == "u64":
        return s.uint(key, line, _U64)
    if spec.kind == "real":
        return s.real(key, line)
    if spec.kind == "rate":
        return s.rate(key, line)
    if spec.kind == "text":
        return s.take(key, line, "a value")[1]
    if spec.kind == "link_down":
        return (
            s.uint(key, line, _U64, "a time in microseconds after 2 s"),
            s.uint(key, line, _U32, "a node id"),
            s.uint(key, line, _U32, "a node id"),
        )
    # "kmap", "pmap": a count n, then n pairs of a link rate in bit/s and a value.
    entries: dict[int, Any] = {}
    for _ in range(s.uint(key, line, 2**31 - 1, "the number of entries")):
        rate = s.uint(key, line, _U64, "a link rate in bit/s")
        entries[rate] = s.uint(key, line, _U32, "a threshold in KB") if spec.kind == "kmap" else s.real(key, line)
    return entries


def _parse(path: Path) -> tuple[dict[str, Setting], list[tuple[int, str, str]]]:
    """The file's settings, and its unknown keys: (line, key, the tokens after it up to the next
    key third.cc knows, which third.cc would skip too)."""
    s = _Stream(path, _tokens(path))
    settings: dict[str, Setting] = {}
    unknown: list[tuple[int, str, str]] = []
    while s.more():
        line, key = s.take("", 0, "")
        spec = KEYS.get(key)
        if spec is None:
            since = s.at
            while s.more() and s.peek() not in KEYS:
                s.at += 1
            unknown.append((line, key, s.text(since)))
            continue
        if key in settings:
            merge = ", merging the maps" if spec.kind in ("kmap", "pmap") else ""
            raise ScenarioError(
                f"{path} line {line}: field `{key}`: expected each key once, got it again (first on line "
                f"{settings[key].line}; third.cc would take the last{merge})"
            )
        since = s.at
        value = _read(s, key, spec, line)
        settings[key] = Setting(key, value, s.text(since), line)
    return settings, unknown


def _default(key: str) -> Setting:
    """third.cc's value of a key the file leaves out."""
    spec = KEYS[key]
    if spec.kind == "text" or (spec.kind == "rate" and spec.default == ""):
        return Setting(key, spec.default or None, spec.default, None)
    s = _Stream(Path("third.cc"), [(0, t) for t in spec.default.split()])
    return Setting(key, _read(s, key, spec, 0), spec.default, None)


# --- what third.cc computes from the topology --------------------------------------------------


def base_rtt(topo: Topology, payload: int) -> tuple[int, int]:
    """(maxRtt in ns, maxBdp in bytes) as third.cc computes them (`CalculateRoute`, 917-929): a
    breadth-first search from each host over switches only, each node's delay, serialization
    and bottleneck taken from the link it was first reached by (neighbours in node id order,
    third.cc's map of node pointers in creation order); for each pair of hosts
    rtt = 2 x delay + sum over the links of floor(payload x 8e9 / rate), bdp = floor(rtt x
    bottleneck / 8e9); the largest of each."""
    neighbours: dict[int, list[tuple[int, int, int]]] = {}
    for k in topo.links:
        neighbours.setdefault(k.src, []).append((k.dst, k.delay_ns, k.rate_bps))
        neighbours.setdefault(k.dst, []).append((k.src, k.delay_ns, k.rate_bps))
    for v in neighbours.values():
        v.sort()
    max_rtt = max_bdp = 0
    for host in range(topo.nodes):
        if not topo.is_host(host):
            continue
        reached = {host: (0, 0, None)}  # node -> (delay, serialization, bottleneck)
        queue = [host]
        for now in queue:
            delay, tx, bw = reached[now]
            for nxt, d, rate in neighbours.get(now, []):
                if nxt in reached:
                    continue
                reached[nxt] = (delay + d, tx + payload * 8_000_000_000 // rate, rate if bw is None else min(bw, rate))
                if not topo.is_host(nxt):
                    queue.append(nxt)
        for other, (delay, tx, bw) in reached.items():
            if other == host or not topo.is_host(other):
                continue
            rtt = 2 * delay + tx
            max_rtt = max(max_rtt, rtt)
            max_bdp = max(max_bdp, rtt * bw // 1_000_000_000 // 8)
    return max_rtt, max_bdp


def _host_rate(topo: Topology) -> int:
    """The hosts' link rate: one for all (fctlab's transports take one line rate)."""
    rates = sorted({k.rate_bps for k in topo.links if topo.is_host(k.src) or topo.is_host(k.dst)})
    if len(rates) != 1:
        raise ScenarioError(
            f"{topo.path}: expected every host's link at one rate (fctlab's transport takes one line rate, "
            f"HPCC's NICs each their own), got {', '.join(f'{r} bit/s' for r in rates)}"
        )
    return rates[0]


def _switch_port_rates(topo: Topology) -> dict[int, str]:
    """Each rate of a switch's port, with one such port for messages."""
    rates: dict[int, str] = {}
    for k in topo.links:
        for a, b in ((k.src, k.dst), (k.dst, k.src)):
            if not topo.is_host(a):
                rates.setdefault(k.rate_bps, f"n{a}->n{b}")
    return rates


# --- deciding each key -----------------------------------------------------------------------


class _Decider:
    """The settings with third.cc's defaults, and the refusals: raised at once (the first in
    file order) or kept as warnings."""

    def __init__(self, path: Path, settings: dict[str, Setting], lenient: bool) -> None:
        self.path = path
        self.settings = settings
        self.lenient = lenient
        self.refused: list[tuple[int, str]] = []

    def __getitem__(self, key: str) -> Setting:
        return self.settings.get(key) or _default(key)

    def where(self, s: Setting) -> str:
        if s.line is None:
            shown = f'"{s.text}"' if s.text else "empty"
            return f"{self.path}: {s.key} not set (third.cc's default: {shown})"
        return f'{self.path} line {s.line}: {s.key} "{s.text}"'

    def refuse(self, s: Setting, why: str, instead: str) -> None:
        """`s` asks for what fctlab does not model (`why`); `instead` is what fctlab runs."""
        self.refused.append((s.line or 0, f"{self.where(s)}: {why}; {instead}"))

    def bad(self, s: Setting, expected: str) -> ScenarioError:
        """A value third.cc would read but not run with: an error, never a warning."""
        got = f'"{s.text}"' if s.line is not None else f'"{s.text}" (not set: third.cc\'s default)'
        line = f" line {s.line}" if s.line is not None else ""
        return ScenarioError(f"{self.path}{line}: field `{s.key}`: expected {expected}, got {got}")

    def finish(self) -> list[str]:
        """The warnings; raises the first refusal unless lenient."""
        self.refused.sort(key=lambda r: r[0])
        messages = [m for _, m in self.refused]
        if messages and not self.lenient:
            more = len(messages) - 1
            tail = f" ({more} more refused: --lenient lists them all)" if more else ""
            raise ScenarioError(
                f"{messages[0]} (not modeled by fctlab; --lenient runs it anyway, with a warning){tail}"
            )
        return messages


def _path(root: Path, text: str) -> Path:
    p = Path(text)
    return p if p.is_absolute() else root / p


def _rate(bps: int) -> str:
    return f"{bps}bps"


def _rate_words(bps: int) -> str:
    """A rate as a configuration file writes it."""
    return f"{bps // 10**6}Mb/s" if bps % 10**6 == 0 else f"{bps}b/s"


def read_config(
    path: str | Path, root: str | Path | None = None, *, lenient: bool = False, extra_lines: str = "error"
) -> Config:
    """Reads an HPCC configuration file and the topology and flow files it names (relative paths
    from `root`, the directory third.cc runs in: by default the file's parent's parent, as the
    authors run `third mix/config.txt` from `simulation/`), and makes the scenario it describes.

    Raises `ScenarioError` on a value third.cc cannot read or run with, and on the first key
    that asks for what fctlab does not model unless `lenient` (then each is a warning in
    `Config.warnings`, and the scenario is what the warning says fctlab runs)."""
    path = Path(path)
    root = Path(root) if root is not None else path.resolve().parent.parent
    settings, unknown = _parse(path)
    d = _Decider(path, settings, lenient)
    for line, key, rest in unknown:
        shown = f'"{key} {rest}"' if rest else f'"{key}"'
        d.refused.append(
            (
                line,
                f"{path} line {line}: {shown}: not a key third.cc reads (it would skip it without a word); "
                "fctlab skips it too (docs/hpcc-files.md lists the keys)",
            )
        )

    # The files.
    for key in ("TOPOLOGY_FILE", "FLOW_FILE"):
        if not d[key].text:
            raise ScenarioError(
                f"{path}: field `{key}`: missing; expected the path of HPCC's {key.split('_')[0].lower()} file"
            )
    topology_file = _path(root, d["TOPOLOGY_FILE"].text)
    flow_file = _path(root, d["FLOW_FILE"].text)
    topo = hpcc_files.parse_topology(topology_file, extra_lines=extra_lines)
    flows = hpcc_files.parse_flows(flow_file, topo, extra_lines=extra_lines)

    payload = d["PACKET_PAYLOAD_SIZE"]
    if not 1 <= payload.value <= 2**20:
        raise d.bad(payload, "payload bytes per packet from 1 to 1048576 (fctlab's largest mss)")
    mss = payload.value
    line_rate = _host_rate(topo)
    max_rtt, max_bdp = base_rtt(topo, mss)
    for key in ("RATE_AI", "RATE_HAI"):
        if d[key].value is None:
            raise d.bad(
                d[key], "a rate: third.cc reads it into every host's NIC in every CC_MODE (an empty one aborts)"
            )

    transport, queues = _transport(d, line_rate, max_rtt, max_bdp, mss)
    fabric = _fabric(d, topo, queues)
    _general(d)

    spec = hpcc_files.scenario_of(topo, flows, topology_file, flow_file, transport=transport)
    spec["name"] = f"hpcc {path.name}"
    spec["description"] = f"HPCC's simulator's configuration {path} (root {root})"
    spec["fabric"] = fabric
    spec["queues"] = queues
    stop = d["SIMULATOR_STOP_TIME"]
    stop_ns = hpcc_files.ns3_time_ns(stop.value, 0) if stop.value >= 0 else -1
    if stop_ns <= flows[-1].start_ns:
        raise d.bad(
            stop,
            f"a time in seconds after the last flow's start ({flows[-1].start_ns} ns, {flow_file} line "
            f"{flows[-1].line}): third.cc never starts a flow at or after it",
        )
    spec["max_time"] = f"{stop_ns}ns"
    error_rate = d["ERROR_RATE_PER_LINK"]
    if not 0 <= error_rate.value < 1:
        raise d.bad(error_rate, "a packet loss probability in [0, 1)")
    if error_rate.value > 0:
        spec.setdefault("loss", []).extend(
            {"link": f"n{a}->n{b}", "p": error_rate.value}
            for k in topo.links
            if k.error_rate == 0
            for a, b in ((k.src, k.dst), (k.dst, k.src))
        )
    _monitors(d, stop_ns, root)
    warnings = d.finish()
    return Config(
        path=path,
        root=root,
        scenario=spec,
        warnings=warnings,
        topology_file=topology_file,
        flow_file=flow_file,
        fct_output=_path(root, d["FCT_OUTPUT_FILE"].text),
        pfc_output=_path(root, d["PFC_OUTPUT_FILE"].text),
        payload=mss,
        settings=settings,
    )


def _mode(d: _Decider) -> int:
    cc = d["CC_MODE"]
    if cc.value == 10:
        d.refuse(cc, "HPCC-PINT (probabilistic in-band telemetry) is not modeled", "fctlab runs HPCC (CC_MODE 3)")
        return 3
    if cc.value not in CC_MODES:
        raise d.bad(
            cc,
            "1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP) or 10 (HPCC-PINT): third.cc runs no congestion "
            "control for any other",
        )
    return cc.value


def _positive_us(d: _Decider, key: str) -> str:
    """A time in microseconds (third.cc's `MicroSeconds(double)`), above 0, in whole ns."""
    s = d[key]
    ns = hpcc_files.ns3_time_ns(s.value, -6) if s.value > 0 else 0
    if ns <= 0:
        raise d.bad(s, "a time in microseconds above 0 (third.cc schedules its timer every that often)")
    return f"{ns}ns"


def _gain(d: _Decider) -> float:
    g = d["EWMA_GAIN"]
    if not 0 < g.value <= 1:
        extra = " (third.cc's default, 1 / 16, is 0 in integer arithmetic)" if g.line is None else ""
        raise d.bad(g, f"a weight in (0, 1]: with 0 alpha never moves{extra}")
    return g.value


def _transport(
    d: _Decider, line_rate: int, max_rtt: int, max_bdp: int, mss: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The transport table and the queues of `CC_MODE`, with the keys of that mode."""
    mode = _mode(d)
    has_win, var_win = d["HAS_WIN"], d["VAR_WIN"]
    common: dict[str, Any] = {"queue_pair": True}
    queues: dict[str, Any] = {"host": {"kind": "round_robin"}}
    if mode in (1, 7) and has_win.value != 0:
        what = "DCQCN" if mode == 1 else "TIMELY"
        d.refuse(
            has_win,
            f"a window on top of {what}'s rate (run.py's *_vwin settings) is not modeled: fctlab's {what} paces at "
            "its rate with no window",
            "fctlab runs it without a window (HAS_WIN 0)",
        )
    if mode in (3, 8):
        if has_win.value == 0:
            d.refuse(
                has_win,
                "a rate with no window is not modeled here: fctlab's HPCC and DCTCP are window laws",
                "fctlab runs a window (HAS_WIN 1, VAR_WIN 1)",
            )
        elif var_win.value == 0:
            d.refuse(
                var_win,
                "a window fixed at the largest bandwidth-delay product whatever the rate is not "
                "modeled: fctlab's window follows its law",
                "fctlab runs a variable window (VAR_WIN 1)",
            )
        global_t = d["GLOBAL_T"]
        if global_t.value != 1:
            d.refuse(
                global_t,
                "each host pair's own base RTT is not modeled: fctlab takes one T and one first window for every flow",
                f"fctlab runs the largest base RTT, {max_rtt} ns (GLOBAL_T 1)",
            )
    min_rate = d["MIN_RATE"]
    if mode in (1, 7) and min_rate.value > line_rate:
        raise d.bad(min_rate, f"a rate at most the hosts' line rate ({line_rate} bit/s)")
    rate_ai, rate_hai = d["RATE_AI"], d["RATE_HAI"]

    if mode == 1:
        fr = d["FAST_RECOVERY_TIMES"]
        fast_recovery = fr.value
        if fr.value == 0:
            d.refuse(
                fr,
                "no fast recovery stage is not modeled: fctlab's DCQCN has at least one",
                "fctlab runs FAST_RECOVERY_TIMES 1",
            )
            fast_recovery = 1
        transport = {
            "protocol": "dcqcn",
            "line_rate": _rate(line_rate),
            "min_rate": _rate(min_rate.value),
            "dcqcn_g": _gain(d),
            "alpha_timer": _positive_us(d, "ALPHA_RESUME_INTERVAL"),
            "timer": _positive_us(d, "RP_TIMER"),
            "byte_counter": 0,
            "fast_recovery": fast_recovery,
            "rate_ai": _rate(rate_ai.value),
            "rate_hai": _rate(rate_hai.value),
            "cnp_interval": "0ns",
            "rate_decrease_interval": _positive_us(d, "RATE_DECREASE_INTERVAL"),
            "clamp_target": d["CLAMP_TARGET_RATE"].value != 0,
            "hyper_step": "fixed",
        }
    elif mode == 3:
        for key, why in (
            ("FAST_REACT", "reacting once per round trip only is not modeled: fctlab's HPCC reacts to every ACK"),
            ("MULTI_RATE", "one rate per hop is not modeled: fctlab's HPCC keeps one, for the most loaded hop (eq. 3)"),
            (
                "SAMPLE_FEEDBACK",
                "telemetry once per round trip (or with a queue) is not modeled: fctlab's HPCC reads every ACK's",
            ),
        ):
            want = 1 if key == "FAST_REACT" else 0
            if d[key].value != want:
                d.refuse(d[key], why, f"fctlab runs {key} {want}")
        u = d["U_TARGET"]
        if not 0 < u.value <= 1:
            raise d.bad(u, "a target utilization in (0, 1]")
        if d["INT_MULTI"].value == 0:
            raise d.bad(d["INT_MULTI"], "at least 1 (the unit of the telemetry's bytes and queues; 0 divides by 0)")
        if min_rate.value * 100 != line_rate:
            d.refuse(
                min_rate,
                f"fctlab's HPCC keeps its rate at 1% of the line rate at least ({line_rate // 100} bit/s), "
                "not at MIN_RATE",
                f"fctlab runs its floor (MIN_RATE {_rate_words(line_rate // 100)})",
            )
        transport = {
            "protocol": "hpcc",
            "line_rate": _rate(line_rate),
            "base_rtt": f"{max_rtt}ns",
            "eta": u.value,
            "max_stage": d["MI_THRESH"].value,
            # W_AI = RATE_AI x T: HPCC's window is the largest BDP times rate / line rate.
            "w_ai": max(1, round(rate_ai.value * max_rtt / 8e9)),
        }
        # The switches push telemetry; the shared buffer decides when a port is full.
        queues["router"] = {"kind": "hpcc"}
    elif mode == 7:
        if rate_hai.value != 5 * rate_ai.value:
            d.refuse(
                rate_hai,
                f"HPCC's TIMELY steps by RATE_HAI after 5 increases, fctlab's by hai x delta after hai increases, "
                f"so RATE_HAI must be 5 x RATE_AI ({_rate_words(5 * rate_ai.value)})",
                f"fctlab runs hai = 5 with delta = RATE_AI (RATE_HAI {_rate_words(5 * rate_ai.value)})",
            )
        transport = {
            "protocol": "timely",
            "line_rate": _rate(line_rate),
            "min_rate": _rate(min_rate.value),
            "delta": _rate(rate_ai.value),
            **TIMELY_CONSTANTS,
            "header": hpcc_files.HEADER + TIMELY_TS_BYTES,
        }
    if mode in (1, 7):
        # The simulator's NIC asks a queue pair for its next packet when the pacing allows
        # (UpdateNextAvail at dequeue): one packet of it in the NIC at a time.
        transport["nic_pull"] = True
    if mode == 8:
        transport = {
            "protocol": "tcp",
            "cc": "dctcp",
            "dctcp_g": _gain(d),
            # HPCC's DCTCP starts at line rate within one BDP and never above it.
            "iw": max(1, math.ceil(max_bdp / mss)),
            "rwnd": max(max_bdp, mss),
        }
    return {**transport, **common}, queues


def _fabric(d: _Decider, topo: Topology, queues: dict[str, Any]) -> dict[str, Any]:
    """`[fabric]`: the shared buffer, PFC, ECN and the ACKs' class."""
    buffer = d["BUFFER_SIZE"]
    if buffer.value == 0:
        raise d.bad(buffer, "a buffer size in MB (2^20 bytes) above 0")
    fabric: dict[str, Any] = {"buffer": buffer.value * 2**20}
    if "router" in queues:
        queues["router"]["limit"] = fabric["buffer"]
    pause = d["PAUSE_TIME"]
    if pause.value < 0:
        raise d.bad(pause, "a pause time in microseconds >= 0")
    # third.cc puts PAUSE_TIME into a whole number of us; a PAUSE carrying 0 is read as a RESUME,
    # so nothing is ever paused and a full headroom drops. Any other PAUSE holds until a RESUME.
    fabric["pfc"] = pause.value >= 1
    # The NICs send ACKs before any queue pair (qbb-net-device.cc GetNextQindex); ACK_HIGH_PRIO
    # says whether they then obey the data's pause (0: ack_q_idx 3, the data's priority) or not
    # (1: queue 0). The switches queue them with the data (third.cc never sets AckHighPrio).
    fabric["control_first"] = "hosts"
    fabric["control_pauses"] = d["ACK_HIGH_PRIO"].value == 0
    if d["ENABLE_QCN"].value:
        maps = {k: d[k] for k in ("KMIN_MAP", "KMAX_MAP", "PMAX_MAP")}
        ecn = []
        for rate, port in sorted(_switch_port_rates(topo).items()):
            for s in maps.values():
                if rate not in s.value:
                    raise d.bad(
                        s,
                        f"an entry for every rate of a switch's port (third.cc asserts it), none for {rate} "
                        f"(port {port})",
                    )
            kmin, kmax, pmax = (maps[k].value[rate] for k in maps)
            # kmax = kmin is DCTCP's step (the authors' run.py gives CC_MODE 8 the same two maps).
            if kmax < kmin:
                raise d.bad(maps["KMAX_MAP"], f"kmax at least kmin ({kmin} KB) at {rate} bit/s")
            if not 0 <= pmax <= 1:
                raise d.bad(maps["PMAX_MAP"], f"a probability in [0, 1] at {rate} bit/s")
            # ConfigEcn takes kmin and kmax in KB of 1000 bytes.
            ecn.append({"rate": _rate(rate), "kmin": kmin * 1000, "kmax": kmax * 1000, "pmax": pmax})
        fabric["ecn"] = ecn
    return fabric


def _general(d: _Decider) -> None:
    """Keys of every mode: the NIC's sending, acknowledging, recovery, links."""
    bound = d["RATE_BOUND"]
    if bound.value == 0:
        d.refuse(
            bound,
            "sending at line rate whatever the rate law says (third.cc: for tests only) is not modeled",
            "fctlab paces at the law's rate (RATE_BOUND 1)",
        )
    back = d["L2_BACK_TO_ZERO"]
    if back.value != 0:
        d.refuse(
            back,
            "go-back-0 (a NACK sends both ends back to the start of the L2_CHUNK_SIZE chunk, and what of it had "
            "arrived is received again) is not modeled",
            "fctlab goes back N on its queue pairs, to the first packet not received (L2_BACK_TO_ZERO 0)",
        )
    ack = d["L2_ACK_INTERVAL"]
    payload = d["PACKET_PAYLOAD_SIZE"].value
    if ack.value == 0:
        raise d.bad(ack, "at least 1: with 0 third.cc's senders ignore every ACK and no flow completes")
    if ack.value > payload:
        d.refuse(
            ack,
            f"no ACK until {ack.value} bytes have arrived (then one per packet) is not modeled: fctlab ACKs "
            "every packet",
            f"fctlab ACKs every packet (L2_ACK_INTERVAL 1 to {payload})",
        )
    down = d["LINK_DOWN"]
    if down.value[0] != 0:
        d.refuse(down, "taking a link down mid-run is not modeled", "fctlab keeps every link up")


def _monitors(d: _Decider, stop_ns: int, root: Path) -> None:
    """Tracing and queue monitoring: refused when they would write something."""
    trace = d["ENABLE_TRACE"]
    if trace.value != 0:
        count = None
        name = d["TRACE_FILE"].text
        try:
            first = _SPACE.split(_path(root, name).read_text(errors="replace").strip(), maxsplit=1)[0] if name else ""
            count = int(first) if _UINT.fullmatch(first) else None
        except OSError:
            count = None
        if count != 0:
            nodes = (
                f"the {count} nodes TRACE_FILE {name} lists"
                if count
                else f"nodes TRACE_FILE ({name or 'not set'}) should list"
            )
            d.refuse(
                trace,
                f"a packet-level trace (TRACE_OUTPUT_FILE) of {nodes} is not written by fctlab",
                "fctlab runs without it ([output.pcap] captures the packets of chosen links)",
            )
    start = d["QLEN_MON_START"]
    if start.value < stop_ns:
        d.refuse(
            start,
            f"queue-length histograms (QLEN_MON_FILE {d['QLEN_MON_FILE'].text or 'not set'}), monitored from "
            f"{start.value} ns before the stop at {stop_ns} ns, are not written by fctlab",
            "fctlab runs without them ([output.series] links = [...] samples each port's queue_bytes)",
        )
