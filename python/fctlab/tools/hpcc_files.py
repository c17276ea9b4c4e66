"""The file formats of HPCC's ns-3 simulator (alibaba-edu/High-Precision-Congestion-Control,
`simulation/scratch/third.cc`): its topology and flow files read as an fctlab scenario, and its
per-flow output, `fct.txt`, written from an fctlab run.

The approximate FCT estimators (Parsimon, m3, m4) take their ground truth from that simulator;
with this module fctlab reads the same two input files and writes the same output file, so it
can stand in as the packet-level reference. The simulation is fctlab's; its configuration file
(`mix/config.txt`, the fabric and the transport) is read by `fctlab.tools.hpcc_config`.

- `read_topology(path)`: the topology file as a `[topology]` table of `kind = "graph"`; node i
  of the file is node `n<i>`, a host unless it is in the switch list (then a router).
- `read_flows(path, topology)`: the flow file as the scenario's `workload` list (one entry of
  `kind = "flows"`); flow i of the file is fctlab flow id i.
- `scenario(topology_path, flow_path)`: a whole runnable scenario from the two files
  (`scenario_of` from the records `parse_topology` and `parse_flows` return).
- `ns3_rate_bps(text)`: an ns-3 rate string in whole bit/s, as ns-3 converts it.
- `write_fct(result, path, flow_file)`: a finished run's flows as HPCC's `fct.txt` lines.

How the simulator reads and writes each field (units, rounding, encodings, the standalone FCT
formula) and what fctlab does differently is in docs/hpcc-files.md. Every malformed file is a
`ScenarioError` naming the file, the line, the field, the value and what was expected.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fctlab.errors import ScenarioError

#: Payload bytes per packet in HPCC's configuration (`PACKET_PAYLOAD_SIZE` in mix/config.txt and
#: the default of third.cc): the `mss` of the scenarios made here.
PAYLOAD = 1000
#: Header bytes per packet in HPCC's standalone FCT: the whole header (Ethernet 14, IPv4 20, UDP
#: 8, and its own priority group 2 and sequence number 4) without the INT header. The `header`
#: of the scenarios made here.
HEADER = 48
#: The first source port of every (source, destination) pair; HPCC keeps ports in 16 bits.
FIRST_PORT = 10000
#: Priority groups (queues per port) of HPCC's switches: a flow's `pg` indexes them.
PRIORITY_GROUPS = 8
#: HPCC reads a flow's size into a 32-bit unsigned integer.
MAX_FLOW_SIZE = 2**32 - 1
#: fctlab's largest topology (`crates/fctlab-core/src/limits.rs`), its largest rate and time.
MAX_NODES = 2**20
MAX_RATE_BPS = 10**15
MAX_TIME_NS = 10**15
#: How to treat lines after the counts a file's header declares: HPCC's simulator reads exactly
#: the declared number of items and ignores the rest of the file.
EXTRA_LINES = ("error", "ignore")

# Digits are ASCII's (re.ASCII): C++'s `>>` reads no other, where Python's `\d`, int() and
# float() would also take Arabic-Indic, fullwidth and other Unicode digits.
_UINT = re.compile(r"\d+", re.ASCII)
# A real number as C++'s `>> double` reads it from one token (no "inf" or "nan").
_REAL = re.compile(r"\+?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# ns-3's DataRate and Time strings: a number made of digits and dots, then a unit (see below).
_RATE = re.compile(r"(\d+\.?\d*|\.\d+)(.*)", re.ASCII)
_DELAY = re.compile(r"\+?(\d+\.?\d*|\.\d+)(.*)", re.ASCII)
# The whitespace C++'s `>>` skips between fields: ASCII's (str.split would also split on
# no-break and other Unicode spaces).
_SPACE = re.compile(r"[ \t\n\v\f\r]+")

#: ns-3's DataRate units and their multipliers, applied as ns-3 does (a double product from left
#: to right, then truncated to whole bit/s). A number alone is a whole number of bit/s.
_RATE_UNITS: dict[str, tuple[float, ...]] = {
    "bps": (1,),
    "b/s": (1,),
    "Bps": (8,),
    "B/s": (8,),
    "kbps": (1000,),
    "kb/s": (1000,),
    "Kbps": (1000,),
    "Kb/s": (1000,),
    "kBps": (8000,),
    "kB/s": (8000,),
    "KBps": (8000,),
    "KB/s": (8000,),
    "Kib/s": (1024,),
    "KiB/s": (8192,),
    "Mbps": (1000000,),
    "Mb/s": (1000000,),
    "MBps": (8000000,),
    "MB/s": (8000000,),
    "Mib/s": (1048576,),
    "MiB/s": (1048576, 8),
    "Gbps": (1000000000,),
    "Gb/s": (1000000000,),
    "GBps": (8, 1000000000),
    "GB/s": (8, 1000000000),
    "Gib/s": (1048576, 1024),
    "GiB/s": (1048576, 1024, 8),
}
#: ns-3's Time units, as powers of ten of a second. A number alone is seconds.
_TIME_POWERS = {"s": 0, "ms": -3, "us": -6, "ns": -9, "ps": -12, "fs": -15}


# --- what the files hold --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Link:
    """One link line of a topology file: duplex, the same rate and delay both ways."""

    line: int
    src: int
    dst: int
    rate_bps: int
    delay_ns: int
    error_rate: float


@dataclass(frozen=True)
class Topology:
    """A topology file: `nodes` node ids 0 .. nodes - 1, the switch ids, the links."""

    path: str
    nodes: int
    switches: frozenset[int]
    links: tuple[Link, ...]

    def is_host(self, node: int) -> bool:
        return node not in self.switches


@dataclass(frozen=True, slots=True)
class Flow:
    """One flow line of a flow file; `start_ns` is the start time as HPCC's clock has it."""

    line: int
    src: int
    dst: int
    pg: int
    dport: int
    size: int
    start_ns: int


class _File:
    """The non-blank lines of a text file, numbered from 1, split on whitespace, one at a time."""

    def __init__(self, path: str | Path, what: str) -> None:
        self.path = str(path)
        try:
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            raise ScenarioError(f"{what} file not found: {path}") from None
        except IsADirectoryError:
            raise ScenarioError(f"{what} file {path} is a directory, expected a text file") from None
        except OSError as e:
            raise ScenarioError(f"cannot read {what} file {path}: {e.strerror}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ScenarioError(f"{what} file {path}: not text (byte {e.start})") from None
        # A StringIO splits on "\n" only (str.splitlines would also split on form feeds and the
        # like), and only as it is read; the "\r" of CRLF files (HPCC's own mix/topology.txt is
        # one) is whitespace to str.split.
        self._lines = enumerate(io.StringIO(text, newline="\n"), 1)
        #: The number of the last line read (the file's last line once `next` returned None).
        self.last = 0

    def next(self) -> tuple[int, list[str]] | None:
        """The next non-blank line and its fields, or None at the end of the file."""
        for n, line in self._lines:
            self.last = n
            tokens = [t for t in _SPACE.split(line) if t]
            if tokens:
                return n, tokens
        return None

    def error(self, line: int, field: str, expected: str, got: object, *, quote: bool = True) -> ScenarioError:
        """The one-line error: file, line, field, what was expected, what the file holds (a
        value as written, quoted; `quote=False` for a description)."""
        shown = f'"{got}"' if isinstance(got, str) and quote else str(got)
        if isinstance(got, str):
            shown += _non_ascii(got)
        return ScenarioError(f"{self.path} line {line}: field `{field}`: expected {expected}, got {shown}")

    def fields(self, line: int, tokens: list[str], names: tuple[str, ...], what: str) -> None:
        """Checks that a line holds exactly the named fields."""
        if len(tokens) != len(names):
            raise ScenarioError(
                f"{self.path} line {line}: {what}: expected {len(names)} fields `{' '.join(names)}`, "
                f'got {len(tokens)}: "{" ".join(tokens)}"{_non_ascii("".join(tokens))}'
            )

    def uint(self, line: int, field: str, token: str, lo: int, hi: int, what: str) -> int:
        """A whole number in [lo, hi]."""
        expected = f"{what}, a whole number from {lo} to {hi}"
        if not _UINT.fullmatch(token):
            raise self.error(line, field, expected, token)
        value = int(token)
        if not lo <= value <= hi:
            raise self.error(line, field, expected, token)
        return value

    def finish(self, extra_lines: str, declared: str) -> None:
        """The lines after the declared items: an error, or ignored as HPCC ignores them."""
        rest = self.next()
        if rest is not None and extra_lines == "error":
            line, tokens = rest
            raise ScenarioError(
                f"{self.path} line {line}: expected the end of the file after {declared}, got "
                f'"{" ".join(tokens)}" (HPCC\'s simulator ignores what follows the declared count; '
                f'extra_lines="ignore" or --ignore-extra-lines does the same)'
            )


def _non_ascii(text: str) -> str:
    """What an error adds about a value with non-ASCII characters (an Arabic-Indic or fullwidth
    digit, a no-break space: alike or invisible in a message), empty for ASCII text."""
    if text.isascii():
        return ""
    codes = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(c for c in text if not c.isascii()))
    return f" (non-ASCII characters {codes}: HPCC's simulator reads ASCII digits and spaces only)"


def _check_extra_lines(extra_lines: str) -> None:
    if extra_lines not in EXTRA_LINES:
        raise ScenarioError(f'extra_lines: expected "error" or "ignore", got {extra_lines!r}')


# --- ns-3's arithmetic ----------------------------------------------------------------------

_ONE = 1 << 64
_LOW = _ONE - 1


def _fixed(value: float) -> int:
    """ns-3's 64.64 fixed-point value of a double (its 128-bit `int64x64_t(double)`): the whole
    part, plus the fraction times 2^64 truncated to an integer. Not rounded: 0.0001 is a hair
    below 0.0001 in it."""
    whole = math.floor(value)
    return (int(whole) << 64) + int((value - whole) * float(_ONE))


def _inverse(factor: int) -> int:
    """ns-3's `int64x64_t::Invert(factor)`: 2^128 / factor truncated, plus one if that product
    falls short of 1.0 in its own multiplication."""
    inverse = (_ONE << 64) // factor
    if _times_inverse(factor << 64, inverse) >> 64 != 1:
        inverse += 1
    return inverse


def _times_inverse(a: int, b: int) -> int:
    """ns-3's `UmulByInvert`: the product of two 64.64 values where b is stored times 2^64,
    without the product of their low halves."""
    ah, al, bh, bl = a >> 64, a & _LOW, b >> 64, b & _LOW
    return ah * bh + ((ah * bl + al * bh) >> 64)


def ns3_time_ns(value: float, power: int) -> int:
    """Whole nanoseconds (ns-3's default resolution) of `value` x 10^power seconds, as ns-3's
    `Time::FromDouble` computes them: the double in 64.64 fixed point, multiplied by the whole
    factor to nanoseconds (or by its fixed-point inverse below a nanosecond), truncated."""
    shift = power + 9
    if shift >= 0:
        return (_fixed(value) * 10**shift) >> 64
    return _times_inverse(_fixed(value), _inverse(10**-shift)) >> 64


def node_ip(node: int) -> int:
    """HPCC's IPv4 address of node id `node` (third.cc, `node_id_to_ip`): 11.x.y.1 with x.y the id
    in two bytes, 0x0b000001 + (id / 256) x 0x10000 + (id % 256) x 0x100."""
    return (0x0B000001 + (node // 256) * 0x00010000 + (node % 256) * 0x00000100) & 0xFFFFFFFF


def standalone_fct_ns(
    size: int, rates_bps: list[int], delays_ns: list[int], payload: int = PAYLOAD, header: int = HEADER
) -> int:
    """HPCC's `standalone_fct` of a flow of `size` bytes over a path whose links have these rates
    and one-way delays (third.cc, `qp_finish` with the pair tables of `CalculateRoute`), in ns:

        base_rtt = 2 x sum(delays) + sum over the links of floor(payload x 8e9 / rate)
        total_bytes = size + ceil(size / payload) x header
        standalone_fct = base_rtt + floor(total_bytes x 8e9 / min(rates))
    """
    if not rates_bps or len(rates_bps) != len(delays_ns):
        raise ValueError("standalone_fct_ns: expected one rate and one delay per link of a non-empty path")
    base_rtt = 2 * sum(delays_ns) + sum(payload * 8_000_000_000 // r for r in rates_bps)
    total_bytes = size + ((size - 1) // payload + 1) * header
    return base_rtt + total_bytes * 8_000_000_000 // min(rates_bps)


#: What a rate string is, for error messages.
RATE_EXPECTED = (
    f'a rate > 0 like "100Gbps": a number, then one of ns-3\'s units {", ".join(_RATE_UNITS)} (none: whole bit/s)'
)


def ns3_rate_bps(token: str) -> int | None:
    """ns-3's `DataRate` of a string in whole bit/s (the number times its unit's factors, in
    double precision, truncated), or None when ns-3 would not parse it."""
    m = _RATE.fullmatch(token)
    if m is None:
        return None
    number, unit = m.groups()
    if unit == "":
        return int(number) if _UINT.fullmatch(number) else None
    if unit not in _RATE_UNITS:
        return None
    product = float(number)
    for factor in _RATE_UNITS[unit]:
        product *= factor
    return int(product)


def _rate_bps(f: _File, line: int, token: str) -> int:
    bps = ns3_rate_bps(token)
    if bps is None:
        raise f.error(line, "rate", RATE_EXPECTED, token)
    if bps < 1:
        raise f.error(line, "rate", "a rate of at least 1 bit/s once truncated to whole bit/s, as ns-3 does", token)
    if bps > MAX_RATE_BPS:
        raise f.error(line, "rate", "a rate up to 1e15 bit/s (fctlab's largest)", token)
    return bps


def _delay_ns(f: _File, line: int, token: str) -> int:
    expected = f'a delay >= 0 like "0.001ms": a number, then one of ns-3\'s units {", ".join(_TIME_POWERS)} (none: s)'
    m = _DELAY.fullmatch(token)
    if m is None or m.group(2) not in ("", *_TIME_POWERS):
        raise f.error(line, "delay", expected, token)
    number, unit = m.groups()
    ns = ns3_time_ns(float(number), _TIME_POWERS.get(unit, 0))
    if ns > MAX_TIME_NS:
        raise f.error(line, "delay", "a delay up to 1e6 s (fctlab's longest)", token)
    return ns


# --- the topology file ----------------------------------------------------------------------


def parse_topology(path: str | Path, *, extra_lines: str = "error") -> Topology:
    """Reads and checks a topology file:

    node_num switch_num link_num
    switch ids (switch_num of them, on one line; no line when switch_num is 0)
    src dst rate delay error_rate      (link_num lines)
    """
    _check_extra_lines(extra_lines)
    f = _File(path, "topology")
    head = f.next()
    if head is None:
        raise ScenarioError(f"{f.path}: expected a first line `node_num switch_num link_num`, got an empty file")
    hline, tokens = head
    f.fields(hline, tokens, ("node_num", "switch_num", "link_num"), "the header")
    nodes = f.uint(hline, "node_num", tokens[0], 1, MAX_NODES, "the number of nodes")
    switch_num = f.uint(hline, "switch_num", tokens[1], 0, nodes, f"the number of switches, at most node_num ({nodes})")
    link_num = f.uint(hline, "link_num", tokens[2], 0, 2**32 - 1, "the number of links")

    switches: dict[int, int] = {}
    if switch_num:
        got = f.next()
        if got is None:
            raise f.error(
                hline,
                "switch_num",
                f"a line of {switch_num} switch ids after line {hline}",
                "the end of the file",
                quote=False,
            )
        sline, ids = got
        if len(ids) != switch_num:
            raise f.error(
                sline, "switch ids", f"{switch_num} switch ids on one line (switch_num on line {hline})", " ".join(ids)
            )
        for i, token in enumerate(ids):
            sid = f.uint(sline, f"switch ids[{i}]", token, 0, nodes - 1, f"a node id below node_num ({nodes})")
            if sid in switches:
                raise f.error(
                    sline, f"switch ids[{i}]", f"each switch listed once (also switch ids[{switches[sid]}])", sid
                )
            switches[sid] = i

    names = ("src", "dst", "rate", "delay", "error_rate")
    links: list[Link] = []
    seen: dict[frozenset[int], int] = {}
    for k in range(link_num):
        got = f.next()
        if got is None:
            raise f.error(
                hline,
                "link_num",
                f"{link_num} link lines as declared",
                f"{k} (the file ends at line {f.last})",
                quote=False,
            )
        line, tokens = got
        f.fields(line, tokens, names, "a link")
        ends = []
        for field, token in zip(("src", "dst"), tokens[:2]):
            if not _UINT.fullmatch(token):
                raise f.error(line, field, f"a node id, a whole number from 0 to {nodes - 1}", token)
            node = int(token)
            if node >= nodes:
                raise f.error(
                    line, field, f"a known node: node_num on line {hline} is {nodes}, so ids 0 to {nodes - 1}", token
                )
            ends.append(node)
        src, dst = ends
        if src == dst:
            raise f.error(line, "dst", f"a node other than src ({src}): a link joins two nodes", tokens[1])
        pair = frozenset(ends)
        if pair in seen:
            raise f.error(
                line,
                "dst",
                f"one link per node pair (line {seen[pair]} already joins {src} and {dst}; HPCC's simulator keeps "
                f"one interface per neighbour)",
                tokens[1],
            )
        seen[pair] = line
        rate = _rate_bps(f, line, tokens[2])
        delay = _delay_ns(f, line, tokens[3])
        if not _REAL.fullmatch(tokens[4]) or not 0 <= float(tokens[4]) < 1:
            raise f.error(line, "error_rate", "a packet loss probability in [0, 1)", tokens[4])
        links.append(Link(line, src, dst, rate, delay, float(tokens[4])))
    f.finish(extra_lines, f"the {link_num} links declared on line {hline}")

    linked = {n for link in links for n in (link.src, link.dst)}
    for node in range(nodes):
        if node not in switches and node not in linked:
            raise f.error(
                hline,
                "node_num",
                "every host (a node not in the switch ids) on some link",
                f"host {node} on none",
                quote=False,
            )
    return Topology(f.path, nodes, frozenset(switches), tuple(links))


def _rate_text(bps: int) -> str:
    for unit, scale in (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("Kbps", 10**3)):
        if bps % scale == 0:
            return f"{bps // scale}{unit}"
    return f"{bps}bps"


def _time_text(ns: int) -> str:
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns and ns % scale == 0:
            return f"{ns // scale}{unit}"
    return f"{ns}ns"


def _node(i: int) -> str:
    return f"n{i}"


def topology_table(topo: Topology) -> dict[str, Any]:
    """The `[topology]` table of a parsed topology file."""
    return {
        "kind": "graph",
        "nodes": [{"name": _node(i), "kind": "host" if topo.is_host(i) else "router"} for i in range(topo.nodes)],
        "links": [
            {"a": _node(k.src), "b": _node(k.dst), "rate": _rate_text(k.rate_bps), "delay": _time_text(k.delay_ns)}
            for k in topo.links
        ],
    }


def read_topology(path: str | Path, *, extra_lines: str = "error") -> dict[str, Any]:
    """An HPCC topology file as an fctlab `[topology]` table of `kind = "graph"`: node i is `n<i>`,
    a router if it is in the switch list, else a host; each link line a duplex link (named
    `n<src>->n<dst>` and back) at its rate and delay, converted to whole bit/s and whole ns as
    HPCC's simulator converts them. Links' error rates are not part of a topology: `scenario`
    turns them into `[[loss]]` entries."""
    return topology_table(parse_topology(path, extra_lines=extra_lines))


# --- the flow file --------------------------------------------------------------------------


def _topology_of(topology: Topology | Mapping[str, Any] | None) -> tuple[int, frozenset[int]] | None:
    """(node count, switch ids) of a parsed topology or of a table `read_topology` made."""
    if topology is None:
        return None
    if isinstance(topology, Topology):
        return topology.nodes, topology.switches
    nodes = topology.get("nodes") if isinstance(topology, Mapping) else None
    if not isinstance(nodes, list) or topology.get("kind") != "graph":
        raise ScenarioError(
            'topology: expected the table read_topology returns (kind = "graph" with nodes n0, n1, ...)'
        )
    switches = set()
    for i, node in enumerate(nodes):
        if not isinstance(node, Mapping) or node.get("name") != _node(i):
            raise ScenarioError(
                f'topology: nodes[{i}]: expected node "{_node(i)}" (read_topology\'s naming), got {node!r}'
            )
        if node.get("kind") == "router":
            switches.add(i)
    return len(nodes), frozenset(switches)


def parse_flows(
    path: str | Path, topology: Topology | Mapping[str, Any] | None = None, *, extra_lines: str = "error"
) -> list[Flow]:
    """Reads and checks a flow file:

        flow_num
        src dst pg dport size start_time   (flow_num lines; size in bytes, start_time in seconds)

    With a topology, each end must be a host of it."""
    _check_extra_lines(extra_lines)
    known = _topology_of(topology)
    f = _File(path, "flow")
    head = f.next()
    if head is None:
        raise ScenarioError(f"{f.path}: expected a first line `flow_num`, got an empty file")
    hline, tokens = head
    f.fields(hline, tokens, ("flow_num",), "the header")
    flow_num = f.uint(hline, "flow_num", tokens[0], 0, 2**32 - 1, "the number of flows")

    names = ("src", "dst", "pg", "dport", "size", "start_time")
    flows: list[Flow] = []
    for k in range(flow_num):
        got = f.next()
        if got is None:
            raise f.error(
                hline,
                "flow_num",
                f"{flow_num} flow lines as declared",
                f"{k} (the file ends at line {f.last})",
                quote=False,
            )
        line, tokens = got
        f.fields(line, tokens, names, "a flow")
        ends = []
        for field, token in zip(("src", "dst"), tokens[:2]):
            if known is None:
                node = f.uint(line, field, token, 0, MAX_NODES - 1, "a node id")
            else:
                nodes, switches = known
                if not _UINT.fullmatch(token):
                    raise f.error(line, field, f"a host's node id, a whole number from 0 to {nodes - 1}", token)
                node = int(token)
                if node >= nodes:
                    raise f.error(line, field, f"a node of the topology, which has ids 0 to {nodes - 1}", token)
                if node in switches:
                    raise f.error(line, field, "a host: flows run between hosts, and this node is a switch", token)
            ends.append(node)
        if ends[0] == ends[1]:
            raise f.error(line, "dst", f"a host other than src ({ends[0]})", tokens[1])
        pg = f.uint(line, "pg", tokens[2], 0, PRIORITY_GROUPS - 1, "a priority group (HPCC's switches have 8)")
        dport = f.uint(line, "dport", tokens[3], 0, 65535, "a destination port")
        size = f.uint(line, "size", tokens[4], 1, MAX_FLOW_SIZE, "a flow size in bytes (HPCC reads it into 32 bits)")
        if not _REAL.fullmatch(tokens[5]):
            raise f.error(line, "start_time", "a start time in seconds >= 0, like 2.000001", tokens[5])
        start_ns = ns3_time_ns(float(tokens[5]), 0)
        if start_ns > MAX_TIME_NS:
            raise f.error(line, "start_time", "a start time up to 1e6 s (fctlab's longest)", tokens[5])
        if flows and start_ns < flows[-1].start_ns:
            raise f.error(
                line,
                "start_time",
                f"a time no earlier than the previous flow's ({flows[-1].start_ns} ns, line {flows[-1].line}): "
                f"HPCC's simulator starts the flows in file order",
                tokens[5],
            )
        flows.append(Flow(line, ends[0], ends[1], pg, dport, size, start_ns))
    f.finish(extra_lines, f"the {flow_num} flows declared on line {hline}")
    return flows


def pg_transport(pg: int) -> str:
    """The named transport of the flows of priority group `pg` other than the file's first."""
    return f"pg{pg}"


def workload_entries(flows: list[Flow]) -> list[dict[str, Any]]:
    """The scenario's `workload` list for parsed flows: one entry of `kind = "flows"` per run of
    consecutive flows of one priority group, in file order (so the flows keep their order, ties in
    start time included). The first flow's group is `[transport]`'s `priority` (`scenario_of`);
    an entry of another group names the transport `pg<k>`, whose priority is k."""
    entries: list[dict[str, Any]] = []
    first = flows[0].pg if flows else 0
    last = None
    for x in flows:
        if x.pg != last:
            entries.append({"kind": "flows", "flows": []})
            if x.pg != first:
                entries[-1]["transport"] = pg_transport(x.pg)
            last = x.pg
        entries[-1]["flows"].append(
            {"src": _node(x.src), "dst": _node(x.dst), "start": f"{x.start_ns}ns", "size": x.size}
        )
    return entries


def read_flows(
    path: str | Path, topology: Topology | Mapping[str, Any] | None = None, *, extra_lines: str = "error"
) -> list[dict[str, Any]]:
    """An HPCC flow file as the scenario's `workload` list: one entry `{"kind": "flows", "flows":
    [...]}` with flow i of the file as its i-th flow, from host `n<src>` to `n<dst>`, starting at
    the file's start time in whole ns as HPCC's clock has it. The file's start times are non-decreasing
    (HPCC's simulator needs that too), so fctlab's flow id i (the position in start order,
    ties in list order) is flow i of the file. Flows of a priority group other than the first
    flow's name the transport `pg<k>` (`scenario_of` defines it); `dport` has no place in a
    workload: `write_fct` reads it from the file again. Give `topology` (what `read_topology`
    returned) to have both ends checked as hosts."""
    return workload_entries(parse_flows(path, topology, extra_lines=extra_lines))


# --- the scenario ---------------------------------------------------------------------------


def scenario(
    topology_path: str | Path,
    flow_path: str | Path,
    *,
    transport: Mapping[str, Any] | None = None,
    seed: int = 1,
    extra_lines: str = "error",
) -> dict[str, Any]:
    """A runnable fctlab scenario from an HPCC topology file and flow file.

    ECMP routing on (HPCC's switches spread flows over equal-cost next hops), a `duration` 1 ns
    past the last start (so every flow is measured), draining on (the run goes on until every
    flow completes). The transport is `[transport]` with HPCC's packet sizes, `mss = 1000` and
    `header = 48`, under the fields of `transport` (e.g. `{"cc": "dctcp"}`, which also wants
    marking queues: set `queues` on the returned dict). A link's non-zero error rate becomes
    random loss with that probability on both of its directions.
    """
    if transport is not None and not isinstance(transport, Mapping):
        raise ScenarioError(f"transport: expected a table of transport fields, got {type(transport).__name__}")
    topo = parse_topology(topology_path, extra_lines=extra_lines)
    flows = parse_flows(flow_path, topo, extra_lines=extra_lines)
    return scenario_of(topo, flows, topology_path, flow_path, transport=transport, seed=seed)


def scenario_of(
    topo: Topology,
    flows: list[Flow],
    topology_path: str | Path,
    flow_path: str | Path,
    *,
    transport: Mapping[str, Any] | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """`scenario` of files already parsed (`parse_topology`, `parse_flows`)."""
    if not flows:
        raise ScenarioError(f"{flow_path} line 1: field `flow_num`: expected at least one flow to run, got 0")
    spec: dict[str, Any] = {
        "name": f"hpcc {Path(topology_path).name} {Path(flow_path).name}",
        "description": f"HPCC ns-3 files: topology {topology_path}, flows {flow_path}",
        "seed": seed,
        "duration": f"{flows[-1].start_ns + 1}ns",
        "drain": True,
        "routing": {"ecmp": True},
        "topology": topology_table(topo),
        "transport": {"mss": PAYLOAD, "header": HEADER, "priority": flows[0].pg, **dict(transport or {})},
        "workload": workload_entries(flows),
    }
    # A flow's priority group is its traffic class in a fabric (its switches' queue, which PFC
    # pauses on its own): the first flow's is `[transport]`'s, the others' their own transport's.
    groups = sorted({x.pg for x in flows} - {flows[0].pg})
    if groups:
        spec["transports"] = {pg_transport(g): {"priority": g} for g in groups}
    loss = [
        {"link": f"{_node(a)}->{_node(b)}", "p": k.error_rate}
        for k in topo.links
        if k.error_rate > 0
        for a, b in ((k.src, k.dst), (k.dst, k.src))
    ]
    if loss:
        spec["loss"] = loss
    return spec


# --- fct.txt ---------------------------------------------------------------------------------

#: Where `write_fct` ends a flow: at the sender's last ACK (as HPCC) or at the receiver.
COMPLETIONS = ("sender", "receiver")


def _node_id(name: str) -> int:
    if not re.fullmatch(r"n\d+", name, re.ASCII):
        raise ScenarioError(
            f'write_fct: host "{name}" is not named n<id>; expected a run of a scenario made from HPCC files '
            f"(fctlab.tools.hpcc_files.scenario), whose hosts are n0, n1, ..."
        )
    return int(name[1:])


def _packet_sizes(result: Any, payload: int | None, header: int | None) -> tuple[int, int]:
    """The run's payload and header bytes per packet: as given, else its `[transport]`'s."""
    from fctlab.quantity import parse_bytes

    spec = result.scenario
    if payload is None or header is None:
        # Transports that differ from `[transport]` only in priority (a flow file's priority
        # groups) send the same packets.
        named = spec.get("transports") or {}
        only_priority = isinstance(named, Mapping) and all(
            isinstance(t, Mapping) and set(t) <= {"priority"} for t in named.values()
        )
        several = not only_priority or "host_transport" in spec
        several = several or any(
            "mix" in w or ("transport" in w and w["transport"] not in named)
            for w in spec.get("workload", [])
            if isinstance(w, Mapping)
        )
        if several:
            raise ScenarioError(
                "write_fct: the run's flows may use several transports (`transports`, `host_transport`, a workload's "
                "`transport` or `mix`); expected payload= and header= to say which packet sizes the formula uses"
            )
    transport = spec.get("transport") or {}
    # fctlab's defaults (crates/fctlab-core/src/transport/tcp/config.rs). With protocol = "hpcc"
    # `header` leaves out the INT header (added to it on the wire), as HPCC's H does.
    if payload is None:
        payload = parse_bytes(transport.get("mss", 1460), "transport.mss")
    if header is None:
        header = parse_bytes(transport.get("header", 40), "transport.header")
    if payload < 1 or header < 0:
        raise ScenarioError(f"write_fct: expected payload >= 1 and header >= 0 bytes, got {payload} and {header}")
    return payload, header


def fct_lines(
    result: Any,
    flow_file: str | Path | None = None,
    *,
    payload: int | None = None,
    header: int | None = None,
    standalone: str = "hpcc",
    completion: str = "sender",
) -> list[str]:
    """The lines `write_fct` writes (without their newlines), in the order it writes them."""
    if standalone not in ("hpcc", "fctlab"):
        raise ScenarioError(f'write_fct: standalone: expected "hpcc" or "fctlab", got {standalone!r}')
    if completion not in COMPLETIONS:
        raise ScenarioError(f"write_fct: completion: expected one of {', '.join(COMPLETIONS)}, got {completion!r}")
    payload, header = _packet_sizes(result, payload, header)
    flows = result.flows.sort("id")
    ids = flows["id"].to_list()
    if ids != list(range(len(ids))):
        raise ScenarioError("write_fct: expected the flows table of a whole run (ids 0, 1, ... in order)")
    srcs = [_node_id(s) for s in flows["src"].to_list()]
    dsts = [_node_id(d) for d in flows["dst"].to_list()]
    sizes = flows["size_bytes"].to_list()
    starts = [round(s * 1e9) for s in flows["start_s"].to_list()]

    dports = [100] * len(ids)
    if flow_file is not None:
        file_flows = parse_flows(flow_file, extra_lines="ignore")
        if len(file_flows) != len(ids):
            raise ScenarioError(
                f"{flow_file}: field `flow_num`: expected the run's {len(ids)} flows, got {len(file_flows)}; "
                f"expected the flow file the run was made from"
            )
        for i, x in enumerate(file_flows):
            run = (srcs[i], dsts[i], sizes[i], starts[i])
            if (x.src, x.dst, x.size, x.start_ns) != run:
                raise ScenarioError(
                    f"{flow_file} line {x.line}: flow {i} is {x.src} -> {x.dst}, {x.size} B at {x.start_ns} ns, "
                    f"but the run's flow {i} is {run[0]} -> {run[1]}, {run[2]} B at {run[3]} ns; expected the flow "
                    f"file the run was made from"
                )
        dports = [x.dport for x in file_flows]

    links = result.links
    rate = dict(zip(links["id"].to_list(), links["rate_bps"].to_list()))
    delay = dict(zip(links["id"].to_list(), (round(d * 1e9) for d in links["delay_s"].to_list())))

    # Source ports: per (source, destination) pair from 10000 up, in start order, 16 bits.
    next_port: dict[tuple[int, int], int] = {}
    rows = []
    if completion == "sender":
        if flows["acked_s"].null_count() == len(flows) and flows["fct_s"].null_count() < len(flows):
            raise ScenarioError(
                'write_fct: completion "sender": the run recorded no sender completion (acked_s), though flows '
                'completed (an emulated run records none); expected completion="receiver" (--completion receiver)'
            )
        end = flows["acked_s"].to_list()
        fcts = [None if a is None else a - s for a, s in zip(end, flows["start_s"].to_list())]
    else:
        end, fcts = flows["finish_s"].to_list(), flows["fct_s"].to_list()
    for i, path, finish, fct, ideal in zip(ids, flows["path"].to_list(), end, fcts, flows["ideal_fct_s"].to_list()):
        pair = (srcs[i], dsts[i])
        sport = next_port.get(pair, FIRST_PORT)
        next_port[pair] = (sport + 1) % 65536
        if fct is None or sizes[i] < 0:
            continue  # HPCC writes a flow when it completes; long-lived flows never do
        if standalone == "hpcc":
            alone = standalone_fct_ns(sizes[i], [rate[k] for k in path], [delay[k] for k in path], payload, header)
        else:
            alone = round(ideal * 1e9)
        line = (
            f"{node_ip(srcs[i]):08x} {node_ip(dsts[i]):08x} {sport} {dports[i]} {sizes[i]} "
            f"{starts[i]} {round(fct * 1e9)} {alone}"
        )
        rows.append((finish, i, line))
    rows.sort()  # HPCC writes each line as its flow completes: by finish time (then flow id)
    return [line for _, _, line in rows]


def write_fct(
    result: Any,
    path: str | Path,
    flow_file: str | Path | None = None,
    *,
    payload: int | None = None,
    header: int | None = None,
    standalone: str = "hpcc",
    completion: str = "sender",
) -> int:
    """Writes a finished run's completed flows as HPCC's `fct.txt` and returns how many lines:

        sip dip sport dport size start_time fct standalone_fct

    sip and dip as HPCC's 8-digit hex addresses of the end nodes, sport from 10000 up per
    (source, destination) pair in start order, size in bytes, the three times in whole ns:
    start_time, fct and standalone_fct (HPCC's formula on the flow's path,
    `standalone_fct_ns`; `standalone="fctlab"` writes fctlab's ideal FCT instead). Lines come in
    completion order, as HPCC writes them; flows that did not complete are left out, as HPCC
    leaves them out.

    `flow_file` is the HPCC flow file the run was made from: its `dport` column is written, and
    its flows are checked against the run's. Without it every dport is 100 (what HPCC's
    fct_analysis.py takes as an ordinary flow). `payload` and `header` (bytes per packet in the
    formula) default to the run's `transport.mss` and `transport.header`.

    `completion` says where a flow ends. "sender" (the default): when its sender had every byte
    acknowledged (the flows table's `acked_s`), where HPCC's simulator ends a flow (the last
    ACK's arrival at the sending NIC); "receiver": when the receiver held every byte, fctlab's
    `fct_s`, about half a round trip sooner.
    """
    from fctlab.atomic import write_text

    lines = fct_lines(result, flow_file, payload=payload, header=header, standalone=standalone, completion=completion)
    write_text(Path(path), "".join(f"{line}\n" for line in lines))
    return len(lines)
