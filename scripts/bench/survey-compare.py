#!/usr/bin/env python3
"""What two rocpath builds' surveys find on the same saved images: Python packages with GPU
code (by label), Python environments, findings, the answer, seconds. For BENCHMARKS.md.

Usage: survey-compare.py OLD_ROCPATH NEW_ROCPATH IMAGE...
"""
import json
import subprocess
import sys
import time


def survey(binary, image):
    t = time.perf_counter()
    p = subprocess.run([binary, "--json", "--no-progress", "survey", "--root", image],
                       capture_output=True, text=True)
    secs = time.perf_counter() - t
    d = json.loads(p.stdout)
    pkgs = [i["label"] for i in d.get("installs", []) if i.get("kind") == "python"]
    envs = [f'{e["kind"]} {e["path"]}' for e in d.get("python_envs", [])]
    finds = [f["kind"] for f in d.get("findings", [])]
    depth = sum(1 for k in d.get("skipped", []) if k.get("kind") == "depth")
    return pkgs, envs, finds, d["answer"]["text"], secs, depth


def main():
    old, new, images = sys.argv[1], sys.argv[2], sys.argv[3:]
    print("| image | build | Python packages found | environments | findings | depth-limit folders | answer | s |")
    print("|---|---|---|---|---|---|---|---|")
    for img in images:
        for name, b in [("before", old), ("after", new)]:
            pkgs, envs, finds, answer, secs, depth = survey(b, img)
            short = img.rstrip("/").rsplit("/", 1)[-1]
            print(f"| {short} | {name} | {len(pkgs)}: {', '.join(pkgs) or '—'} | "
                  f"{len(envs)}: {', '.join(envs) or '—'} | {', '.join(finds) or '—'} | {depth} | "
                  f"{answer[:90]} | {secs:.2f} |")


if __name__ == "__main__":
    main()
