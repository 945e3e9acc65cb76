#!/usr/bin/env python3
"""The cost of context workers (issue 12 point 1): bench_opencl through `gsvirt run --transport inproc
--executor host` with the host-executor context in the application's process (GSVIRT_ISOLATION=off)
against in a context worker (the default), interleaved, medians with their ranges.

  bench/vcomp/isolation_compare.py BUILD_DIR [--repeat N] [--filter REGEX]
"""
import argparse
import os
import statistics

from gbench import run

DEFAULT_FILTER = "BM_RoundTrip_FinishIdleQueue|BM_SmallKernelRoundTrip|BM_KernelLaunchLoop"
MODES = (("in-process", "off"), ("worker", "host"))


def value(b):
    """launches/s for the launch loop, else real time in µs."""
    if "launches_per_s" in b:
        return b["launches_per_s"]
    unit = b.get("time_unit", "ns")
    return b["real_time"] / 1e3 if unit == "ns" else b["real_time"] * 1e3 if unit == "ms" else b["real_time"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--filter", default=DEFAULT_FILTER)
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench/vcomp/bench_opencl")
    gsvirt = os.path.join(a.build, "tools/gsvirt/gsvirt")
    # PoCL is a CPU device: the benchmark is a trusted guest.
    base = dict(os.environ, GSVIRT_TRUSTED_GUEST="1")
    base.pop("OCL_ICD_VENDORS", None)
    results = {label: {} for label, _ in MODES}
    for _ in range(a.repeat):
        for label, isolation in MODES:
            cmd = [gsvirt, "run", "--transport", "inproc", "--executor", "host", "--", binary]
            r, _ = run(cmd, dict(base, GSVIRT_ISOLATION=isolation), a.filter, quiet=True)
            for name, b in r.items():
                if not b.get("error_occurred"):
                    results[label].setdefault(name, []).append(value(b))
    print(f"load average {os.getloadavg()[0]:.1f}; launch loop in launches/s, the rest in µs")
    for name in results["worker"]:
        cells = []
        for label, _ in MODES:
            v = results[label].get(name, [])
            cells.append(f"{label} {statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})" if v else f"{label} -")
        print(f"{name:44} " + "   ".join(cells))


if __name__ == "__main__":
    main()
