#!/usr/bin/env bash
# Benchmark of `rocpath case read` on a level-6 MIOpen log of at least 1 GiB, built by
# concatenating the real Vega64 logs of ../shared/fixtures/miopen-logs/vega64 (never copied
# into the project: the big file is made in a scratch folder), against ripgrep merely matching
# the research workflow's two extraction patterns (run_vega_path_case.sh: the trace regex and
# the solver regex, `rg -n PATTERN LOG > extract.log`).
#
# Usage: scripts/bench/case-logs.sh [SCRATCH_DIR]   (needs rg, hyperfine, a release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=${ROCPATH_SHARED:-../shared}
LOGS=$SHARED/fixtures/miopen-logs/vega64
SCRATCH=${1:-$(mktemp -d)}
BIN=${CARGO_TARGET_DIR:-target}/release/rocpath
[ -x "$BIN" ] || cargo build --release -p rocpath
[ -d "$LOGS" ] || { echo "no $LOGS"; exit 1; }

ONE=$SCRATCH/one.log; BIG=$SCRATCH/big.log
if [ ! -s "$BIG" ]; then
  ls "$LOGS"/*.log | grep -v '_extract\.log$' | xargs cat > "$ONE"
  n=$(( (1073741824 + $(stat -c %s "$ONE") - 1) / $(stat -c %s "$ONE") ))
  for _ in $(seq "$n"); do cat "$ONE"; done > "$BIG"
fi
echo "log: $BIG, $(stat -c %s "$BIG") bytes, $(wc -l < "$BIG") lines"

TRACE='Not applicable|Skipped \(non-dynamic\)|ConvMlirIgemm|ConvAsmImplicitGemm|ConvCkIgemm|Dlops|Xdlops|hipBlasLT failed, falling back to tensile|fall back to FP32|rocblas_gemm_tensile_backend|rocblas_gemm_hipblaslt_backend'
SOLVER='ConvAsmImplicitGemm|ConvCkIgemm|ConvMlirIgemm|Dlops|Xdlops|Solver|FindSolution|Applicable|Success'

hyperfine --warmup 1 --runs ${RUNS:-5} --export-markdown "$SCRATCH/case-logs.md" \
  -n "rg trace pattern" "rg -n '$TRACE' '$BIG' > '$SCRATCH/trace_extract.log'" \
  -n "rg solver pattern" "rg -n '$SOLVER' '$BIG' > '$SCRATCH/solver_extract.log'" \
  -i -n "rocpath case read" "'$BIN' -q --json case read '$BIG' > '$SCRATCH/report.json'"
cat "$SCRATCH/case-logs.md"
/usr/bin/time -f "rocpath case read: max RSS %M KiB, %e s" "$BIN" -q --json case read "$BIG" > /dev/null || true
