# Sourced by the hostile-input scripts: `measure LABEL ARGS...` runs "$bin" --no-progress ARGS
# under `timeout $MEASURE_TIMEOUT` (default 120 s) and 6 GB of address space, and prints the
# label, wall time, peak memory, exit status and the end of what it said on stderr.
measure() {
  local label=$1; shift
  ( ulimit -v 6000000; /usr/bin/time -f "%e %M" -o t.txt timeout "${MEASURE_TIMEOUT:-120}" "$bin" --no-progress "$@" > /dev/null 2> err.txt )
  local rc=$?
  read -r secs kb < <(tail -n 1 t.txt 2>/dev/null) || true
  [[ $kb =~ ^[0-9]+$ ]] || kb=0
  printf '%s\t%s s\t%s MB\trc=%s\t%s\n' "$label" "$secs" "$(( ${kb:-0} / 1024 ))" "$rc" "$(grep -v '^Command' err.txt | tail -c 200 | tr '\n' ' ')"
}
