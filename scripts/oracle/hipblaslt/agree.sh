#!/usr/bin/env bash
# Agreement of `rocpath explain gemm` with hipBLASLt 7.1.1 itself on Debian's libhipblaslt1.
#   scripts/oracle/hipblaslt/agree.sh [-n N] [--seed S] [--types LIST] [--trans LIST] [--batch LIST]
#                                     [--bias LIST] [--act LIST] [DEVICE...]
# DEVICE is PROCESSOR:CUS (default gfx1201:64 gfx1100:96 gfx90a:104). Needs the corpus that
# ../shared/tools/fetch-debian-rocm.sh fills ($ROCPATH_CORPUS, default ~/.cache/rocpath-corpus),
# gcc/g++ and python3. Work files go to target/oracle/hipblaslt. See README.md beside this file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
n=10000; seed=1; gen=(); devices=()
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --types|--trans|--batch|--bias|--act) gen+=("$1=$2"); shift 2 ;;
    -h|--help) sed -n 2,8p "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) devices+=("$1"); shift ;;
  esac
done
[ ${#devices[@]} -gt 0 ] || devices=(gfx1201:64 gfx1100:96 gfx90a:104)
corpus=${ROCPATH_CORPUS:-$HOME/.cache/rocpath-corpus}
usr=$corpus/unpacked/libhipblaslt1/usr/lib/x86_64-linux-gnu
lib=$usr/libhipblaslt.so.1.1
[ -f "$lib" ] || { echo "no $lib: run ../shared/tools/fetch-debian-rocm.sh $corpus libhipblaslt1" >&2; exit 2; }
# Debian libhipblaslt1 7.1.1+dfsg-4 (amd64): the binary the answers come from.
want=0e621a6a494d1a41d5f88562c81128618d9871963a153d7cc930d1659877aecb
got=$(sha256sum "$lib" | cut -d' ' -f1)
[ "$got" = "$want" ] || { echo "$lib has sha256 $got, not Debian 7.1.1+dfsg-4's $want" >&2; exit 2; }
out=$root/target/oracle/hipblaslt
make -s -C "$here" OUT="$out" DEBLIB="$lib" >/dev/null
cargo build -q --release -p rocpath --manifest-path "$root/Cargo.toml"
rocpath=$root/target/release/rocpath
status=0
for d in "${devices[@]}"; do
  proc=${d%%:*}; cus=${d##*:}; w=$out/$proc-$cus-$seed
  python3 "$here/gen.py" -n "$n" --seed "$seed" "${gen[@]}" > "$w.problems.tsv"
  HIPBLASLT_TENSILE_LIBPATH=$usr/hipblaslt/library ORACLE_ARCH=$proc ORACLE_CUS=$cus \
    LD_LIBRARY_PATH=$out LD_PRELOAD=$out/liboracleshim.so "$out/binref" "$usr/hipblaslt/library" "$proc" "$cus" \
    < "$w.problems.tsv" > "$w.reference.tsv" 2> "$w.reference.err" \
    || { echo "the reference failed; see $w.reference.err:" >&2; tail -3 "$w.reference.err" >&2; exit 2; }
  "$rocpath" explain gemm "$usr/hipblaslt/library" --library hipblaslt --target "$proc" --cu "$cus" \
    --problems "$w.problems.tsv" --tsv > "$w.rocpath.tsv" 2> "$w.rocpath.err" || true
  echo "== $proc ($cus CUs), $n problems, seed $seed ${gen[*]}"
  python3 "$here/../compare.py" hipblaslt "$w.problems.tsv" "$w.reference.tsv" "$w.rocpath.tsv" || status=1
done
exit $status
