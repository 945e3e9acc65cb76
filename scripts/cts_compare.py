#!/usr/bin/env python3
"""Runs Khronos OpenCL-CTS binaries one sub-test per process and compares two such runs.

  cts_compare.py run --cts BUILD_DIR --out RESULTS.json [--binaries a,b] [--timeout S] [--jobs N]
                     [--only REGEX] [--only-passed EARLIER.json] [--subtests a,b] [--args "ARG ..."]
  cts_compare.py compare DIRECT.json GSVIRT.json

`run` uses whatever OpenCL platform the environment gives the process (the lead script runs it
once directly with the host's ICD and once inside `gsvirt run`, which points the loader at gsvirt).
Each sub-test runs as `BINARY SUBTEST [ARGS]` in the binary's folder, with a time cap (ARGS:
the binary's own options, e.g. the image tests' quick mode `small_images`, or a filter mode); its result comes
from the JSON file the CTS harness writes when CL_CONFORMANCE_RESULTS_FILENAME is set, or, when
the process died before writing it, from how it ended (crash, timeout). The CTS is not part of
this repository: point --cts at a build made elsewhere (docs/conformance.md says how).
--only-passed keeps the sub-tests that passed in an earlier run (the gsvirt side of a comparison only
needs those); --subtests names the sub-tests instead of the binary's listing, for binaries whose
modes are arguments it does not list (test_image_streams 1D 2D ...).
"""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

RESULT_ORDER = ("pass", "fail", "skip", "timeout", "crash", "error")


def find_binary(cts_dir, name):
    for root, _dirs, files in os.walk(cts_dir):
        if name in files:
            path = os.path.join(root, name)
            if os.access(path, os.X_OK):
                return path
    return None


def list_subtests(binary):
    """The names the CTS harness prints after 'Test names:' for --help."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60,
                         cwd=os.path.dirname(binary)).stdout
    names, listing = [], False
    for line in out.splitlines():
        if line.strip() == "Test names:":
            listing = True
        elif listing and line.startswith("\t") and line.strip():
            names.append(line.strip())
    return names


def classify(returncode, results_file, subtest):
    """pass / fail / skip from the harness's JSON; crash when it died without writing one."""
    try:
        with open(results_file) as f:
            verdict = json.load(f).get("results", {}).get(subtest)
        if verdict in ("pass", "fail", "skip"):
            return verdict
    except (OSError, ValueError):
        pass
    if returncode < 0:
        return "crash"  # killed by a signal
    return "pass" if returncode == 0 else "fail"


def run_subtest(binary, subtest, timeout, log_dir, extra_args=()):
    with tempfile.TemporaryDirectory(prefix="cts-") as tmp:
        results_file = os.path.join(tmp, "results.json")
        env = dict(os.environ, CL_CONFORMANCE_RESULTS_FILENAME=results_file)
        log_path = os.path.join(log_dir, f"{os.path.basename(binary)}.{subtest}.log")
        start = time.monotonic()
        with open(log_path, "w") as log:
            # Own session: a time-out kills the sub-test and whatever it started.
            proc = subprocess.Popen([binary, subtest, *extra_args], stdout=log, stderr=subprocess.STDOUT,
                                    cwd=os.path.dirname(binary), env=env, start_new_session=True)
            try:
                returncode = proc.wait(timeout=timeout)
                result = classify(returncode, results_file, subtest)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                result = "timeout"
        seconds = round(time.monotonic() - start, 2)
    if result == "pass":
        os.unlink(log_path)  # keep the logs worth reading
    return {"result": result, "seconds": seconds}


def run(args):
    log_dir = os.path.splitext(args.out)[0] + ".logs"
    os.makedirs(log_dir, exist_ok=True)
    only = re.compile(args.only) if args.only else None
    passed_before = set(t for t, r in load(args.only_passed).items() if r == "pass") if args.only_passed else None
    results = {}
    for name in args.binaries.split(","):
        binary = find_binary(args.cts, name)
        if not binary:
            print(f"{name}: not found under {args.cts}; skipped", file=sys.stderr)
            continue
        listed = args.subtests.split(",") if args.subtests else list_subtests(binary)
        subtests = [s for s in listed if (not only or only.search(f"{name}/{s}"))
                    and (passed_before is None or f"{name}/{s}" in passed_before)]
        print(f"{name}: {len(subtests)} sub-tests", flush=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            extra = args.args.split() if args.args else []
            futures = {s: pool.submit(run_subtest, binary, s, args.timeout, log_dir, extra) for s in subtests}
            results[name] = {s: f.result() for s, f in futures.items()}
        counts = {r: sum(1 for v in results[name].values() if v["result"] == r) for r in RESULT_ORDER}
        print("  " + ", ".join(f"{k} {v}" for k, v in counts.items() if v), flush=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


def load(path):
    with open(path) as f:
        data = json.load(f)
    return {f"{b}/{s}": v["result"] for b, subs in data.items() for s, v in subs.items()}


def compare(args):
    direct, gsvirt = load(args.direct), load(args.gsvirt)
    passing = {t for t, r in direct.items() if r == "pass"}
    kept = {t for t in passing if gsvirt.get(t) == "pass"}
    ratio = 100.0 * len(kept) / len(passing) if passing else 0.0
    binaries = sorted({t.split("/")[0] for t in direct})
    print(f"{'binary':32} {'direct pass':>11} {'kept':>5}")
    for b in binaries:
        p = [t for t in passing if t.startswith(b + "/")]
        k = [t for t in kept if t.startswith(b + "/")]
        print(f"{b:32} {len(p):11} {len(k):5}")
    timed_out = sorted(t for t, r in direct.items() if r == "timeout")
    if timed_out:
        print(f"not counted (over the time cap directly): {len(timed_out)}")
    also = sorted(t for t, r in gsvirt.items() if r == "pass" and t not in passing)
    for t in also:
        print(f"  + {t} (direct: {direct.get(t, 'not run')})")
    for t in sorted(passing - kept):
        print(f"  - {t}: {gsvirt.get(t, 'not run')}")
    print(f"cts-compare: {len(kept)} of {len(passing)} direct passes kept ({ratio:.1f}%)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--cts", required=True, help="an OpenCL-CTS build folder")
    r.add_argument("--out", required=True, help="results JSON; logs of non-passes beside it")
    r.add_argument("--binaries", default="test_basic")
    r.add_argument("--only", help="regex on BINARY/SUBTEST")
    r.add_argument("--timeout", type=float, default=60.0)
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--args", help="extra arguments after each sub-test's name (e.g. small_images)")
    r.add_argument("--only-passed", help="only the sub-tests that passed in this earlier results JSON")
    r.add_argument("--subtests", help="these sub-test names instead of the binary's --help listing")
    c = sub.add_parser("compare")
    c.add_argument("direct")
    c.add_argument("gsvirt")
    args = parser.parse_args()
    run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    main()
