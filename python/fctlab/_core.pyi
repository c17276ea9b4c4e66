"""Type stub of the compiled core (crates/fctlab-py): the contract the Python layer relies on."""

from typing import Any

def ps_fct(capacities: list[float], starts: list[float], bits: list[float], paths: list[list[int]]) -> list[float]:
    """Fluid max-min completion times (s) of flows i = (starts[i], bits[i], paths[i] link ids)
    on links of the given capacities (bit/s); GIL released; ValueError naming `flows[i]...`."""

def router_cost(law: str, packets: int) -> float:
    """Wall-clock ns per packet (enqueue + dequeue + the control ticks due) through a 1 Gb/s port
    run by `law`, one of `ROUTER_LAWS`; GIL released; ValueError naming the field."""

#: The ports `router_cost` times: "droptail" (the baseline) and the explicit router laws.
ROUTER_LAWS: list[str]

#: The result columns of every table: {table: [(name, dtype, nullable), ...]}.
COLUMNS: dict[str, list[tuple[str, str, bool]]]

class ScenarioError(ValueError):
    """A scenario the core refuses; the message names the field, the value and what was expected."""

class Simulation:
    """A built simulation: validated scenario, topology, routes and flow arrivals."""

    now: float
    """Current simulated time (s)."""
    horizon: float
    """Expected end (s): the scenario duration; the run may go on to drain flows."""
    open_flows: int
    """Flows started and not yet complete (long-lived flows count until they stop)."""

    def __init__(self, scenario_json: str, base_dir: str) -> None:
        """Validates and builds; raises ScenarioError. Relative paths start at base_dir."""
    def run_until(self, t: float) -> bool:
        """Advances to simulated time t (s) with the GIL released; True once finished."""
    def results(self) -> dict[str, Any]:
        """{"flows": {col: list}, "links": {col: list}, "series": {col: list}, "meta": {...}}."""
