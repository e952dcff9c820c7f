#!/usr/bin/env bash
# Runs rocpath on the bundled example data (examples/data) and writes every result, as
# tables and as JSON evidence, to example-out/, imports the JSON into an example evidence
# ledger (example-out/ledger) with a few claims about the example, and builds the bilingual
# evidence site (example-out/site). Usage: bash examples/run.sh [OUT_DIR]
# (ROCPATH=/path/to/rocpath uses that binary instead of building one.)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-example-out}
mkdir -p "$OUT"
if [ -n "${ROCPATH:-}" ]; then
  R=$ROCPATH
else
  echo "== Building rocpath (release; the first build takes a few minutes)" >&2
  cargo build --release -p rocpath
  R=${CARGO_TARGET_DIR:-target}/release/rocpath
fi
D=examples/data
run() { # name, expected exit codes, command...
  local name=$1 ok=$2; shift 2
  set +e; "$R" "$@" > "$OUT/$name"; local rc=$?; set -e
  case " $ok " in *" $rc "*) ;; *) echo "rocpath $* exited $rc" >&2; exit 1;; esac
}
echo "== What GPU code does the example install ship? (rocpath inventory $D)"
run inventory.txt "0" inventory "$D"
cat "$OUT/inventory.txt"
run inventory.json "0" --json inventory "$D"
run inventory.tsv "0" inventory --tsv "$D/install"
echo
echo "== Will it run on a Vega64 (gfx900:xnack-, from a saved rocminfo) and on an RX 9070 XT (gfx1201)?"
run check-gfx900.txt "0 1" check --target gfx900:xnack- --override 9.0.6 "$D/install"
cat "$OUT/check-gfx900.txt"
run check-gfx1201.txt "0 1" check --target gfx1201 "$D/install"
cat "$OUT/check-gfx1201.txt"
run check-gfx900.json "0 1" --json check --target gfx900:xnack- --override 9.0.6 "$D/install"
run check-gfx1201.json "0 1" --json check --target gfx1201 "$D/install"
echo
echo "== What changed between the 1.0 and 1.1 installs?"
run diff.txt "0 1" diff "$D/install-old" "$D/install"
cat "$OUT/diff.txt"
run diff.json "0 1" --json diff "$D/install-old" "$D/install"
echo
echo "== Which kernels use dot4, MFMA or WMMA, on which targets? (rocpath isa --find)"
run isa-find.txt "0" isa --find v_dot4_i32_i8,v_dot4_i32_iu8,v_mfma,v_wmma "$D/install"
cat "$OUT/isa-find.txt"
run isa.txt "0" isa "$D/install"
run isa.json "0" --json isa "$D/install"
echo
echo "== Which kernel would a GEMM run? (rocpath explain gemm, on the example's Tensile-style catalog)"
run gemm.txt "0" explain gemm examples/gemm/library --target gfx906 --cu 60 --m 1000 --n 1024 --k 1024
cat "$OUT/gemm.txt"
run gemm-sweep.txt "0 1" explain gemm examples/gemm/library --target gfx906,gfx900 --cu 60 --shape 1024x1024x1024,1000x1000x1000
cat "$OUT/gemm-sweep.txt"
run gemm.json "0" --json explain gemm examples/gemm/library --target gfx906 --cu 60 --m 1000 --n 1024 --k 1024
echo
echo "== The gfx targets involved"
run arch.txt "0" arch gfx9
cat "$OUT/arch.txt"
run arch.json "0" --json arch
echo
echo "== Keep the findings: an evidence ledger with claims about the example"
bash examples/ledger.sh "$R" "$OUT"
echo
echo "Results (tables and JSON evidence) are in $OUT/, the ledger in $OUT/ledger/."
echo "Open the evidence site: $OUT/site/index.html (or: $R site serve $OUT/site)"
