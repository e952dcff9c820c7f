#!/usr/bin/env python3
"""Saved images of the machine layouts users have, for `rocpath survey --root`: a GPU server
whose torch lives in a venv outside the homes (first on PATH, an NVIDIA GPU), a ROCm PyTorch
container (conda environments in /opt/conda/envs, an MI300 node), a workstation with pyenv and
a venv seven folders down under /data, and a node with ROCm's own Python wheels (TheRock).
The GPU code is the project's example library (examples/data); everything else is written here.

Usage: survey-layouts.py OUT_DIR   (one image per folder in OUT_DIR)
"""
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DNN = os.path.join(ROOT, "examples/data/install/opt/rocm-example/lib/libexample_dnn.so.1.1")


def put(img, path, text=""):
    p = os.path.join(img, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def link(img, path, target):
    p = os.path.join(img, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    os.symlink(target, p)


def system_python(img):
    put(img, "/usr/bin/python3.12")
    link(img, "/usr/bin/python3", "python3.12")
    put(img, "/usr/lib/python3.12/os.py")
    os.makedirs(os.path.join(img, "usr/lib/python3/dist-packages"), exist_ok=True)


def venv(img, prefix, home="/usr/bin"):
    put(img, f"{prefix}/pyvenv.cfg", f"home = {home}\ninclude-system-site-packages = false\n")
    link(img, f"{prefix}/bin/python3", f"{home}/python3")


def torch(img, sp, version, rocm=True):
    lib = os.path.join(img, sp.lstrip("/"), "torch/lib")
    os.makedirs(lib, exist_ok=True)
    if rocm:
        shutil.copy(DNN, os.path.join(lib, "libtorch_hip.so"))
        put(img, f"{sp}/torch/lib/libamdhip64.so")
    else:
        put(img, f"{sp}/torch/lib/libc10_cuda.so")
        put(img, f"{sp}/torch/lib/libtorch_cpu.so")
    put(img, f"{sp}/torch/version.py", f"__version__ = '{version}'\n")


def gpu(img, node, version, simds):
    put(img, f"/sys/class/kfd/kfd/topology/nodes/{node}/properties",
        f"cpu_cores_count 0\nsimd_count {simds}\nsimd_per_cu 4\ngfx_target_version {version}\n")


def gpu_server(img):
    put(img, "/etc/environment", 'PATH="/opt/torch/.venv/bin:/usr/local/bin:/usr/bin:/bin"\n')
    put(img, "/etc/hostname", "gpu-server\n")
    put(img, "/etc/os-release", 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\n')
    put(img, "/sys/class/drm/card0/device/vendor", "0x10de\n")
    put(img, "/sys/class/drm/card0/device/device", "0x2330\n")
    put(img, "/sys/class/drm/card0/device/class", "0x030200\n")
    put(img, "/proc/driver/nvidia/gpus/0000:41:00.0/information", "Model: \t\t NVIDIA H100 80GB HBM3\n")
    system_python(img)
    venv(img, "/opt/torch/.venv")
    torch(img, "/opt/torch/.venv/lib/python3.12/site-packages", "2.11.0+cu128", rocm=False)
    for i in range(60):  # unrelated deep folders: the walk's limit is met, not the answer
        os.makedirs(os.path.join(img, f"home/ubuntu/data/run{i:02}/a/b/c/d/e/f/g"), exist_ok=True)


def rocm_container(img):
    put(img, "/etc/hostname", "mi300-node\n")
    gpu(img, 1, 90402, 1216)
    os.makedirs(os.path.join(img, "opt/conda/conda-meta"), exist_ok=True)
    os.makedirs(os.path.join(img, "opt/conda/lib/python3.10/site-packages"), exist_ok=True)
    os.makedirs(os.path.join(img, "opt/conda/envs/py_3.10/conda-meta"), exist_ok=True)
    torch(img, "/opt/conda/envs/py_3.10/lib/python3.10/site-packages", "2.6.0+rocm6.4.1")
    put(img, "/etc/environment", 'PATH="/opt/conda/envs/py_3.10/bin:/opt/conda/bin:/usr/bin:/bin"\n')
    put(img, "/opt/conda/envs/py_3.10/bin/python3.10")
    link(img, "/opt/conda/envs/py_3.10/bin/python3", "python3.10")
    put(img, "/opt/conda/envs/py_3.10/lib/python3.10/os.py")


def workstation(img):
    put(img, "/etc/hostname", "rdna3-desk\n")
    gpu(img, 1, 110000, 192)
    system_python(img)
    put(img, "/etc/environment", 'PATH="/home/ana/.pyenv/shims:/usr/local/bin:/usr/bin:/bin"\n')
    put(img, "/home/ana/.pyenv/shims/python3", "#!/usr/bin/env bash\n")
    put(img, "/home/ana/.pyenv/version", "3.11.9\n")
    put(img, "/home/ana/.pyenv/versions/3.11.9/lib/python3.11/os.py")
    torch(img, "/home/ana/.pyenv/versions/3.11.9/lib/python3.11/site-packages", "2.7.1+rocm6.3")
    venv(img, "/data/projects/llm/exp/2025/q4/ft/venv")
    torch(img, "/data/projects/llm/exp/2025/q4/ft/venv/lib/python3.12/site-packages", "2.8.0+rocm6.4")


def therock(img):
    put(img, "/etc/hostname", "rock-node\n")
    gpu(img, 1, 120001, 128)
    system_python(img)
    sp = "/workspace/rock/.venv/lib/python3.12/site-packages"
    venv(img, "/workspace/rock/.venv")
    for d in ["rocm-7.10.0.dist-info", "rocm_sdk_core-7.10.0.dist-info",
              "rocm_sdk_libraries-7.10.0.dist-info", "rocm_sdk_device_gfx942-7.10.0.dist-info",
              "rocm_sdk", "_rocm_sdk_core", "_rocm_sdk_libraries", "_rocm_sdk_device_gfx942"]:
        os.makedirs(os.path.join(img, sp.lstrip("/"), d), exist_ok=True)
    torch(img, sp, "2.10.0+rocm7.10.0")
    put(img, f"{sp}/torch/_rocm_init.py",
        "def initialize():\n  import rocm_sdk\n  rocm_sdk.initialize_process(preload_shortnames=['amdhip64','miopen'], check_version='7.10.0')\n")


def main():
    out = sys.argv[1]
    for name, build in [("gpu-server", gpu_server), ("rocm-container", rocm_container),
                        ("workstation", workstation), ("therock", therock)]:
        img = os.path.join(out, name)
        shutil.rmtree(img, ignore_errors=True)
        os.makedirs(img)
        build(img)
        print(img)


if __name__ == "__main__":
    main()
