#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Emulation against its peers, side by side in one run: runs the builds of
bench/runtime/peers.bench.cpp one after another (cuguard checks off and on; HIP-CPU and the
SANITIZE build where given) and prints a Markdown table of each kernel's median time in
milliseconds, with its ratio to the serial loop (timed in the checks-off build) in brackets, and
checks on against checks off.

    peers.py --unchecked build/bench/bench.peers.emulation.unchecked \\
             --checked build/bench/bench.peers.emulation.checked \\
             [--hip-cpu build/bench/bench.peers.hip_cpu] \\
             [--sanitized build/bench/bench.peers.emulation.sanitized] [--repetitions 3] [--min-time 0.5]
"""
import argparse
import json
import subprocess

KERNELS = [("index_select", "index_select", "index_select_loop"),
           ("elementwise", "elementwise", "elementwise_loop"),
           ("transpose", "transpose (barriers)", "transpose_loop"),
           ("block_sum", "block_sum (barriers)", "block_sum_loop"),
           ("matmul", "matmul (the matrixMul sample, barriers)", "matmul_loop"),
           ("tile_sum", "tile_sum (cooperative groups' reduce)", "block_sum_loop")]


def run(binary, repetitions, min_time):
    """{benchmark name: median real time in ms} of one build."""
    out = subprocess.run([binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
                          f"--benchmark_min_time={min_time}", "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    medians = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
            if b.get("error_occurred"):
                raise SystemExit(f"{binary}: {b['run_name']}: {b.get('error_message')}")
            medians[b["run_name"].split("/")[0]] = b["real_time"] * unit[b.get("time_unit", "ns")]
    return medians


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--unchecked", required=True)
    parser.add_argument("--checked", required=True)
    parser.add_argument("--hip-cpu")
    parser.add_argument("--sanitized")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.5)
    args = parser.parse_args()
    off = run(args.unchecked, args.repetitions, args.min_time)
    on = run(args.checked, args.repetitions, args.min_time)
    hip = run(args.hip_cpu, args.repetitions, args.min_time) if args.hip_cpu else None
    sanitized = run(args.sanitized, args.repetitions, args.min_time) if args.sanitized else None
    extra = " SANITIZE (checks on) |" if sanitized else ""
    print(f"| kernel | serial loop | HIP-CPU | cuguard checks off | cuguard checks on | checks on / off |{extra}")
    print("| --- | --- | --- | --- | --- | --- |" + (" --- |" if sanitized else ""))
    for name, title, loop_name in KERNELS:
        loop = off[loop_name]

        def cell(ms):
            return f"{ms:.2f} ({ms / loop:.1f}x)"

        hip_cell = "not measured" if hip is None else cell(hip[name]) if name in hip else "not run (no such API)"
        row = f"| {title} | {loop:.2f} | {hip_cell} | {cell(off[name])} | {cell(on[name])} | {on[name] / off[name]:.2f}x |"
        if sanitized:
            row += f" {cell(sanitized[name])} |"
        print(row)

if __name__ == "__main__":
    main()
