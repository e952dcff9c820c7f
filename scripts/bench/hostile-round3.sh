#!/usr/bin/env bash
# Time, peak memory and exit status of rocpath on the hostile inputs of BENCHMARKS.md
# ("Hardening, round three"). Usage: scripts/bench/hostile-round3.sh ROCPATH_BINARY [SCRATCH]
# Needs python3, mkfifo and GNU time. Each run is capped at 120 s (timeout) and 6 GB of
# address space (ulimit -v), so a binary without the bounds fails instead of taking the machine.
set -uo pipefail
bin=$(realpath "$1"); out=${2:-/tmp/rocpath-hostile3}
scripts=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"; mkdir -p "$out" && cd "$out"
mkfifo fifo.json
printf '1234  openat(AT_FDCWD, "/opt/rocm/lib/librocblas.so.4", O_RDONLY|O_CLOEXEC) = 3\n' > small.strace
# A CSV kernel trace with 2 million distinct kernel names.
python3 - <<'PY'
import sqlite3
with open('k_kernel_trace.csv', 'w') as f:
    f.write('"Kind","Agent_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n')
    for i in range(2_000_000):
        f.write('"KERNEL_DISPATCH",1,%d,"kernel_%d_%s",%d,%d\n' % (i, i, 'x' * 40, 2 * i, 2 * i + 1))
c = sqlite3.connect('endless.db')
c.executescript("CREATE TABLE rocpd_metadata(tag TEXT, value TEXT);"
                "CREATE VIEW rocpd_kernel_dispatch AS WITH RECURSIVE n(x) AS "
                "(SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS id, 'g' AS guid, x AS kernel_id, "
                "1 AS agent_id, x AS start, x + 1 AS \"end\", 0 AS group_segment_size, "
                "0 AS private_segment_size FROM n;")
c.commit()
PY
# A "python" that floods stdout, and one that never ends.
printf '#!/bin/sh\nexec head -c 3000000000 /dev/zero\n' > flood-python; chmod +x flood-python
printf '#!/bin/sh\nexec sleep 600\n' > hang-python; chmod +x hang-python
"$bin" ledger init L > /dev/null
# shellcheck source=measure.sh
source "$scripts/measure.sh"
for src in /dev/zero fifo.json; do
  measure "ledger import $src" ledger import L "$src"
  measure "study build $src" study build "$src" -o o
  measure "explain --compare $src" explain --compare "$src"
  measure "explain miopen --model $src" explain miopen --target gfx900 --model "$src" --problem 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F
  measure "strace --rocblas-trace $src" strace small.strace --rocblas-trace "$src"
  measure "diff $src" diff "$src" "$src"
done
measure "trace: 2 M distinct kernel names (CSV)" trace k_kernel_trace.csv
measure "trace: rocpd view recursing without end" trace endless.db
measure "inventory --python: stdout flood (3 GB)" inventory --python ./flood-python .
measure "inventory --python: never exits" inventory --python ./hang-python .
