#!/usr/bin/env python3
"""Compares two piglit result folders: a reference run and a run through gsvirt.

    piglit_compare.py REFERENCE_DIR GSVIRT_DIR [REFERENCE_LABEL GSVIRT_LABEL]

The labels name the two runs in the output (default "directly" / "through gsvirt").
"""
import bz2
import json
import os
import sys


def load(folder):
    for name in ("results.json.bz2", "results.json"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            opener = bz2.open if name.endswith(".bz2") else open
            with opener(path, "rt") as f:
                return {k: v["result"] for k, v in json.load(f)["tests"].items()}
    sys.exit(f"no piglit results in {folder}")


def main():
    direct, gsvirt = load(sys.argv[1]), load(sys.argv[2])
    ref, ours = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else ("directly", "through gsvirt")
    passing = {t for t, r in direct.items() if r == "pass"}
    kept = {t for t in passing if gsvirt.get(t) == "pass"}
    ratio = 100.0 * len(kept) / len(passing) if passing else 0.0
    print(f"tests run: {len(direct)} {ref}, {len(gsvirt)} {ours}")
    print(f"pass {ref}: {len(passing)}; of those pass {ours}: {len(kept)} ({ratio:.1f}%)")
    also = {t for t, r in gsvirt.items() if r == "pass" and t not in passing}
    if also:
        print(f"pass {ours} but not {ref}: {len(also)}")
        for t in sorted(also):
            print(f"  + {t} ({ref}: {direct.get(t, 'not run')})")
    lost = sorted(passing - kept)
    if lost:
        print(f"pass {ref} but not {ours}: {len(lost)}")
        for t in lost:
            print(f"  - {t}: {gsvirt.get(t, 'not run')}")
    print(f"piglit-compare: {ratio:.1f}% of the passes {ref} kept {ours}")


if __name__ == "__main__":
    main()
