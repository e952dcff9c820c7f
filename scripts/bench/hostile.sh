#!/usr/bin/env bash
# Max RSS of rocpath on the hostile inputs of BENCHMARKS.md ("Hostile inputs and the memory
# budget"). Usage: scripts/bench/hostile.sh ROCPATH_BINARY [SCRATCH]
# Needs python3, zstd, ar, GNU time, and ../shared (or ROCPATH_SHARED) for the code object.
# Every run is capped at an address space of 6-8 GB (ulimit -v) so that a binary without the
# limits fails instead of taking the machine: "rc=134" with an RSS at the cap means "more".
set -uo pipefail
bin=$(realpath "$1"); out=${2:-/tmp/rocpath-hostile}
here=$(cd "$(dirname "$0")/../.." && pwd)
shared=${ROCPATH_SHARED:-$here/../shared}
mkdir -p "$out/par" && cd "$out"
python3 - "$shared/fixtures/codeobjects/ggml-hip-0.27.0_bundle009_gfx906.co" <<'PY'
import struct, subprocess, sys
co = open(sys.argv[1], 'rb').read()
y = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for p, n in zip("abcdefgh", "bcdefghi"):
    y += '%s: &%s [%s]\n' % (n, n, ','.join(['*' + p] * 9))
open('TensileLibrary_bomb.yaml', 'w').write(y)
def bundle(n):
    i = b'hipv4-amdgcn-amd-amdhsa--gfx906'
    off = (32 + n * (24 + len(i)) + 4095) // 4096 * 4096
    h = b'__CLANG_OFFLOAD_BUNDLE__' + struct.pack('<Q', n)
    h += (struct.pack('<QQQ', off, len(co), len(i)) + i) * n
    return h + b'\0' * (off - len(h)) + co
open('shared4k.hipfb', 'wb').write(bundle(4000))
open('shared60k.hipfb', 'wb').write(bundle(60000))
def ccob(size):
    z = subprocess.run(['sh', '-c', 'head -c %d /dev/zero | zstd -19 -q -c' % size],
                       capture_output=True, check=True).stdout
    return b'CCOB' + struct.pack('<HHQQQ', 3, 1, 32 + len(z), size, 0) + z
open('bomb4g.hipfb', 'wb').write(ccob(4 << 30))
c = ccob(900 << 20)
for k in range(3):
    open('par/ccob%d.hipfb' % k, 'wb').write(c)
open('trunc_last.co', 'wb').write(co[:-1])
n = 4_000_000
open('TensileLibrary_empty.dat', 'wb').write(b'\x81\xa9solutions\xdd' + struct.pack('>I', n) + b'\x80' * n)
PY
measure() { # LABEL VLIMIT_KB ARGS...
  local label=$1 lim=$2; shift 2
  ( ulimit -v "$lim"; timeout 300 /usr/bin/time -o time.txt -f "%M %e" "$bin" "$@" >stdout.txt 2>stderr.txt )
  local rc=$?
  read -r rss wall < <(tail -1 time.txt)
  printf '%-42s rc=%-3s max RSS %6d MB  %6ss  stdout %s B\n' "$label" "$rc" $((rss / 1024)) "$wall" "$(wc -c <stdout.txt)"
}
measure "inventory TensileLibrary_bomb.yaml" 4000000 inventory TensileLibrary_bomb.yaml
measure "--json isa shared4k.hipfb" 6000000 --json isa shared4k.hipfb
measure "--json isa shared60k.hipfb" 7000000 --json isa shared60k.hipfb
measure "--json inventory shared60k.hipfb" 7000000 --json inventory shared60k.hipfb
measure "inventory bomb4g.hipfb" 8000000 inventory bomb4g.hipfb
measure "--threads 2 inventory par (3 x 900 MiB)" 8000000 --threads 2 inventory par
measure "inventory TensileLibrary_empty.dat" 8000000 inventory TensileLibrary_empty.dat
measure "check --target gfx906 trunc_last.co" 8000000 check --target gfx906 trunc_last.co
if [ ! -d led ]; then
  # An inventory-shaped document of 4,000 code objects with 60 kernels each (~80 MB).
  python3 - <<'PY'
import json
ev = {"class": "confirmed", "kind": "shipped_artifact_verified", "rule": "inventory.codeobj_present",
      "sources": [{"path": "lib.so", "member": "hip_fatbin"}]}
k = {"name": "k", "symbol": "k.kd", "sgpr_count": 20, "vgpr_count": 32, "agpr_count": 0,
     "wavefront_size": 64, "group_segment_fixed_size": 0, "private_segment_fixed_size": 0,
     "kernarg_segment_size": 64, "max_flat_workgroup_size": 256}
cos = [{"path": "lib.so", "container": "hip_fatbin > bundle#%d" % i, "target_id": "gfx906",
        "offset": i, "kernels": [dict(k, name="k%d" % j) for j in range(60)], "evidence": ev}
       for i in range(4000)]
doc = {"schema": "rocpath.inventory/1", "observed": {"tool": "rocpath", "version": "0.1.0",
       "command": "rocpath --json inventory lib.so", "time": "2026-11-23T00:00:00Z", "host": "h",
       "schema": "rocpath.inventory/1"}, "code_objects": cos}
json.dump(doc, open("inv-big.json", "w"), indent=2)
PY
  "$bin" ledger init led >/dev/null
  "$bin" ledger import led inv-big.json --as big >/dev/null
  "$bin" ledger add-claim led --id c1 --class confirmed --kind shipped_artifact_verified \
    --world gfx906 --floor math_library --layer build --en "gfx906 code" --support 'big?target_id=gfx906' >/dev/null
fi
measure "ledger check ($(du -m led/observations | cut -f1) MB of observations)" 16000000 ledger check led
