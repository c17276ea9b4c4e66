"""fctlab: a deterministic packet-level simulator for flow-completion-time (FCT) studies.

The simulation runs in the compiled core (`fctlab._core`, Rust via PyO3); this package is the
front end around it. Module map:

| module | what it holds |
|---|---|
| `_core` | the compiled core: `Simulation`, the tables, `PROTOCOLS` (the protocol registry), `KernelLink` |
| `scenario` | read TOML/JSON scenarios, dotted overrides (`workload.0.load`), resolve sugar |
| `topology` | topohub backbones (Topology Zoo, SNDlib, ...) turned into the core's `graph` spec |
| `quantity` | `"40ms"`, `"10Gbps"`, `"5MB"` read on the Python side |
| `run` | `run()`: build the core Simulation, step it, collect a Result; `run_to()`: write it as it goes |
| `stream` | the flows table streamed to Parquet while the run goes (`run_to`, `fctlab run -o`) |
| `emulate` | `emulate()`: a scenario run for real, over UDP sockets in real time (namespaces or loopback) |
| `result` | `Result` (flows/links/series DataFrames, meta, scenario), `load()`, Parquet I/O |
| `analysis` | `summarize()` one run, `compare()` two (the RC3 paper's FCT reduction), `ecdf()`, `slowdown_by_bin()` |
| `reference` | fluid references of a run's flows: max-min (`ps_fct`), greedy SRPT (`srpt_fct`); M/G/1-PS |
| `hpcc_files` | HPCC's ns-3 topology and flow files read as a scenario, a run written as its `fct.txt` |
| `sweep` | parameter grids and named runs over seeds, in parallel processes, restartable |
| `cluster` | sweeps on a Dask cluster (`fctlab sweep --cluster`, `run_sweep(client=)`) |
| `report` | plain-text tables for the terminal |
| `html` | self-contained interactive HTML reports (`fctlab report`, `fctlab pages`, `Result._repr_html_`) |
| `cli` | the `fctlab` command |
| `errors` | `ScenarioError`: everything a user must fix (the one class to catch); `PluginError`, `StallError` |
| `values` | Python values in scenarios: numpy scalars accepted, the rest refused by field |
| `atomic` | result files written whole or not at all |
| `procs` | sweep workers that die with their parent and stop at once on Ctrl-C / SIGTERM |
| `plugins` | protocol plug-ins: Python classes loaded, Rust crates built, the examples' equivalence |
| `check` | the conformance kit (`fctlab check`): small scenarios any protocol, built-in or plug-in, runs |
| `bench` | the speed benchmark (`fctlab bench`) and its history |
| `reproduce` | what the papers' experiments (folders of `experiments/`) share: runs, reports, checks, the index |

    >>> import fctlab
    >>> r = fctlab.run("scenario.toml", seed=1, overrides={"workload.0.load": 0.5})
    >>> r.summary["mean_fct_s"]; r.write("out/")
"""

from importlib.metadata import PackageNotFoundError, version

from fctlab import reference
from fctlab.analysis import compare, summarize
from fctlab.errors import ScenarioError
from fctlab.result import Result, load
from fctlab.run import run, run_to

try:
    __version__ = version("fctlab")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0+unknown"

__all__ = ["run", "run_to", "load", "Result", "compare", "summarize", "ScenarioError", "reference", "__version__"]
