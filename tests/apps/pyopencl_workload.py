#!/usr/bin/env python3
"""What a PyOpenCL user runs (tests/apps/apps.py, case pyopencl): pyopencl.array arithmetic and
reductions, clmath, a scan, a radix sort, an ElementwiseKernel whose preamble includes a header
from the application's own folder through `-I` (as PyOpenCL passes its own header folder), and a
plain Program. Writes every result to OUT.npz for the comparison with the direct run.

Usage: pyopencl_workload.py run OUT.npz INCLUDE_DIR
       pyopencl_workload.py compare DIRECT.npz GSGPU.npz
"compare" wants every result equal, except those that depend on summation order (sum, dot: within a
relative 1e-5) or that OpenCL C bounds in ULP (sin: 4 ULP, the full profile's bound).
"""
import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.clmath as clmath
from pyopencl.algorithm import RadixSort
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.scan import InclusiveScanKernel


TOLERANCE = {"sum": ("relative", 1e-5), "dot": ("relative", 1e-5), "sin": ("ulp", 4)}


def ulp_distance(want, got):
    """Largest distance in float32 units in the last place (both finite, same sign here)."""
    w = want.astype(np.float32).view(np.int32).astype(np.int64)
    g = got.astype(np.float32).view(np.int32).astype(np.int64)
    return int(np.max(np.abs(w - g)))


def compare(direct_path, gsgpu_path):
    direct, gsgpu = np.load(direct_path), np.load(gsgpu_path)
    bad = 0
    for key in direct.files:
        want, got = direct[key], gsgpu[key]
        kind, bound = TOLERANCE.get(key, ("exact", 0))
        if want.shape != got.shape:
            distance = float("inf")
        elif kind == "exact":
            distance = int(np.count_nonzero(want != got))
        elif kind == "ulp":
            distance = ulp_distance(want, got)
        else:
            distance = float(np.max(np.abs(want.astype(np.float64) - got) / np.abs(want.astype(np.float64))))
        ok = distance <= bound
        bad += not ok
        print(f"{key}: {kind} {distance:.3g} (bound {bound}) {'ok' if ok else 'DIFFERS'}")
    return 1 if bad else 0


def main():
    if sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3])
    out_path, include_dir = sys.argv[2], sys.argv[3]
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    print("device:", ctx.devices[0].name, "|", ctx.devices[0].version, flush=True)
    rng = np.random.default_rng(7)
    a = rng.random(65536, dtype=np.float32)
    b = rng.random(65536, dtype=np.float32)
    da, db = cla.to_device(queue, a), cla.to_device(queue, b)
    out = {
        "axpy": (2 * da + db).get(),
        "sum": cla.sum(da).get(),
        "dot": cla.dot(da, db).get(),
        "max": cla.max(da).get(),
        "sin": clmath.sin(da).get(),
        "sqrt": clmath.sqrt(da).get(),
    }
    ints = (a * 100).astype(np.int32)
    out["scan"] = InclusiveScanKernel(ctx, np.int32, "a+b", neutral="0")(cla.to_device(queue, ints)).get()
    keys = cla.to_device(queue, (a[:4096] * 1e6).astype(np.int32))
    (sorted_keys,), _ = RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"])(keys, key_bits=32)
    out["radix"] = sorted_keys.get()
    scale = ElementwiseKernel(ctx, "float *x, float *y", "y[i] = SCALE(x[i])", "scale",
                              preamble='#include "scale.h"', options=["-I", include_dir])
    dy = cla.empty_like(da)
    scale(da, dy)
    out["include"] = dy.get()
    program = cl.Program(ctx, """
        __kernel void square(__global const float* a, __global float* c) {
          int i = get_global_id(0);
          c[i] = a[i] * a[i];
        }""").build()
    dc = cla.empty_like(da)
    program.square(queue, a.shape, None, da.data, dc.data)
    out["kernel"] = dc.get()
    np.savez(out_path, **out)
    print("done:", ", ".join(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
