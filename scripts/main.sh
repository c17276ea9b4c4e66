#!/usr/bin/env bash
# The main job: build fctlab into .venv, run the RC3 paper's Internet-2 TCP baseline
# (examples/internet2-rc3.toml) and write its report. Later issues replace this with a paper
# reproduction.
#
# Writes results/internet2-rc3/ (the run's tables, see docs/results.md) and
# results/report.txt (its summary table), and prints the report.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_venv
install_package "."

SCENARIO="examples/internet2-rc3.toml"
OUT="results/internet2-rc3"
REPORT="results/report.txt"

cd "$ROOT"
say "running $SCENARIO (about 20 s of wall time)"
"$VENV/bin/fctlab" run "$SCENARIO" -o "$OUT" -q

{
    echo "fctlab $("$PY" -c 'import fctlab; print(fctlab.__version__)'): $SCENARIO"
    "$PY" - "$OUT" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
meta = json.loads((out / "meta.json").read_text())
scenario = json.loads((out / "scenario.json").read_text())
print(f"scenario {scenario.get('name', '?')}, seed {meta['seed']}: {meta['sim_time_s']:.3f} simulated s "
      f"in {meta['wall_s']:.1f} wall s, {meta['packet_hops']:,} packet-hops")
print(f"results: {out}/ (tables described in docs/results.md)")
PY
    echo
    "$VENV/bin/fctlab" summary "$OUT"
} >"$REPORT"

cat "$REPORT"
say "report written to $ROOT/$REPORT"
