#!/usr/bin/env python3
"""Generates the gsgpu native-context protocol code from protocol/gsgpu_ctx/gsgpu_ctx.xml.

Outputs (all into the build tree):
  gsgpu_ctx_protocol.h     ids, names, status codes, every wire struct with size and offset
                           checks, guest encoders and response / fence-page readers (inline)
  gsgpu_ctx_decoder.h/.cc  the host's bounds-checked decoder: request stream -> typed request ->
                           Handlers::handle_<request>
  gsgpu_ctx_wire.md        the layout of every struct as a table (for docs/native-context.md)

Standard library only. The XML is validated here: duplicate ids or names, unknown types, fields
that are not naturally aligned, implicit padding, struct sizes that are not a multiple of 8 and
arrays whose count field does not exist stop the build.
"""

import argparse
import hashlib
import os
import sys
import textwrap
import xml.etree.ElementTree as ET

SCALARS = {"u32": ("uint32_t", 4), "i32": ("int32_t", 4), "u64": ("uint64_t", 8), "char": ("char", 1)}
HEADER_FIELDS = [("cmd", "request id"), ("len", "bytes of the request, header and arrays included; a multiple of 4"),
                 ("seqno", "echoed in the response"),
                 ("rsp_off", "where the response goes in the response buffer (>= kFencePageSize, 8-aligned); 0: none")]
NS = "gsvirt::gsgpu_ctx::proto"


def fail(msg):
    sys.stderr.write(f"gen_gsgpu_ctx: error: {msg}\n")
    sys.exit(1)


def camel(name):
    return "".join(part.capitalize() for part in name.split("_"))


class Field:
    def __init__(self, name, type_, count, comment, size, align, ctype):
        self.name, self.type, self.count, self.comment = name, type_, count, comment
        self.elem_size, self.align, self.ctype = size, align, ctype
        self.offset = 0
        self.count_text = str(count)

    @property
    def size(self):
        return self.elem_size * (self.count or 1)

    @property
    def is_pad(self):
        return self.name.startswith("pad") or self.name.startswith("reserved")


class Struct:
    def __init__(self, name, comment, fields):
        self.name, self.comment, self.fields = name, comment, fields
        self.size, self.align = layout(name, fields)


class Request:
    def __init__(self, name, id_, comment, req, rsp, arrays):
        self.name, self.id, self.comment = name, id_, comment
        self.req, self.rsp, self.arrays = req, rsp, arrays

    @property
    def wire_name(self):
        return self.name.upper()


def layout(where, fields):
    """Offsets in declaration order; refuses implicit padding and misaligned fields."""
    offset, align = 0, 1
    for f in fields:
        if offset % f.align:
            fail(f"{where}.{f.name}: offset {offset} is not a multiple of its alignment {f.align}; add a pad field")
        f.offset = offset
        offset += f.size
        align = max(align, f.align)
    if offset % 8:
        fail(f"{where}: size {offset} is not a multiple of 8; add a pad field")
    return offset, align


def parse_count(text, constants, where):
    if text is None:
        return 0
    value = constants[text] if text in constants else None
    if value is None:
        try:
            value = int(text, 0)
        except ValueError:
            fail(f"{where}: count {text!r} is neither a number nor a constant")
    if value <= 0:
        fail(f"{where}: count must be positive")
    return value


def parse_fields(parent, where, constants, structs):
    fields, names = [], set()
    for el in parent.findall("field"):
        name, type_ = el.get("name"), el.get("type")
        if not name or not type_:
            fail(f"{where}: a field needs name and type")
        if name in names:
            fail(f"{where}.{name}: duplicate field")
        names.add(name)
        count = parse_count(el.get("count"), constants, f"{where}.{name}")
        if type_ == "char" and not count:
            fail(f"{where}.{name}: char fields need count=")
        if type_ in SCALARS:
            ctype, size = SCALARS[type_]
            align = size
        elif type_ in structs:
            s = structs[type_]
            ctype, size, align = s.name, s.size, s.align
        else:
            fail(f"{where}.{name}: unknown type {type_}")
        field = Field(name, type_, count, norm(el.get("comment")), size, align, ctype)
        field.count_text = el.get("count") if el.get("count") in constants else str(count)
        fields.append(field)
    return fields


def header_field(name, comment):
    return Field(name, "u32", 0, comment, 4, 4, "uint32_t")


def load(path):
    raw = open(path, "rb").read()
    root = ET.fromstring(raw)
    if root.tag != "protocol":
        fail(f"root element is <{root.tag}>, expected <protocol>")
    capset_xml = os.path.join(os.path.dirname(path), root.get("capset_xml", ""))
    capset = ET.parse(capset_xml).getroot().find("capset")
    if capset is None:
        fail(f"{capset_xml} has no <capset> element")
    capset_id = int(capset.get("id"), 0)
    if not 0 < capset_id <= 30:
        fail(f"capset id {capset_id} must be in 1..30 (Linux builds the capset mask with a 32-bit shift)")

    constants, constant_list = {}, []
    for c in root.find("constants").findall("constant"):
        constants[c.get("name")] = int(c.get("value"), 0)
        constant_list.append((c.get("name"), int(c.get("value"), 0), norm(c.get("comment"))))
    statuses = [(s.get("name"), int(s.get("value")), norm(s.get("comment"))) for s in root.find("statuses")]

    structs = {}
    for el in root.findall("struct"):
        name = el.get("name")
        if name in structs:
            fail(f"struct {name}: duplicate")
        structs[name] = Struct(name, norm(el.get("comment")), parse_fields(el, name, constants, structs))

    requests, seen_ids, seen_names = [], {}, set()
    for el in root.findall("request"):
        name, id_ = el.get("name"), int(el.get("id"))
        if name in seen_names:
            fail(f"request {name}: duplicate name")
        if id_ in seen_ids:
            fail(f"request {name}: id {id_} already used by {seen_ids[id_]}")
        if not 0 < id_ < 0x10000:
            fail(f"request {name}: id out of range")
        seen_ids[id_], _ = name, seen_names.add(name)
        fields = [header_field(n, c) for n, c in HEADER_FIELDS]
        fields += parse_fields(el, name, constants, structs)
        if len({f.name for f in fields}) != len(fields):
            fail(f"request {name}: a field repeats a header field name (cmd, len, seqno, rsp_off)")
        arrays = []
        names = {f.name for f in fields}
        for a in el.findall("array"):
            count_field = a.get("count")
            match = [f for f in fields if f.name == count_field and f.type == "u32" and not f.count]
            if not match:
                fail(f"request {name}.{a.get('name')}: count names no u32 field of the request")
            if a.get("type") != "u32":
                fail(f"request {name}.{a.get('name')}: arrays are of u32")
            if a.get("name") in names:
                fail(f"request {name}.{a.get('name')}: duplicate name")
            names.add(a.get("name"))
            arrays.append((a.get("name"), count_field, norm(a.get("comment"))))
        req = Struct(camel(name) + "Req", norm(el.get("comment")), fields)
        rsp_fields = [Field("seqno", "u32", 0, "the request's seqno, stored last", 4, 4, "uint32_t"),
                      Field("status", "i32", 0, "Status", 4, 4, "int32_t")]
        rsp_el = el.find("response")
        if rsp_el is not None:
            rsp_fields += parse_fields(rsp_el, name + ".response", constants, structs)
        rsp = Struct(camel(name) + "Rsp", "", rsp_fields)
        requests.append(Request(name, id_, norm(el.get("comment")), req, rsp, arrays))
    for s in list(structs.values()) + [r.req for r in requests] + [r.rsp for r in requests]:
        if s.align > 8:
            fail(f"{s.name}: alignment above 8")
    meta = {"wire_version": int(root.get("wire_version")), "capset_id": capset_id,
            "hash": hashlib.sha256(raw).hexdigest()[:32]}
    return meta, constant_list, statuses, list(structs.values()), requests


# ----------------------------------------------------------------------------------------------
# shared header


def norm(text):
    return " ".join((text or "").split())


def comment_lines(text):
    return ["// " + line for line in textwrap.wrap(text, 96)]


def emit_struct(o, s):
    o.extend(comment_lines(s.comment))
    o.append(f"struct {s.name} {{")
    for f in s.fields:
        arr = f"[{f.count_text}]" if f.count else ""
        comment = f"  // {f.comment}" if f.comment else ""
        o.append(f"  {f.ctype} {f.name}{arr};{comment}")
    o.append("};")
    o.append(f"static_assert(sizeof({s.name}) == {s.size});")
    o.append(f"static_assert(alignof({s.name}) == {s.align});")
    for f in s.fields:
        o.append(f"static_assert(offsetof({s.name}, {f.name}) == {f.offset});")
    o.append("")


def encoder(r):
    args = ["std::vector<uint8_t>& out", "uint32_t seqno", "uint32_t rsp_off", f"{r.req.name} req"]
    for name, count, _ in r.arrays:
        args.append(f"const uint32_t* {name}")
    o = [f"// Appends a {r.wire_name} request; cmd and len are filled here"
         + (", array lengths from the count fields." if r.arrays else ".")]
    o.append(f"inline void encode_{r.name}({', '.join(args)}) {{")
    o.append(f"  req.cmd = uint32_t(RequestId::k{camel(r.name)});")
    o.append(f"  req.len = uint32_t(request_size_{r.name}(req));")
    o.append("  req.seqno = seqno;")
    o.append("  req.rsp_off = rsp_off;")
    o.append("  size_t at = out.size();")
    o.append("  out.resize(at + req.len);")
    o.append("  std::memcpy(out.data() + at, &req, sizeof req);")
    if r.arrays:
        o.append("  at += sizeof req;")
        for name, count, _ in r.arrays:
            o.append(f"  if (req.{count}) std::memcpy(out.data() + at, {name}, size_t(req.{count}) * 4);")
            o.append(f"  at += size_t(req.{count}) * 4;")
    o.append("}")
    return o


def request_size(r):
    o = [f"inline constexpr uint64_t request_size_{r.name}(const {r.req.name}& req) {{"]
    expr = f"sizeof({r.req.name})"
    for _, count, _ in r.arrays:
        expr += f" + uint64_t(req.{count}) * 4"
    o.append("  (void)req;" if not r.arrays else "")
    o.append(f"  return {expr};")
    o.append("}")
    return [line for line in o if line]


def gen_protocol_h(meta, constants, statuses, structs, requests):
    o = ["// Generated by protocol/gsgpu_ctx/gen_gsgpu_ctx.py from protocol/gsgpu_ctx/gsgpu_ctx.xml. Do not edit.",
         "// Shared by the guest (encoders, response and fence-page readers) and the host (the structs).",
         "#pragma once", "",
         "#include <bit>", "#include <cstddef>", "#include <cstdint>", "#include <cstring>", "#include <vector>", "",
         f"namespace {NS} {{",
         "static_assert(std::endian::native == std::endian::little, \"the wire format is little-endian\");", "",
         f"inline constexpr uint32_t kCapsetId = {meta['capset_id']};  // from protocol/gsgpu/gsgpu.xml <capset>",
         f"inline constexpr uint32_t kWireVersion = {meta['wire_version']};",
         f"inline constexpr char kXmlHash[] = \"{meta['hash']}\";  // sha256 of gsgpu_ctx.xml, first 32 hex digits"]
    for name, value, comment in constants:
        o.append(f"inline constexpr uint32_t {name} = {value:#x};  // {comment}" if name.endswith("Magic")
                 else f"inline constexpr uint32_t {name} = {value};  // {comment}")
    o.append("")
    o.append("enum class Status : int32_t {")
    for name, value, comment in statuses:
        o.append(f"  k{camel(name)} = {value},{'  // ' + comment if comment else ''}")
    o.append("};")
    o.append("inline const char* status_name(Status s) {")
    o.append("  switch (s) {")
    for name, value, _ in statuses:
        o.append(f"    case Status::k{camel(name)}: return \"{name}\";")
    o.append("  }")
    o.append("  return \"?\";")
    o.append("}\n")
    o.append("enum class RequestId : uint32_t {")
    for r in requests:
        o.append(f"  k{camel(r.name)} = {r.id},")
    o.append("};")
    o.append("// \"BO_CREATE\" for an id, nullptr for an unknown one.")
    o.append("inline const char* request_name(uint32_t id) {")
    o.append("  switch (id) {")
    for r in requests:
        o.append(f"    case {r.id}: return \"{r.wire_name}\";")
    o.append("    default: return nullptr;")
    o.append("  }")
    o.append("}\n")
    o.append("#pragma GCC diagnostic push")
    o.append("#pragma GCC diagnostic error \"-Wpadded\"")
    o.append("")
    o.append("// Every request starts with this header.")
    o.append("struct ReqHeader {")
    for n, c in HEADER_FIELDS:
        o.append(f"  uint32_t {n};  // {c}")
    o.append("};")
    o.append("static_assert(sizeof(ReqHeader) == 16);\n")
    o.append("// Every response starts with this header; the host stores seqno last (release).")
    o.append("struct RspHeader {")
    o.append("  uint32_t seqno;  // the request's seqno")
    o.append("  int32_t status;  // Status")
    o.append("};")
    o.append("static_assert(sizeof(RspHeader) == 8);\n")
    for s in structs:
        emit_struct(o, s)
    for r in requests:
        o.append(f"// ---- {r.wire_name} (id {r.id})")
        o.extend(comment_lines(r.comment))
        if r.arrays:
            o.append("// Followed by: " + ", ".join(f"uint32_t {n}[{c}]" for n, c, _ in r.arrays) + ".")
        emit_struct(o, Struct(r.req.name, "", r.req.fields))
        emit_struct(o, Struct(r.rsp.name, "", r.rsp.fields))
    o.append("#pragma GCC diagnostic pop\n")
    o.append("// Fixed part of a request (what len must at least be), 0 for an unknown id.")
    o.append("inline constexpr uint32_t request_fixed_size(uint32_t id) {")
    o.append("  switch (id) {")
    for r in requests:
        o.append(f"    case {r.id}: return sizeof({r.req.name});")
    o.append("    default: return 0;")
    o.append("  }")
    o.append("}")
    o.append("// Size of a request's response, 0 for an unknown id.")
    o.append("inline constexpr uint32_t response_size(uint32_t id) {")
    o.append("  switch (id) {")
    for r in requests:
        o.append(f"    case {r.id}: return sizeof({r.rsp.name});")
    o.append("    default: return 0;")
    o.append("  }")
    o.append("}\n")
    o.append("// ---- guest encoders")
    for r in requests:
        o.extend(request_size(r))
        o.extend(encoder(r))
        o.append("")
    o.append("// ---- guest readers of host-written shared memory")
    o.append("// The seqno of the response at `rsp` (acquire): once it equals the request's seqno, the rest")
    o.append("// of the response is complete and may be copied out.")
    o.append("inline uint32_t load_response_seqno(const void* rsp) {")
    o.append("  return __atomic_load_n(static_cast<const uint32_t*>(rsp), __ATOMIC_ACQUIRE);")
    o.append("}")
    o.append("// One ring's entry of the fence page at the start of the response buffer (8-aligned).")
    o.append("inline RingFence load_ring_fence(const void* fence_page, uint32_t ring) {")
    o.append("  const auto* page = static_cast<const FencePage*>(fence_page);")
    o.append("  RingFence f{};")
    o.append("  if (ring >= kMaxRings) return f;")
    o.append("  f.retired_seqno = __atomic_load_n(&page->rings[ring].retired_seqno, __ATOMIC_ACQUIRE);")
    o.append("  f.faulted_seqno = __atomic_load_n(&page->rings[ring].faulted_seqno, __ATOMIC_ACQUIRE);")
    o.append("  return f;")
    o.append("}\n")
    o.append(f"}}  // namespace {NS}")
    return "\n".join(o) + "\n"


# ----------------------------------------------------------------------------------------------
# host decoder


def gen_decoder_h(requests):
    o = ["// Generated by protocol/gsgpu_ctx/gen_gsgpu_ctx.py from protocol/gsgpu_ctx/gsgpu_ctx.xml. Do not edit.",
         "// Host side: splits a request stream, checks every length, decodes each request into its",
         "// typed form and calls Handlers::handle_<request>. A malformed stream (truncated header,",
         "// unknown cmd, len not 4-aligned, past the end or not matching the request's fields and",
         "// arrays) stops decoding with an error naming the request and the field: the caller makes the",
         "// context fatal. Requests before it were executed.",
         "#pragma once", "",
         "#include <cstdint>", "#include <cstring>", "#include <string>", "#include <vector>", "",
         "#include \"protocol/gsgpu_ctx/gsgpu_ctx_protocol.h\"", "",
         f"namespace {NS} {{", "",
         "// A u32 array inside the host's copy of the stream (4-byte aligned on the wire: read by memcpy).",
         "struct U32Array {",
         "  const uint8_t* raw = nullptr;",
         "  uint32_t count = 0;",
         "  uint32_t operator[](uint32_t i) const {",
         "    uint32_t v;",
         "    std::memcpy(&v, raw + size_t(i) * 4, 4);",
         "    return v;",
         "  }",
         "  void copy_to(std::vector<uint32_t>* out) const {",
         "    out->resize(count);",
         "    if (count) std::memcpy(out->data(), raw, size_t(count) * 4);",
         "  }",
         "};", ""]
    for r in requests:
        o.append(f"struct {camel(r.name)} {{")
        o.append(f"  {r.req.name} req;")
        for name, count, comment in r.arrays:
            o.append(f"  U32Array {name};  // req.{count} entries; {comment}")
        o.append("};")
    o.append("")
    o.append("class Handlers {")
    o.append(" public:")
    o.append("  virtual ~Handlers() = default;")
    o.append("  // Before each well-formed request. false: the request is skipped (not executed, no")
    o.append("  // response), e.g. because its rsp_off cannot hold a response of rsp_size bytes.")
    o.append("  virtual bool begin_request(const ReqHeader& hdr, const char* name, uint32_t rsp_size) = 0;")
    o.append("  // A field the generated checks refuse (a pad or reserved field that is not zero); the")
    o.append("  // request then answers Status::kInvalidArgument without reaching its handler.")
    o.append("  virtual void refuse_field(const char* field, const std::string& why) = 0;")
    o.append("  // After the handler: `rsp` (rsp_size bytes, RspHeader first, zero-filled where the handler")
    o.append("  // wrote nothing) holds the seqno and status; deliver it when hdr.rsp_off != 0.")
    o.append("  virtual void end_request(const ReqHeader& hdr, const void* rsp, uint32_t rsp_size) = 0;")
    for r in requests:
        o.append(f"  virtual Status handle_{r.name}(const {camel(r.name)}& r, {r.rsp.name}* rsp) = 0;")
    o.append("};\n")
    o.append("// Decodes and dispatches every request of `data` in order. true: the whole stream was well")
    o.append("// formed. false: *error says which request (name, byte offset) and field is malformed.")
    o.append("bool dispatch_requests(Handlers& handlers, const void* data, size_t size, std::string* error);\n")
    o.append(f"}}  // namespace {NS}")
    return "\n".join(o) + "\n"


def gen_decoder_cc(requests):
    o = ["// Generated by protocol/gsgpu_ctx/gen_gsgpu_ctx.py from protocol/gsgpu_ctx/gsgpu_ctx.xml. Do not edit.",
         "#include \"protocol/gsgpu_ctx/gsgpu_ctx_decoder.h\"", "",
         f"namespace {NS} {{", "namespace {", "",
         "std::string where(const char* name, size_t offset) {",
         "  return std::string(name) + \" at byte \" + std::to_string(offset);",
         "}", ""]
    for r in requests:
        cls = camel(r.name)
        o.append(f"bool run_{r.name}(Handlers& h, const ReqHeader& hdr, const uint8_t* p, size_t at, "
                 "std::string* error) {")
        o.append(f"  {cls} r{{}};")
        o.append("  std::memcpy(&r.req, p, sizeof r.req);")
        o.append(f"  const uint64_t expected = request_size_{r.name}(r.req);")
        o.append("  if (hdr.len != expected) {")
        msg = f'": len: " + std::to_string(hdr.len) + " is not " + std::to_string(expected)'
        if r.arrays:
            msg += f' + " (the fixed {r.req.size} bytes'
            for _, c, _ in r.arrays:
                msg += f' + 4 * {c} " + std::to_string(r.req.{c}) + "'
            msg += ')"'
        o.append(f"    *error = where(\"{r.wire_name}\", at) + {msg};")
        o.append("    return false;")
        o.append("  }")
        if r.arrays:
            o.append("  const uint8_t* cursor = p + sizeof r.req;")
            for name, count, _ in r.arrays:
                o.append(f"  r.{name} = U32Array{{cursor, r.req.{count}}};")
                o.append(f"  cursor += size_t(r.req.{count}) * 4;")
        o.append(f"  {r.rsp.name} rsp{{}};")
        o.append(f"  if (!h.begin_request(hdr, \"{r.wire_name}\", sizeof rsp)) return true;")
        o.append("  Status status = Status::kOk;")
        pads = [f for f in r.req.fields if f.is_pad]
        for f in pads:
            if f.count:
                o.append(f"  for (const auto& v : r.req.{f.name}) if (v != 0 && status == Status::kOk) {{")
            else:
                o.append(f"  if (r.req.{f.name} != 0) {{")
            o.append(f"    h.refuse_field(\"{f.name}\", \"must be 0\");")
            o.append("    status = Status::kInvalidArgument;")
            o.append("  }")
        o.append(f"  if (status == Status::kOk) status = h.handle_{r.name}(r, &rsp);")
        o.append("  rsp.seqno = hdr.seqno;")
        o.append("  rsp.status = int32_t(status);")
        o.append("  h.end_request(hdr, &rsp, sizeof rsp);")
        o.append("  return true;")
        o.append("}\n")
    o.append("bool run_one(Handlers& h, const ReqHeader& hdr, const uint8_t* p, size_t at, std::string* error) {")
    o.append("  switch (hdr.cmd) {")
    for r in requests:
        o.append(f"    case {r.id}: return run_{r.name}(h, hdr, p, at, error);")
    o.append("    default: return false;")
    o.append("  }")
    o.append("}\n")
    o.append("}  // namespace\n")
    o.append("bool dispatch_requests(Handlers& handlers, const void* data, size_t size, std::string* error) {")
    o.append("  const auto* bytes = static_cast<const uint8_t*>(data);")
    o.append("  size_t at = 0;")
    o.append("  while (at < size) {")
    o.append("    ReqHeader hdr;")
    o.append("    if (size - at < sizeof hdr) {")
    o.append("      *error = \"request at byte \" + std::to_string(at) + \": header: truncated (\" +")
    o.append("               std::to_string(size - at) + \" bytes left, 16 needed)\";")
    o.append("      return false;")
    o.append("    }")
    o.append("    std::memcpy(&hdr, bytes + at, sizeof hdr);")
    o.append("    const char* name = request_name(hdr.cmd);")
    o.append("    if (!name) {")
    o.append("      *error = \"request at byte \" + std::to_string(at) + \": cmd: unknown id \" +")
    o.append("               std::to_string(hdr.cmd);")
    o.append("      return false;")
    o.append("    }")
    o.append("    if (hdr.len % 4 != 0 || hdr.len < request_fixed_size(hdr.cmd)) {")
    o.append("      *error = where(name, at) + \": len: \" + std::to_string(hdr.len) +")
    o.append("               \" is not a multiple of 4 of at least \" + std::to_string(request_fixed_size(hdr.cmd));")
    o.append("      return false;")
    o.append("    }")
    o.append("    if (hdr.len > size - at) {")
    o.append("      *error = where(name, at) + \": len: \" + std::to_string(hdr.len) +")
    o.append("               \" runs past the end of the \" +")
    o.append("               std::to_string(size) + \"-byte submission\";")
    o.append("      return false;")
    o.append("    }")
    o.append("    if (!run_one(handlers, hdr, bytes + at, at, error)) return false;")
    o.append("    at += hdr.len;")
    o.append("  }")
    o.append("  return true;")
    o.append("}\n")
    o.append(f"}}  // namespace {NS}")
    return "\n".join(o) + "\n"


# ----------------------------------------------------------------------------------------------
# layout table


def md_struct(o, title, s, arrays=()):
    o.append(f"### {title}\n")
    if s.comment:
        o.append(s.comment + "\n")
    o.append("| offset | size | field | type | meaning |")
    o.append("| ---: | ---: | --- | --- | --- |")
    for f in s.fields:
        t = f.type + (f"[{f.count}]" if f.count else "")
        o.append(f"| {f.offset} | {f.size} | `{f.name}` | {t} | {f.comment} |")
    for name, count, comment in arrays:
        o.append(f"| | 4 × `{count}` | `{name}` | u32[] | {comment} |")
    o.append(f"\n{s.size} bytes{' before the arrays' if arrays else ''}.\n")


def gen_md(meta, constants, statuses, structs, requests):
    o = ["# gsgpu_ctx wire layout (generated from protocol/gsgpu_ctx/gsgpu_ctx.xml)\n",
         f"Capset {meta['capset_id']}, wire version {meta['wire_version']}, XML hash `{meta['hash']}`.\n",
         "## Constants\n", "| name | value | meaning |", "| --- | ---: | --- |"]
    for name, value, comment in constants:
        o.append(f"| `{name}` | {value:#x} | {comment} |")
    o.append("\n## Status\n")
    o.append("| value | name | meaning |")
    o.append("| ---: | --- | --- |")
    for name, value, comment in statuses:
        o.append(f"| {value} | {name} | {comment} |")
    o.append("\n## Requests\n")
    o.append("| id | request | request bytes | response bytes |")
    o.append("| ---: | --- | --- | ---: |")
    for r in requests:
        extra = "".join(f" + 4 × {c}" for _, c, _ in r.arrays)
        o.append(f"| {r.id} | {r.wire_name} | {r.req.size}{extra} | {r.rsp.size} |")
    o.append("")
    for r in requests:
        req = Struct(r.req.name, r.comment, r.req.fields)
        md_struct(o, f"{r.wire_name} request ({r.id})", req, r.arrays)
        if len(r.rsp.fields) > 2:
            md_struct(o, f"{r.wire_name} response", r.rsp)
    o.append("## Structs\n")
    for s in structs:
        md_struct(o, s.name, s)
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xml")
    ap.add_argument("outdir")
    args = ap.parse_args()
    meta, constants, statuses, structs, requests = load(args.xml)
    outputs = {
        "gsgpu_ctx_protocol.h": gen_protocol_h(meta, constants, statuses, structs, requests),
        "gsgpu_ctx_decoder.h": gen_decoder_h(requests),
        "gsgpu_ctx_decoder.cc": gen_decoder_cc(requests),
        "gsgpu_ctx_wire.md": gen_md(meta, constants, statuses, structs, requests),
    }
    for name, text in outputs.items():
        path = os.path.join(args.outdir, name)
        # Only rewrite changed files so ninja does not rebuild everything on each run.
        if os.path.exists(path) and open(path).read() == text:
            continue
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
