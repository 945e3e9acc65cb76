#!/usr/bin/env python3
"""End-to-end tests of native mode: the gsgpu OpenCL runtime in the application's process (the
gsgpu native ICD), the host's gsgpu native context (capset 17) running its packets.

Usage: native_e2e.py CASE --gsvirt PATH --server PATH --app PATH
Cases:
  vector-add-vtest | vector-add-inproc   `gsvirt run --mode native` verifies the vector add
  no-host-compiler   the host never runs a compiler in native mode: gsvirt-server runs with a
                     "clang" and "llvm-spirv" that record every call and fail; native mode still
                     verifies and nothing was called, while remote mode calls them and fails
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def clean_env():
    env = dict(os.environ)
    # No compiled-program cache on disk: every build must really run the front end.
    for name in ("GSVIRT_EXECUTOR", "GSVIRT_CACHE_DIR", "OCL_ICD_VENDORS", "GSVIRT_TRANSPORT"):
        env.pop(name, None)
    return env


def run_gsvirt(args, mode, transport, env=None):
    r = subprocess.run([args.gsvirt, "run", "--mode", mode, "--transport", transport, "--", args.app],
                       capture_output=True, text=True, timeout=300, env=env or clean_env())
    print(r.stdout, r.stderr)
    return r


def verified(r):
    return r.returncode == 0 and "verified (0 mismatches)" in r.stdout


def case_vector_add(args, transport):
    r = run_gsvirt(args, "native", transport)
    if not verified(r):
        fail(f"vector_add in native mode over {transport} returned {r.returncode}")
    # The gsgpu runtime's own platform, not the remoting ICD's "gsvirt".
    if "platform: gsgpu" not in r.stdout or "device:   gsgpu" not in r.stdout:
        fail("the application did not run on the gsgpu native ICD")


def write_script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, stat.S_IRWXU)


def spy_tools(tmp):
    """A bin folder whose compilers record their calls in tmp/calls and fail, and a gsvirt-server
    wrapper that gives them to the server alone (the application keeps the real compiler)."""
    bin_dir = os.path.join(tmp, "bin")
    os.mkdir(bin_dir)
    calls = os.path.join(tmp, "calls")
    spy = f'#!/bin/sh\necho "$0 $*" >> "{calls}"\nexit 1\n'
    for name in ("clang", "clang-14", "llvm-spirv", "llvm-spirv-14"):
        write_script(os.path.join(bin_dir, name), spy)
    return bin_dir, calls


def server_wrapper(tmp, server, bin_dir):
    wrapper = os.path.join(tmp, "gsvirt-server-without-compiler")
    write_script(wrapper, "#!/bin/sh\n"
                 f'export GSVIRT_CLANG="{bin_dir}/clang-14" GSVIRT_LLVM_SPIRV="{bin_dir}/llvm-spirv-14"\n'
                 # The spies are shell scripts writing outside the build directory: the compiler
                 # sandbox (no /bin/sh, no tmp) would stop them before they record the call.
                 'export GSVIRT_COMPILER_SANDBOX=0\n'
                 f'export PATH="{bin_dir}:$PATH"\n'
                 # The spies record their calls here, outside what a client process may write.
                 f'export GSVIRT_SANDBOX_WRITE="{tmp}"\n'
                 f'exec "{server}" "$@"\n')
    return wrapper


def case_no_host_compiler(args):
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir, calls = spy_tools(tmp)
        env = clean_env()
        env["GSVIRT_SERVER"] = server_wrapper(tmp, args.server, bin_dir)
        native = run_gsvirt(args, "native", "vtest", env)
        if not verified(native):
            fail(f"native mode failed while the host has no compiler (exit {native.returncode})")
        if os.path.exists(calls):
            fail("the host ran a compiler in native mode:\n" + open(calls).read())
        # The same server setup in remote mode: the host must compile, so the spies are called
        # (this proves the setup would have caught a compiler run).
        remote = run_gsvirt(args, "remote", "vtest", env)
        if not os.path.exists(calls):
            fail("remote mode ran no compiler on the host: the check above proves nothing")
        if verified(remote):
            fail("remote mode verified although the host's compiler always fails")
        print("native mode: no compiler call on the host; remote mode: " +
              f"{len(open(calls).read().splitlines())} calls, build failed as expected")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--gsvirt", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--app", required=True)
    args = ap.parse_args()
    cases = {
        "vector-add-vtest": lambda: case_vector_add(args, "vtest"),
        "vector-add-inproc": lambda: case_vector_add(args, "inproc"),
        "no-host-compiler": lambda: case_no_host_compiler(args),
    }
    if args.case not in cases:
        fail(f"unknown case {args.case}")
    cases[args.case]()


if __name__ == "__main__":
    main()
