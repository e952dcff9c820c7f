#!/usr/bin/env bash
# Benchmark: `rocpath inventory` against a shell loop of LLVM 22's tools doing the same job
# on the same tree: for every file, find its AMDGPU code objects and read their targets and
# kernel metadata.
#   - host ELF libraries: `llvm-objdump-22 --offloading` extracts every bundle entry, then
#     `llvm-readelf-22 --notes` on each extracted code object;
#   - standalone bundles and CCOB (`__CLANG_OFFLOAD_BUNDLE__`/`CCOB` magic):
#     `clang-offload-bundler-22 --list`, `--unbundle` per target, `llvm-readelf-22 --notes`;
#   - standalone AMDGPU ELF: `llvm-readelf-22 --notes`.
# rocpath runs without hashing (the default), then with --json, and with --json --hash through
# an empty hash cache (every object hashed) and again through the filled cache.
# Usage: scripts/bench/inventory-vs-llvm.sh TREE [ROCPATH]
set -uo pipefail
TREE=$1
R=${2:-target/release/rocpath}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

llvm_loop() {
  local n=0
  while IFS= read -r -d '' f; do
    magic=$(head -c 24 "$f" | od -An -c | tr -d ' \n')
    case "$magic" in
      177ELF*)
        if llvm-readelf-22 -h "$f" 2>/dev/null | grep -qE 'AMD GPU|EM_AMDGPU'; then
          llvm-readelf-22 --notes "$f" > /dev/null 2>&1; n=$((n+1))
        elif llvm-readelf-22 -S "$f" 2>/dev/null | grep -q '\.hip_fatbin'; then
          rm -rf "$W/x"; mkdir -p "$W/x"; cp -s "$(realpath "$f")" "$W/x/lib" 2>/dev/null || cp "$f" "$W/x/lib"
          (cd "$W/x" && llvm-objdump-22 --offloading lib > /dev/null 2>&1)
          for e in "$W"/x/lib.*; do [ -s "$e" ] && llvm-readelf-22 --notes "$e" > /dev/null 2>&1 && n=$((n+1)); done
          rm -rf "$W/x"
        fi ;;
      __CLANG_OFFLOAD_BUNDLE__*|CCOB*)
        for t in $(clang-offload-bundler-22 --list --type=o --input="$f" 2>/dev/null | grep -v '^host'); do
          clang-offload-bundler-22 --unbundle --type=o --input="$f" --targets="$t" --output="$W/e.co" > /dev/null 2>&1 \
            && llvm-readelf-22 --notes "$W/e.co" > /dev/null 2>&1 && n=$((n+1))
        done ;;
    esac
  done < <(find "$TREE" -type f -print0)
  echo "$n" > "$W/llvm-count"
}

bytes=$(du -sb "$TREE" | cut -f1)
files=$(find "$TREE" -type f | wc -l)
echo "tree: $TREE ($files files, $bytes bytes)"
cat "$(find "$TREE" -type f | head -1)" > /dev/null  # warm nothing in particular
find "$TREE" -type f -exec cat {} + > /dev/null      # page cache warm for both sides

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "%e %M %U %S" -o "$W/t-llvm" bash -c "$(declare -f llvm_loop); W=$W TREE=$TREE llvm_loop" 2>/dev/null
read -r t_llvm m_llvm u s < "$W/t-llvm"; c_llvm=$(echo "$u + $s" | bc -l)
for th in 1 2; do
  /usr/bin/time -f "%e %M %U %S" -o "$W/t-$th" "$R" -q --threads "$th" inventory "$TREE" > "$W/inv-$th.txt"
done
/usr/bin/time -f "%e %M %U %S" -o "$W/t-json" "$R" -q --json inventory "$TREE" > "$W/inv.json"
mkdir -p "$W/cache"
for c in cold warm; do
  ROCPATH_CACHE=$W/cache /usr/bin/time -f "%e %M %U %S" -o "$W/t-hash-$c" "$R" -q --json inventory --hash "$TREE" > "$W/inv-hash-$c.json"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
n_ours=$(python3 -c "import json,sys; print(len(json.load(open('$W/inv.json'))['code_objects']))")
read -r t1 m1 u s < "$W/t-1"; c1=$(echo "$u + $s" | bc -l); read -r t2 m2 u s < "$W/t-2"; c2=$(echo "$u + $s" | bc -l)
n_llvm=$(cat "$W/llvm-count" 2>/dev/null || echo "?")
printf 'code objects read: llvm loop %s, rocpath %s\n' "$n_llvm" "$n_ours"
printf 'llvm loop:            %8.2f s  max RSS %6d MB  CPU %.2f s\n' "$t_llvm" $((m_llvm/1024)) "$c_llvm"
printf 'rocpath --threads 1:  %8.2f s  max RSS %6d MB  (%.1fx faster)  CPU %.2f s (%.1fx less)\n' "$t1" $((m1/1024)) "$(echo "$t_llvm/$t1" | bc -l)" "$c1" "$(echo "$c_llvm/$c1" | bc -l)"
printf 'rocpath --threads 2:  %8.2f s  max RSS %6d MB  (%.1fx faster; %.2fx from 1 to 2 threads)\n' "$t2" $((m2/1024)) "$(echo "$t_llvm/$t2" | bc -l)" "$(echo "$t1/$t2" | bc -l)"
for x in json hash-cold hash-warm; do
  read -r t m u s < "$W/t-$x"; c=$(echo "$u + $s" | bc -l)
  printf 'rocpath --json (%s): %8.2f s  max RSS %6d MB  (%.1fx faster)  CPU %.2f s (%.1fx less)\n' "$x" "$t" $((m/1024)) "$(echo "$t_llvm/$t" | bc -l)" "$c" "$(echo "$c_llvm/$c" | bc -l)"
done
python3 - "$W" <<'PY'
import json, sys
for c in ("cold", "warm"):
    h = json.load(open(f"{sys.argv[1]}/inv-hash-{c}.json"))["hashing"]
    print(f"--hash, {c} cache: {h}")
PY
