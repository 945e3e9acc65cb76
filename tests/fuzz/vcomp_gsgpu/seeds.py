#!/usr/bin/env python3
"""Writes the committed seed corpus of fuzz_vcomp_gsgpu (tests/fuzz/vcomp_gsgpu/corpus): a few
whole OpenCL jobs in the target's operation format (fuzz_vcomp_gsgpu.cc, README.md). Rerun after
changing the format: python3 tests/fuzz/vcomp_gsgpu/seeds.py"""

import os
import struct

OPS = ["get_device", "create_context", "create_queue", "create_buffer", "create_sub_buffer",
       "create_program", "build_program", "create_kernel", "create_kernels", "set_arg", "launch",
       "read_buffer", "write_buffer", "copy_buffer", "fill_buffer", "rect_transfer", "finish",
       "marker", "user_event", "set_event_status", "wait", "destroy", "kernel_query",
       "object_query", "migrate"]
REPLY = 0x80  # submit the batch now, with a reply
MEM, LOCAL, VALUE = 0x10, 0x30, 0x00  # set_arg kinds (bits 4-5 of its second byte)


def op(name, *operands, reply=False):
    out = bytes([OPS.index(name) | (REPLY if reply else 0)])
    for o in operands:
        out += o if isinstance(o, bytes) else bytes([o])
    return out


def u32(v):
    return struct.pack("<I", v)


def inline(data):  # data_in operand: inline bytes, as many as the command's size says
    return bytes([3, len(data)]) + data


def no_waits():
    return bytes([0])


def job(program_source, kernel_name, buffer_size=256):
    """Device 1, context 2, queue 3, buffers 4 (64 bytes, initialised) 5 and 6, program 7 built,
    kernel 8."""
    s = op("get_device", 1, 0, 0, 0)
    s += op("create_context", 2, 1, 1, 1)
    s += op("create_queue", 3, 2, 1, 0)
    s += op("create_buffer", 4, 2, 0, u32(64), 1, inline(bytes(range(64))))
    for buffer in (5, 6):
        s += op("create_buffer", buffer, 2, 0, u32(buffer_size), 0)
    s += op("create_program", 7, 2, program_source)
    s += op("build_program", 7, 1, 1, reply=True)
    s += op("create_kernel", 8, 7, kernel_name, reply=True)
    return s


def launch(global_size, local_log2=0, event=0, reply=True):
    dims = b""
    for d in range(4):
        dims += bytes([0, (global_size if d == 0 else 1) - 1, local_log2 if d == 0 else 0])
    return op("launch", 3, 8, 0x8, dims, no_waits(), event, reply=reply)


def read_back(buffer, size):
    return op("read_buffer", 3, buffer, u32(0), u32(size), no_waits(), 0, 1)


def seeds():
    out = {}
    s = job(0, 0)
    for i, buffer in enumerate((4, 5, 6)):
        s += op("set_arg", 8, MEM | i, buffer, 1, 0)
    s += launch(16) + read_back(6, 64) + op("finish", 3, 0, reply=True)
    out["vadd_job"] = s + op("destroy", 8) + op("destroy", 7) + op("destroy", 4, reply=True)

    # scatter(p, index, value): an index far past the buffer.
    s = job(1, 1)
    s += op("set_arg", 8, MEM | 0, 4, 1, 0)
    s += op("set_arg", 8, VALUE | 1, 0, 0, bytes([4]) + u32(0x10000000))
    s += op("set_arg", 8, VALUE | 2, 0, 0, bytes([4]) + u32(0x41414141))
    out["scatter_far"] = s + launch(32) + read_back(4, 64) + op("finish", 3, 0, reply=True)

    # local_sum(in, out, scratch): a __local argument sized by the guest.
    s = job(2, 2)
    s += op("set_arg", 8, MEM | 0, 4, 1, 0) + op("set_arg", 8, MEM | 1, 5, 1, 0)
    s += op("set_arg", 8, LOCAL | 2, 0, 15, 0)  # 64 bytes of local memory
    out["local_sum"] = s + launch(16, 4) + read_back(5, 64)

    # spin(p, limit): endless; the watchdog ends it and the queue stays usable.
    s = job(3, 3)
    s += op("set_arg", 8, MEM | 0, 5, 1, 0) + op("set_arg", 8, MEM | 1, 4, 1, 0)
    out["spin_watchdog"] = s + launch(32) + op("finish", 3, 0, reply=True) + read_back(5, 16)

    # A user event holds a launch back; the objects go while it waits; the event is set late.
    s = job(0, 0)
    s += op("user_event", 9, 2, reply=True)
    for i, buffer in enumerate((4, 5, 6)):
        s += op("set_arg", 8, MEM | i, buffer, 1, 0)
    s += op("launch", 3, 8, 0x8, bytes([0, 15, 0] + [0, 0, 0] * 3), bytes([1, 9]), 10, reply=True)
    s += op("destroy", 6) + op("destroy", 8) + op("wait", bytes([1, 10]), reply=True)
    out["user_event_then_release"] = s + op("set_event_status", 9, 0, reply=True) + read_back(4, 64)

    # Sub-buffers, copies, fills and rectangles on one buffer.
    s = job(0, 0, 4096)
    s += op("create_sub_buffer", 9, 5, 0, 1, u32(256), u32(512), reply=True)
    s += op("fill_buffer", 3, 9, bytes([4]) + u32(0xdeadbeef), u32(0), u32(512), no_waits(), 0)
    s += op("copy_buffer", 3, 9, 6, u32(0), u32(128), u32(256), no_waits(), 0)
    rect = bytes([0, 0, 0, 16, 0, 0, 0, 4, 0, 0, 0, 1]) + bytes([0] * 4)
    s += op("rect_transfer", 3, 6, 5, 2, rect, no_waits(), 0)
    out["sub_buffer_copies"] = s + read_back(6, 4096) + op("object_query", 9, 0, 0, 2, 8, 1, reply=True)
    return out


def main():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(corpus, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
