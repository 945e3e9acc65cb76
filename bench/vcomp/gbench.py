"""Runs a Google Benchmark program (optionally behind a launcher such as `gsvirt run ... --`) and
returns its results by benchmark name, plus the run's context (machine, load)."""
import json
import subprocess
import tempfile


def run(cmd, env, flt="", quiet=False):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = list(cmd) + [f"--benchmark_out={out.name}", "--benchmark_out_format=json"]
        if flt:
            cmd.append(f"--benchmark_filter={flt}")
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL if quiet else None)
        data = json.load(open(out.name))
    return {b["name"]: b for b in data["benchmarks"]}, data["context"]
