#!/usr/bin/env python3
"""Issue 11 acceptance 5 in one run: bench_draw on the gsgpu Vulkan driver and on lavapipe (one
process, both manifests), then bench_gl on softpipe and on llvmpipe (GALLIUM_DRIVER, EGL
surfaceless), and a table of each workload's rate with gsgpu's ratio to every reference.

    bench/graphics/compare.py build [--min-time 1] [--gsgpu-mode reference|fast]

--gsgpu-mode sets GSGPU_MODE for the gsgpu driver's device (docs/graphics.md "Reference and fast
modes"; unset: the device's default, reference).
"""
import argparse
import os
import platform
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vcomp"))
import gbench  # noqa: E402

WORKLOADS = [("FlatFill", "pixels/s"), ("LongFragment", "pixels/s"), ("TinyTriangles", "triangles/s")]
LAVAPIPE_ICD = f"/usr/share/vulkan/icd.d/lvp_icd.{platform.machine()}.json"


def rates(results, side):
    """workload -> rate of the benchmarks named <workload>/<side>/real_time."""
    out = {}
    for workload, counter in WORKLOADS:
        b = results.get(f"{workload}/{side}/real_time")
        if b is not None:
            out[workload] = b[counter]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--min-time", default="1")
    ap.add_argument("--gsgpu-mode", choices=["reference", "fast"])
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    flags = [f"--benchmark_min_time={args.min_time}"]
    env = dict(os.environ, VK_DRIVER_FILES=f"{build}/gsgpu/vk/gsgpu_vk_icd.json:{LAVAPIPE_ICD}",
               VK_LOADER_LAYERS_DISABLE="~all~")
    if args.gsgpu_mode:
        env["GSGPU_MODE"] = args.gsgpu_mode
    vk, context = gbench.run([f"{build}/bench/graphics/bench_draw"] + flags, env, quiet=True)
    sides = {"gsgpu": rates(vk, "gsgpu"), "lavapipe": rates(vk, "lavapipe")}
    for driver in ("softpipe", "llvmpipe"):
        gl_env = dict(os.environ, GALLIUM_DRIVER=driver, LIBGL_ALWAYS_SOFTWARE="1", EGL_PLATFORM="surfaceless")
        gl, _ = gbench.run([f"{build}/bench/graphics/bench_gl"] + flags, gl_env, quiet=True)
        sides[driver] = rates(gl, driver)
    print(f"load average {context.get('load_avg')}, {context.get('num_cpus')} CPUs, "
          f"gsgpu mode {args.gsgpu_mode or 'default (reference)'}")
    names = ["gsgpu", "lavapipe", "llvmpipe", "softpipe"]
    print("| workload | " + " | ".join(names) + " | gsgpu / lavapipe | gsgpu / llvmpipe | gsgpu / softpipe |")
    print("| --- " * (len(names) + 4) + "|")
    for workload, counter in WORKLOADS:
        row = [f"{sides[n].get(workload, float('nan')) / 1e6:.3g} M {counter}" for n in names]
        g = sides["gsgpu"].get(workload, float("nan"))
        ratios = [f"{g / sides[n][workload]:.3g}" if sides[n].get(workload) else "-" for n in names[1:]]
        print(f"| {workload} | " + " | ".join(row) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
