#!/usr/bin/env python3
"""The glmark2 score of issue 11 acceptance 5: glmark2's default scene list, off-screen under Xvfb,
on OpenGL through zink on the gsgpu Vulkan driver (`gsvirt run`, remote or native mode) and, in the
same run, on llvmpipe, softpipe and zink on lavapipe; prints each side's score, gsgpu's ratio to
each reference, and the frames per second of every scene.

    bench/graphics/glmark2_compare.py build [--duration 0.5] [--size 800x600] [--mode remote|native]
                                           [--only gsgpu,llvmpipe,...]

--duration is glmark2's per-scene duration (`-b :duration=D`): glmark2's own default is 10 s, too
long for the software drivers; a scene whose frame takes longer than D still draws one frame.
"""
import argparse
import os
import platform
import re
import subprocess
import sys

LAVAPIPE_ICD = f"/usr/share/vulkan/icd.d/lvp_icd.{platform.machine()}.json"
SCENE_LINE = re.compile(r"^\[(\w+)\] (.*): FPS: (\d+) FrameTime")
SCORE_LINE = re.compile(r"glmark2 Score: (\d+)")


def sides(build, mode):
    """side -> (command prefix, environment) for glmark2 on that driver."""
    base = dict(os.environ, VK_LOADER_LAYERS_DISABLE="~all~")
    software = dict(base, LIBGL_ALWAYS_SOFTWARE="1")
    return {
        "gsgpu": ([f"{build}/tools/gsvirt/gsvirt", "run", "--mode", mode, "--"],
                  dict(base, MESA_LOADER_DRIVER_OVERRIDE="zink")),
        "llvmpipe": ([], dict(software, GALLIUM_DRIVER="llvmpipe")),
        "softpipe": ([], dict(software, GALLIUM_DRIVER="softpipe")),
        "zink-lavapipe": ([], dict(software, MESA_LOADER_DRIVER_OVERRIDE="zink", VK_DRIVER_FILES=LAVAPIPE_ICD)),
    }


def run_glmark2(prefix, env, args):
    """(score, {scene: fps}, renderer) of one glmark2 run; score None when it printed none."""
    command = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"] + prefix + [
        "glmark2", "--off-screen", "-s", args.size, "-b", f":duration={args.duration}"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600).stdout
    scenes, score, renderer = {}, None, "?"
    for line in out.splitlines():
        if m := SCENE_LINE.match(line.strip()):
            scenes[f"{m.group(1)} {m.group(2)}"] = int(m.group(3))
        elif m := SCORE_LINE.search(line):
            score = int(m.group(1))
        elif "GL_RENDERER:" in line:
            renderer = line.split("GL_RENDERER:", 1)[1].strip()
    return score, scenes, renderer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--duration", default="0.5")
    ap.add_argument("--size", default="800x600")
    ap.add_argument("--mode", default="remote", choices=["remote", "native"])
    ap.add_argument("--only", default="gsgpu,llvmpipe,softpipe,zink-lavapipe")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    results = {}
    for name, (prefix, env) in sides(build, args.mode).items():
        if name in args.only.split(","):
            results[name] = run_glmark2(prefix, env, args)
            print(f"{name}: score {results[name][0]} ({results[name][2]})", file=sys.stderr)
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs; glmark2 --off-screen -s {args.size} "
          f"-b :duration={args.duration}; gsgpu through zink, gsvirt run --mode {args.mode}")
    names = list(results)
    print("| | " + " | ".join(names) + " |")
    print("| --- " * (len(names) + 1) + "|")
    print("| renderer | " + " | ".join(results[n][2] for n in names) + " |")
    print("| **score** | " + " | ".join(f"**{results[n][0]}**" for n in names) + " |")
    if "gsgpu" in results and results["gsgpu"][0]:
        ratios = [f"{results['gsgpu'][0] / results[n][0]:.2f}" if results[n][0] else "-" for n in names]
        print("| gsgpu / side | " + " | ".join(ratios) + " |")
    all_scenes = list(dict.fromkeys(s for n in names for s in results[n][1]))
    for scene in all_scenes:
        print(f"| {scene} | " + " | ".join(str(results[n][1].get(scene, "-")) for n in names) + " |")


if __name__ == "__main__":
    main()
