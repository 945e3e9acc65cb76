#!/usr/bin/env python3
"""Kernel throughput on the gsgpu executor against the host platform (PoCL) directly, in one run.

Runs bench_kernels directly (the reference) and through `gsvirt run --executor gsgpu` and prints,
for vector add, SGEMM (naive, tiled) and Mandelbrot, each throughput and gsgpu/direct as a ratio.
The issue's target is a ratio of at least 1/20 (0.05) on each kernel.

  bench/vcomp/executor_compare.py BUILD_DIR [--transport inproc|vtest] [--filter REGEX]
"""
import argparse
import os
import sys

from gbench import run

RATES = ("elements_per_s", "flops", "iterations_per_s")
TARGET = 1 / 20


def short(name):
    """BM_VectorAdd/16777216/min_time:1.000/real_time -> VectorAdd/16777216"""
    return "/".join(p for p in name[3:].split("/") if ":" not in p and p != "real_time")


def rate(b):
    if not b or b.get("error_occurred"):
        return None, (b or {}).get("error_message", "missing")
    for key in RATES:
        if key in b:
            return (key, b[key]), None
    return None, "no rate"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--transport", default="inproc")
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench/vcomp/bench_kernels")
    gsvirt = os.path.join(a.build, "tools/gsvirt/gsvirt")
    env = dict(os.environ)
    env.pop("OCL_ICD_VENDORS", None)
    direct, ctx = run([binary], env, a.filter)
    gsgpu, _ = run([gsvirt, "run", "--transport", a.transport, "--executor", "gsgpu", "--", binary],
                   env, a.filter)
    cores = env.get("GSGPU_CORES", "4 (default)")
    print(f"machine: {ctx.get('num_cpus')} cpus @ {ctx.get('mhz_per_cpu')} MHz, "
          f"load {os.getloadavg()[0]:.2f}; gsgpu: {cores} shader cores, transport {a.transport}")
    print(f"{'kernel':18} {'unit':16} {'PoCL direct':>14} {'gsgpu':>14} {'gsgpu/PoCL':>11}  target >= 1/20")
    failed = False
    for name in direct:
        (d, derr), (g, gerr) = rate(direct[name]), rate(gsgpu.get(name))
        if d is None or g is None:
            print(f"{short(name):18} error: direct: {derr or 'ok'}; gsgpu: {gerr or 'ok'}")
            failed = True
            continue
        ratio = g[1] / d[1]
        ok = ratio >= TARGET
        failed |= not ok
        print(f"{short(name):18} {d[0]:16} {d[1]:14.4g} {g[1]:14.4g} {ratio:11.4f}  "
              f"{'met' if ok else 'MISSED'} (1/{1 / ratio:.1f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
