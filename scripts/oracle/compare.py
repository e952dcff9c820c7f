#!/usr/bin/env python3
"""compare.py tensile|hipblaslt PROBLEMS.tsv REFERENCE.tsv ROCPATH.tsv

PROBLEMS: the problem list (gen.py's columns). REFERENCE: the reference's answers — tensile:
`id index name fallback`; hipblaslt: `id rank index name` (the first solution is rank 0).
ROCPATH: `rocpath explain gemm … --problems PROBLEMS --tsv` (one row per problem, in order).
Prints the agreement on the solution chosen by category; exit 1 when any answer differs."""
import collections, sys

def rows(path):
    with open(path) as f:
        head = f.readline().rstrip('\n').split('\t')
        return [dict(zip(head, l.rstrip('\n').split('\t'))) for l in f if l.strip()]

kind, problems = sys.argv[1], rows(sys.argv[2])
if kind not in ('tensile', 'hipblaslt'):
    sys.exit(f'unknown reference kind {kind!r}: tensile or hipblaslt')
ref = {}
with open(sys.argv[3]) as f:
    for line in f:
        p = line.rstrip('\n').split('\t')
        if len(p) < 4:
            continue
        if kind == 'tensile':
            ref.setdefault(p[0], int(p[1]))
        elif p[1] in ('0', '-1'):
            ref.setdefault(p[0], int(p[2]))
ours = rows(sys.argv[4])
if len(ours) != len(problems):
    sys.exit(f'rocpath answered {len(ours)} of {len(problems)} problems: see its errors')
cat, shown = collections.Counter(), collections.defaultdict(list)
for p, o in zip(problems, ours):
    if (p['m'], p['n'], p['k']) != (o['m'], o['n'], o['k']):
        sys.exit(f"row order differs at problem {p['id']}")
    r = ref.get(p['id'])
    mine = int(o['index']) if o['index'] != '-' else -1
    if r is None:
        k = 'no reference answer'
    elif o['outcome'] == 'unresolved':
        k = 'rocpath unresolved (run-dependent fill-in or unknown construct)'
    elif mine == r:
        k = 'same solution' if r >= 0 else 'same: no kernel (none found, or no library call)'
    else:
        k = 'DIFFERENT'
    cat[k] += 1
    if len(shown[k]) < 5:
        shown[k].append((p['id'], r, o['outcome'], mine))
total = sum(cat.values())
print(f'{total} problems')
for k, c in sorted(cat.items()):
    print(f'  {c:9d}  {100 * c / total:8.3f} %  {k}')
for k in ('DIFFERENT', 'no reference answer'):
    for e in shown.get(k, []):
        print(f'    {k}: problem {e[0]}: reference {e[1]}, rocpath {e[2]} {e[3]}')
sys.exit(1 if cat['DIFFERENT'] or cat['no reference answer'] else 0)
