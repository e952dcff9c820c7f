#!/usr/bin/env python3
"""Random convolution problems as MIOpen find-db keys (`ProblemDescription::Serialize`), one per
line, for the TunaNet oracle and `rocpath explain miopen --problems`-style checks.

Mostly what TunaNet takes (2-D NCHW, FP32/FP16/BF16, square filters, equal strides), with a
share of what it refuses (3-D, NHWC, INT8, unequal strides or dilations, groups, bias)."""
import argparse
import random


def out_size(i, p, f, s, d):
    return (i + 2 * p - d * (f - 1) - 1) // s + 1


def one(r):
    dims = 3 if r.random() < 0.08 else 2
    c = r.choice([1, 3, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048])
    k = r.choice([8, 16, 32, 64, 80, 128, 256, 512, 1024, 2048])
    n = r.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
    f = r.choice([1, 1, 3, 3, 3, 5, 7])
    fh, fw = f, f if r.random() > 0.1 else r.choice([1, 3, 5])
    s = r.choice([1, 1, 1, 2])
    sh, sw = s, s if r.random() > 0.05 else 3 - s
    d = 1 if r.random() > 0.1 else 2
    dh, dw = d, d if r.random() > 0.05 else 1
    ph, pw = fh // 2 * dh, fw // 2 * dw
    h = r.choice([7, 14, 17, 28, 35, 56, 73, 112, 224])
    w = h if r.random() > 0.2 else r.choice([7, 14, 28, 56, 100])
    g = 1
    if r.random() < 0.1:
        g = r.choice([2, 4])
        c, k = c * g, k * g
    if r.random() < 0.03:
        g = c = k
    layout = "NCHW" if dims == 2 else "NCDHW"
    if r.random() < 0.1:
        layout = "NHWC" if dims == 2 else "NDHWC"
    ty = r.choice(["FP32"] * 4 + ["FP16"] * 3 + ["BF16"] * 2 + ["INT8"])
    bias = 1 if r.random() < 0.03 else 0
    direction = r.choice("FBW")
    ho, wo = out_size(h, ph, fh, sh, dh), out_size(w, pw, fw, sw, dw)
    if ho < 1 or wo < 1:
        return None
    if dims == 3:
        dd = r.choice([4, 8, 16])
        fd = r.choice([1, 3])
        do = out_size(dd, fd // 2, fd, 1, 1)
        x = (c, f"{dd}-{h}-{w}")
        y = (k, f"{do}-{ho}-{wo}")
        fil, pad, st, dl = f"{fd}x{fh}x{fw}", f"{fd//2}x{ph}x{pw}", f"1x{sh}x{sw}", f"1x{dh}x{dw}"
    else:
        x, y = (c, f"{h}-{w}"), (k, f"{ho}-{wo}")
        fil, pad, st, dl = f"{fh}x{fw}", f"{ph}x{pw}", f"{sh}x{sw}", f"{dh}x{dw}"
    # The problem's `in` is x for forward; dy for the backward directions.
    i, o = (x, y) if direction == "F" else (y, x)
    key = f"{i[0]}-{i[1]}-{fil}-{o[0]}-{o[1]}-{n}-{pad}-{st}-{dl}-{bias}-{layout}"
    if layout in ("NHWC", "NDHWC"):
        key += f"-{layout}-{layout}"
    key += f"-{ty}-{direction}"
    if g != 1:
        key += f"_g{g}"
    return key


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    seen, out = set(), []
    while len(out) < a.n:
        k = one(r)
        if k and k not in seen:
            seen.add(k)
            out.append(k)
    print("\n".join(out))


if __name__ == "__main__":
    main()
