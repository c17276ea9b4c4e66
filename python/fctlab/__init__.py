"""fctlab: a deterministic packet-level simulator for flow-completion-time (FCT) studies.

The simulation runs in the compiled core (`fctlab._core`, Rust via PyO3); this package is the
front end around it, in four layers, each importing only from itself and the layers before it
(`tests/test_python_layers.py` holds the rule):

1. the API, the modules directly under `fctlab` (and `emulate`, `html`): build and run a
   scenario, read and analyse its results, render them. What a user's script or notebook calls,
   and what the core calls back (`plugins.load_class`);
2. `fctlab.tools`: the work of the commands around the API (sweeps and their clusters, the
   conformance kit, the benchmarks, plug-in crates, HPCC's files, terminal tables), each a user of
   the API (module map in `fctlab.tools`);
3. `fctlab.reproduce`: what the papers' experiments (`experiments/`) share, on top of sweeps;
4. `fctlab.cli`: the `fctlab` command, one module per subcommand.

Module map:

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
| `html` | self-contained interactive HTML reports (`fctlab report`, `fctlab pages`, `Result._repr_html_`) |
| `errors` | `ScenarioError`: everything a user must fix (the one class to catch); `PluginError`, `StallError` |
| `values` | Python values in scenarios: numpy scalars accepted, the rest refused by field |
| `atomic` | result files written whole or not at all |
| `scratch` | private temporary directories that a killed process cannot leave behind for good |
| `procs` | sweep workers that die with their parent and stop at once on Ctrl-C / SIGTERM |
| `plugins` | protocol plug-ins: a Python plug-in's class loaded (the core calls it) |
| `tools` | sweeps (`sweep`, `cluster`), `estimate`, `check`, `bench`, `router_cost`, plug-ins, `hpcc_*`, `report` |
| `tools.estimate` | `fctlab estimate`: fluid, links (`linksim`, `linkclusters`, `linksolo`, `linkbatch`), `correction`|
| `reproduce` | what the papers' experiments (folders of `experiments/`) share: runs, reports, checks, the index |
| `cli` | the `fctlab` command (`fctlab.cli.main`), one module per subcommand |

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
