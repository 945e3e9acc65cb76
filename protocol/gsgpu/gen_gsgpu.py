#!/usr/bin/env python3
"""Generates gsgpu_hw.h (registers, fields, packets, records in GPU memory, capset) from protocol/gsgpu/gsgpu.xml.

Usage: gen_gsgpu.py INPUT.xml OUTPUT.h

The XML is validated first; any inconsistency (duplicate or unaligned offsets, overlapping fields,
reset values that do not fit, duplicate opcodes, ...) is a generator error that names the element,
so a bad hardware description never reaches the compiler.
"""

import re
import sys
import xml.etree.ElementTree as ET

ACCESS = {"ro": "kReadOnly", "rw": "kReadWrite", "w1c": "kWrite1Clear", "wo": "kWriteOnly"}
NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
MAX_REGISTER_SPACE = 0x10000


class GenError(Exception):
    pass


def parse_int(text, what):
    try:
        return int(text, 0)
    except (TypeError, ValueError):
        raise GenError(f"{what}: '{text}' is not an integer")


def check_name(name, what):
    if not name or not NAME_RE.match(name):
        raise GenError(f"{what}: name '{name}' must match {NAME_RE.pattern}")


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_fields(parent, what):
    """Fields inside a register or packet dword: name, bits="hi:lo", description."""
    fields = []
    used = 0
    names = set()
    for f in parent.findall("field"):
        name = f.get("name")
        check_name(name, f"{what} field")
        if name in names:
            raise GenError(f"{what}: duplicate field {name}")
        names.add(name)
        bits = f.get("bits", "")
        m = re.match(r"^(\d+):(\d+)$", bits)
        if not m:
            raise GenError(f"{what}.{name}: bits='{bits}' must be 'hi:lo'")
        hi, lo = int(m.group(1)), int(m.group(2))
        if hi > 31 or lo > hi:
            raise GenError(f"{what}.{name}: bits {hi}:{lo} outside 31:0 or reversed")
        width = hi - lo + 1
        mask = ((1 << width) - 1) << lo
        if used & mask:
            raise GenError(f"{what}.{name}: bits {hi}:{lo} overlap another field")
        used |= mask
        fields.append({"name": name, "shift": lo, "width": width, "mask": mask,
                       "description": f.get("description", ""),
                       "values": parse_values(f, f"{what}.{name}", width)})
    return fields


def parse_values(field, what, width):
    """Enumerated values of a field: <value name="..." value="N" description="..."/>."""
    values = []
    names, numbers = set(), {}
    for v in field.findall("value"):
        name = v.get("name")
        check_name(name, f"{what} value")
        if name in names:
            raise GenError(f"{what}: duplicate value name {name}")
        names.add(name)
        number = parse_int(v.get("value"), f"{what}.{name} value")
        if not 0 <= number < (1 << width):
            raise GenError(f"{what}.{name}: value {number} does not fit {width} bits")
        if number in numbers:
            raise GenError(f"{what}.{name}: value {number} already used by {numbers[number]}")
        numbers[number] = name
        values.append({"name": name, "value": number, "description": v.get("description", "")})
    return values


def parse_registers(root):
    regs = []
    offsets = {}
    names = set()
    block = root.find("registers")
    if block is None:
        raise GenError("missing <registers>")
    for r in block.findall("register"):
        name = r.get("name")
        check_name(name, "register")
        if name in names:
            raise GenError(f"register {name}: duplicate name")
        names.add(name)
        offset = parse_int(r.get("offset"), f"register {name} offset")
        if offset % 4:
            raise GenError(f"register {name}: offset {offset:#x} is not 4-byte aligned")
        if offset >= MAX_REGISTER_SPACE:
            raise GenError(f"register {name}: offset {offset:#x} beyond {MAX_REGISTER_SPACE:#x}")
        if offset in offsets:
            raise GenError(f"register {name}: offset {offset:#x} already used by {offsets[offset]}")
        offsets[offset] = name
        access = r.get("access")
        if access not in ACCESS:
            raise GenError(f"register {name}: access '{access}' must be one of {sorted(ACCESS)}")
        reset_text = r.get("reset", "0")
        from_config = reset_text == "config"
        reset = 0 if from_config else parse_int(reset_text, f"register {name} reset")
        if not 0 <= reset <= 0xFFFFFFFF:
            raise GenError(f"register {name}: reset {reset:#x} does not fit 32 bits")
        fields = parse_fields(r, f"register {name}")
        regs.append({"name": name, "offset": offset, "access": access, "reset": reset,
                     "from_config": from_config, "fields": fields,
                     "description": r.get("description", "")})
    if not regs:
        raise GenError("<registers> declares no register")
    regs.sort(key=lambda x: x["offset"])
    return regs


def parse_packets(root):
    block = root.find("packets")
    if block is None:
        raise GenError("missing <packets>")
    header = block.find("header")
    if header is None:
        raise GenError("<packets> needs a <header>")
    header_fields = parse_fields(header, "packet header")
    for needed in ("OPCODE", "SIZE_DWORDS"):
        if needed not in [f["name"] for f in header_fields]:
            raise GenError(f"packet header lacks field {needed}")
    opcode_field = next(f for f in header_fields if f["name"] == "OPCODE")
    packets = []
    opcodes = {}
    names = set()
    for p in block.findall("packet"):
        name = p.get("name")
        check_name(name, "packet")
        if name in names:
            raise GenError(f"packet {name}: duplicate name")
        names.add(name)
        opcode = parse_int(p.get("opcode"), f"packet {name} opcode")
        if opcode >= (1 << opcode_field["width"]):
            raise GenError(f"packet {name}: opcode {opcode:#x} does not fit the OPCODE field")
        if opcode in opcodes:
            raise GenError(f"packet {name}: opcode {opcode:#x} already used by {opcodes[opcode]}")
        opcodes[opcode] = name
        dwords = []
        dword_names = {"HEADER"}
        for d in p.findall("dword"):
            dname = d.get("name")
            check_name(dname, f"packet {name} dword")
            if dname in dword_names:
                raise GenError(f"packet {name}: duplicate dword {dname}")
            dword_names.add(dname)
            dwords.append({"name": dname, "description": d.get("description", ""),
                           "fields": parse_fields(d, f"packet {name}.{dname}")})
        packets.append({"name": name, "opcode": opcode, "dwords": dwords,
                        "variable": p.get("variable_size", "false") == "true",
                        "description": p.get("description", "")})
    packets.sort(key=lambda x: x["opcode"])
    return header_fields, packets


def parse_blocks(root):
    """<blocks>: word-structured records in GPU memory (descriptors, state blocks)."""
    block = root.find("blocks")
    if block is None:
        return []
    blocks = []
    names = set()
    for b in block.findall("block"):
        name = b.get("name")
        check_name(name, "block")
        if name in names:
            raise GenError(f"block {name}: duplicate name")
        names.add(name)
        size = parse_int(b.get("size_dwords"), f"block {name} size_dwords")
        align = parse_int(b.get("align_bytes", "4"), f"block {name} align_bytes")
        if align < 4 or align & (align - 1):
            raise GenError(f"block {name}: align_bytes {align} must be a power of two >= 4")
        dwords = []
        dword_names = set()
        for d in b.findall("dword"):
            dname = d.get("name")
            check_name(dname, f"block {name} dword")
            if dname in dword_names:
                raise GenError(f"block {name}: duplicate dword {dname}")
            dword_names.add(dname)
            fields = parse_fields(d, f"block {name}.{dname}")
            for f in fields:
                if f"{dname}_{f['name']}" in dword_names:
                    raise GenError(f"block {name}: {dname}_{f['name']} clashes with a dword name")
            dwords.append({"name": dname, "description": d.get("description", ""), "fields": fields})
        if len(dwords) != size:
            raise GenError(f"block {name}: declares {len(dwords)} dwords, size_dwords is {size}")
        blocks.append({"name": name, "size": size, "align": align, "dwords": dwords,
                       "description": b.get("description", "")})
    return blocks


def emit_blocks(out, blocks):
    out.append("// Records in GPU memory (<blocks>): blk::NAME::DWORD is a dword index, blk::NAME::DWORD_FIELD_SHIFT /")
    out.append("// _MASK a field, blk::NAME::DWORD_FIELD_VALUE an enumerated value of it.")
    out.append("namespace blk {")
    for b in blocks:
        out.append(f"namespace {b['name']} {{  // {b['description']}")
        out.append(f"inline constexpr uint32_t SIZE_DWORDS = {b['size']};")
        out.append(f"inline constexpr uint32_t ALIGN_BYTES = {b['align']};")
        for i, d in enumerate(b["dwords"]):
            out.append(f"inline constexpr uint32_t {d['name']} = {i};  // {d['description']}")
            for f in d["fields"]:
                prefix = f"{d['name']}_{f['name']}"
                out.append(f"inline constexpr uint32_t {prefix}_SHIFT = {f['shift']};")
                out.append(f"inline constexpr uint32_t {prefix}_MASK = {f['mask']:#010x};  // {f['description']}")
                for v in f["values"]:
                    out.append(f"inline constexpr uint32_t {prefix}_{v['name']} = {v['value']};  // {v['description']}")
        out.append(f"}}  // namespace {b['name']}")
    out.append("}  // namespace blk")
    out.append("")
    for b in blocks:
        names = ", ".join(c_string(d["name"]) for d in b["dwords"])
        out.append(f"inline constexpr const char* k{b['name']}_DWORD_NAMES[] = {{{names}}};")
    out.append("")
    out.append("struct BlockInfo {")
    out.append("  const char* name;")
    out.append("  uint32_t size_dwords;")
    out.append("  uint32_t align_bytes;")
    out.append("  const char* const* dword_names;  // size_dwords entries")
    out.append("};")
    out.append("")
    out.append("inline constexpr BlockInfo kBlocks[] = {")
    for b in blocks:
        out.append(f"    {{{c_string(b['name'])}, {b['size']}, {b['align']}, k{b['name']}_DWORD_NAMES}},")
    out.append("};")
    out.append(f"inline constexpr size_t kBlockCount = {len(blocks)};")
    out.append("")
    out.append("// A field of a record or register word: get_field(w, X_MASK, X_SHIFT), put_field(v, X_MASK, X_SHIFT).")
    out.append("constexpr uint32_t get_field(uint32_t word, uint32_t mask, uint32_t shift) {")
    out.append("  return (word & mask) >> shift;")
    out.append("}")
    out.append("constexpr uint32_t put_field(uint32_t value, uint32_t mask, uint32_t shift) {")
    out.append("  return (value << shift) & mask;")
    out.append("}")
    out.append("")


def parse_capset(root):
    c = root.find("capset")
    if c is None:
        raise GenError("missing <capset>")
    cid = parse_int(c.get("id"), "capset id")
    # Linux builds the supported-capset mask with a 32-bit shift (ARCHITECTURE.md section 3).
    if not 0 < cid <= 30:
        raise GenError(f"capset id {cid} must be in 1..30")
    return {"id": cid, "name": c.get("name", ""),
            "wire_version": parse_int(c.get("wire_version", "1"), "capset wire_version")}


def emit_fields(out, fields, indent):
    for f in fields:
        out.append(f"{indent}inline constexpr uint32_t {f['name']}_SHIFT = {f['shift']};")
        out.append(f"{indent}inline constexpr uint32_t {f['name']}_MASK = {f['mask']:#010x};"
                   f"  // {f['description']}")


def emit_field_table(out, table_name, fields):
    if not fields:
        return
    out.append(f"inline constexpr RegisterField {table_name}[] = {{")
    for f in fields:
        out.append(f"    {{{c_string(f['name'])}, {f['shift']}, {f['width']}, {f['mask']:#010x}, "
                   f"{c_string(f['description'])}}},")
    out.append("};")


def generate(xml_path):
    root = ET.parse(xml_path).getroot()
    if root.tag != "gsgpu":
        raise GenError(f"root element is <{root.tag}>, expected <gsgpu>")
    capset = parse_capset(root)
    regs = parse_registers(root)
    header_fields, packets = parse_packets(root)
    blocks = parse_blocks(root)
    space = regs[-1]["offset"] + 4

    o = []
    o.append("// Generated by protocol/gsgpu/gen_gsgpu.py from protocol/gsgpu/gsgpu.xml. Do not edit.")
    o.append("#pragma once")
    o.append("")
    o.append("#include <cstddef>")
    o.append("#include <cstdint>")
    o.append("")
    o.append("namespace gsgpu::hw {")
    o.append("")
    o.append(f"inline constexpr uint32_t kCapsetId = {capset['id']};")
    o.append(f"inline constexpr uint32_t kWireVersion = {capset['wire_version']};")
    o.append("")
    o.append("enum class RegisterAccess : uint8_t { kReadOnly, kReadWrite, kWrite1Clear, kWriteOnly };")
    o.append("")
    o.append("struct RegisterField {")
    o.append("  const char* name;")
    o.append("  uint8_t shift;")
    o.append("  uint8_t width;")
    o.append("  uint32_t mask;")
    o.append("  const char* description;")
    o.append("};")
    o.append("")
    o.append("struct RegisterInfo {")
    o.append("  const char* name;")
    o.append("  uint32_t offset;")
    o.append("  uint32_t reset;  // meaningless when reset_from_config")
    o.append("  RegisterAccess access;")
    o.append("  bool reset_from_config;")
    o.append("  const RegisterField* fields;")
    o.append("  uint32_t field_count;")
    o.append("  const char* description;")
    o.append("};")
    o.append("")
    o.append("// Register offsets (bytes from the aperture start).")
    o.append("namespace reg {")
    for r in regs:
        o.append(f"inline constexpr uint32_t {r['name']} = {r['offset']:#05x};")
    o.append("}  // namespace reg")
    o.append("")
    o.append("// Reset values (0 for registers whose value comes from the configuration).")
    o.append("namespace reset {")
    for r in regs:
        o.append(f"inline constexpr uint32_t {r['name']} = {r['reset']:#010x};")
    o.append("}  // namespace reset")
    o.append("")
    o.append("// Field shifts and masks, one namespace per register that has fields: field::REG::NAME_MASK.")
    o.append("namespace field {")
    for r in regs:
        if r["fields"]:
            o.append(f"namespace {r['name']} {{")
            emit_fields(o, r["fields"], "")
            o.append(f"}}  // namespace {r['name']}")
    o.append("}  // namespace field")
    o.append("")
    for r in regs:
        emit_field_table(o, f"k{r['name']}_FIELDS", r["fields"])
    o.append("")
    o.append("// Every register, sorted by offset: names for logs and dumps, access rules, reset values.")
    o.append("inline constexpr RegisterInfo kRegisters[] = {")
    for r in regs:
        ftab = f"k{r['name']}_FIELDS" if r["fields"] else "nullptr"
        o.append(f"    {{{c_string(r['name'])}, {r['offset']:#05x}, {r['reset']:#010x}, "
                 f"RegisterAccess::{ACCESS[r['access']]}, {'true' if r['from_config'] else 'false'}, "
                 f"{ftab}, {len(r['fields'])}, {c_string(r['description'])}}},")
    o.append("};")
    o.append(f"inline constexpr size_t kRegisterCount = {len(regs)};")
    o.append(f"// Bytes from offset 0 to the end of the last register; everything at or beyond is a hole.")
    o.append(f"inline constexpr uint32_t kRegisterSpaceBytes = {space:#x};")
    o.append("")
    o.append("// The register at `offset`, or nullptr for a hole.")
    o.append("constexpr const RegisterInfo* find_register(uint32_t offset) {")
    o.append("  for (const RegisterInfo& r : kRegisters)")
    o.append("    if (r.offset == offset) return &r;")
    o.append("  return nullptr;")
    o.append("}")
    o.append("")
    o.append("// Packet header (dword 0 of every packet).")
    o.append("namespace PACKET_HEADER {")
    emit_fields(o, header_fields, "")
    o.append("}  // namespace PACKET_HEADER")
    o.append("")
    o.append("constexpr uint32_t make_packet_header(uint32_t opcode, uint32_t size_dwords) {")
    o.append("  return ((opcode << PACKET_HEADER::OPCODE_SHIFT) & PACKET_HEADER::OPCODE_MASK) |")
    o.append("         ((size_dwords << PACKET_HEADER::SIZE_DWORDS_SHIFT) & PACKET_HEADER::SIZE_DWORDS_MASK);")
    o.append("}")
    o.append("")
    o.append("enum class Opcode : uint32_t {")
    for p in packets:
        o.append(f"  {p['name']} = {p['opcode']:#04x},")
    o.append("};")
    o.append("")
    o.append("// Per packet: opcode, size and the dword index of every named field (0 is the header):")
    o.append("// pkt::NAME::DWORD, pkt::NAME::DWORD_FIELD_MASK, pkt::NAME::DWORD_FIELD_VALUE.")
    o.append("namespace pkt {")
    for p in packets:
        o.append(f"namespace {p['name']} {{  // {p['description']}")
        o.append(f"inline constexpr uint32_t OPCODE = {p['opcode']:#04x};")
        o.append(f"inline constexpr uint32_t SIZE_DWORDS = {1 + len(p['dwords'])};"
                 + ("  // minimum; the packet may be longer" if p["variable"] else ""))
        for i, d in enumerate(p["dwords"], start=1):
            o.append(f"inline constexpr uint32_t {d['name']} = {i};  // {d['description']}")
            for f in d["fields"]:
                o.append(f"inline constexpr uint32_t {d['name']}_{f['name']}_SHIFT = {f['shift']};")
                o.append(f"inline constexpr uint32_t {d['name']}_{f['name']}_MASK = {f['mask']:#010x};"
                         f"  // {f['description']}")
                for v in f["values"]:
                    o.append(f"inline constexpr uint32_t {d['name']}_{f['name']}_{v['name']} = {v['value']};"
                             f"  // {v['description']}")
        o.append(f"}}  // namespace {p['name']}")
    o.append("}  // namespace pkt")
    o.append("")
    for p in packets:
        names = ", ".join(c_string(n) for n in ["HEADER"] + [d["name"] for d in p["dwords"]])
        o.append(f"inline constexpr const char* k{p['name']}_DWORD_NAMES[] = {{{names}}};")
    o.append("")
    o.append("struct PacketInfo {")
    o.append("  const char* name;")
    o.append("  uint32_t opcode;")
    o.append("  uint32_t size_dwords;  // exact size, or the minimum when variable_size")
    o.append("  bool variable_size;")
    o.append("  const char* const* dword_names;  // size_dwords entries, [0] = \"HEADER\"")
    o.append("};")
    o.append("")
    o.append("inline constexpr PacketInfo kPackets[] = {")
    for p in packets:
        o.append(f"    {{{c_string(p['name'])}, {p['opcode']:#04x}, {1 + len(p['dwords'])}, "
                 f"{'true' if p['variable'] else 'false'}, k{p['name']}_DWORD_NAMES}},")
    o.append("};")
    o.append(f"inline constexpr size_t kPacketCount = {len(packets)};")
    o.append("")
    o.append("// The packet with `opcode`, or nullptr for an unknown opcode.")
    o.append("constexpr const PacketInfo* find_packet(uint32_t opcode) {")
    o.append("  for (const PacketInfo& p : kPackets)")
    o.append("    if (p.opcode == opcode) return &p;")
    o.append("  return nullptr;")
    o.append("}")
    o.append("")
    emit_blocks(o, blocks)
    o.append("}  // namespace gsgpu::hw")
    return "\n".join(o) + "\n"


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} INPUT.xml OUTPUT.h", file=sys.stderr)
        return 2
    try:
        text = generate(argv[1])
    except (GenError, ET.ParseError) as e:
        print(f"gen_gsgpu: {argv[1]}: error: {e}", file=sys.stderr)
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
