#!/usr/bin/env python3
"""gen_gsgpu_ctx.py accepts gsgpu_ctx.xml and refuses broken variants with an error naming the problem."""
import os
import shutil
import subprocess
import sys
import tempfile

gen, xml, hw_xml = sys.argv[1], sys.argv[2], sys.argv[3]
source = open(xml, encoding="utf-8").read()


def run(text, hw_text=None):
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "gsgpu_ctx"))
        os.makedirs(os.path.join(tmp, "gsgpu"))
        path = os.path.join(tmp, "gsgpu_ctx", "gsgpu_ctx.xml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        hw_path = os.path.join(tmp, "gsgpu", "gsgpu.xml")
        if hw_text is None:
            shutil.copy(hw_xml, hw_path)
        else:
            with open(hw_path, "w", encoding="utf-8") as f:
                f.write(hw_text)
        r = subprocess.run([sys.executable, gen, path, tmp], capture_output=True, text=True)
        return r.returncode, r.stderr


failures = 0
code, err = run(source)
if code != 0:
    print("the real XML must generate:", err)
    failures += 1

mutations = [
    ('name="get_caps" id="2"', 'name="get_caps" id="1"', "already used by set_response_buffer"),
    ('name="reset" id="10"', 'name="bo_create" id="10"', "duplicate name"),
    ('<field name="pad0" type="u32"/>\n    <field name="offset" type="u64"/>',
     '<field name="offset" type="u64"/>', "is not a multiple of its alignment"),
    ('<field name="flags" type="u32" comment="reserved, 0"/>\n    <field name="pad0" type="u32"/>',
     '<field name="flags" type="u32" comment="reserved, 0"/>', "is not a multiple of 8"),
    ('<field name="res_id" type="u32"/>', '<field name="res_id" type="u16"/>', "unknown type u16"),
    ('<field name="ring_seqno" type="u64"/>', '<field name="seqno" type="u64"/>', "repeats a header field"),
    ('count="bo_count"', 'count="nothing"', "count names no u32 field"),
    ('type="char" count="32"', 'type="char"', "char fields need count="),
    ('count="kMaxRings"', 'count="kNoSuchConstant"', "neither a number nor a constant"),
]
for old, new, expected in mutations:
    if old not in source:
        print(f"mutation anchor not found: {old!r}")
        failures += 1
        continue
    code, err = run(source.replace(old, new, 1))
    if code == 0 or expected not in err:
        print(f"mutation {new!r}: expected failure mentioning {expected!r}, got rc={code} {err!r}")
        failures += 1

hw = open(hw_xml, encoding="utf-8").read()
code, err = run(source, hw.replace('<capset id="17"', '<capset id="40"', 1))
if code == 0 or "capset id 40" not in err:
    print(f"capset id 40: expected a refusal, got rc={code} {err!r}")
    failures += 1

print(f"{len(mutations) + 2 - failures} of {len(mutations) + 2} checks passed")
sys.exit(1 if failures else 0)
