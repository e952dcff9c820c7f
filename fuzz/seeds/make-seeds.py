#!/usr/bin/env python3
"""Writes the hostile seed inputs of the fuzz targets (see README.md). Needs the `zstd` tool.
Run from anywhere: python3 fuzz/seeds/make-seeds.py"""
import os, struct, subprocess

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
obj = open(os.path.join(root, "examples/data/install/opt/rocm-example/lib/example/library/"
                        "Kernels.so-000-gfx1100.hsaco"), "rb").read()

def put(target, name, data):
    os.makedirs(os.path.join(here, target), exist_ok=True)
    with open(os.path.join(here, target, name), "wb") as f:
        f.write(data)

def bundle(n, vary=False):
    """n entries that all start at one code object (entry i claims i more bytes with vary)."""
    eid = b"hipv4-amdgcn-amd-amdhsa--gfx1100"
    off = 32 + n * (24 + len(eid))
    b = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", n)
    for i in range(n):
        b += struct.pack("<QQQ", off, len(obj) + (i if vary else 0), len(eid)) + eid
    return b + obj + (b"\0" * n if vary else b"")

def ccob(size):
    """A CCOB v3 whose zstd payload is `size` zero bytes."""
    z = subprocess.run(["sh", "-c", "head -c %d /dev/zero | zstd -19 -q -c" % size],
                       capture_output=True, check=True).stdout
    return b"CCOB" + struct.pack("<HHQQQ", 3, 1, 32 + len(z), size, 0) + z

def alias_bomb():
    y = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for p, n in zip("abcdefgh", "bcdefghi"):
        y += "%s: &%s [%s]\n" % (n, n, ",".join(["*" + p] * 9))
    return y.encode()

def ar(members):
    a = b"!<arch>\n"
    for name, data in members:
        a += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, b"100644", len(data)) + data
        if len(data) % 2:
            a += b"\n"
    return a

shared = bundle(1000)
put("sources_scan", "bundle-1000-entries-one-object", shared)
put("sources_scan", "bundle-1000-entries-one-offset-sizes", bundle(1000, vary=True))
put("bundle_header", "bundle-1000-entries-one-object", shared[24:])
bomb = ccob(64 << 20)
put("sources_scan", "ccob-zstd-bomb-64MiB", bomb)
put("bundle_header", "ccob-zstd-bomb-64MiB", bomb[4:])
put("sources_scan", "codeobj-first-64-bytes", obj[:64])
put("sources_scan", "codeobj-all-but-last-byte", obj[:-1])
put("codeobj_parse", "codeobj-first-64-bytes", obj[:64])
put("codeobj_parse", "codeobj-all-but-last-byte", obj[:-1])
junk = bytes((i * 2654435761 & 0xffffffff) >> 24 for i in range(5000))
put("sources_scan", "deb-broken-data-tar-xz",
    ar([(b"debian-binary", b"2.0\n"), (b"data.tar.xz", b"\xfd7zXZ\0" + junk)]))
put("tensile_summarize", "yaml-alias-bomb", alias_bomb())
n = 70000
put("tensile_summarize", "dat-70000-empty-solutions",
    b"\x81\xa9solutions\xdd" + struct.pack(">I", n) + b"\x80" * n)
