"""Type stub of the compiled core (crates/fctlab-py): the contract the Python layer relies on."""

from typing import Any

def ps_fct(capacities: list[float], starts: list[float], bits: list[float], paths: list[list[int]]) -> list[float]:
    """Fluid max-min completion times (s) of flows i = (starts[i], bits[i], paths[i] link ids)
    on links of the given capacities (bit/s); GIL released; ValueError naming `flows[i]...`."""

def local_fct(
    capacities: list[float], starts: list[float], bits: list[float], paths: list[list[int]]
) -> tuple[list[float], dict[str, int]]:
    """`ps_fct`'s completion times by local fills (only the flows an event reaches are
    water-filled again), and what that took: {"events", "fills", "filled_flows"}; GIL released."""

def srpt_fct(capacities: list[float], starts: list[float], bits: list[float], paths: list[list[int]]) -> list[float]:
    """Fluid completion times (s) under greedy SRPT (pFabric's "Ideal" on any topology) of flows
    i = (starts[i], bits[i], paths[i] link ids) on links of the given capacities (bit/s); GIL
    released; ValueError naming `flows[i]...`."""

def router_cost(law: str, packets: int) -> float:
    """Wall-clock ns per packet (enqueue + dequeue + the control ticks due) through a 1 Gb/s port
    run by `law`, one of `ROUTER_LAWS`; GIL released; ValueError naming the field."""

#: The protocol registry (crates/fctlab-core/src/protocol/mod.rs): one dict per protocol with its
#: name, title, host_key (the scenario key naming it), queue (its router's queue kind or None),
#: header_bytes (its congestion header on top of TCP/IP's), metrics (its router's series metrics)
#: and folder.
PROTOCOLS: list[dict[str, Any]]
#: The ports `router_cost` times: "droptail" (the baseline) and the explicit router laws.
ROUTER_LAWS: list[str]
#: The most partitions a run may be cut into (`parallel.partitions`), and so the most threads.
MAX_PARTITIONS: int

#: The result columns of every table: {table: [(name, dtype, nullable), ...]}.
COLUMNS: dict[str, list[tuple[str, str, bool]]]

#: The Rust plug-in API version this core loads (`crates/fctlab-plugin`).
PLUGIN_API_VERSION: int
#: The files of the API crate this core was built against: {path in the crate: text}
#: (`fctlab plugin new` copies them beside a plug-in when no checkout holds the crate).
PLUGIN_API_SOURCES: dict[str, str]

def decode_header(tag: int, words: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """A congestion header as fctlab reads it off the wire: (tag, w0, w1, w2) if accepted;
    ValueError naming the field it refuses."""

class ScenarioError(ValueError):
    """A scenario the core refuses; the message names the field, the value and what was expected."""

class PluginError(RuntimeError):
    """A plug-in failed during a run; the message names the plug-in, the hook, the flow and the
    simulated time."""

class Window:
    """The window a Python host law changes: cwnd, ssthresh (bytes, settable), mss, abc."""

    cwnd: int
    ssthresh: int
    mss: int
    abc: int
    def in_slow_start(self) -> bool: ...

class Connection:
    """A connection, given to a Python host law class: flow, mss, header, rwnd."""

    flow: int
    mss: int
    header: int
    rwnd: int

class Port:
    """A router port, given to a Python router law: router, link, capacity_bps."""

    router: int
    link: int
    capacity_bps: int

class Packet:
    """A packet at a port; `header` (tag, w0, w1, w2) and `prio` may be set on departure."""

    flow: int
    kind: str
    prio: int
    len: int
    wire: int
    seq: int
    ack: int
    header: tuple[int, int, int, int]

class ArrowTable:
    """A result table as Arrow arrays built in the core: `pl.DataFrame(table)` imports it without
    copying (the Arrow PyCapsule protocol). It can be imported once."""

    def __len__(self) -> int:
        """Rows."""
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        """(schema capsule, array capsule) of a struct array with one child per column."""

class Simulation:
    """A built simulation: validated scenario, topology, routes and flow arrivals."""

    now: float
    """Current simulated time (s)."""
    horizon: float
    """Expected end (s): the scenario duration; the run may go on to drain flows."""
    open_flows: int
    """Flows started and not yet complete (long-lived flows count until they stop)."""
    notices: list[str]
    """What the build found worth telling about the run that is not an error, one sentence each
    (e.g. equal-cost paths that single-path routing leaves unused); usually empty."""
    captures: bool
    """True if the scenario asks for a packet capture (`[output.pcap]`)."""
    stall: dict[str, Any] | None
    """Once the run is over, if it stalled (nothing could happen any more while flows were open):
    `time_s`, `message`, `open_flows` and `flows` (each open flow's sender state and `line`, one
    line on it); None otherwise."""
    parallel: dict[str, Any]
    """How the run is laid out: `partitions` and `threads` used, `partitions_asked`,
    `threads_asked` (None: the default), `cores`, and `notice` (one line saying what the run uses
    instead of what was asked, and why; None when it uses what was asked)."""

    def __init__(self, scenario_json: str, base_dir: str, threads: int | None = None) -> None:
        """Validates and builds; raises ScenarioError. Relative paths start at base_dir. `threads`
        runs a scenario cut into partitions (`parallel`) on that many threads (same results)."""
    def run_until(self, t: float) -> bool:
        """Advances to simulated time t (s) with the GIL released; True once finished. Raises
        PluginError if a plug-in failed. A partitioned run looks for signals while it runs and
        raises the handler's exception (KeyboardInterrupt for Ctrl-C), the run then over."""
    def start_capture(self, path: str) -> None:
        """Starts writing the scenario's packet capture (pcapng) to a new file at `path`, before
        the run; nothing without `[output.pcap]`. OSError if the file cannot be written."""
    def finish_capture(self) -> int:
        """Ends the capture, flushing its file; the packets written (0 without a capture). OSError
        for the first write that failed."""
    def flow_counters(self) -> dict[str, list[int]]:
        """What each flow's endpoints counted, by flow id: `data_pkts` (data packets sent,
        retransmissions included), `retx_pkts`, `sack_acks` (ACKs sent with SACK blocks)."""
    def take_flows(self) -> ArrowTable | None:
        """The rows of the flows table that became final since the last call, in id order (the
        flows that retired, with every flow before them; every row left once the run is over);
        None if there are none."""
    def results(self) -> dict[str, Any]:
        """{"flows": ArrowTable, "links": ArrowTable, "series": ArrowTable, "meta": {...},
        "notices": [str, ...]}; the flows table holds the rows `take_flows` has not handed over
        (all if never called)."""

class Emulation:
    """One process of an emulation (`fctlab.emulate`): the router (every link of the scenario) or
    one host (its endpoints), in real time over a UDP socket, with the GIL released."""

    def __init__(self, scenario_json: str, base_dir: str) -> None:
        """Validates and builds the scenario as Simulation does; raises ScenarioError."""
    def hosts(self) -> list[int]:
        """Node ids of the hosts that send or receive a flow, ascending."""
    def node_names(self) -> list[str]:
        """Node names by node id."""
    def flow_plan(self) -> list[tuple[float, int | None]]:
        """(start s, size bytes or None for long-lived) of every planned flow."""
    def limits(self) -> tuple[float, float]:
        """(arrival window end, hard stop), s."""
    def max_flow_rate(self) -> float:
        """The fastest rate a flow can reach (its path's slowest link), bit/s."""
    def kernel_stacks(self) -> list[tuple[str, str, int | None]]:
        """The kernel stacks (`stack = "linux"`) the flows use: (field, cc, iw or None)."""
    def bind(self, ip: str) -> int:
        """Binds this process's UDP socket to `ip` (any port), prints `ready PORT`; the port."""
    def run_router(self, scale: float, max_wall_s: float, kernel_links: list[KernelLink] = ...) -> str:
        """Runs the router until `stop` on standard input, its end, or the limit; its report (JSON).
        `kernel_links`: the hosts whose kernel TCP frames (`stack = "linux"`) it carries."""
    captures: bool
    """True if the scenario asks for a packet capture (`[output.pcap]`), which the router writes."""
    def start_capture(self, path: str) -> None:
        """Router: starts writing the capture of what its links deliver to `path`, before
        `run_router`."""
    def finish_capture(self) -> int:
        """Router: ends the capture (flushes its file); the packets written."""
    def run_host(self, node: int, router: str, scale: float, max_wall_s: float, peers: list[tuple[int, str]]) -> str:
        """Runs host `node` against the router at IP:PORT until stopped; its report (JSON)."""
    def absorb(self, report_json: str) -> None:
        """Folds a host's report into the flow records."""
    def results(self) -> dict[str, Any]:
        """The result tables, as Simulation.results."""

class KernelLink:
    """What the router process is told of a host whose kernel TCP (`stack = "linux"`) it carries,
    checked when made: ValueError (TypeError for a wrong type) naming `kernel_link.FIELD`, the
    value and what was expected."""

    node: int
    """Topology node id of the host."""
    ifname: str
    """The router end of its veth, e.g. "r3" (a Linux interface name: 1 to 15 bytes)."""
    host_ip: str
    """The host end's IPv4 address, e.g. "198.18.0.2"."""
    host_mac: str
    """The host end's MAC address, lower case, e.g. "02:00:00:00:00:03"."""

    def __init__(self, node: int, ifname: str, host_ip: str, host_mac: str | bytes) -> None:
        """`host_mac`: text "02:00:00:00:00:03" (either case) or 6 bytes."""
    @staticmethod
    def list_to_json(links: list[KernelLink]) -> str:
        """The JSON list of `links`: how the orchestrator hands them to the router process."""
    @staticmethod
    def list_from_json(text: str) -> list[KernelLink]:
        """The links of a JSON list from `list_to_json`, checked again; ValueError naming
        `kernel_links[i].FIELD`."""
