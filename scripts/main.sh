#!/usr/bin/env bash
# The main job: build fctlab into .venv, then reproduce the RC3 paper's headline experiment
# (Internet-2 at 10 / 30 / 50% load, TCP against RC3; Figs. 7, 8, 10, 13) in quick mode - one
# seed, shortened runs, about a minute on two cores - and print its report beside the paper's
# numbers. The full reproduction of every RC3 experiment is `fctlab reproduce rc3` (its
# reports are versioned in experiments/rc3/).
#
# Writes results/quick/rc3/internet2-load/README.md (with plots) and prints it.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_venv
install_package "."

cd "$ROOT"
say "reproducing the RC3 paper's Internet-2 load experiment (quick mode)"
"$VENV/bin/fctlab" reproduce rc3 --quick --only internet2-load
REPORT="results/quick/rc3/internet2-load/README.md"
cat "$REPORT"
say "report written to $ROOT/$REPORT"
