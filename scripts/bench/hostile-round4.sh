#!/usr/bin/env bash
# Time, peak memory and exit status of rocpath on the hostile inputs of BENCHMARKS.md
# ("Hardening, round four"): ignore files, damaged git objects, symlink-loop roots, containers
# whose names share one payload, a generated 50 MB source file, and --max-time.
# Usage: scripts/bench/hostile-round4.sh ROCPATH_BINARY [SCRATCH]
# Needs python3, git, mkfifo and GNU time. Each run is capped at 300 s and 6 GB of address space.
set -uo pipefail
bin=$(realpath "$1"); out=${2:-/tmp/rocpath-hostile4}
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"; mkdir -p "$out" && cd "$out"
gate='bool ok(const std::string& arch) { return arch == "gfx900"; }'
checkout() { mkdir -p "$1/src"; echo "$gate" > "$1/src/a.cpp"; }
# Ignore files: a FIFO at the root, a FIFO in a subfolder, 300,000 patterns.
checkout fifo-root; mkfifo fifo-root/.gitignore
checkout fifo-sub; mkdir -p fifo-sub/sub; mkfifo fifo-sub/sub/.gitignore
checkout huge-ignore
python3 -c "import sys; sys.stdout.write(''.join('dir%d/*.tmp%d\n' % (i, i) for i in range(300000)))" > huge-ignore/.gitignore
# A repository whose loose objects are cut short.
checkout cut-objects
( cd cut-objects && git init -q && git add . && git -c user.name=n -c user.email=e@x commit -qm one \
  && for o in $(find .git/objects -type f); do chmod u+w "$o"; truncate -s 10 "$o"; done )
# A checkout root that is a symlink loop.
ln -s loop loop
# A generated Go file of 50 MB that names the value on every line.
mkdir -p gen/src
python3 - <<'PY'
with open('gen/src/gen.go', 'w') as f:
    f.write('package gen\n\nvar table = map[string]int{\n')
    n, i = 0, 0
    while n < 50_000_000:
        line = '\t"key_%d": %d, // numGPU\n' % (i, i)
        f.write(line); n += len(line); i += 1
    f.write('}\n\nfunc Get(numGPU int) int { return table["x"] + numGPU }\n')
PY
# A Go file nested 200,000 blocks deep that names the value at the bottom.
mkdir -p deep/src
python3 -c "import sys; sys.stdout.write('package p\nfunc G() {\n' + 'if true {\n' * 200000 + 'numGPU := 1\n_ = numGPU\n' + '}\n' * 200000 + '}\n')" > deep/src/deep.go
echo 'package p
func F(numGPU int) int { return numGPU }' > deep/src/ok.go
# An AKS2 image whose 20,000 names point at one code object, and a zip whose 20,000 central
# entries name one local header.
co=$here/examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco
python3 - "$co" <<'PY'
import lzma, struct, sys, zlib
co = open(sys.argv[1], 'rb').read()
d = b''
for i in range(20000):
    name = b'k%d;;#F/P/CO/gfx1100' % i
    d += struct.pack('<5I', 64, 256, 0, len(co), len(name) + 1) + name + b'\0'
content = d + co
xz = lzma.compress(content, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
open('shared.aks2', 'wb').write(b'AKS2' + struct.pack('<3I', len(content), 20000, len(d)) + xz)
name = b'lib/Kernels.so-000-gfx1100.hsaco'; crc = zlib.crc32(co)
z = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, crc, len(co), len(co), len(name), 0) + name + co
cd = b''
for i in range(20000):
    alias = b'lib/copy%05d.hsaco' % i
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, crc, len(co), len(co),
                      len(alias), 0, 0, 0, 0, 0, 0) + alias
z2 = z + cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 20000, 20000, len(cd), len(z), 0)
open('overlap.zip', 'wb').write(z2)
PY
MEASURE_TIMEOUT=300
# shellcheck source=measure.sh
source "$here/scripts/bench/measure.sh"
for cmd in "gates" "follow --no-cache --from gfx900"; do
  for dir in fifo-root fifo-sub huge-ignore loop; do
    # shellcheck disable=SC2086
    measure "$cmd $dir" $cmd "$dir"
  done
done
measure "gates --blame cut-objects" gates --blame cut-objects
measure "follow a 50 MB generated Go file (--max-file-bytes 100000000)" follow --no-cache --from numGPU --max-file-bytes 100000000 gen
measure "follow: a Go file nested 200,000 blocks deep" follow --no-cache --from numGPU deep
measure "inventory: AKS2, 20,000 names over one image" inventory shared.aks2
measure "inventory: zip, 20,000 members over one local header" inventory overlap.zip
measure "inventory --max-time 1s of a 50 MB source tree and the containers" --max-time 1s inventory gen shared.aks2 overlap.zip
