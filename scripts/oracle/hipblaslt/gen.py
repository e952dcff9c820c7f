#!/usr/bin/env python3
"""Random GEMM problems for the hipBLASLt 7.1.1 oracle (build/oracle) and binref.

Columns: id trans_a trans_b m n k batch_count a_type b_type c_type d_type compute_type alpha beta
         lda ldb ldc ldd stride_a stride_b stride_c stride_d bias activation requested
m, n, k: log-uniform in [1, MAX] (default 8192), with a share (--odd) of "odd" sizes (primes / one
off a power of two / multiples of 8 +-1). Leading dimensions are minimal (lda = rows of A as
stored, ...). Strides: 0 when batch_count == 1 (hipBLASLt's layout default), else packed.
"""
import argparse, math, random, sys

TYPES = {  # --types NAME -> a b c d compute
    'hpa': ('f16', 'f16', 'f16', 'f16', 'f32'), 'f16': ('f16', 'f16', 'f16', 'f16', 'f32'),
    'bf16': ('bf16', 'bf16', 'bf16', 'bf16', 'f32'), 'f16f32': ('f16', 'f16', 'f32', 'f32', 'f32'),
    'bf16f32': ('bf16', 'bf16', 'f32', 'f32', 'f32'), 'f32': ('f32', 'f32', 'f32', 'f32', 'f32'),
    'xf32': ('f32', 'f32', 'f32', 'f32', 'xf32'), 'f64': ('f64', 'f64', 'f64', 'f64', 'f64'),
    'i8': ('i8', 'i8', 'i32', 'i32', 'i32'), 'i8i8': ('i8', 'i8', 'i8', 'i8', 'i32'),
    'f8': ('f8', 'f8', 'f16', 'f16', 'f32'), 'f8f32': ('f8', 'f8', 'f32', 'f32', 'f32'),
    'f16c16': ('f16', 'f16', 'f16', 'f16', 'f16'),
}
HEADER = ('id trans_a trans_b m n k batch_count a_type b_type c_type d_type compute_type alpha beta '
          'lda ldb ldc ldd stride_a stride_b stride_c stride_d bias activation requested').split()

def primes_upto(n):
    s = bytearray([1]) * (n + 1); s[0:2] = b'\0\0'
    for i in range(2, int(n ** 0.5) + 1):
        if s[i]: s[i * i::i] = bytearray(len(s[i * i::i]))
    return [i for i in range(n + 1) if s[i]]

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-n', type=int, default=1000, help='number of problems')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--types', default='hpa', help='comma list of ' + ','.join(TYPES))
    ap.add_argument('--trans', default='NN,NT,TN,TT', help='comma list of NN NT TN TT (random pick)')
    ap.add_argument('--max', type=int, default=8192)
    ap.add_argument('--odd', type=float, default=0.25, help='share of odd sizes')
    ap.add_argument('--batch', default='1', help='comma list of batch counts (random pick)')
    ap.add_argument('--bias', default='-', help="comma list: '-' or a type, or 'd' for d_type")
    ap.add_argument('--act', default='none', help='comma list of none relu gelu')
    ap.add_argument('--requested', type=int, default=1)
    ap.add_argument('--beta', default='0', help='comma list of beta values (heuristic ignores it)')
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    primes = primes_upto(a.max)
    types = a.types.split(','); trans = a.trans.split(','); batches = [int(x) for x in a.batch.split(',')]
    biases = a.bias.split(','); acts = a.act.split(','); betas = a.beta.split(',')

    def size():
        if rnd.random() < a.odd:
            kind = rnd.randrange(3)
            if kind == 0: return rnd.choice(primes)
            if kind == 1:
                p = 1 << rnd.randrange(0, int(math.log2(a.max)) + 1)
                return max(1, min(a.max, p + rnd.choice((-1, 1))))
            return max(1, min(a.max, 8 * rnd.randint(1, a.max // 8) + rnd.choice((-1, 1))))
        return max(1, min(a.max, int(round(math.exp(rnd.uniform(0, math.log(a.max)))))))

    w = sys.stdout.write
    w('\t'.join(HEADER) + '\n')
    for i in range(a.n):
        ta, tb = rnd.choice(trans)
        m, n, k = size(), size(), size()
        at, bt, ct, dt, comp = TYPES[rnd.choice(types)]
        batch = rnd.choice(batches)
        lda = m if ta == 'N' else k
        ldb = k if tb == 'N' else n
        ldc = ldd = m
        if batch > 1:
            sa, sb, sc, sd = lda * (k if ta == 'N' else m), ldb * (n if tb == 'N' else k), ldc * n, ldd * n
        else:
            sa = sb = sc = sd = 0
        bias = rnd.choice(biases)
        if bias == 'd': bias = dt
        w('\t'.join(map(str, (i, ta, tb, m, n, k, batch, at, bt, ct, dt, comp, 1, rnd.choice(betas),
                             lda, ldb, ldc, ldd, sa, sb, sc, sd, bias, rnd.choice(acts), a.requested))) + '\n')

if __name__ == '__main__':
    main()
