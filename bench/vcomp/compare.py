#!/usr/bin/env python3
"""Runs bench_opencl directly on the host platform and through gsvirt (inproc, vtest) in one go
and prints every gsvirt figure against the direct one.

  bench/vcomp/compare.py BUILD_DIR [--filter REGEX] [--direct-vendors DIR]
"""
import argparse
import os
import subprocess
import sys

from gbench import run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--filter", default="")
    ap.add_argument("--direct-vendors", help="ICD folder of the direct run (default: the loader's)")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bench/vcomp/bench_opencl")
    gsvirt = os.path.join(a.build, "tools/gsvirt/gsvirt")
    base = dict(os.environ)
    base.pop("OCL_ICD_VENDORS", None)
    direct_env = dict(base, OCL_ICD_VENDORS=a.direct_vendors) if a.direct_vendors else base
    direct, ctx = run([binary], direct_env, a.filter)
    results = {"direct": direct}
    for transport in ("inproc", "vtest"):
        # gsvirt run sets up the loader and, for vtest, a server; the benchmark is its app. The
        # host executor: this measures remoting against the same platform called directly.
        # PoCL is a CPU device: the benchmark is a trusted guest.
        cmd = [gsvirt, "run", "--transport", transport, "--executor", "host", "--", binary]
        try:
            results[transport], _ = run(cmd, dict(base, GSVIRT_TRUSTED_GUEST="1"), a.filter, quiet=True)
        except subprocess.CalledProcessError as e:  # the other transport's column still prints
            print(f"{transport}: bench_opencl through gsvirt exited with {e.returncode}")
            results[transport] = {}
    print(f"machine: {ctx.get('host_name')} {ctx.get('num_cpus')} cpus @ {ctx.get('mhz_per_cpu')} MHz")
    print(f"{'benchmark':36} {'direct':>14} {'inproc':>14} {'vtest':>14}   inproc/direct  vtest/direct")
    for name, d in direct.items():
        row = [name]
        vals = []
        for key in ("direct", "inproc", "vtest"):
            b = results[key].get(name)
            if not b or b.get("error_occurred"):
                vals.append(None)
                continue
            if "bytes_per_second" in b:
                vals.append(("GB/s", b["bytes_per_second"] / 1e9))
            else:
                vals.append(("us", b["real_time"] / 1e3 if b["time_unit"] == "ns" else b["real_time"]))
        cells = [f"{v[1]:10.3f} {v[0]:>3}" if v else f"{'n/a':>14}" for v in vals]
        ratios = []
        for v in vals[1:]:
            if v and vals[0] and vals[0][1]:
                ratios.append(f"{v[1] / vals[0][1]:13.2f}x")
            else:
                ratios.append(f"{'n/a':>14}")
        print(f"{name:36} {' '.join(cells)}  {' '.join(ratios)}")
    memcpy = direct.get("BM_Bulk_Memcpy64MiB")
    if memcpy:
        for key in ("inproc", "vtest"):
            b = results[key].get("BM_Bulk_WriteRead64MiB")
            if b and "bytes_per_second" in b:
                print(f"64 MiB write+read over {key}: {100 * b['bytes_per_second'] / memcpy['bytes_per_second']:.0f}% of memcpy bandwidth")


if __name__ == "__main__":
    main()
