#!/usr/bin/env python3
"""Writes the guest's initramfs (a newc cpio archive) for `gsvirt vm`.

It holds busybox (from the Debian 13 root), the guest init script, and the kernel modules the init
loads before it mounts the real root over virtio-9p: 9p and its virtio transport, virtio-gpu and
virtio-console, each with the modules they depend on (read from the root's modules.dep), stored
decompressed so busybox's insmod can load them. /modules.order lists them in load order.
Standard library only; no cpio binary is needed on the host.
"""
import argparse
import lzma
import os
import subprocess
import sys

WANTED_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "virtio_gpu", "virtio_console"]


class CpioWriter:
    """The "new ASCII" (070701) cpio format the kernel unpacks into its rootfs."""

    def __init__(self, stream):
        self.stream = stream
        self.inode = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        encoded = name.encode() + b"\0"
        fields = [self.inode, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(encoded), 0]
        self.inode += 1
        header = b"070701" + b"".join(b"%08x" % f for f in fields)
        self.stream.write(header + encoded)
        self._pad(len(header) + len(encoded))
        self.stream.write(data)
        self._pad(len(data))

    def _pad(self, length):
        self.stream.write(b"\0" * (-length % 4))

    def directory(self, name):
        self._entry(name, 0o040755)

    def file(self, name, data, executable=False):
        self._entry(name, 0o100755 if executable else 0o100644, data)

    def char_device(self, name, major, minor):
        self._entry(name, 0o020600, rdev=(major, minor))

    def finish(self):
        self._entry("TRAILER!!!", 0)


def read_module_deps(modules_dir):
    """Maps a module name (e.g. "9pnet_virtio") to (relative path, [dependency paths])."""
    deps = {}
    with open(os.path.join(modules_dir, "modules.dep")) as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[module_name(path)] = (path, rest.split())
    return deps


def module_name(path):
    base = os.path.basename(path)
    return base.split(".ko")[0].replace("-", "_")


def load_order(wanted, deps):
    """Dependencies first; modules built into the kernel (absent from modules.dep) are skipped."""
    order = []

    def visit(name):
        if name not in deps or name in order:
            return
        for dep in deps[name][1]:
            visit(module_name(dep))
        order.append(name)

    for name in wanted:
        visit(name)
    return order


def module_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".xz"):
        return lzma.decompress(data)
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True)
    parser.add_argument("--kernel-version", required=True)
    parser.add_argument("--init", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    modules_dir = os.path.join(args.root, "lib/modules", args.kernel_version)
    deps = read_module_deps(modules_dir)
    order = load_order(WANTED_MODULES, deps)
    with open(args.out, "wb") as stream:
        cpio = CpioWriter(stream)
        for d in ["bin", "dev", "proc", "sys", "newroot", "modules"]:
            cpio.directory(d)
        cpio.char_device("dev/console", 5, 1)
        with open(os.path.join(args.root, "bin/busybox"), "rb") as f:
            cpio.file("bin/busybox", f.read(), executable=True)
        with open(args.init, "rb") as f:
            cpio.file("init", f.read(), executable=True)
        for name in order:
            cpio.file("modules/%s.ko" % name, module_bytes(os.path.join(modules_dir, deps[name][0])))
        cpio.file("modules.order", "".join(n + "\n" for n in order).encode())
        cpio.finish()
    print("initramfs: %d modules (%s)" % (len(order), " ".join(order)), file=sys.stderr)


if __name__ == "__main__":
    main()
