#!/usr/bin/env python3
"""Write N random GEMM problems in the oracle's input format (TSV with header) to stdout.

Sizes: m, n, k log-uniform in 1..8192, plus (with probability --odd) a small or odd size
(1..64, a power of two +-1, or a multiple of 8 +-1..3). Leading dimensions are the minimum
rocBLAS accepts (lda >= m for A=N, >= k otherwise; ldb >= k for B=N, >= n otherwise;
ldc = ldd = m), optionally padded (--pad). Strides for *_strided_batched* are the packed matrix
sizes (ld * columns); other APIs get 0 (the oracle replaces them by what the entry point uses).

Examples:
  gen.py -n 100000 --api gemm --types f32 --trans NN > sgemm_nn.tsv
  gen.py -n 1000 --api gemm_ex --types f16,f16,f16,f16,f32 --trans random > hpa.tsv
  gen.py -n 1000 --api gemm_strided_batched --types f64 --batch 1,64 > d_sb.tsv
"""
import argparse
import math
import random
import sys

COLS = ["id", "api", "a_type", "b_type", "c_type", "d_type", "compute_type", "trans_a",
        "trans_b", "m", "n", "k", "lda", "ldb", "ldc", "ldd", "stride_a", "stride_b",
        "stride_c", "stride_d", "batch_count", "alpha", "beta", "flags", "math_mode"]

APIS = ["gemm", "gemm_strided_batched", "gemm_batched", "gemm_ex", "gemm_strided_batched_ex",
        "gemm_batched_ex"]

# Shorthands for the standard rocBLAS combinations (a, b, c, d, compute).
SHORT = {
    "s": "f32", "sgemm": "f32", "d": "f64", "dgemm": "f64", "h": "f16", "hgemm": "f16",
    "c": "c32", "cgemm": "c32", "z": "c64", "zgemm": "c64",
    "hpa": "f16,f16,f16,f16,f32", "hss": "f16,f16,f32,f32,f32",
    "bf16": "bf16,bf16,bf16,bf16,f32", "bss": "bf16,bf16,f32,f32,f32",
    "i8": "i8,i8,i32,i32,i32",
}


def size(rng, lo, hi, odd_p):
    if rng.random() < odd_p:
        kind = rng.randrange(3)
        if kind == 0:
            v = rng.randint(1, 64)
        elif kind == 1:
            v = 2 ** rng.randint(1, 13) + rng.choice([-1, 1])
        else:
            v = 8 * rng.randint(1, hi // 8) + rng.choice([-3, -2, -1, 1, 2, 3])
        return max(lo, min(hi, v))
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="number of problems")
    ap.add_argument("--api", default="gemm", help="one of %s, or 'random'" % ", ".join(APIS))
    ap.add_argument("--types", default="f32",
                    help="a,b,c,d,compute or one type for all five, or a shorthand: "
                         + ", ".join(SHORT))
    ap.add_argument("--trans", default="random",
                    help="two letters from N/T/C (e.g. NT), or 'random' (N/T), "
                         "or 'random3' (N/T/C)")
    ap.add_argument("--min", type=int, default=1, dest="lo")
    ap.add_argument("--max", type=int, default=8192, dest="hi")
    ap.add_argument("--odd", type=float, default=0.2,
                    help="probability that a dimension is a small/odd size")
    ap.add_argument("--batch", default="1,1",
                    help="lo,hi batch_count (log-uniform) for batched APIs")
    ap.add_argument("--alpha", default="1", help="comma list to choose from")
    ap.add_argument("--beta", default="0", help="comma list to choose from")
    ap.add_argument("--flags", default="0")
    ap.add_argument("--math-mode", default="0")
    ap.add_argument("--pad", type=int, default=0,
                    help="with probability 1/2 add 0..PAD to each leading dimension")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--id-prefix", default="p")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    t = SHORT.get(args.types, args.types).split(",")
    if len(t) == 1:
        t = t * 5
    if len(t) != 5:
        sys.exit("--types needs 1 or 5 comma-separated types")
    blo, bhi = (int(x) for x in args.batch.split(","))
    alphas = args.alpha.split(",")
    betas = args.beta.split(",")

    out = sys.stdout
    out.write("\t".join(COLS) + "\n")
    for i in range(args.n):
        api = rng.choice(APIS) if args.api == "random" else args.api
        if args.trans == "random":
            ta, tb = rng.choice("NT"), rng.choice("NT")
        elif args.trans == "random3":
            ta, tb = rng.choice("NTC"), rng.choice("NTC")
        else:
            ta, tb = args.trans[0], args.trans[1]
        m = size(rng, args.lo, args.hi, args.odd)
        n = size(rng, args.lo, args.hi, args.odd)
        k = size(rng, args.lo, args.hi, args.odd)

        def pad():
            return rng.randint(0, args.pad) if args.pad and rng.random() < 0.5 else 0

        lda = (m if ta == "N" else k) + pad()
        ldb = (k if tb == "N" else n) + pad()
        ldc = m + pad()
        ldd = ldc
        batched = api not in ("gemm", "gemm_ex")
        bc = int(round(math.exp(rng.uniform(math.log(blo), math.log(bhi))))) if batched else 1
        if "strided" in api:
            sa = lda * (k if ta == "N" else m)
            sb = ldb * (n if tb == "N" else k)
            sc = ldc * n
            sd = ldd * n
        else:
            sa = sb = sc = sd = 0
        row = [f"{args.id_prefix}{i}", api, *t, ta, tb, m, n, k, lda, ldb, ldc, ldd,
               sa, sb, sc, sd, bc, rng.choice(alphas), rng.choice(betas), args.flags,
               args.math_mode]
        out.write("\t".join(str(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
