#!/usr/bin/env bash
# Site build benchmark: generates ledgers of 1,000 / 10,000 / 100,000 claims (with N/10 cases,
# each with its own case observation, N/20 questions and N/100 isa observations) and times
# `rocpath site build` and `rocpath ledger check` on each (release build; wall time, CPU time
# (user + sys) and max RSS of the build; wall time of the check).
# Usage: scripts/bench/ledger-site.sh [N...]   (default: 1000 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet -p rocpath
cargo build --release --quiet -p rocpath-site --example gen_ledger
T=${CARGO_TARGET_DIR:-target}/release
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf '%-8s %-7s %-13s %-8s %-6s %-9s %-11s %-9s %-8s\n' claims cases observations files MB build_s build_cpu_s build_MB check_s
for N in "${@:-1000 10000 100000}"; do
  for n in $N; do
    "$T/examples/gen_ledger" "$W/l$n" "$n"
    obs=$(ls "$W/l$n/observations" | wc -l)
    sync
    /usr/bin/time -f '%e %U %S %M' -o "$W/t" "$T/rocpath" -q site build "$W/l$n" -o "$W/s$n" > /dev/null
    read -r build_s build_user build_sys build_kb < "$W/t"
    files=$(find "$W/s$n" -type f | wc -l)
    mb=$(du -sm "$W/s$n" | cut -f1)
    /usr/bin/time -f '%e %M' -o "$W/t" "$T/rocpath" -q ledger check "$W/l$n" > /dev/null || true
    read -r check_s _ < "$W/t"
    cpu=$(awk "BEGIN { print $build_user + $build_sys }")
    printf '%-8s %-7s %-13s %-8s %-6s %-9s %-11s %-9s %-8s\n' "$n" $((n / 10)) "$obs" "$files" "$mb" "$build_s" "$cpu" $((build_kb / 1024)) "$check_s"
    rm -rf "$W/l$n" "$W/s$n"
  done
done
