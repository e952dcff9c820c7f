#!/usr/bin/env bash
# TunaNet's order for random problems, from MIOpen's own ai_heuristics.cpp and frugally-deep
# compiled on this CPU, written where rocpath's tests compare their own evaluation with it.
#   scripts/oracle/tunanet/agree.sh --miopen DIR --fdeep-git DIR [-n N] [--seed S] [DEVICE...]
# --miopen: a ROCm/MIOpen checkout at 2d1fd997 or rocm-6.2.2 (its ai_heuristics.cpp is checked
# against ai_heuristics.sha256, which names the release; its src/kernels/*.tn.model are the
# networks); --fdeep-git: a clone of Dobiasd/frugally-deep that
# holds 9683d557 (the commit MIOpen's requirements.txt pins). Needs g++ and the Debian headers
# libeigen3-dev, libfplus-dev, nlohmann-json3-dev. DEVICE: gfx942 gfx90a gfx900 (default all
# three; gfx900 and every other name run gfx908's network). Work files: target/oracle/tunanet.
# Then `cargo test -p rocpath-miopen --test tunanet` compares (ROCPATH_TUNANET_ORACLE=that folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
n=2000; seed=1; devices=(); miopen=; fgit=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --miopen) miopen=$2; shift 2 ;;
    --fdeep-git) fgit=$2; shift 2 ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) devices+=("$1"); shift ;;
  esac
done
[ ${#devices[@]} -gt 0 ] || devices=(gfx942 gfx90a gfx900)
ai=$miopen/src/conv/heuristics/ai_heuristics.cpp
[ -f "$ai" ] || { echo "--miopen: no $ai (a ROCm/MIOpen checkout)" >&2; exit 2; }
have=$(sha256sum "$ai" | cut -d' ' -f1)
release=$(awk -v h="$have" '$1==h{print $2}' "$here/ai_heuristics.sha256")
[ -n "$release" ] || { echo "$ai is not one of the releases in ai_heuristics.sha256 (sha256 $have)" >&2; exit 2; }
commit=9683d557eb672ee2304f80f6682c51242d748a50
[ -n "$fgit" ] && git -C "$fgit" cat-file -e "$commit^{commit}" 2>/dev/null \
  || { echo "--fdeep-git: give a clone of https://github.com/Dobiasd/frugally-deep that has $commit" >&2; exit 2; }
for h in /usr/include/eigen3/Eigen/Core /usr/include/fplus/fplus.hpp /usr/include/nlohmann/json.hpp; do
  [ -f "$h" ] || { echo "$h missing: apt-get install libeigen3-dev libfplus-dev nlohmann-json3-dev" >&2; exit 2; }
done
out=$root/target/oracle/tunanet
if [ ! -d "$out/fdeep-$commit" ]; then
  mkdir -p "$out/fdeep-$commit"
  git -C "$fgit" archive "$commit" include | tar -x -C "$out/fdeep-$commit"
fi
bin=$out/oracle-$release
if [ ! -x "$bin" ] || [ "$here/oracle.cpp" -nt "$bin" ]; then
  g++ -std=c++17 -O2 -I "$here/stub" -I "$out/fdeep-$commit/include" -I /usr/include/eigen3 \
    -I "$miopen/src/include" -DAI_HEURISTICS_CPP="\"$ai\"" "$here/oracle.cpp" -o "$bin"
fi
python3 "$here/gen.py" -n "$n" --seed "$seed" > "$out/problems.txt"
for d in "${devices[@]}"; do
  ORACLE_DB=$miopen/src/kernels ORACLE_REGISTRY=$root/crates/rocpath-miopen/data/miopen_solvers.tsv \
    "$bin" "$d" < "$out/problems.txt" > "$out/oracle-tunanet-$release-$d.tsv"
  printf '%s: %s supported, %s unsupported, %s errors\n' "$d" \
    "$(grep -c $'\tsupported\t' "$out/oracle-tunanet-$release-$d.tsv" || true)" \
    "$(grep -c $'\tunsupported\t' "$out/oracle-tunanet-$release-$d.tsv" || true)" \
    "$(grep -c $'\terror\t' "$out/oracle-tunanet-$release-$d.tsv" || true)"
done
ROCPATH_TUNANET_ORACLE=$out cargo test -q -p rocpath-miopen --test tunanet --manifest-path "$root/Cargo.toml"
