#!/usr/bin/env python3
"""End-to-end tests: real OpenCL programs through the gsvirt ICD, transports, server and vcomp.

Usage: e2e.py CASE --gsvirt PATH --server PATH --vendors DIR --app PATH
Cases:
  vector-add-vtest | vector-add-inproc   one run through `gsvirt run` (host executor)
  vector-add-gsgpu   the same with --executor gsgpu (compiler + emulator), in-process
  vector-add-default `gsvirt run` with no --executor: the work must run on gsgpu
  clinfo             every device line of clinfo matches the host platform's
  concurrent         16 clients at once on one server, all results verified
  disconnect-storm   100 clients killed mid-stream leave no server children, fds or growth
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run_gsvirt(args, transport, app, executor="host"):
    """executor None: no --executor flag (and no GSVIRT_EXECUTOR), i.e. gsvirt's default."""
    flag = ["--executor", executor] if executor else []
    env = dict(os.environ)
    env.pop("GSVIRT_EXECUTOR", None)
    if executor == "host":
        env["GSVIRT_TRUSTED_GUEST"] = "1"  # the host platform here is PoCL, a CPU device
    r = subprocess.run([args.gsvirt, "run", "--transport", transport, *flag, "--", *app],
                       capture_output=True, text=True, timeout=300, env=env)
    return r


def case_vector_add(args, transport, executor="host"):
    r = run_gsvirt(args, transport, [args.app], executor)
    print(r.stdout, r.stderr)
    which = executor or "default"
    if r.returncode != 0 or "verified (0 mismatches)" not in r.stdout:
        fail(f"vector_add over {transport} on the {which} executor returned {r.returncode}")
    if "platform: gsvirt" not in r.stdout:
        fail("the application did not see the gsvirt platform")
    on_gsgpu = "device:   gsgpu" in r.stdout
    if executor in ("gsgpu", None) and not on_gsgpu:
        fail(f"the {which} executor did not run the work on gsgpu")
    if executor == "host" and on_gsgpu:
        fail("--executor host ran the work on gsgpu")


def device_section(text):
    """The per-device lines of clinfo's output (platform lines differ by design)."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("Number of devices")), None)
    end = next((i for i, l in enumerate(lines) if l.startswith("NULL platform behavior")), len(lines))
    if start is None:
        fail("clinfo printed no device section:\n" + text)
    section = [l for l in lines[start:end] if not re.match(r"\s+Platform Name", l)]
    # Without a valid LUID (cl_khr_device_uuid) the LUID's bytes are undefined: NVIDIA's driver
    # leaves them unwritten and clinfo prints what its buffer held before (H100, 2026-11-28).
    if any(re.match(r"\s+Valid Device LUID\s+No$", l) for l in section):
        section = [l for l in section if not re.match(r"\s+Device LUID\s", l)]
    return section


# SVM is an optional OpenCL 3.0 feature the protocol does not carry: the ICD refuses its entry
# points and reports CL_DEVICE_SVM_CAPABILITIES 0 whatever the host device has (guest/cl/device.cc).
SVM_LINE = re.compile(r"\s+(Coarse-grained buffer sharing|Fine-grained buffer sharing|Fine-grained system sharing|"
                      r"Atomics)\s+No$")
# Native kernels are functions of the application: the ICD refuses clEnqueueNativeKernel and reports
# CL_EXEC_NATIVE_KERNEL absent whatever the host device has (guest/cl/device.cc).
NATIVE_KERNEL_LINE = re.compile(r"\s+Run native kernels\s+No$")


def absent_through_gsvirt(line):
    return SVM_LINE.match(line) is not None or NATIVE_KERNEL_LINE.match(line) is not None


# The guest sees only the extensions gsvirt carries end to end (host/vcomp/extension_allow_list.cc):
# the extension lines are compared as sets (gsvirt's a subset of the host's), not line by line.
EXTENSIONS_LINE = re.compile(r"\s+Device Extensions(?: with Version)?\s+(\S+)")
EXTENSION_VERSION_LINE = re.compile(r"\s+(cl_\w+)\s+0x[0-9a-f]+ \(")


# clinfo prints some parameter blocks only for a device with their extension; a header line and
# the more deeply indented lines under it go with an extension gsvirt does not show.
EXTENSION_BLOCKS = {
    "cl_khr_command_buffer": "Command buffer", "cl_khr_spir": "SPIR versions",
    "cl_khr_semaphore": "Semaphore", "cl_khr_external_semaphore": "External semaphore",
    "cl_khr_external_memory": "External memory", "cl_khr_integer_dot_product": "Integer dot product",
    "cl_khr_suggested_local_work_size": "Suggested local work size",
}


def without_blocks_of(section, hidden):
    headers = [EXTENSION_BLOCKS[e] for e in hidden if e in EXTENSION_BLOCKS]
    out, depth = [], None
    for line in section:
        indent = len(line) - len(line.lstrip())
        if depth is not None and indent > depth:
            continue
        depth = None
        if any(line.strip().startswith(h) for h in headers):
            depth = indent
            continue
        out.append(line)
    return out


def split_extensions(section):
    """(the section without its extension lines, the names in the string, the names in the array)."""
    rest, string_names, array_names = [], set(), set()
    in_array = False
    for line in section:
        m = EXTENSIONS_LINE.match(line)
        if m and "with Version" in line:
            in_array = True
            array_names.add(m.group(1))
            continue
        if m:
            in_array = False
            string_names.update(line.split()[2:])
            continue
        m = EXTENSION_VERSION_LINE.match(line)
        if in_array and m:
            array_names.add(m.group(1))
            continue
        in_array = False
        rest.append(line)
    return rest, string_names, array_names


def case_clinfo(args):
    if not shutil.which("clinfo"):
        print("SKIP: clinfo not installed")
        sys.exit(77)
    env = dict(os.environ)
    env.pop("OCL_ICD_VENDORS", None)
    if args.direct_vendors:  # the host platform's ICD folder when it is not the loader's default
        env["OCL_ICD_VENDORS"] = args.direct_vendors
    def direct():
        return subprocess.run(["clinfo"], capture_output=True, text=True, env=env, timeout=120).stdout

    # Direct runs before and after: a line the host itself answers differently from one run to
    # the next (a driver that reports free memory, say) is not gsvirt's doing and is skipped.
    before = device_section(direct())
    remote = run_gsvirt(args, "vtest", ["clinfo"])
    after = device_section(direct())
    if remote.returncode != 0:
        fail("clinfo through gsvirt failed:\n" + remote.stdout + remote.stderr)
    if "Platform Name                                   gsvirt" not in remote.stdout:
        fail("clinfo does not show the gsvirt platform")
    b, gsvirt_names, gsvirt_array = split_extensions(device_section(remote.stdout))
    before, host_names, _ = split_extensions(before)
    after = split_extensions(after)[0]
    if not gsvirt_names <= host_names or gsvirt_names != gsvirt_array:
        fail(f"extensions through gsvirt {sorted(gsvirt_names)} (array {sorted(gsvirt_array)}) "
             f"are not a subset of the host's {sorted(host_names)} named alike by both queries")
    hidden = host_names - gsvirt_names
    before, after = without_blocks_of(before, hidden), without_blocks_of(after, hidden)
    if len(before) != len(b):
        fail(f"clinfo printed {len(before)} device lines directly, {len(b)} through gsvirt")
    volatile = [x for x, y in zip(before, after) if x != y]
    diff = [(x, y) for x, y, z in zip(before, b, after) if x == z and x != y and not absent_through_gsvirt(y)]
    for x, y in diff[:20]:
        print(f"host:   {x}\ngsvirt: {y}")
    if diff:
        fail(f"{len(diff)} device lines differ")
    print(f"{len(b) - len(volatile)} device lines identical; {len(volatile)} vary between direct runs")


class Server:
    def __init__(self, args, stdout=None):
        self.dir = tempfile.mkdtemp(prefix="gsvirt-e2e-")
        self.socket = os.path.join(self.dir, "vtest.sock")
        env = dict(os.environ)
        env.pop("OCL_ICD_VENDORS", None)
        r, w = os.pipe()
        self.proc = subprocess.Popen([args.server, "--socket", self.socket, "--ready-fd", str(w)],
                                     pass_fds=(w,), env=env, stdout=stdout,
                                     stderr=subprocess.DEVNULL)
        os.close(w)
        if not os.read(r, 1):
            fail("gsvirt-server did not become ready")
        os.close(r)
        self.client_env = dict(os.environ, OCL_ICD_VENDORS=args.vendors, GSVIRT_TRANSPORT="vtest",
                               GSVIRT_VTEST_SOCKET=self.socket)

    def children(self):
        path = f"/proc/{self.proc.pid}/task/{self.proc.pid}/children"
        with open(path) as f:
            return [int(p) for p in f.read().split()]

    def fds(self):
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
        if rc != 0:
            fail(f"gsvirt-server exited with {rc} after SIGTERM")


def wait_for_no_children(server, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if not server.children():
            return True
        time.sleep(0.1)
    return False


def case_concurrent(args, clients=16):
    server = Server(args)
    procs = [subprocess.Popen([args.app], env=server.client_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(clients)]
    bad = 0
    for p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0 or "verified (0 mismatches)" not in out:
            bad += 1
            print(out)
    ok = wait_for_no_children(server)
    server.stop()
    if bad:
        fail(f"{bad} of {clients} concurrent clients failed")
    if not ok:
        fail("server children remain after every client finished")
    print(f"{clients} concurrent clients verified")


def case_disconnect_storm(args, clients=100):
    server = Server(args)
    # Warm up once so that lazily opened host resources are not counted as leaks.
    subprocess.run([args.app], env=server.client_env, capture_output=True, timeout=300)
    wait_for_no_children(server)
    fds_before, rss_before = server.fds(), server.rss_kib()
    rng = random.Random(1234)
    running = []
    for i in range(clients):
        p = subprocess.Popen([args.app], env=server.client_env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        running.append((p, time.time() + rng.uniform(0.0, 0.4)))
        # Keep a handful alive at once; kill each at its random moment mid-stream.
        while len(running) >= 8 or (i == clients - 1 and running):
            now = time.time()
            for entry in list(running):
                proc, when = entry
                if now >= when or proc.poll() is not None:
                    if proc.poll() is None:
                        proc.kill()
                    proc.wait()
                    running.remove(entry)
            time.sleep(0.01)
    if not wait_for_no_children(server, 60):
        fail(f"server still has children {server.children()} after {clients} disconnects")
    fds_after, rss_after = server.fds(), server.rss_kib()
    # The listening server itself must be unchanged: no fds kept, no memory growth beyond noise.
    server_ok = fds_after == fds_before and rss_after <= rss_before + 4096
    print(f"server fds {fds_before} -> {fds_after}, rss {rss_before} -> {rss_after} KiB")
    # And it still serves.
    r = subprocess.run([args.app], env=server.client_env, capture_output=True, text=True, timeout=300)
    server.stop()
    if not server_ok:
        fail("the server kept file descriptors or memory after the disconnects")
    if r.returncode != 0:
        fail("the server no longer serves after the disconnect storm:\n" + r.stdout)
    print(f"{clients} clients disconnected mid-stream; nothing left behind")


def case_kernel_printf(args):
    """Kernel printf on the gsgpu executor over vtest: the text reaches the application's stdout
    (in order, before what it prints after clFinish) and never the server's (issue 12 point 12)."""
    out_path = tempfile.mktemp(prefix="gsvirt-e2e-server-out-")
    with open(out_path, "w") as server_out:
        server = Server(args, stdout=server_out)
        try:
            r = subprocess.run([args.printf_app], capture_output=True, text=True, timeout=300,
                               env=server.client_env)
        finally:
            server.stop()
    with open(out_path) as f:
        host_text = f.read()
    os.unlink(out_path)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        fail(f"kernel_printf returned {r.returncode}")
    lines = r.stdout.splitlines()
    markers = sorted(l for l in lines if l.startswith("kernel-printf-marker"))
    if markers != [f"kernel-printf-marker {100 + i}" for i in range(4)]:
        fail(f"the application's stdout has {markers}, not the four kernel lines")
    if lines.index("app: finished") < max(lines.index(m) for m in markers):
        fail("kernel output came after what the application printed after clFinish")
    if "kernel-printf-marker" in host_text:
        fail("kernel output reached the server's stdout")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--gsvirt", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--vendors", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--printf-app", required=True)
    ap.add_argument("--direct-vendors", help="ICD folder of the direct clinfo run (default: the loader's)")
    args = ap.parse_args()
    cases = {
        "vector-add-vtest": lambda: case_vector_add(args, "vtest"),
        "vector-add-inproc": lambda: case_vector_add(args, "inproc"),
        "vector-add-gsgpu": lambda: case_vector_add(args, "inproc", "gsgpu"),
        "vector-add-default": lambda: case_vector_add(args, "vtest", None),
        "clinfo": lambda: case_clinfo(args),
        "concurrent": lambda: case_concurrent(args),
        "disconnect-storm": lambda: case_disconnect_storm(args),
        "kernel-printf": lambda: case_kernel_printf(args),
    }
    if args.case not in cases:
        fail(f"unknown case {args.case}")
    cases[args.case]()


if __name__ == "__main__":
    main()
