#!/usr/bin/env python3
"""Kernel throughput on the gsgpu executor against the host platform (PoCL) directly, in one run.

Runs bench_kernels directly (the reference) and through `gsvirt run --executor gsgpu` and prints,
for vector add, SGEMM (naive, tiled) and Mandelbrot, each throughput and gsgpu/direct as a ratio.
The issue's target is a ratio of at least 1/20 (0.05) on each kernel.

With --executor host the same kernels run through gsvirt on the host platform itself (a GPU, say:
scripts/device/host-executor-gpu-check), so the ratio is what remoting costs on that platform;
the 1/20 target is gsgpu's and is not checked then.

  bench/vcomp/executor_compare.py BUILD_DIR [--transport inproc|vtest] [--executor gsgpu|host]
                                  [--filter REGEX] [--direct-vendors DIR]
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
    ap.add_argument("--executor", default="gsgpu", choices=["gsgpu", "host"])
    ap.add_argument("--filter", default="")
    ap.add_argument("--direct-vendors", help="ICD folder of the direct run (default: the loader's)")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench/vcomp/bench_kernels")
    gsvirt = os.path.join(a.build, "tools/gsvirt/gsvirt")
    env = dict(os.environ)
    env.pop("OCL_ICD_VENDORS", None)
    direct_env = dict(env, OCL_ICD_VENDORS=a.direct_vendors) if a.direct_vendors else env
    direct, ctx = run([binary], direct_env, a.filter)
    remoted, _ = run([gsvirt, "run", "--transport", a.transport, "--executor", a.executor, "--", binary],
                     env, a.filter)
    on_gsgpu = a.executor == "gsgpu"
    cores = env.get("GSGPU_CORES", "4 (default)")
    print(f"machine: {ctx.get('num_cpus')} cpus @ {ctx.get('mhz_per_cpu')} MHz, "
          f"load {os.getloadavg()[0]:.2f}; executor {a.executor}"
          f"{f', {cores} shader cores' if on_gsgpu else ''}, transport {a.transport}")
    ref, via = ("PoCL direct", "gsgpu") if on_gsgpu else ("direct", "gsvirt host")
    print(f"{'kernel':18} {'unit':16} {ref:>14} {via:>14} {'ratio':>11}  "
          f"{'target >= 1/20' if on_gsgpu else 'remoted/direct'}")
    failed = False
    for name in direct:
        (d, derr), (g, gerr) = rate(direct[name]), rate(remoted.get(name))
        if d is None or g is None:
            print(f"{short(name):18} error: direct: {derr or 'ok'}; {via}: {gerr or 'ok'}")
            failed = True
            continue
        ratio = g[1] / d[1]
        ok = ratio >= TARGET or not on_gsgpu
        failed |= not ok
        verdict = ('met' if ok else 'MISSED') if on_gsgpu else ''
        print(f"{short(name):18} {d[0]:16} {d[1]:14.4g} {g[1]:14.4g} {ratio:11.4f}  "
              f"{verdict} (1/{1 / ratio:.2f})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
