#!/usr/bin/env bash
# Derivation benchmark: 1,000 case observations and 100 trace observations generated from the
# real documents of the shared fixtures (the 50 Vega64 case logs read by `rocpath case read`,
# the MI25 tinyllama probe read by `rocpath trace`), then `ledger derive` timed (release build).
# Usage: scripts/bench/derive.sh [N_CASES N_TRACES]   (default: 1000 100)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet -p rocpath
cargo build --release --quiet -p rocpath-ledger --example derive_bench
T=${CARGO_TARGET_DIR:-target}/release
F=${ROCPATH_SHARED:-../shared}/fixtures
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/docs"
for f in "$F"/miopen-logs/vega64/*.log; do
  case "$f" in *_extract.log) continue ;; esac
  "$T/rocpath" -q --json case read "$f" > "$W/docs/$(basename "$f" .log).json" || true
done
"$T/rocpath" -q --json trace "$F/mi25-runs/rocprofv3_probe_tinyllama_latest_20260324_015840" > "$W/docs/trace.json"
"$T/examples/derive_bench" "$W/docs" "$W/ledger" "${1:-1000}" "${2:-100}"
/usr/bin/time -f 'rocpath ledger derive (3rd, whole process): %e s wall, %M KB max RSS' \
  "$T/rocpath" -q ledger derive "$W/ledger" --date 2026-03-26 > /dev/null
