#!/usr/bin/env python3
"""gsgpu-as / gsgpu-dis round trip: assemble each kernel, disassemble the binary, assemble that text
again and require identical bytes; a bad source must fail with its line and column."""
import os
import subprocess
import sys
import tempfile


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def main():
    gsgpu_as, gsgpu_dis, *kernels = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in kernels:
            first = os.path.join(tmp, 'first.bin')
            text = os.path.join(tmp, 'dis.s')
            second = os.path.join(tmp, 'second.bin')
            r = run([gsgpu_as, kernel, '-o', first])
            if r.returncode != 0:
                sys.exit(f'{kernel}: gsgpu-as failed: {r.stderr}')
            r = run([gsgpu_dis, first])
            if r.returncode != 0:
                sys.exit(f'{kernel}: gsgpu-dis failed: {r.stderr}')
            with open(text, 'w') as f:
                f.write(r.stdout)
            r = run([gsgpu_as, text, '-o', second])
            if r.returncode != 0:
                sys.exit(f'{kernel}: re-assembly failed: {r.stderr}')
            if open(first, 'rb').read() != open(second, 'rb').read():
                sys.exit(f'{kernel}: round trip changed the binary')
        bad = os.path.join(tmp, 'bad.s')
        with open(bad, 'w') as f:
            f.write('  s_nop\n  v_add_u32 v1, v2, bogus\n')
        r = run([gsgpu_as, bad, '-o', os.path.join(tmp, 'bad.bin')])
        if r.returncode == 0 or 'line 2, column 21' not in r.stderr:
            sys.exit(f'bad source: expected a located error, got rc={r.returncode} {r.stderr!r}')
    print(f'{len(kernels)} kernels round-tripped')


if __name__ == '__main__':
    main()
