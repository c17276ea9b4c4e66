"""The tools around the API: what the `fctlab` command's subcommands do beyond running and
reading a scenario. Each imports the API (`fctlab.run`, `fctlab.result`, ...) and other tools,
never the other way round (`tests/test_python_layers.py` holds the rule).

| module | what it holds |
|---|---|
| `sweep` | parameter grids and named runs over seeds, in parallel processes, restartable |
| `sweep_run` | one run of a sweep: its spec, outcome, `done.json` record and the build it ran on |
| `cluster` | sweeps on a Dask cluster (`fctlab sweep --cluster`, `run_sweep(client=)`) |
| `check` | the conformance kit (`fctlab check`): small scenarios any protocol, built-in or plug-in, runs |
| `bench` | the speed benchmark (`fctlab bench`) and its history |
| `router_cost` | the per-packet cost of each router law (`fctlab bench --routers`) |
| `plugins` | plug-in crates written and built, the example plug-ins' equivalence (`fctlab plugin`) |
| `hpcc_files` | HPCC's ns-3 topology and flow files read as a scenario, a run written as its `fct.txt` |
| `hpcc_config` | HPCC's ns-3 configuration file read as a scenario; keys fctlab does not model refused |
| `report` | plain-text tables for the terminal |
"""
