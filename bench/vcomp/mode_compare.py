#!/usr/bin/env python3
"""Native mode against remote mode against PoCL, in one run (issue 9's benchmark).

Runs bench_opencl's kernel-launch loop, small-kernel round trip and idle-queue finish
  - directly on the host's OpenCL platform (PoCL: the reference),
  - through `gsvirt run --mode remote` (API remoting: vcomp, the gsgpu executor on the host),
  - through `gsvirt run --mode native` (the gsgpu OpenCL runtime in the guest process, the
    gsgpu native context on the host),
each over the in-process and the vtest transport, and prints every figure with its ratio to PoCL.

  bench/vcomp/mode_compare.py BUILD_DIR [--filter REGEX] [--transports inproc,vtest]
"""
import argparse
import os

from gbench import run

DEFAULT_FILTER = "BM_KernelLaunchLoop|BM_SmallKernelRoundTrip|BM_RoundTrip_FinishIdleQueue"


def figure(b):
    """(value, unit, higher_is_better) of one benchmark result, or None when it failed."""
    if not b or b.get("error_occurred"):
        return None
    # Rates are per wall-clock second: the benchmarks use real time (the work is asynchronous).
    if "launches_per_s" in b:
        return b["launches_per_s"], "launch/s", True
    t = b["real_time"]
    unit = b.get("time_unit", "ns")
    us = t / 1e3 if unit == "ns" else t * 1e3 if unit == "ms" else t
    return us, "us", False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--filter", default=DEFAULT_FILTER)
    ap.add_argument("--transports", default="inproc,vtest")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench/vcomp/bench_opencl")
    gsvirt = os.path.join(a.build, "tools/gsvirt/gsvirt")
    base = dict(os.environ)
    base.pop("OCL_ICD_VENDORS", None)
    columns = [("PoCL", None)]
    for mode in ("remote", "native"):
        for transport in a.transports.split(","):
            # Remote mode on the gsgpu executor; native mode always runs on gsgpu.
            executor = ["--executor", "gsgpu"] if mode == "remote" else []
            columns.append((f"{mode}/{transport}",
                            [gsvirt, "run", "--mode", mode, "--transport", transport] + executor + ["--", binary]))
    results = {}
    ctx = {}
    for name, cmd in columns:
        try:
            results[name], c = run(cmd or [binary], base, a.filter, quiet=cmd is not None)
            ctx = ctx or c
        except Exception as e:  # a failing column is reported, the others still print
            print(f"{name}: failed: {e}")
            results[name] = {}
    print(f"machine: {ctx.get('host_name')} {ctx.get('num_cpus')} cpus, load {ctx.get('load_avg')}")
    print(f"{'benchmark':30}" + "".join(f"{n:>18}" for n, _ in columns))
    names = sorted({k for r in results.values() for k in r})
    for bench in names:
        cells, ratios = [], []
        ref = figure(results["PoCL"].get(bench))
        for n, _ in columns:
            f = figure(results[n].get(bench))
            cells.append(f"{f[0]:11.1f} {f[1]:>6}" if f else f"{'n/a':>18}")
            if f and ref and n != "PoCL":
                # "x of PoCL": above 1 is faster than PoCL whichever the unit.
                ratios.append(f"{n} {(f[0] / ref[0]) if f[2] else (ref[0] / f[0]):.3f}x")
        print(f"{bench:30}" + "".join(f"{c:>18}" for c in cells))
        if ratios:
            print(f"{'':30}  speed relative to PoCL: " + ", ".join(ratios))


if __name__ == "__main__":
    main()
