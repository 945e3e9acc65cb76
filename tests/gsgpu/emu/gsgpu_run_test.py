#!/usr/bin/env python3
"""gsgpu-run end to end: results written to files, counters printed, dumps, faults and bad usage."""
import os
import struct
import subprocess
import sys
import tempfile

tool, kernels = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, cwd):
    return subprocess.run([tool] + args, cwd=cwd, capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as tmp:
    n = 300
    a = list(range(n))
    b = [7 * i + 100000 for i in range(n)]
    open(os.path.join(tmp, "a.bin"), "wb").write(struct.pack(f"<{n}I", *a))
    open(os.path.join(tmp, "b.bin"), "wb").write(struct.pack(f"<{n}I", *b))

    # 5 groups of 64 = 320 work-items over 300 elements would overrun c; use 6 x 50.
    r = run([os.path.join(kernels, "vadd.s"), "--grid", "6", "--group", "50", "--in", "a=a.bin", "--in", "b=b.bin",
             "--out", f"c=c.bin:{4 * n}", "--dump"], tmp)
    check(r.returncode == 0, f"vadd exit status {r.returncode}: {r.stderr}")
    if r.returncode == 0:
        c = struct.unpack(f"<{n}I", open(os.path.join(tmp, "c.bin"), "rb").read())
        check(list(c) == [x + y for x, y in zip(a, b)], "vadd results")
        check("work_groups               6" in r.stdout, "counters printed:\n" + r.stdout)
        check("v_add_u32 v8, v6, v7" in r.stdout, "dump shows the disassembly")
        check("result: ok" in r.stdout, "dump shows the result")

    # --arg values and in-place output (--out without a size on an --in buffer).
    open(os.path.join(tmp, "x.bin"), "wb").write(struct.pack("<64I", *range(64)))
    r = run([os.path.join(kernels, "scale.s"), "--grid", "2", "--group", "32", "--in", "x=x.bin", "--out", "x=x.bin",
             "--arg", "buf:x", "--arg", "u32:3"], tmp)
    check(r.returncode == 0, f"scale exit status {r.returncode}: {r.stderr}")
    if r.returncode == 0:
        x = struct.unpack("<64I", open(os.path.join(tmp, "x.bin"), "rb").read())
        check(list(x) == [3 * i for i in range(64)], "scale results")

    # An endless kernel ends in a watchdog fault: exit 1 and the cause on stderr.
    r = run([os.path.join(kernels, "spin.s"), "--grid", "1", "--group", "8", "--budget", "5000"], tmp)
    check(r.returncode == 1, f"spin exit status {r.returncode}")
    check("watchdog" in r.stderr, "spin reports the watchdog: " + r.stderr)

    # Bad usage and bad kernels: exit 2 with the reason.
    r = run(["--grid", "1"], tmp)
    check(r.returncode == 2 and "no kernel file" in r.stderr, "missing kernel: " + r.stderr)
    open(os.path.join(tmp, "bad.s"), "w").write("  s_nop\n  v_frobnicate v1\n")
    r = run(["bad.s"], tmp)
    check(r.returncode == 2 and "line 2" in r.stderr, "assembler error names the line: " + r.stderr)
    r = run([os.path.join(kernels, "vadd.s"), "--grid", "0x"], tmp)
    check(r.returncode == 2 and "--grid" in r.stderr, "bad number: " + r.stderr)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
