#!/usr/bin/env bash
# Regenerates the bundled example data under examples/data/ from examples/src/.
# Development-time only (the outputs are committed); needs clang-22, lld-22,
# clang-offload-bundler-22, gcc, dpkg-deb and python3 with the msgpack module.
#
# The example is a small, made-up "ROCm-style install" whose GPU code rocpath can inventory,
# check against a device and diff against an older version. Every code object in it is
# compiled here from examples/src/kernels.cl (the project's own code), so it can be shipped.
set -euo pipefail
cd "$(dirname "$0")"
OUT=data
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
rm -rf "$OUT"; mkdir -p "$OUT"

compile() { # target-id -> $W/k_<name>.hsaco
  local t=$1 n=${1//:/_}
  clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$t" -nogpulib -O3 \
    -Wno-everything src/kernels.cl -o "$W/k_$n.hsaco"
}
bundle() { # output compress? target-ids...
  local out=$1 compress=$2; shift 2
  local targets="host-x86_64-unknown-linux-gnu-" inputs="-input=/dev/null"
  for t in "$@"; do targets+=",hipv4-amdgcn-amd-amdhsa--$t"; inputs+=" -input=$W/k_${t//:/_}.hsaco"; done
  # shellcheck disable=SC2086
  clang-offload-bundler-22 -type=o -targets="$targets" $inputs -output="$out" $compress
}
hostlib() { # output.so fatbin-file
  cat > "$W/host.c" <<C
const char *rocpath_example_version(void) { return "1.0"; }
__asm__(".section .hip_fatbin,\"a\",@progbits\n.p2align 12\n.incbin \"$2\"\n.previous\n");
C
  gcc -shared -fPIC -O2 -o "$1" "$W/host.c"
}

for t in gfx803 gfx900:xnack- gfx906 gfx90a:xnack+ gfx942 gfx1030 gfx1100 gfx1201; do compile "$t"; done

# New install (1.1): BLAS-like library with an uncompressed bundle, DNN-like library with a
# compressed (CCOB, zstd) bundle, a Tensile-style library folder and MIOpen-style databases.
NEW=$OUT/install/opt/rocm-example
mkdir -p "$NEW/lib/example/library" "$NEW/share/miopen/db"
bundle "$W/blas.hipfb" "" gfx900:xnack- gfx906 gfx90a:xnack+ gfx1030 gfx1100
hostlib "$NEW/lib/libexample_blas.so.1.1" "$W/blas.hipfb"
bundle "$W/dnn.hipfb" "-compress" gfx942 gfx1100 gfx1201
hostlib "$NEW/lib/libexample_dnn.so.1.1" "$W/dnn.hipfb"
cp "$W/k_gfx906.hsaco" "$NEW/lib/example/library/TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx906.co"
cp "$W/k_gfx1100.hsaco" "$NEW/lib/example/library/Kernels.so-000-gfx1100.hsaco"
# The code object of the hand-written `explain gemm` catalog (examples/gemm/library).
cp "$W/k_gfx906.hsaco" gemm/library/TensileLibrary_Type_SS_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx906.co
python3 - "$NEW/lib/example/library" <<'PY'
import msgpack, sys, os
d = sys.argv[1]
def lazy(proc, cus, placeholders):
    return {"solutions": [], "library": {"type": "Hardware", "rows": [{
        "predicate": {"type": "AMDGPU", "value": {"type": "And", "value": [
            {"type": "Processor", "value": proc}, {"type": "CUCount", "value": cus}]}},
        "library": {"type": "ProblemMap", "property": {"type": "OperationIdentifier"}, "map": {
            "Contraction_l_Ailk_Bjlk_Cijk_Dijk": {"type": "Problem", "rows": [
                {"predicate": {"type": "TypesEqual", "value": ["Float"] * 4},
                 "library": {"type": "Placeholder", "value": p}} for p in placeholders]}}}}]}}
def solutions(kernels):
    return {"solutions": [{"name": k, "kernelName": k, "index": i,
        "problemType": {"operationIdentifier": "Contraction_l_Ailk_Bjlk_Cijk_Dijk", "aType": "Float",
                        "bType": "Float", "cType": "Float", "dType": "Float", "highPrecisionAccumulate": False},
        "hardwarePredicate": {"type": "TruePred"}} for i, k in enumerate(kernels)],
        "library": {"type": "Problem", "rows": []}}
w = lambda n, v: open(os.path.join(d, n), "wb").write(msgpack.packb(v))
w("TensileLibrary_lazy_gfx906.dat", lazy("gfx906", 60, ["TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx906"]))
w("TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx906.dat", solutions(["saxpy", "gemm_tile"]))
w("TensileLibrary_lazy_gfx1100.dat", lazy("gfx1100", 48, ["TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1100"]))
PY
# MIOpen-style find-db names (content: one made-up record in the find-db text format).
printf '64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F=ConvBinWinograd3x3U:0.5,0,miopenConvolutionFwdAlgoWinograd\n' \
  > "$NEW/share/miopen/db/gfx906_60.HIP.fdb.txt"
cp "$NEW/share/miopen/db/gfx906_60.HIP.fdb.txt" "$NEW/share/miopen/db/gfx90a68.HIP.fdb.txt"

# Old install (1.0): still had gfx803, had no gfx1030/gfx1100 yet, no DNN library.
OLD=$OUT/install-old/opt/rocm-example
mkdir -p "$OLD/lib"
bundle "$W/blas-old.hipfb" "" gfx803 gfx900:xnack- gfx906 gfx90a:xnack+
hostlib "$OLD/lib/libexample_blas.so.1.0" "$W/blas-old.hipfb"

# The new install packed as a Debian package, to show reading archives in place.
mkdir -p "$W/pkg/DEBIAN"
cp -r "$OUT/install/opt" "$W/pkg/"
printf 'Package: rocm-example\nVersion: 1.1\nArchitecture: amd64\nMaintainer: rocpath <rocpath@localhost>\nDescription: rocpath example data\n' > "$W/pkg/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$W/pkg" "$OUT/rocm-example_1.1_amd64.deb" >/dev/null
find "$OUT" -type f | sort | xargs ls -l
