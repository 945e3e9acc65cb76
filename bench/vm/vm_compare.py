#!/usr/bin/env python3
"""Runs bench_vm over vtest on the host and inside a `gsvirt vm` guest (virtio-gpu, QEMU TCG), in one
go, and prints both with their ratio; then the guest again in native mode (the gsgpu runtime in the
guest, the gsgpu native context on the host). Remote runs use the default (gsgpu) executor.

  bench/vm/vm_compare.py BUILD_DIR
"""
import os
import subprocess
import sys


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    figures = {}
    for line in r.stdout.splitlines():
        name, value, unit = line.split()
        figures[name] = (float(value), unit)
    return figures


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = os.path.abspath(sys.argv[1])
    gsvirt = os.path.join(build, "tools/gsvirt/gsvirt")
    binary = "bench/vm/bench_vm"
    host = run([gsvirt, "run", "--transport", "vtest", "--", binary], build)
    guest = run([gsvirt, "vm", "--", binary], build)
    native = run([gsvirt, "vm", "--mode", "native", "--", binary], build)
    print(f"{'figure':20} {'vtest (host)':>16} {'virtio-gpu (guest)':>20} {'guest/host':>11} {'guest native':>16}")
    for name, (value, unit) in host.items():
        other = guest.get(name, (float("nan"), unit))[0]
        mine = native.get(name, (float("nan"), unit))[0]
        print(f"{name:20} {value:12.3f} {unit:<4}{other:16.3f} {unit:<4}{other / value:10.2f}x {mine:12.3f} {unit}")
    for label, figures in (("host", host), ("guest", guest), ("native guest", native)):
        share = figures["write_read_64mib"][0] / figures["memcpy_64mib"][0]
        print(f"64 MiB write+read in the {label}: {100 * share:.0f}% of that process's own memcpy")


if __name__ == "__main__":
    main()
