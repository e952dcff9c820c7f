#!/usr/bin/env python3
"""Copy libhipblaslt.so.1.1 and mark its requirements on GLIBCXX_3.4.32 and GLIBC_2.38 as weak
(VER_FLG_WEAK) so bookworm's loader accepts it; liboracleshim.so (LD_PRELOAD) provides the two
symbols. Nothing else in the file changes."""
import struct, sys, shutil
src, dst = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
e_shoff, = struct.unpack_from('<Q', b, 0x28); e_shentsize, e_shnum, e_shstrndx = struct.unpack_from('<HHH', b, 0x3A)
secs = [struct.unpack_from('<IIQQQQIIQQ', b, e_shoff + i * e_shentsize) for i in range(e_shnum)]
def sec_by_type(t): return [s for s in secs if s[1] == t]
verneed = sec_by_type(0x6ffffffe)[0]   # SHT_GNU_verneed
dynstr = secs[verneed[6]]               # sh_link -> .dynstr
def cstr(off):
    o = dynstr[4] + off; return bytes(b[o:b.index(0, o)]).decode()
off = verneed[4]; changed = []
while True:
    vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from('<HHIII', b, off)
    a = off + vn_aux
    for _ in range(vn_cnt):
        vna_hash, vna_flags, vna_other, vna_name, vna_next = struct.unpack_from('<IHHII', b, a)
        name = cstr(vna_name)
        if name in ('GLIBCXX_3.4.32', 'GLIBC_2.38'):
            struct.pack_into('<H', b, a + 4, vna_flags | 0x2); changed.append((cstr(vn_file), name))
        a += vna_next
    if not vn_next: break
    off += vn_next
open(dst, 'wb').write(b)
print('weakened:', changed)
