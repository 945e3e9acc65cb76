#!/usr/bin/env python3
"""Real OpenCL applications from Debian's archive on gsgpu through `gsvirt run` (issue 13,
acceptance 3), each checked against the same application run directly on the host's OpenCL
platform (PoCL) in the same test.

Usage: apps.py CASE --gsvirt PATH [--mode remote|native] [--executor gsgpu|host]
Cases:
  clpeak    clpeak's quick sections (global bandwidth, transfer bandwidth, kernel latency): its one
            program of every kernel builds, each section gsgpu reports runs and prints a number
            for every line PoCL prints (the long compute sections: scripts/apps-compare).
  hashcat   hashcat cracks an md5 of a 3-letter word with the mask ?l?l?l, as on PoCL.
  ffmpeg    ffmpeg's OpenCL filters on a few small synthetic frames: every frame (framemd5) is
            byte-identical to the frame the same filter chain gives on PoCL.
  pyopencl  Debian's python3-pyopencl (pyopencl_workload.py): arrays, reductions, clmath, scan,
            radix sort, a kernel including a header through -I; every result equal to PoCL's,
            reductions and sin within the float rounding their order and ULP bound allow.
A case whose application is not installed is skipped (exit 77).
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def require(tool):
    if not shutil.which(tool):
        print(f"SKIP: {tool} is not installed")
        sys.exit(77)


def app_env(home, executor):
    """A fresh HOME (applications keep kernel caches there) and gsgpu's VRAM at 2 GiB: hashcat
    refuses devices with less allocatable memory than its attack needs."""
    env = dict(os.environ)
    env["HOME"] = home
    env["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    env["XDG_DATA_HOME"] = os.path.join(home, ".local/share")
    env["GSGPU_VRAM_MB"] = "2048"
    env.pop("GSVIRT_EXECUTOR", None)
    if executor == "host":
        env["GSVIRT_TRUSTED_GUEST"] = "1"  # PoCL is a CPU device: the host executor runs trusted guests only
    return env


def run(cmd, home, timeout, cwd, executor="gsgpu"):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=app_env(home, executor), cwd=cwd)
    print(r.stdout[-6000:], r.stderr[-3000:], flush=True)
    return r


def through_gsvirt(args, app):
    # native mode always runs on gsgpu (its runtime in the application); remote mode names it, or
    # the host executor (PoCL remoted: the protocol's coverage of what the application calls)
    executor = ["--executor", args.executor] if args.mode == "remote" else []
    return [args.gsvirt, "run", "--mode", args.mode, *executor, "--", *app]


def direct_env_home(tmp, name):
    home = os.path.join(tmp, name)
    # The cache folder exists beforehand, as in a user's home: the host executor's sandbox lets
    # PoCL write there only if it exists when the sandbox is set up.
    os.makedirs(os.path.join(home, ".cache"), exist_ok=True)
    return home


# clpeak prints a section title indented by 4 ("    Transfer bandwidth (GBPS)"), then its results
# indented by 6 or more ("      float4  : 4.98", "        memcpy from mapped ptr : 18.14"); "inf" when
# the host timer saw no time pass (an unmap of a mapping the application already shares).
SECTION = re.compile(r"^    (\S[^:]*)$")
RESULT = re.compile(r"^      \s*(\S[^:]*?)\s*:\s*([0-9.]+|inf)\s*$")


def clpeak_results(text):
    """{section: [result labels]} for each section that reported numbers."""
    sections, current = {}, None
    for line in text.splitlines():
        if SECTION.match(line):
            current = line.strip()
        elif (m := RESULT.match(line)) and current:
            sections.setdefault(current, []).append(m.group(1))
    return sections


def case_clpeak(args, tmp):
    require("clpeak")
    quick = ["clpeak", "--global-bandwidth", "--transfer-bandwidth", "--kernel-latency"]
    direct = run(quick, direct_env_home(tmp, "pocl"), 600, tmp)
    gsgpu = run(through_gsvirt(args, quick), direct_env_home(tmp, "gsgpu"), 900, tmp)
    if gsgpu.returncode != 0:
        fail(f"clpeak through gsvirt returned {gsgpu.returncode}")
    if "Build Log" in gsgpu.stdout or "error" in gsgpu.stdout.lower():
        fail("clpeak's program did not build on gsgpu")
    if "Device: gsgpu" not in gsgpu.stdout:
        fail("clpeak did not run on gsgpu")
    want, got = clpeak_results(direct.stdout), clpeak_results(gsgpu.stdout)
    if not want:
        fail("clpeak printed no results on PoCL; the reference is unusable")
    for section, labels in want.items():
        if got.get(section) != labels:
            fail(f"section '{section}': PoCL reports {labels}, gsgpu {got.get(section)}")
    if "Kernel launch latency" in direct.stdout and "Kernel launch latency" not in gsgpu.stdout:
        fail("clpeak measured no kernel launch latency on gsgpu")
    print(f"PASS: {len(want)} sections, {sum(len(v) for v in want.values())} results on both")


def case_hashcat(args, tmp):
    require("hashcat")
    word = "gsv"
    digest = hashlib.md5(word.encode()).hexdigest()
    with open(os.path.join(tmp, "hash.txt"), "w") as f:
        f.write(digest + "\n")
    attack = ["hashcat", "-m", "0", "-a", "3", "-O", "--potfile-disable", "--quiet", "hash.txt", "?l?l?l"]
    direct = run(attack, direct_env_home(tmp, "pocl"), 600, tmp)
    gsgpu = run(through_gsvirt(args, attack), direct_env_home(tmp, "gsgpu"), 900, tmp)
    found = f"{digest}:{word}"
    if found not in direct.stdout:
        fail("hashcat on PoCL did not crack the hash; the reference is unusable")
    if found not in gsgpu.stdout or gsgpu.returncode != 0:
        fail(f"hashcat through gsvirt returned {gsgpu.returncode} without '{found}'")
    print(f"PASS: both crack {digest} to '{word}'")


# ffmpeg: two short synthetic inputs (testsrc / testsrc2, 3 frames of 64x48) and, for each filter, the
# chain that uploads the frames as OpenCL images, filters them and reads them back. Each chain is one
# ffmpeg process, so a failing filter is named.
FFMPEG_INPUTS = [["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=0.6"],
                 ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5:duration=0.6"]]
YUV_CHAIN = "format=yuv420p,hwupload,{},hwdownload,format=yuv420p"
FFMPEG_FILTERS = {
    # name: (number of inputs, -vf or -filter_complex graph)
    "avgblur": (1, YUV_CHAIN.format("avgblur_opencl=sizeX=2:sizeY=1")),
    "boxblur": (1, YUV_CHAIN.format("boxblur_opencl=luma_radius=2:luma_power=2:chroma_radius=1")),
    "unsharp": (1, YUV_CHAIN.format("unsharp_opencl=lx=5:ly=5:la=1.5")),
    "convolution": (1, YUV_CHAIN.format("convolution_opencl=0m='0 -1 0 -1 5 -1 0 -1 0':0rdiv=1")),
    "dilation": (1, YUV_CHAIN.format("dilation_opencl")),
    "erosion": (1, YUV_CHAIN.format("erosion_opencl")),
    "prewitt": (1, YUV_CHAIN.format("prewitt_opencl")),
    "roberts": (1, YUV_CHAIN.format("roberts_opencl")),
    "sobel": (1, YUV_CHAIN.format("sobel_opencl=scale=1.5")),
    "nlmeans": (1, YUV_CHAIN.format("nlmeans_opencl=s=4:p=3:r=7")),
    "transpose": (1, YUV_CHAIN.format("transpose_opencl=dir=clock")),
    "pad": (1, YUV_CHAIN.format("pad_opencl=w=80:h=64:x=8:y=8:color=blue")),
    "colorkey": (1, "format=rgba,hwupload,colorkey_opencl=color=0x00ff00:similarity=0.3:blend=0.2,"
                    "hwdownload,format=rgba"),
    "overlay": (2, "[0:v]format=yuv420p,hwupload[a];[1:v]scale=32:24,format=yuva420p,hwupload[b];"
                   "[a][b]overlay_opencl=x=8:y=8,hwdownload,format=yuv420p"),
    "xfade": (2, "[0:v]format=yuv420p,hwupload[a];[1:v]format=yuv420p,hwupload[b];"
                 "[a][b]xfade_opencl=transition=wipeleft:duration=0.4:offset=0.1,hwdownload,format=yuv420p"),
}

# What ffmpeg prints when gsgpu runs with image support switched off (GSGPU_IMAGES=0).
NO_IMAGES = ["No image support in OpenCL driver"]


def ffmpeg_command(inputs, graph):
    cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error",
           "-init_hw_device", "opencl=ocl", "-filter_hw_device", "ocl"]
    for i in FFMPEG_INPUTS[:inputs]:
        cmd += i
    cmd += ["-filter_complex" if inputs > 1 else "-vf", graph]
    return cmd + ["-f", "framemd5", "-"]


def frame_hashes(text):
    """The framemd5 lines (stream, dts, pts, duration, size, md5 of each frame), the comments left out."""
    return [line for line in text.splitlines() if line and not line.startswith("#") and line.count(",") == 5]


def case_ffmpeg(args, tmp):
    require("ffmpeg")
    home_direct, home_gsgpu = direct_env_home(tmp, "pocl"), direct_env_home(tmp, "gsgpu")
    for name, (inputs, graph) in FFMPEG_FILTERS.items():
        cmd = ffmpeg_command(inputs, graph)
        direct = run(cmd, home_direct, 300, tmp)
        want = frame_hashes(direct.stdout)
        if direct.returncode != 0 or not want:
            fail(f"{name}: ffmpeg on PoCL returned {direct.returncode} with {len(want)} frames; "
                 "the reference is unusable")
        gsgpu = run(through_gsvirt(args, cmd), home_gsgpu, 300, tmp, args.executor)
        got = frame_hashes(gsgpu.stdout)
        if gsgpu.returncode != 0 and any(m in gsgpu.stderr for m in NO_IMAGES):
            print(f"SKIP: {name}: gsgpu runs without image support (GSGPU_IMAGES=0)")
            sys.exit(77)
        if gsgpu.returncode != 0:
            fail(f"{name}: ffmpeg through gsvirt returned {gsgpu.returncode}")
        if got != want:
            fail(f"{name}: frames differ from PoCL's:\n  PoCL:  {want}\n  gsgpu: {got}")
        print(f"{name}: {len(want)} frames identical", flush=True)
    print(f"PASS: {len(FFMPEG_FILTERS)} OpenCL filters give byte-identical frames through gsvirt "
          f"({args.mode}, {args.executor}) and on PoCL")


def case_pyopencl(args, tmp):
    python = "/usr/bin/python3"  # Debian's interpreter, where python3-pyopencl installs
    if not os.path.exists(python) or subprocess.run([python, "-c", "import pyopencl, numpy"],
                                                    capture_output=True).returncode != 0:
        print("SKIP: python3-pyopencl is not installed")
        sys.exit(77)
    include_dir = os.path.join(tmp, "include")
    os.makedirs(include_dir)
    with open(os.path.join(include_dir, "scale.h"), "w") as f:
        f.write("#define SCALE(x) ((x) * 3.0f + 1.0f)\n")
    workload = [python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyopencl_workload.py")]
    paths = {}
    for name in ("pocl", "gsgpu"):
        paths[name] = os.path.join(tmp, name + ".npz")
        cmd = workload + ["run", paths[name], include_dir]
        if name == "gsgpu":
            r = run(through_gsvirt(args, cmd), direct_env_home(tmp, name), 600, tmp, args.executor)
        else:
            r = run(cmd, direct_env_home(tmp, name), 600, tmp)
        if r.returncode != 0 or not os.path.exists(paths[name]):
            fail(f"the PyOpenCL workload on {name} returned {r.returncode}")
    # numpy lives with Debian's interpreter, not necessarily with the one running this test
    r = subprocess.run(workload + ["compare", paths["pocl"], paths["gsgpu"]], capture_output=True, text=True)
    print(r.stdout, r.stderr, flush=True)
    if r.returncode != 0:
        fail("PyOpenCL's results through gsvirt differ from PoCL's")
    print(f"PASS: PyOpenCL gives PoCL's results through gsvirt ({args.mode}, {args.executor})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["clpeak", "hashcat", "ffmpeg", "pyopencl"])
    p.add_argument("--gsvirt", required=True)
    p.add_argument("--mode", default="remote", choices=["remote", "native"])
    p.add_argument("--executor", default="gsgpu", choices=["gsgpu", "host"], help="remote mode's executor")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="gsvirt-apps-") as tmp:
        {"clpeak": case_clpeak, "hashcat": case_hashcat, "ffmpeg": case_ffmpeg,
         "pyopencl": case_pyopencl}[args.case](args, tmp)


if __name__ == "__main__":
    main()
