#!/usr/bin/env python3
"""Function lengths of a checkout's library code (crates/*/src; tests, #[cfg(test)] modules and
generated tables left out), by a brace count of each fn's body: the count and the distribution
BENCHMARKS.md's "Code shape" table gives.

Usage: fn-lengths.py CHECKOUT
"""
import re,glob,sys,collections
root=sys.argv[1]
lens=[]
for p in glob.glob(root+'/crates/*/src/**/*.rs',recursive=True):
    if '/isa/src/generated' in p or 'generated' in p.split('/')[-1]: continue
    lines=open(p).read().split('\n')
    end=len(lines)
    for i,l in enumerate(lines):
        if l.strip()=='#[cfg(test)]':
            end=i;break
    for i in range(end):
        m=re.match(r'^(\s*)(pub(\([a-z]+\))? )?(const )?(async )?(unsafe )?fn \w+',lines[i])
        if not m: continue
        if lines[i].rstrip().endswith('{}') or lines[i].rstrip().endswith(';'): continue
        ind=m.group(1)
        for j in range(i+1,end):
            if lines[j].startswith(ind+'}') and lines[j].strip()=='}':
                lens.append(j-i+1); break
b=collections.Counter()
for n in lens:
    b['<=25' if n<=25 else '26-50' if n<=50 else '51-100' if n<=100 else '101-200' if n<=200 else '>200']+=1
print(len(lens), dict(b))
