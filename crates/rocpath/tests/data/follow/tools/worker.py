import argparse
import os


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gpu-layers", type=int, default=0)
    args = p.parse_args()
    use(args.gpu_layers)


def use(layers):
    if layers > 0:
        print("gpu")
    total = layers + 1
    return total


def env():
    v = os.environ.get("TEST_GPU_LAYERS")
    return v


def read(opts):
    g = opts["num_gpu"]
    return g
