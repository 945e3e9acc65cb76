#!/usr/bin/env python3
"""Native mode against remote mode against PoCL, in one run (issue 9's benchmark).

Runs bench_opencl's kernel-launch loop, small-kernel round trip and idle-queue finish
  - directly on the host's OpenCL platform (PoCL: the reference),
  - through `gsvirt run --mode remote` (API remoting: vcomp, the gsgpu executor on the host),
  - through `gsvirt run --mode native` (the gsgpu OpenCL runtime in the guest process, the
    gsgpu native context on the host),
each over the in-process and the vtest transport, and prints every figure with its ratio to PoCL.

  bench/vcomp/mode_compare.py BUILD_DIR [--filter REGEX] [--transports inproc,vtest] [--repeat N]

With --repeat N every column runs N times, interleaved (all columns, then all again), and each cell
is the median with its range: on a shared machine one run per column says more about the load than
about the modes.
"""
import argparse
import os
import statistics

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
    ap.add_argument("--repeat", type=int, default=1, help="runs per column (medians and ranges)")
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
    runs = {name: [] for name, _ in columns}  # per column: one {benchmark: result} per repetition
    ctx = {}
    loads = []
    for _ in range(a.repeat):
        for name, cmd in columns:
            try:
                result, c = run(cmd or [binary], base, a.filter, quiet=cmd is not None)
                runs[name].append(result)
                ctx = ctx or c
                loads.append(c.get("load_avg", [0])[0])
            except Exception as e:  # a failing column is reported, the others still print
                print(f"{name}: failed: {e}")
    print(f"machine: {ctx.get('host_name')} {ctx.get('num_cpus')} cpus, load (1 min) during the runs "
          f"{min(loads, default=0):.1f}-{max(loads, default=0):.1f}, {a.repeat} run(s) per column")
    print(f"{'benchmark':30}" + "".join(f" {n:>31}" for n, _ in columns))
    names = sorted({k for rs in runs.values() for r in rs for k in r})
    for bench in names:
        cells, medians = [], {}
        for n, _ in columns:
            figures = [f for f in (figure(r.get(bench)) for r in runs[n]) if f]
            if not figures:
                cells.append(f" {'n/a':>31}")
                continue
            values = sorted(f[0] for f in figures)
            medians[n] = (statistics.median(values), figures[0][1], figures[0][2])
            spread = f" ({values[0]:.0f}-{values[-1]:.0f})" if len(values) > 1 else ""
            cells.append(" " + f"{medians[n][0]:.1f} {medians[n][1]}{spread}".rjust(31))
        print(f"{bench:30}" + "".join(cells))
        ref = medians.get("PoCL")
        # "x of PoCL": above 1 is faster than PoCL whichever the unit.
        ratios = [f"{n} {(m[0] / ref[0]) if m[2] else (ref[0] / m[0]):.3f}x"
                  for n, m in medians.items() if ref and n != "PoCL" and m[0] > 0]
        if ratios:
            print(f"{'':30}  speed relative to PoCL (medians): " + ", ".join(ratios))

if __name__ == "__main__":
    main()
