#!/usr/bin/env bash
# Builds the example evidence ledger from the JSON results of examples/run.sh and the site
# generated from it. Usage: bash examples/ledger.sh ROCPATH OUT_DIR (run from the repository
# root; run.sh calls it). Claims are recorded with `rocpath ledger add-claim`; a case, the
# open questions and one claim with a dated status change are written as files, the way a
# researcher edits a ledger kept in git.
set -euo pipefail
R=$1
OUT=$2
L=$OUT/ledger
rm -rf "$L"
"$R" ledger init "$L" \
  --title-ja "例:rocpath 同梱の小さなインストール" \
  --title-en "Example: the small install bundled with rocpath"

# Observations: the producers' JSON, under stable ids so that re-running replaces them.
for x in inventory isa check-gfx900 check-gfx1201 diff; do
  "$R" -q ledger import "$L" "$OUT/$x.json" --as "example-$x"
done
"$R" -q ledger import "$L" "$OUT/arch.json" --as example-arch

D=2026-11-20
BLAS=examples/data/install/opt/rocm-example/lib/libexample_blas.so.1.1
DNN=examples/data/install/opt/rocm-example/lib/libexample_dnn.so.1.1
KERNELS=$(realpath --relative-to="$L" examples/src/kernels.cl)
KSHA=$(sha256sum examples/src/kernels.cl | cut -d' ' -f1)

"$R" ledger add-claim "$L" --id gfx900-dot-i8-fma-fallback --date $D \
  --class confirmed --kind shipped_artifact_verified \
  --world gfx900 --floor math_library --layer fallback \
  --ja "gfx900 の dot_i8 は積和フォールバックを通る:gfx900 の code object に v_dot4 命令はない。" \
  --en "gfx900 takes the multiply-add fallback in dot_i8: there is no v_dot4 instruction in its code object." \
  --support "example-isa?processor=gfx900&library=$BLAS" \
  --falsified-by-ja "gfx900 の code object に v_dot4* 命令が現れること。" \
  --falsified-by-en "A v_dot4* mnemonic in the gfx900 code object."

"$R" ledger add-claim "$L" --id gfx906-dot-i8-dot4 --date $D \
  --class confirmed --kind shipped_artifact_verified \
  --world gfx906 --floor math_library --layer selection \
  --ja "gfx906 の dot_i8 は v_dot4_i32_i8 を使う(dot 命令を持つ世代の本命経路)。" \
  --en "gfx906 runs dot_i8 with v_dot4_i32_i8 (the fast path of a generation with dot instructions)." \
  --support "example-isa?processor=gfx906&library=$BLAS"

"$R" ledger add-claim "$L" --id example-dot4-selected-at-build --date $D \
  --class confirmed --kind code_verified \
  --world gfx900 --floor math_library --layer build \
  --ja "dot_i8 の経路はビルド時に決まる:dot 命令を持つターゲットだけが sdot4 を使い、gfx900 と gfx803 は積和の分岐でコンパイルされる。" \
  --en "dot_i8's path is decided at build time: only targets with dot instructions use sdot4; gfx900 and gfx803 compile the multiply-add branch." \
  --support "source:$KERNELS:25@$KSHA" \
  --support "source:$KERNELS:30@$KSHA"

"$R" ledger add-claim "$L" --id example-dnn-no-gfx900 --date $D \
  --class confirmed --kind shipped_artifact_verified \
  --world gfx900 --floor math_library --layer build \
  --ja "例の DNN ライブラリ(libexample_dnn.so.1.1)には gfx900 のコードがない。" \
  --en "The example DNN library (libexample_dnn.so.1.1) ships no gfx900 code." \
  --support "example-check-gfx900?library=$DNN" \
  --falsified-by-en "A gfx900 (or gfx9-generic) code object in libexample_dnn." \
  --falsified-by-ja "libexample_dnn に gfx900(または gfx9-generic)の code object があること。"

"$R" ledger add-claim "$L" --id gfx942-gemm-tile-mfma --date $D \
  --class confirmed --kind shipped_artifact_verified \
  --world gfx942 --floor hardware --layer selection \
  --ja "gfx942 の gemm_tile は MFMA(v_mfma_f32_16x16x4_f32)を使う。" \
  --en "gemm_tile uses MFMA (v_mfma_f32_16x16x4_f32) on gfx942." \
  --support "example-isa?processor=gfx942"

"$R" ledger add-claim "$L" --id gfx900-dot-i8-dispatch --date $D \
  --class unresolved --kind hypothesis \
  --world gfx900 --floor runtime --layer selection --selection natural \
  --ja "実機の gfx900 で dot_i8 の積和カーネルが実際に dispatch されるかは未確定:この例には実行時トレースがない。" \
  --en "Whether dot_i8's multiply-add kernel is actually dispatched on a real gfx900 is unresolved: the example has no runtime trace." \
  --support "example-isa?processor=gfx900&library=$BLAS" \
  --falsified-by-en "A rocprofv3 kernel trace of dot_i8 on a gfx900 showing another kernel." 

"$R" ledger add-claim "$L" --id tensile-gfx1100-partial --date $D \
  --class limited --kind shipped_artifact_verified \
  --world gfx1100 --floor math_library --layer build \
  --en "The gfx1100 Tensile solutions can only be partly read: the lazy index names a solution file the install lacks." \
  --support "example-inventory?name=TensileLibrary_lazy_gfx1100.dat"

# A claim edited by hand: its class changed when the check result came in.
cat > "$L/claims/example-blas-loads-on-gfx900.toml" <<EOF
schema = "rocpath.ledger.claim/1"
id = "example-blas-loads-on-gfx900"
class = "inferred"
kind = "code_verified"
world = "gfx900"
floor = "runtime"
layer = "build"

[statement]
ja = "libexample_blas.so.1.1 は Vega64(gfx900:xnack-)で読み込まれる:ローダーの target id 規則で一致する code object が 1 つある。"
en = "libexample_blas.so.1.1 would load on a Vega64 (gfx900:xnack-): one of its code objects matches by the loader's target-id rules."

[falsified_by]
ja = "実機で hipErrorNoBinaryForGpu が出ること。"
en = "hipErrorNoBinaryForGpu on a real Vega64."

[[support]]
observation = "example-check-gfx900"
where = { library = "$BLAS" }

[[history]]
date = "2026-11-18"
class = "unresolved"
kind = "hypothesis"
note = { ja = "gfx900 向けの code object があるかは未調査", en = "not yet known whether a gfx900 code object ships" }

[[history]]
date = "$D"
class = "inferred"
kind = "code_verified"
note = { ja = "rocpath check で一致する code object を確認(読み込みは推論)", en = "rocpath check found a matching code object (loading is inferred)" }
EOF

cat > "$L/questions/gfx900-dot4.toml" <<'EOF'
schema = "rocpath.ledger.question/1"
id = "gfx900-dot4"
world = "gfx900"
answer = ["gfx900-dot-i8-fma-fallback", "example-dot4-selected-at-build"]

[text]
ja = "gfx900 の dot_i8 は dot4 命令を使うか?"
en = "Does dot_i8 use dot4 instructions on gfx900?"
EOF
cat > "$L/questions/dnn-gfx900.toml" <<'EOF'
schema = "rocpath.ledger.question/1"
id = "dnn-gfx900"
world = "gfx900"
answer = ["example-dnn-no-gfx900"]

[text]
ja = "DNN ライブラリは gfx900 で動くか?"
en = "Does the DNN library run on gfx900?"
EOF
cat > "$L/questions/blas-gfx900-load.toml" <<'EOF'
schema = "rocpath.ledger.question/1"
id = "blas-gfx900-load"
world = "gfx900"
answer = ["example-blas-loads-on-gfx900"]

[text]
ja = "BLAS ライブラリは gfx900 で読み込まれるか?"
en = "Does the BLAS library load on gfx900?"
EOF
cat > "$L/questions/gfx900-runtime-path.toml" <<'EOF'
schema = "rocpath.ledger.question/1"
id = "gfx900-runtime-path"
world = "gfx900"

[text]
ja = "実機の gfx900 で、どの dot_i8 カーネルが実行されるか?"
en = "Which dot_i8 kernel runs on a real gfx900?"

[would_answer]
ja = "gfx900 実機での rocprofv3 カーネルトレース(rocpath case run で記録)"
en = "A rocprofv3 kernel trace on a real gfx900 (recorded with rocpath case run)"
EOF

cat > "$L/cases/example-install-gfx900.toml" <<'EOF'
schema = "rocpath.ledger.case/1"
id = "example-install-gfx900"
world = "gfx900"
date = "2026-11-20"
observations = ["example-inventory", "example-isa", "example-check-gfx900"]
claims = ["gfx900-dot-i8-fma-fallback", "example-dot4-selected-at-build", "example-dnn-no-gfx900", "example-blas-loads-on-gfx900", "gfx900-dot-i8-dispatch"]
questions = ["gfx900-runtime-path"]

[title]
ja = "例のインストールは gfx900 でどの経路を通るか"
en = "Which path does the example install take on gfx900?"

[summary]
ja = "inventory・isa・check を例のインストールに対して実行し、gfx900(Vega64)での経路を読む。"
en = "inventory, isa and check run on the example install, read for gfx900 (Vega64)."
EOF

"$R" ledger check "$L"
"$R" site build "$L" -o "$OUT/site"
