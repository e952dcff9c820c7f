#!/usr/bin/env bash
# Agreement of `rocpath explain gemm` with Tensile's own host library on Debian's librocblas4 6.4.4.
#   scripts/oracle/tensile/agree.sh --tensile-git DIR --rocblas-src DIR [-n N] [--seed S]
#        [--api LIST] [--types LIST] [--trans LIST] [--batch LIST] [--env NAME=VALUE]... [DEVICE...]
# DEVICE is PROCESSOR:CUS (default gfx900:64 gfx906:60 gfx90a:104 gfx1100:96). --tensile-git: a
# clone of ROCm/Tensile holding be49885f (release/rocm-rel-6.4); --rocblas-src: rocBLAS 6.4.4's
# source (Debian's rocblas_6.4.4.orig.tar.gz unpacked). Needs the corpus that
# ../shared/tools/fetch-debian-rocm.sh fills ($ROCPATH_CORPUS, default ~/.cache/rocpath-corpus),
# g++, python3 and msgpack-c's headers (libmsgpack-cxx-dev). Work files: target/oracle/tensile.
# --env sets a switch both sides read (TENSILE_METRIC, TENSILE_NAIVE_SEARCH, ...): the reference
# in its environment, rocpath through `explain gemm --env`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
n=10000; seed=1; gen=(); devices=(); tgit=; rsrc=; envs=(); switches=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --tensile-git) tgit=$2; shift 2 ;;
    --rocblas-src) rsrc=$2; shift 2 ;;
    --api|--types|--trans|--batch) gen+=("$1=$2"); shift 2 ;;
    --env) envs+=(--env "$2"); switches+="${switches:+;}$2"; shift 2 ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) devices+=("$1"); shift ;;
  esac
done
[ ${#devices[@]} -gt 0 ] || devices=(gfx900:64 gfx906:60 gfx90a:104 gfx1100:96)
commit=be49885fce2a61b600ae4593f1c2d00c8b4fa11e
[ -n "$tgit" ] && git -C "$tgit" cat-file -e "$commit^{commit}" 2>/dev/null \
  || { echo "--tensile-git: give a clone of https://github.com/ROCm/Tensile that has $commit" >&2; exit 2; }
host=$rsrc/library/src/tensile_host.cpp
[ -f "$host" ] || { echo "--rocblas-src: no $host (rocBLAS 6.4.4 source: Debian's rocblas_6.4.4.orig.tar.gz)" >&2; exit 2; }
[ -f /usr/include/msgpack.hpp ] || { echo "msgpack-c headers missing: apt-get install libmsgpack-cxx-dev" >&2; exit 2; }
lib=${ROCPATH_CORPUS:-$HOME/.cache/rocpath-corpus}/unpacked/librocblas4/usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library
[ -d "$lib" ] || { echo "no $lib: run ../shared/tools/fetch-debian-rocm.sh with librocblas4" >&2; exit 2; }
out=$root/target/oracle/tensile
if [ ! -d "$out/src/$commit" ]; then
  mkdir -p "$out/src/$commit"
  git -C "$tgit" archive "$commit" Tensile/Source/lib | tar -x -C "$out/src/$commit"
fi
make -s -j2 -C "$here" OUT="$out" TENSILE="$out/src/$commit/Tensile/Source/lib" TENSILE_HOST="$host" >/dev/null
cargo build -q --release -p rocpath --manifest-path "$root/Cargo.toml"
status=0
for d in "${devices[@]}"; do
  proc=${d%%:*}; cus=${d##*:}; w=$out/$proc-$cus-$seed
  python3 "$here/gen.py" -n "$n" --seed "$seed" "${gen[@]}" > "$w.problems.tsv"
  ORACLE_SWITCHES="$switches" "$out/oracle" "$lib" "$proc" "$cus" < "$w.problems.tsv" > "$w.reference.tsv" 2> "$w.reference.err" \
    || { echo "the reference failed; see $w.reference.err:" >&2; tail -3 "$w.reference.err" >&2; exit 2; }
  "$root/target/release/rocpath" explain gemm "$lib" --target "$proc" --cu "$cus" "${envs[@]}" \
    --problems "$w.problems.tsv" --tsv > "$w.rocpath.tsv" 2> "$w.rocpath.err" || true
  echo "== $proc ($cus CUs), $n calls, seed $seed ${gen[*]} ${switches:+env $switches}"
  python3 "$here/../compare.py" tensile "$w.problems.tsv" "$w.reference.tsv" "$w.rocpath.tsv" || status=1
done
exit $status
