#!/usr/bin/env python3
"""The bounding-box test's effect on gsgpu's rasterizer counters for seed 002's glmark2 scenes (issue
11 acceptance 5; the paper reports +10.11 % weighted over build, shadow, refract, buffer, bump, loop,
jellyfish, ideas, terrain, up to 31.1 % on refract).

    bench/graphics/bbox_counters.py [--build build] [--traces DIR] [--out DIR] [--scenes a,b,...]

Replays each scene's apitrace trace (recorded by scripts/glmark2-scenes-compare into DIR/traces) twice
through zink on gsgpu (`gsvirt run --mode remote`), with GSGPU_VK_BBOX_TEST=1 and =0
(docs/vulkan-driver.md "Draws"), and with GSGPU_DUMP_DIR so that the driver writes every draw's
counters (draw-*.counters.json, docs/graphics.md "Debug output"); the same frames run both ways.

What is compared (docs/performance.md "Bounding-box test"): the tiles each level of the hierarchical
rasterizer tests (`raster.tiles[].visited`, 64 down to 4) and the 4x4 blocks it tests pixel by pixel
(`blocks_tested`); their sum is the scene's rasterizer work. The top level (128) is left out of the
sum: with the option off gsgpu walks every top-level tile of the render area, where the paper's
rasterizer starts from the tiles of the triangle's box in both modes. A scene's effect is
off / on - 1 (the extra work without the box; a speed-up when a level tests one tile per cycle);
the weighted figure weights each scene by its pixels (fragments), as the paper does.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SEED_002_SCENES = "build,shadow,refract,buffer,bump,loop,jellyfish,ideas,terrain"
PAPER = {"weighted": 10.11, "refract (level 6)": 31.1}
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--traces", default="build/glmark2-scenes/traces")
    p.add_argument("--scenes", default=SEED_002_SCENES)
    p.add_argument("--timeout", type=int, default=900)
    return p.parse_args()


def sum_counters(dump_dir):
    """The raster counters of every draw in dump_dir, summed: {'visited': [6], 'blocks', 'fragments', ...}."""
    total = {"visited": [0] * 6, "rejected": [0] * 6, "accepted": [0] * 6, "bbox": 0, "blocks": 0,
             "fragments": 0, "draws": 0}
    for path in Path(dump_dir).glob("draw-*.counters.json"):
        r = json.loads(path.read_text())["raster"]
        for i, level in enumerate(r["tiles"]):
            for key in ("visited", "rejected", "accepted"):
                total[key][i] += level[key]
        total["bbox"] += r["tiles_rejected_by_bbox"]
        total["blocks"] += r["blocks_tested"]
        total["fragments"] += r["fragments"]
        total["draws"] += 1
    return total


def replay_counters(scene, trace, bbox, args):
    """Counters of one replay of `trace` with the box test on or off (None when the replay failed)."""
    dump_dir = tempfile.mkdtemp(prefix=f"bbox-{scene}-{bbox}-")
    env = dict(os.environ, MESA_LOADER_DRIVER_OVERRIDE="zink", VK_LOADER_LAYERS_DISABLE="~all~",
               GSGPU_VK_BBOX_TEST=str(bbox), GSGPU_DUMP_DIR=dump_dir)
    env.pop("LIBGL_ALWAYS_SOFTWARE", None)
    command = XVFB + [str(Path(args.build) / "tools/gsvirt/gsvirt"), "run", "--mode", "remote", "--",
                      "glretrace", "-b", str(trace)]
    try:
        out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout)
        counters = sum_counters(dump_dir) if out.returncode == 0 else None
        if counters is None:
            print(f"{scene}: glretrace exited {out.returncode}: {out.stderr[-500:]}", file=sys.stderr)
    except subprocess.TimeoutExpired:
        counters = None
    shutil.rmtree(dump_dir, ignore_errors=True)
    return counters


def work(c):
    """Rasterizer work below the top level: tiles tested at 64 .. 4 plus 4x4 blocks tested per pixel."""
    return sum(c["visited"][1:]) + c["blocks"]


def effect(off, on):
    return 100.0 * (off / on - 1.0) if on else 0.0


def scene_line(scene, on, off):
    levels = " ".join(f"{effect(off['visited'][i], on['visited'][i]):+.1f}%" for i in range(1, 6))
    return (f"| {scene} | {on['draws']} | {on['fragments']} | {work(on)} | {work(off)} | "
            f"{effect(work(off), work(on)):+.2f}% | {levels} | {effect(off['blocks'], on['blocks']):+.1f}% | "
            f"{on['bbox']} |")


def main():
    args = parse_args()
    rows = []
    print("| scene | draws | fragments | work, box on | work, box off | effect | 64 32 16 8 4 (tiles) | "
          "4x4 blocks | rejected by the box |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for scene in [s for s in args.scenes.split(",") if s]:
        trace = Path(args.traces) / f"{scene}.trace"
        if not trace.exists():
            print(f"| {scene} | no trace ({trace}: run scripts/glmark2-scenes-compare first) |")
            continue
        on, off = replay_counters(scene, trace, 1, args), replay_counters(scene, trace, 0, args)
        if on is None or off is None or on["fragments"] != off["fragments"]:
            print(f"| {scene} | replay failed or the fragments differ both ways |")
            continue
        rows.append((scene, on, off))
        print(scene_line(scene, on, off), flush=True)
    weight = sum(on["fragments"] for _, on, _ in rows)
    if weight:
        weighted = sum(on["fragments"] * effect(work(off), work(on)) for _, on, off in rows) / weight
        pooled = effect(sum(work(off) for _, _, off in rows), sum(work(on) for _, on, _ in rows))
        print(f"\nweighted by fragments over {len(rows)} scenes: {weighted:+.2f}% "
              f"(pooled work: {pooled:+.2f}%); the paper: +{PAPER['weighted']}% weighted, "
              f"up to +{PAPER['refract (level 6)']}% (refract, level 6)")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
