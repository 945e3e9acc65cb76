#!/usr/bin/env python3
"""Writes the seeds of fuzz_gsgpu_draw into a directory, in the target's input format (the order of
reads in tests/fuzz/gsgpu_draw/draw_harness.cc, described in draw_harness.h):
  python3 tests/fuzz/gsgpu_draw/seeds.py OUT_DIR
scripts/fuzz runs it into build-fuzz/seeds/fuzz_gsgpu_draw; the ordinary build runs it for the seed
test (seeds_test.cc). The scenes are small versions of the golden scenes of
tests/gsgpu/graphics_golden (flat and interpolated triangles, depth, stencil, blending, strips / fans /
indexed with restart, points, lines, viewports, scissor, culling / write masks / logic ops, clipping,
formats, programs), so that mutation starts from draws that reach every fixed-function block, and
hostile ones after acceptance 6 of issue 11. A file's prefix says what the seed test expects:
draw- renders fragments without a fault, fault- ends in a CP fault, edge- either."""

import math
import os
import struct
import sys

# The byte values of InputReader::real()'s specials (200 + index).
SPECIAL = [0.0, 1.0, -1.0, 0.5, 2.0, 4.0, 0.25, 1e-6, -1e-6, 1e-30, 3e38, -3e38, 1e30, -1e30,
           math.inf, -math.inf, math.nan, -0.0, 32768.0, -32768.0, 65536.0, 1e6, 1e-45, 0.999]
# kSnippets indexes in draw_harness.cc.
S_END, EXPORT_V0_V3, INTERP_PERSP_V0_V3, EXPORT_ALPHA_1, EXPORT_DEPTH_V0 = 0, 2, 3, 6, 7
CMP_KILL, COUNTED_LOOP, ENDLESS, LOAD_CONSTANT, UNDECLARED_REGISTER = 15, 17, 18, 19, 22
VERTEX_POSITION, VERTEX_VARYINGS, VERTEX_POINT_SIZE, HALVE_XY = 24, 25, 26, 27
SNIPPETS = 32  # the raw-word choice
# VkFormat values.
RGBA8, SRGB8, BGRA8, BGRA8_SRGB, RGBA32F = 37, 43, 44, 50, 109
D16, D32, D24S8 = 124, 126, 129
COLOR_FORMATS = [RGBA8, SRGB8, BGRA8, BGRA8_SRGB, RGBA32F, 0]
DEPTH_FORMATS = [0, D32, D24S8, D16]
VERTEX_FORMATS = [9, 10, 13, 14, 16, 17, 20, 21, 37, 38, 41, 42, 70, 71, 74, 75, 76, 77, 78, 81, 82,
                  83, 91, 92, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109]
POINTS, LINES, LINE_STRIP, TRIANGLES, STRIP, FAN = range(6)
LESS, ALWAYS = 1, 7
KEEP, REPLACE, INC_CLAMP = 0, 2, 3
ONE, SRC_ALPHA, ONE_MINUS_SRC_ALPHA = 1, 6, 7
XOR = 6


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def real(v):
    """The bytes InputReader::real() reads back as v."""
    for i, s in enumerate(SPECIAL):
        if (math.isnan(v) and math.isnan(s)) or (v == s and math.copysign(1, v) == math.copysign(1, s)):
            return bytes([200 + i])
    b = v * 64 + 100
    if b == int(b) and 0 <= b < 200 and not (v == 0 and math.copysign(1, v) < 0):
        return bytes([int(b)])
    return bytes([224]) + struct.pack("<f", v)


def byte_with(mod, rem, shift, field):
    """A byte b with b % mod == rem and (b >> shift) % 4 == field."""
    return next(b for b in range(256) if b % mod == rem and (b >> shift) % 4 == field)


class Scene:
    """One draw, with the golden scenes' defaults: a 32 x 32 R8G8B8A8 target, a triangle list of
    R32G32B32A32_SFLOAT positions, a constant colour."""

    def __init__(self, **kw):
        self.topology, self.indexed, self.index32, self.restart = TRIANGLES, False, False, False
        self.count, self.instances, self.first_vertex, self.first_instance = 3, 1, 0, 0
        self.first_index, self.vertex_offset = 0, 0
        self.bindings = [dict(offset=0, stride=16, cut=255, rate=0)]  # offset in 64-byte steps
        self.attributes = [dict(binding=0, format=RGBA32F, offset=0)]
        self.vertices = []  # floats
        self.raw_vertices = None  # bytes, instead of floats
        self.indices = []  # bytes as draw_harness.cc reads them (< 240: index b % 48)
        self.index_cut = 255
        self.width, self.height, self.color, self.depth, self.pitch_extra = 32, 32, RGBA8, 0, 0
        self.color_clear, self.depth_clear = 0, 0x7F  # D32 3.4e38 (cleared far), D24 / D16 0.498
        self.viewport = None  # (x, y, w, h, min, max) in raw floats
        self.scissor = None  # (x, y, w, h)
        self.raster, self.depth_word, self.stencil = 0, 0, 0
        self.stencil_ops, self.stencil_masks = (0, 0), (0, 0)
        self.blend = None  # (src_c, dst_c, op_c, src_a, dst_a, op_a)
        self.write_mask, self.logic_op = 0xF, None
        self.blend_constant, self.point_size = (0, 0, 0, 0), 1.0
        self.fragment_mode, self.interpolation = 0, 0
        self.colors = (0.25, 0.5, 0.75, 1.0, 0, 0, 0, 0)
        self.vertex_program = None  # (outputs, program, (vector, scalar))
        self.fragment_program = None  # (varyings byte, program, (vector, scalar))
        self.constants = []  # u32 words
        self.patches = []  # (block, op, dword, value): block 0 DRAW_INFO .. 4 attributes
        # Transform feedback (step 6): None, or (outputs, buffers): outputs (slot, components, buffer,
        # byte offset) or ("raw", word); four buffers, each None or (stride, size, write offset), a
        # stride that is not a multiple of 4 in 4..256 going in raw.
        self.xfb = None
        self.__dict__.update(kw)

    def encode(self):
        out = bytearray()
        out += bytes([self.topology | self.indexed << 3 | self.index32 << 4 | self.restart << 5])
        out += bytes([self.count, self.instances - 1, self.first_vertex, self.first_instance, self.first_index,
                      (self.vertex_offset * 16) & 0xFF])
        out += bytes([len(self.bindings) - 1])
        for b in self.bindings:
            out += bytes([b["offset"], b["stride"], b["cut"], b["rate"]])
        out += bytes([len(self.attributes) - 1])
        for i, a in enumerate(self.attributes):
            index = VERTEX_FORMATS.index(a["format"])
            f = 0 if (i == 0 and a["format"] == RGBA32F) else next(b for b in range(128, 256) if b % 39 == index)
            out += bytes([a["binding"], f, a["offset"] // 4])
        if self.raw_vertices is not None:
            raw = self.raw_vertices + bytes(-len(self.raw_vertices) % 16)
            out += bytes([1, len(raw) // 16]) + raw
        else:
            out += bytes([0, (len(self.vertices) + 3) // 4])
            for v in self.vertices + [0.0] * (-len(self.vertices) % 4):
                out += real(v)
        out += bytes([len(self.indices)]) + bytes(self.indices) + bytes([self.index_cut])
        out += self.encode_pipe()
        out += self.encode_shader()
        out += bytes([len(self.patches)])
        for block, op, dword, value in self.patches:
            out += bytes([block + 5 * op, dword]) + u32(value)
        if self.xfb is not None:  # nothing at all otherwise: older seeds stay as they were
            out += self.encode_xfb()
        return bytes(out)

    def encode_xfb(self):
        outputs, buffers = self.xfb
        out = bytearray([len(outputs) + 9])  # never 0 (none); % 9 is the count
        for o in outputs:
            if o[0] == "raw":
                out += bytes([0x80]) + u32(o[1])
            else:
                slot, components, buffer, offset = o
                out += bytes([slot, components - 1, buffer, offset // 4])
        for b in buffers:
            if b is None:
                out += bytes([0])
                continue
            stride, size, offset = b
            out += bytes([64 + stride // 4 - 1]) if stride % 4 == 0 and 4 <= stride <= 256 else bytes([255]) + u32(stride)
            out += u16(size) + u16(offset)
        return bytes(out)

    def encode_pipe(self):
        out = bytearray([self.width - 1, self.height - 1])
        c, z = COLOR_FORMATS.index(self.color), DEPTH_FORMATS.index(self.depth)
        out += bytes([byte_with(6, c, 4, z), self.pitch_extra, self.color_clear, self.depth_clear])
        if self.viewport:
            out += bytes([224]) + b"".join(real(v) for v in self.viewport)
        else:
            out += bytes([0])
        if self.scissor:
            x, y, w, h = self.scissor
            out += bytes([192, x & 0xFF, y & 0xFF, w, h])
        else:
            out += bytes([0])
        out += bytes([self.raster, self.depth_word, self.stencil])
        out += u16(self.stencil_ops[0]) + u32(self.stencil_masks[0]) + u16(self.stencil_ops[1]) + u32(self.stencil_masks[1])
        blend = self.blend or (0, 0, 0, 0, 0, 0)
        out += bytes([1 if self.blend else 0]) + bytes(blend)
        out += bytes([(~self.write_mask & 0xF) | (0x10 if self.logic_op is not None else 0), self.logic_op or 0])
        out += b"".join(real(v) for v in self.blend_constant) + real(self.point_size / 8)
        return bytes(out)

    @staticmethod
    def encode_program(items):
        """items: snippet indexes or ("raw", word); s_end follows unless the last item is "no_end"."""
        no_end = bool(items) and items[-1] == "no_end"
        items = items[:-1] if no_end else items
        out = bytearray([len(items)])
        for item in items:
            out += bytes([SNIPPETS]) + u32(item[1]) if isinstance(item, tuple) else bytes([item])
        return bytes(out + bytes([255 if no_end else 0]))

    def encode_shader(self):
        stages = (1 if self.vertex_program else 0) | (2 if self.fragment_program else self.fragment_mode) << 1
        stages |= self.interpolation << 3
        out = bytearray([stages])
        if self.vertex_program:
            outputs, program, (vector, scalar) = self.vertex_program
            out += bytes([outputs]) + self.encode_program(program) + bytes([vector - 1, scalar])
        if self.fragment_program:
            varyings, program, (vector, scalar) = self.fragment_program
            out += bytes([varyings]) + self.encode_program(program) + bytes([vector - 1, scalar])
        else:
            out += b"".join(real(v) for v in self.colors)
        if self.vertex_program or self.fragment_program:
            out += bytes([len(self.constants) // 4]) + b"".join(u32(w) for w in self.constants)
        return bytes(out)


def tri(*xyzw):
    """Positions (x, y[, z[, w]]) as R32G32B32A32 floats."""
    out = []
    for p in xyzw:
        p = tuple(p) + (0.5, 1.0)[len(p) - 2:]
        out += list(p)
    return out


FULL_QUAD_STRIP = tri((-1, -1), (1, -1), (-1, 1), (1, 1))


def golden_scenes():
    """Small versions of tests/gsgpu/graphics_golden's scenes: each draws."""
    s = {}
    s["flat_triangles"] = Scene(count=6, vertices=tri((-1, -1), (0.5, -1), (-1, 0.5), (0.25, 0.25), (1, 1), (-0.5, 1)))
    colored = []
    for pos, col in [((-1, -1, 0.5, 1), (1, 0, 0, 1)), ((1, -1, 0.5, 0.5), (0, 1, 0, 1)), ((0, 1, 0.5, 1.5), (0, 0, 1, 1))]:
        colored += list(pos) + list(col)
    two_attributes = dict(bindings=[dict(offset=0, stride=32, cut=255, rate=0)],
                          attributes=[dict(binding=0, format=RGBA32F, offset=0), dict(binding=0, format=RGBA32F, offset=16)])
    s["interpolated_colours"] = Scene(vertices=colored, fragment_mode=1, interpolation=0, **two_attributes)
    s["interpolated_flat"] = Scene(vertices=colored, fragment_mode=1, interpolation=2, **two_attributes)
    s["depth_d32"] = Scene(count=6, depth=D32, depth_word=1 | 2 | LESS << 2,
                           vertices=tri((-1, -1, 0.75), (1, -1, 0.75), (0, 1, 0.75), (-1, 1, 0.25), (1, 1, 0.25), (0, -1, 0.25)))
    s["depth_d16"] = Scene(count=3, depth=D16, depth_word=1 | 2 | ALWAYS << 2, vertices=tri((-1, -1, 0.5), (1, -1, 0.5), (0, 1, 0.5)))
    s["stencil_d24s8"] = Scene(count=6, depth=D24S8, stencil=1, stencil_ops=(REPLACE << 3 | ALWAYS << 9, INC_CLAMP << 3 | ALWAYS << 9),
                               stencil_masks=(0xFF | 0xFF << 8 | 0x80 << 16, 0xFF | 0xFF << 8 | 0x01 << 16),
                               vertices=tri((-1, -1), (1, -1), (-1, 1), (1, 1), (-1, 1), (1, -1)))
    s["blend_unorm"] = Scene(blend=(SRC_ALPHA, ONE_MINUS_SRC_ALPHA, 0, ONE, ONE, 0), colors=(1, 0.5, 0, 0.5, 0, 0, 0, 0),
                             vertices=tri((-1, -1), (1, -1), (0, 1)))
    s["blend_float"] = Scene(color=RGBA32F, blend=(ONE, ONE, 0, ONE, ONE, 4), blend_constant=(0.25, 0.5, 0.75, 1.0),
                             vertices=tri((-1, -1), (1, -1), (0, 1)))
    s["srgb_target"] = Scene(color=BGRA8_SRGB, pitch_extra=3, vertices=tri((-1, -1), (1, -1), (0, 1)))
    s["strips_fans_indexed"] = Scene(topology=STRIP, indexed=True, index32=True, restart=True, count=9,
                                     indices=[0, 1, 2, 3, 241, 4, 5, 6, 7],
                                     vertices=tri((-1, -1), (0, -1), (-1, 0), (0, 0), (0, 0), (1, 0), (0, 1), (1, 1)))
    s["fan_u16"] = Scene(topology=FAN, indexed=True, count=5, indices=[0, 1, 2, 3, 4],
                         vertices=tri((0, 0), (1, 0), (0.75, 0.75), (0, 1), (-1, 0.5)))
    s["points"] = Scene(topology=POINTS, count=4, point_size=4.0, vertices=tri((-0.5, -0.5), (0.5, -0.5), (0, 0.5), (0.9, 0.9)))
    s["lines"] = Scene(topology=LINE_STRIP, count=4, vertices=tri((-1, -1), (1, 0.5), (-0.5, 1), (0.75, -0.75)))
    s["lines_bresenham"] = Scene(topology=LINES, count=4, raster=1 << 4, vertices=tri((-1, -1), (1, 0.25), (-1, 1), (0.5, -1)))
    s["viewports"] = Scene(viewport=(4.0, 28.0, 24.0, -24.0, 0.25, 0.5), vertices=tri((-1, -1), (1, -1), (0, 1)))
    s["scissor"] = Scene(scissor=(-4, 8, 20, 12), count=4, topology=STRIP, vertices=FULL_QUAD_STRIP)
    s["cull_mask_logic"] = Scene(count=6, raster=2 | 8, write_mask=0x5, logic_op=XOR,
                                 vertices=tri((-1, -1), (1, -1), (-1, 1), (-1, -1), (-1, 1), (1, -1)))
    s["clipped"] = Scene(count=6, depth=D32, depth_word=1 | 2 | LESS << 2,
                         vertices=tri((-1, -1, -0.5, 1), (1, -1, 0.5, 2), (0, 1, 1.5, 1), (-3, -3, 0.5, 1), (6, -2, 0.5, 1), (0, 5, 0.5, 1)))
    s["instanced"] = Scene(count=3, instances=3, first_instance=1,
                           bindings=[dict(offset=0, stride=16, cut=255, rate=0), dict(offset=4, stride=16, cut=255, rate=7)],
                           attributes=[dict(binding=0, format=RGBA32F, offset=0), dict(binding=1, format=RGBA32F, offset=0)],
                           fragment_mode=1, blend=(ONE, ONE, 0, ONE, ONE, 0),
                           vertices=tri((-1, -1), (1, -1), (0, 1)) + [0.0] * 4 + [0.25, 0, 0, 0.25] * 4)
    s["formats_unorm8"] = Scene(count=3, bindings=[dict(offset=0, stride=4, cut=255, rate=0)],
                                attributes=[dict(binding=0, format=38, offset=0)],  # R8G8B8A8_SNORM positions
                                raw_vertices=bytes([0x81, 0x81, 0x40, 0x7F, 0x7F, 0x81, 0x40, 0x7F, 0x00, 0x7F, 0x40, 0x7F]))
    programs = dict(vertex_program=(4, [VERTEX_POSITION, VERTEX_VARYINGS], (8, 0)),
                    fragment_program=(4, [INTERP_PERSP_V0_V3, EXPORT_V0_V3], (8, 0)))
    s["programs"] = Scene(vertices=colored, **two_attributes, **programs)
    s["program_constants"] = Scene(vertices=tri((-1, -1), (1, -1), (0, 1)), constants=[0x3F000000, 0, 0, 0],
                                   fragment_program=(0, [LOAD_CONSTANT, EXPORT_ALPHA_1, EXPORT_V0_V3], (4, 4)))
    s["program_kill_loop"] = Scene(vertices=colored, **two_attributes,
                                   fragment_program=(4, [INTERP_PERSP_V0_V3, CMP_KILL, COUNTED_LOOP, EXPORT_V0_V3], (8, 4)))
    s["program_points"] = Scene(topology=POINTS, count=3, vertices=tri((-0.5, -0.5), (0.5, 0.5), (0, 0)),
                                vertex_program=(0, [VERTEX_POSITION, VERTEX_POINT_SIZE], (4, 0)))
    strip = dict(topology=STRIP, count=4, vertices=FULL_QUAD_STRIP)
    s["xfb_strip_positions"] = Scene(xfb=([(0, 4, 0, 0)], [(16, 1024, 0), None, None, None]), **strip)
    s["xfb_program_two_buffers"] = Scene(vertices=colored, **two_attributes, **programs,
                                         xfb=([(0, 2, 0, 0), (4, 4, 1, 16)], [(8, 1024, 0), (32, 512, 0), None, None]))
    # 40 bytes hold no triangle of 16-byte vertices: nothing captured, everything drawn.
    s["xfb_short_buffer"] = Scene(xfb=([(0, 4, 0, 0)], [(16, 40, 0), None, None, None]), **strip)
    s["xfb_offset_at_the_end"] = Scene(xfb=([(0, 4, 0, 0)], [(16, 65535, 65532), None, None, None]), **strip)
    return s


def hostile_scenes():
    """Acceptance 6's hostile draws: fault- must fault, edge- may draw or fault."""
    base = dict(vertices=tri((-1, -1), (1, -1), (0, 1)))
    s = {}
    s["fault-fetch_past_buffer"] = Scene(bindings=[dict(offset=0, stride=16, cut=8, rate=0)], **base)
    s["fault-index_past_buffer"] = Scene(indexed=True, count=3, indices=[0, 1, 2], index_cut=2, **base)
    s["fault-index_past_vertices"] = Scene(indexed=True, count=3, indices=[0, 1, 254], **base)  # 100000
    s["fault-endless_fragment_program"] = Scene(fragment_program=(0, [ENDLESS], (4, 0)), **base)
    s["fault-endless_vertex_program"] = Scene(vertex_program=(0, [ENDLESS], (4, 0)), **base)
    s["fault-illegal_word"] = Scene(fragment_program=(0, [("raw", 0xFFFFFFFF)], (4, 0)), **base)
    s["fault-runs_off_code"] = Scene(fragment_program=(0, [EXPORT_ALPHA_1, "no_end"], (4, 0)), **base)
    s["fault-code_outside_mapping"] = Scene(fragment_program=(0, [EXPORT_ALPHA_1], (4, 0)),
                                            patches=[(2, 0, 13, 0x2000)], **base)  # FRAGMENT_CODE_SIZE
    s["fault-undeclared_register"] = Scene(fragment_program=(0, [UNDECLARED_REGISTER], (4, 0)), **base)
    s["fault-target_past_memory"] = Scene(patches=[(1, 0, 11, 32 | 200 << 16)], **base)  # TARGET_SIZE 32 x 200
    # The same with the viewport (VIEWPORT_HEIGHT 200.0) and scissor (SCISSOR_HEIGHT 200) over all of
    # it: were the target mapped by its first rows only, the draw would write past its region.
    s["fault-target_past_memory_drawn"] = Scene(patches=[(1, 0, 11, 32 | 200 << 16), (1, 0, 4, 0x43480000), (1, 0, 10, 200)],
                                                **base)
    s["fault-bad_topology"] = Scene(patches=[(0, 0, 0, 7)], **base)  # FLAGS.TOPOLOGY
    s["fault-bad_blend_factor"] = Scene(patches=[(1, 0, 26, 25 << 1 | 1)], **base)  # BLEND
    s["fault-bad_color_format"] = Scene(patches=[(1, 0, 15, 12345)], **base)  # COLOR_FORMAT
    s["fault-enormous_count"] = Scene(patches=[(0, 0, 1, 0xFFFFFFFF)], **base)  # COUNT
    s["edge-enormous_triangles"] = Scene(count=9, vertices=tri((-1e30, -1e30), (1e30, -1e30), (0, 1e30),
                                                              (-math.inf, 0), (math.inf, 0), (0, 1),
                                                              (math.nan, 0), (1, math.nan), (0, 1)))
    s["edge-degenerate_triangles"] = Scene(count=6, vertices=tri((0.5, 0.5), (0.5, 0.5), (0.5, 0.5), (-1, -1), (0, 0), (1, 1)))
    strip = dict(topology=STRIP, count=4, vertices=FULL_QUAD_STRIP)
    s["fault-xfb_stride_not_multiple_of_4"] = Scene(xfb=([(0, 1, 0, 0)], [(6, 1024, 0), None, None, None]), **strip)
    s["fault-xfb_output_past_stride"] = Scene(xfb=([(0, 4, 0, 8)], [(16, 1024, 0), None, None, None]), **strip)
    s["fault-xfb_unwritten_varying"] = Scene(xfb=([(4, 4, 0, 0)], [(16, 1024, 0), None, None, None]), **strip)
    s["fault-xfb_output_to_unused_buffer"] = Scene(xfb=([(0, 4, 2, 0)], [(16, 1024, 0), None, None, None]), **strip)
    s["fault-xfb_bad_output_word"] = Scene(xfb=([("raw", 0xFFFFFFFF)], [(16, 1024, 0), None, None, None]), **strip)
    # Buffer 3 starts 4 KiB before the region's end: from write offset 4080 a triangle leaves it.
    s["fault-xfb_write_leaves_mapping"] = Scene(xfb=([(0, 4, 3, 0)], [None, None, None, (16, 65535, 4080)]), **strip)
    s["edge-huge_w"] = Scene(vertices=tri((-1, -1, 0.5, 3e38), (1, -1, 0.5, 1e-45), (0, 1, 0.5, -1)))
    return s


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    seeds = {"draw-" + name: scene for name, scene in golden_scenes().items()}
    seeds.update(hostile_scenes())
    for name, scene in seeds.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(scene.encode())


if __name__ == "__main__":
    main()
