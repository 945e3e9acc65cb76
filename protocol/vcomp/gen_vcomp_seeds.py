#!/usr/bin/env python3
"""Generates well-formed vcomp command streams from protocol/vcomp/vcomp.xml: seed inputs for the
vcomp fuzz targets (docs/security.md, "Fuzzing").

Structure-aware: the wire encoding of every parameter (scalars, ids, arrays, strings, bulk data,
out capacities) comes from the XML through gen_vcomp.load(), the same model the protocol code is
generated from, so a seed stays well-formed when the protocol changes. The XML also says which
command creates each object type (a `new_id`) and which objects a command needs (its `id`/`ids`),
so each stream first creates what its commands use. What the XML cannot say (a sensible size, a
valid query name, a kernel source) comes from the small VALUES / QUERIES tables below.

Streams written (one file each):
  cmd_<command>         the objects the command needs, then the command
  life_<object>         one object created, used by every command that takes it, destroyed with
                        vcDestroyObject, used again (a dangling id), its id bound anew
  all_commands          every command of the XML in order

Framing per target:
  decoder   fuzz_vcomp_decoder's structured form: per command one byte for the command's index
            among the known ids, one byte of flags, one byte of argument dwords, the arguments.
            The target starts with a device (id 1) and a context (id 2).
  gsgpu     fuzz_vcomp_gsgpu's raw form: 0xff, then the commands. The target's prelude binds ids
            1..7 (device, context, queue, program with kernel "vadd" built, three 4 KiB buffers);
            commands that create or build programs are left out (the target drops them: each new
            source would run clang).

Standard library only. Usage: gen_vcomp_seeds.py vcomp.xml OUTDIR --target decoder|gsgpu
"""

import argparse
import os
import struct
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_vcomp import load  # noqa: E402  (the XML model and its validation)

KERNEL_SOURCE = ("__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {\n"
                 "  c[get_global_id(0)] = a[get_global_id(0)] + b[get_global_id(0)];\n}\n")

# Scalar and string values by parameter name (default 0 / empty).
VALUES = {
    "device_type": 0xFFFFFFFF,  # CL_DEVICE_TYPE_ALL
    "flags": 1,                 # CL_MEM_READ_WRITE
    "size": 64, "offset": 0, "origin": 0, "src_offset": 0, "dst_offset": 0,
    "create_type": 0x1220,      # CL_BUFFER_CREATE_TYPE_REGION
    "work_dim": 1,
    "arg_kind": 1, "arg_size": 8,  # a mem argument
    "blocking": 1,
    "addressing_mode": 0x1132, "filter_mode": 0x1140,  # CLAMP, NEAREST
    "channel_order": 0x10B5, "channel_data_type": 0x10D2,  # RGBA, UNORM_INT8
    "image_type": 0x10F1, "width": 8, "height": 8,     # a 2-D image
    "source": KERNEL_SOURCE, "kernel_name": "vadd", "options": "",
    "pattern": b"\x01\x02\x03\x04", "fill_color": bytes(range(16)),
    "il": struct.pack("<5I", 0x07230203, 0x00010000, 0, 16, 0),
}
# A valid param_name per query command.
QUERIES = {
    "clGetPlatformInfo": 0x0902, "clGetDeviceInfo": 0x102B, "clGetCommandQueueInfo": 0x1090,
    "clGetMemObjectInfo": 0x1102, "clGetImageInfo": 0x1114, "clGetProgramInfo": 0x1162,
    "clGetProgramBuildInfo": 0x1181, "clGetKernelInfo": 0x1190, "clGetKernelWorkGroupInfo": 0x11B0,
    "clGetKernelArgInfo": 0x1196, "clGetEventInfo": 0x11D3, "clGetEventProfilingInfo": 0x1280,
}
# The command that makes each object type, where the first in XML order is not the usual one.
CREATORS = {"device": "clGetDeviceIDs", "program": "clCreateProgramWithSource",
            "event": "clEnqueueMarkerWithWaitList", "mem": "clCreateBuffer"}
# After creating a program: build it, so that kernels can be made from it.
AFTER_CREATE = {"clCreateProgramWithSource": "clBuildProgram"}
PROGRAM_MAKERS = ("clCreateProgram", "clBuildProgram", "clCompileProgram", "clLinkProgram")

TARGETS = {
    # initial objects by type, next free id, reply buffer size, framing
    "decoder": ({"device": [1], "context": [2]}, 3, 512),
    "gsgpu": ({"device": [1], "context": [2], "queue": [3], "program": [4], "mem": [5, 6, 7]}, 8, 8192),
}


class Stream:
    """Commands encoded on the wire, with the ids bound so far by object type."""

    def __init__(self, gen):
        self.gen = gen
        self.objects = {t: list(ids) for t, ids in gen.initial.items()}
        self.next_id = gen.first_id
        self.commands = []  # (command id, want reply, argument bytes)

    def live(self, kind):
        """The first id bound to an object of `kind` (0 if none): what commands use."""
        ids = self.objects.get(kind)
        return ids[0] if ids else 0

    def new_id(self, kind):
        i = self.next_id
        self.next_id += 1
        self.objects.setdefault(kind, []).append(i)
        return i

    def ensure(self, kind, depth=0):
        """Creates an object of `kind` (and what it needs) unless one is live."""
        if self.live(kind) or depth > 8:
            return
        creator = self.gen.creator(kind)
        if creator is None:
            return
        self.emit(creator, depth + 1)
        after = AFTER_CREATE.get(creator.name)
        if after:
            self.emit(self.gen.by_name[after], depth + 1)

    def emit(self, command, depth=0, override=None):
        for p in command.ins:
            if p.kind in ("id", "ids") and not p.optional and not is_wait_list(p):
                self.ensure(p.object, depth)
        args = b"".join(self.encode(command, p, override or {}) for p in command.params)
        self.commands.append((command.id, command.reply, args))

    def encode(self, command, p, override):
        if p.name in override:
            return override[p.name]
        if p.out:
            return encode_out(p, command)
        k = p.kind
        if p.name == "wire_version":
            return struct.pack("<I", self.gen.meta["wire_version"])
        if p.name == "xml_hash":
            return lenbytes(self.gen.meta["hash"].encode())
        if k in ("u32", "i32"):
            return struct.pack("<I", scalar(command, p) & 0xFFFFFFFF)
        if k in ("u64", "i64"):
            return struct.pack("<Q", self.scalar_u64(command, p))
        if k == "f32":
            return struct.pack("<f", 0.0)
        if k == "id":
            return struct.pack("<Q", 0 if p.optional and p.object == "mem" else self.live(p.object))
        if k == "new_id":
            return struct.pack("<Q", self.new_id(p.object))
        if k == "new_ids":
            return struct.pack("<QQ", 1, self.new_id(p.object))
        if k == "ids":
            return self.encode_ids(p)
        if k == "u64s":
            values = self.gen.u64s(command, p)
            return struct.pack(f"<Q{len(values)}Q", len(values), *values)
        if k == "u32s":
            return struct.pack("<Q", 0)
        if k in ("string", "bytes"):
            return lenbytes(value_bytes(p.name))
        if k in ("strings", "bytes_list"):
            return struct.pack("<Q", 1) + lenbytes(value_bytes(p.name, binary=True))
        if k == "data":
            return data_in(VALUES.get("size", 64) if p.get_len() == "size" else 16)
        raise SystemExit(f"gen_vcomp_seeds: no encoding for {command.name}.{p.name} ({k})")

    def scalar_u64(self, command, p):
        if command.name == "vcSetReplyBuffer" and p.name == "size":
            return self.gen.reply_size
        if command.name == "vcDestroyObject":
            return self.live("event") or self.next_id - 1
        if command.name == "clSetKernelArg" and p.name == "object":
            return self.live("mem")
        return scalar(command, p)

    def encode_ids(self, p):
        # Wait lists stay empty (an event that never completes would stall the real executor); any
        # other list names one live object.
        if is_wait_list(p):
            return struct.pack("<Q", 0)
        return struct.pack("<QQ", 1, self.live(p.object))


def is_wait_list(p):
    return p.kind == "ids" and p.object == "event" and p.name == "wait_list"


def scalar(command, p):
    if p.name == "param_name":
        return QUERIES.get(command.name, 0)
    if p.name == "resource_id":
        return 1
    return VALUES.get(p.name, 0) if isinstance(VALUES.get(p.name, 0), int) else 0


def value_bytes(name, binary=False):
    v = VALUES.get(name, b"")
    if binary and name == "binaries":
        v = b"GSGPUCL1" + struct.pack("<II", 0, 0) + KERNEL_SOURCE.encode()
    return v.encode() if isinstance(v, str) else v


def lenbytes(b):
    return struct.pack("<Q", len(b)) + b + bytes(-len(b) % 4)


def data_in(size):
    return struct.pack("<IQ", 0, size) + bytes((i * 7) & 0xFF for i in range(size)) + bytes(-size % 4)


def encode_out(p, command):
    if p.kind in ("u32s", "u64s"):
        return struct.pack("<Q", 4)
    if p.kind == "string":
        return struct.pack("<Q", int(p.capacity or 256))
    if p.kind == "data":
        return struct.pack("<IQ", 0, 64)  # inline, 64 bytes of capacity
    return b""


class Generator:
    def __init__(self, xml, target):
        self.meta, self.object_types, commands = load(xml)
        self.target = target
        self.initial, self.first_id, self.reply_size = TARGETS[target]
        # The decoder target indexes commands by their place among every id of the protocol.
        self.all_ids = sorted(c.id for c in commands)
        if target == "gsgpu":
            commands = [c for c in commands if not c.name.startswith(PROGRAM_MAKERS)]
        self.commands = commands
        self.by_name = {c.name: c for c in commands}
        self._attach_lens(xml)

    def _attach_lens(self, xml):
        # gen_vcomp's Param keeps no `len`; read it here (data params sized by another param).
        lens = {}
        for c in ET.parse(xml).getroot().findall("command"):
            for p in c.findall("param"):
                lens[(c.get("name"), p.get("name"))] = p.get("len")
        for c in self.commands:
            for p in c.params:
                p.get_len = (lambda v: (lambda: v))(lens.get((c.name, p.name)))

    def creator(self, kind):
        name = CREATORS.get(kind)
        if name in self.by_name:
            return self.by_name[name]
        for c in self.commands:
            if any(p.kind == "new_id" and p.object == kind and not p.optional for p in c.ins):
                return c
        return None

    def u64s(self, command, p):
        if p.name == "global_work_size":
            return [64]
        if p.name in ("region",):
            return [8, 8, 1] if "Image" in command.name else [8, 1, 1]
        if p.get_len() == "3":
            return [0, 0, 0]
        return []

    def streams(self):
        out = {}
        for c in self.commands:
            s = Stream(self)
            s.emit(c)
            out[f"cmd_{c.name}"] = s
        for kind in self.object_types:
            s = self.lifecycle(kind)
            if s:
                out[f"life_{kind}"] = s
        s = Stream(self)
        for c in self.commands:
            s.emit(c)
        out["all_commands"] = s
        return out

    def lifecycle(self, kind):
        s = Stream(self)
        s.ensure(kind)
        target = s.live(kind)
        if not target:
            return None
        users = [c for c in self.commands if any(p.kind in ("id", "ids") and p.object == kind for p in c.ins)]
        for c in users:
            s.emit(c)
        destroy = self.by_name["vcDestroyObject"]
        s.emit(destroy, override={"object": struct.pack("<Q", target)})
        if users:
            s.emit(users[0])  # the dangling id: must be an error, never a use of freed memory
        creator = self.creator(kind)
        if creator:
            # The freed id bound anew.
            first = next(p for p in creator.ins if p.kind in ("new_id", "new_ids"))
            bound = struct.pack("<Q", target) if first.kind == "new_id" else struct.pack("<QQ", 1, target)
            s.emit(creator, override={first.name: bound})
        return s

    def frame(self, stream):
        if self.target == "gsgpu":
            body = b"".join(header(cid, reply, args) + args for cid, reply, args in stream.commands)
            return b"\xff" + body
        out = bytearray()
        for cid, reply, args in stream.commands:
            dwords = len(args) // 4
            if dwords > 255:
                raise SystemExit(f"gen_vcomp_seeds: command {cid} has {dwords} argument dwords (max 255)")
            out += bytes([self.all_ids.index(cid), 1 if reply else 0, dwords]) + args
        return bytes(out)


def header(cid, reply, args):
    return struct.pack("<III", cid, 3 + len(args) // 4, 1 if reply else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xml")
    ap.add_argument("outdir")
    ap.add_argument("--target", choices=sorted(TARGETS), required=True)
    ap.add_argument("--bundle", action="store_true",
                    help="write OUTDIR as one file of unframed streams (u32 name size, name padded to 4 "
                         "bytes, u32 size, commands) for tests/fuzz/vcomp/generated_seeds_test.cc")
    args = ap.parse_args()
    gen = Generator(args.xml, args.target)
    streams = gen.streams()
    if args.bundle:
        with open(args.outdir, "wb") as f:
            for name, stream in streams.items():
                body = b"".join(header(cid, reply, a) + a for cid, reply, a in stream.commands)
                f.write(struct.pack("<I", len(name)) + name.encode() + bytes(-len(name) % 4) +
                        struct.pack("<I", len(body)) + body)
        return
    os.makedirs(args.outdir, exist_ok=True)
    for name, stream in streams.items():
        data = gen.frame(stream)
        path = os.path.join(args.outdir, name)
        if os.path.exists(path) and open(path, "rb").read() == data:
            continue
        with open(path, "wb") as f:
            f.write(data)
    print(f"gen_vcomp_seeds: {len(streams)} {args.target} streams in {args.outdir}")


if __name__ == "__main__":
    main()
