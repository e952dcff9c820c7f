#!/usr/bin/env bash
# The large real tree of BENCHMARKS.md's survey figures, as a saved machine image: Debian's ROCm
# packages unpacked as installed (the corpus folder ../shared/tools/fetch-debian-rocm.sh fills,
# hard-linked, so no space is used twice) and a venv first on PATH with torch, numpy and jax's
# ROCm 7 plugin and PJRT wheels from PyPI; one gfx90a KFD node.
# Usage: survey-big-tree.sh OUT_DIR   then: /usr/bin/time -f "%e s %M KB" rocpath survey --root OUT_DIR
set -euo pipefail
out=$1
corpus=${ROCPATH_CORPUS:-$HOME/.cache/rocpath-corpus}
rm -rf "$out" && mkdir -p "$out"
for p in "$corpus"/unpacked/*; do cp -al "$p/." "$out/" 2>/dev/null || cp -a "$p/." "$out/"; done
mkdir -p "$out"/{etc,usr/bin,usr/lib/python3.12,opt/ml/.venv/bin,opt/ml/.venv/lib/python3.12/site-packages} \
  "$out/sys/class/kfd/kfd/topology/nodes/1"
echo 'PATH="/opt/ml/.venv/bin:/usr/local/bin:/usr/bin:/bin"' > "$out/etc/environment"
echo gpu-node-07 > "$out/etc/hostname"
: > "$out/usr/bin/python3.12"; ln -sf python3.12 "$out/usr/bin/python3"; : > "$out/usr/lib/python3.12/os.py"
printf 'home = /usr/bin\ninclude-system-site-packages = false\n' > "$out/opt/ml/.venv/pyvenv.cfg"
ln -sf /usr/bin/python3 "$out/opt/ml/.venv/bin/python3"
printf 'cpu_cores_count 0\nsimd_count 416\nsimd_per_cu 4\ngfx_target_version 90010\n' \
  > "$out/sys/class/kfd/kfd/topology/nodes/1/properties"
wheels=$(mktemp -d)
pip download -q --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
  -d "$wheels" torch numpy jax-rocm7-plugin jax-rocm7-pjrt
for w in "$wheels"/*.whl; do python3 -m zipfile -e "$w" "$out/opt/ml/.venv/lib/python3.12/site-packages"; done
rm -rf "$wheels"
echo "$out"
