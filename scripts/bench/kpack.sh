#!/usr/bin/env bash
# Benchmark: `rocpath inventory` on a tree packed for kpack against the same tree before
# packing, and each against the reference tools doing the same job (list every code object
# and read its kernel metadata):
#   - fat original: `llvm-objdump-22 --offloading` per host library, `llvm-readelf-22 --notes`
#     per extracted entry;
#   - packed tree: the reference packer's `kpack_tool list` per archive, `kpack_tool extract`
#     per (binary, arch), `llvm-readelf-22 --notes` per extracted object.
# Usage: scripts/bench/kpack.sh ORIGINAL PACKED ROCM_KPACK_CHECKOUT PYTHON [ROCPATH]
#   ROCM_KPACK_CHECKOUT: a checkout of rocm-kpack (its `python/` folder is put on PYTHONPATH);
#   PYTHON: a Python >= 3.12 with zstandard and msgpack.
set -uo pipefail
ORIG=$1 PACKED=$2 KP=$3 PY=$4
R=${5:-target/release/rocpath}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

llvm_loop() {
  local n=0
  while IFS= read -r -d '' f; do
    if llvm-readelf-22 -S "$f" 2>/dev/null | grep -q '\.hip_fatbin'; then
      rm -rf "$W/x"; mkdir -p "$W/x"; cp -s "$(realpath "$f")" "$W/x/lib"
      (cd "$W/x" && llvm-objdump-22 --offloading lib > /dev/null 2>&1)
      for e in "$W"/x/lib.*; do [ -s "$e" ] && llvm-readelf-22 --notes "$e" > /dev/null 2>&1 && n=$((n+1)); done
    fi
  done < <(find "$ORIG" -type f -print0)
  echo "$n" > "$W/count-llvm"
}

kpack_loop() {
  local n=0
  while IFS= read -r -d '' k; do
    PYTHONPATH="$KP/python" "$PY" -m rocm_kpack.tools.kpack_tool list "$k" > "$W/list" 2>/dev/null
    awk 'NR>7 && NF>=3 {if (NF==4) b=$1; print b, $(NF-2)}' "$W/list" > "$W/entries"
    while read -r bin arch; do
      PYTHONPATH="$KP/python" "$PY" -m rocm_kpack.tools.kpack_tool extract "$k" "$bin" "$arch" -o "$W/e.co" > /dev/null 2>&1 \
        && llvm-readelf-22 --notes "$W/e.co" > /dev/null 2>&1 && n=$((n+1))
    done < "$W/entries"
  done < <(find "$PACKED" -type f -name '*.kpack' -print0)
  echo "$n" > "$W/count-kpack"
}

for t in "$ORIG" "$PACKED"; do find "$t" -type f -exec cat {} + > /dev/null; done  # warm cache
/usr/bin/time -f "%e %M" -o "$W/t-llvm" bash -c "$(declare -f llvm_loop); W=$W ORIG=$ORIG llvm_loop" 2>/dev/null
/usr/bin/time -f "%e %M" -o "$W/t-kpack" bash -c "$(declare -f kpack_loop); W=$W PACKED=$PACKED KP=$KP PY=$PY kpack_loop" 2>/dev/null
for side in ORIG PACKED; do
  /usr/bin/time -f "%e %M" -o "$W/t-$side" "$R" -q --threads 1 inventory "${!side}" > /dev/null
  "$R" -q --json inventory "${!side}" > "$W/$side.json"
done
count() { python3 -c "import json; d=json.load(open('$1')); print(len(d['code_objects']), sum(c['kernel_count'] for c in d['code_objects']))"; }
read -r t_llvm m_llvm < <(tail -1 "$W/t-llvm"); read -r t_kp m_kp < <(tail -1 "$W/t-kpack")
# rocpath exits 1 on a packed tree that lost code: time then writes a status line first.
read -r t_o m_o < <(tail -1 "$W/t-ORIG"); read -r t_p m_p < <(tail -1 "$W/t-PACKED")
printf 'original %s: %s bytes; packed %s: %s bytes\n' "$ORIG" "$(du -sb "$ORIG" | cut -f1)" "$PACKED" "$(du -sb "$PACKED" | cut -f1)"
printf 'llvm loop on the original:      %7.2f s  %5d MB  %s code objects\n' "$t_llvm" $((m_llvm/1024)) "$(cat "$W/count-llvm")"
printf 'kpack_tool loop on the packed:  %7.2f s  %5d MB  %s code objects\n' "$t_kp" $((m_kp/1024)) "$(cat "$W/count-kpack")"
printf 'rocpath on the original:        %7.2f s  %5d MB  %s code objects/kernels  (%.1fx the llvm loop)\n' "$t_o" $((m_o/1024)) "$(count "$W/ORIG.json")" "$(echo "$t_llvm/$t_o" | bc -l)"
printf 'rocpath on the packed tree:     %7.2f s  %5d MB  %s code objects/kernels  (%.1fx the kpack_tool loop)\n' "$t_p" $((m_p/1024)) "$(count "$W/PACKED.json")" "$(echo "$t_kp/$t_p" | bc -l)"
