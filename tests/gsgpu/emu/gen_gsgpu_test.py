#!/usr/bin/env python3
"""The generator accepts gsgpu.xml and refuses broken variants of it with an error naming the problem."""
import os
import subprocess
import sys
import tempfile

gen, xml = sys.argv[1], sys.argv[2]
source = open(xml, encoding="utf-8").read()

def run(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "in.xml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([sys.executable, gen, path, os.path.join(tmp, "out.h")],
                           capture_output=True, text=True)
        return r.returncode, r.stderr

failures = 0
code, err = run(source)
if code != 0:
    print("the real XML must generate:", err)
    failures += 1

mutations = [
    ('offset="0x004"', 'offset="0x000"', "already used by ID"),
    ('offset="0x004"', 'offset="0x006"', "not 4-byte aligned"),
    ('bits="31:16" description="Major', 'bits="31:15" description="Major', "overlap"),
    ('bits="31:16" description="Major', 'bits="32:16" description="Major', "outside 31:0"),
    ('access="rw" reset="0x00000000"\n              description="Free', 'access="rx" reset="0x00000000"\n              description="Free', "access 'rx'"),
    ('opcode="0x04"', 'opcode="0x01"', "already used by DISPATCH"),
    ('<capset id="17"', '<capset id="40"', "capset id 40"),
    ('reset="0x47534750"', 'reset="0x147534750"', "does not fit 32 bits"),
    ('name="SCRATCH"', 'name="ID"', "duplicate name"),
    # <blocks>: records in GPU memory
    ('<block name="IMAGE_DESC" size_dwords="16"', '<block name="IMAGE_DESC" size_dwords="17"', "size_dwords is 17"),
    ('size_dwords="16" align_bytes="64"', 'size_dwords="16" align_bytes="48"', "power of two"),
    ('<dword name="RESERVED_12"', '<dword name="RESERVED_11"', "duplicate dword RESERVED_11"),
    ('<value name="RGBA" value="6"', '<value name="RGBA" value="5"', "already used by RGB"),
    ('<value name="IMAGE_CUBE" value="7"', '<value name="IMAGE_CUBE" value="16"', "does not fit 4 bits"),
    ('<value name="ABGR" value="20"', '<value name="RGBA" value="20"', "duplicate value name RGBA"),
    ('<field name="TYPE" bits="19:16"', '<field name="TYPE" bits="19:15"', "overlap"),
    ('<block name="SAMPLER_DESC"', '<block name="IMAGE_DESC"', "block IMAGE_DESC: duplicate name"),
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

print(f"{len(mutations) + 1 - failures} of {len(mutations) + 1} checks passed")
sys.exit(1 if failures else 0)
