#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checked against unchecked: reads Google Benchmark JSON files of the two builds of
bench/runtime/kernels.bench.cpp and prints a Markdown table: time of each, the checked/unchecked ratio,
the effective bandwidth and its share of the copy bandwidth measured in the same run, and the
geometric mean of the ratios over the kernels (the copy excluded).

    compare.py UNCHECKED.json CHECKED.json [--torch TORCH.json]
"""
import argparse
import json
import math


def load(path):
    """{benchmark: its result}: the median of the repetitions where the run repeated them
    (--benchmark_repetitions), else the one run."""
    with open(path) as f:
        data = json.load(f)
    runs = data["benchmarks"]
    medians = {b["run_name"]: b for b in runs if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"}
    if medians:
        return medians, data["context"]
    return {b["name"]: b for b in runs if b.get("run_type", "iteration") == "iteration"}, data["context"]


def seconds(b):
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b["real_time"] * unit


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("unchecked")
    parser.add_argument("checked")
    parser.add_argument("--torch", help="JSON from bench/tools/torch_baseline.py")
    args = parser.parse_args()
    off, context = load(args.unchecked)
    on, _ = load(args.checked)

    copy_bw = max((b.get("bytes_per_second", 0) for n, b in off.items() if n.startswith("copy/")), default=0)
    print("| benchmark | unchecked | checked | checked / unchecked | unchecked bandwidth | share of copy |")
    print("| --- | --- | --- | --- | --- | --- |")
    ratios = {}
    for name in off:
        if name not in on:
            continue
        t_off, t_on = seconds(off[name]), seconds(on[name])
        ratio = t_on / t_off if t_off > 0 else float("nan")
        bw = off[name].get("bytes_per_second", 0)
        share = f"{100 * bw / copy_bw:.0f}%" if copy_bw and not name.startswith("copy/") else ""
        print(f"| `{name}` | {t_off * 1e6:.1f} us | {t_on * 1e6:.1f} us | {ratio:.3f} | {bw / 1e9:.1f} GB/s | {share} |")
        if not name.startswith("copy/"):
            ratios[name] = ratio
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
        worst = max(ratios, key=ratios.get)
        print(f"\nGeometric mean of checked/unchecked over {len(ratios)} kernel benchmarks: **{geomean:.3f}**; "
              f"largest: `{worst}` {ratios[worst]:.3f}.")
    if args.torch:
        with open(args.torch) as f:
            torch = json.load(f)
        print("\n| PyTorch baseline | time |\n| --- | --- |")
        for name, t in torch.items():
            print(f"| `{name}` | {t * 1e6:.1f} us |")
    repetitions = max((b.get("repetitions", 1) for b in off.values()), default=1)
    print(f"\nMachine: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs, "
          f"library build type {context.get('library_build_type', '?')}; "
          + (f"each time the median of {repetitions} repetitions." if repetitions > 1 else "each time one run."))


if __name__ == "__main__":
    main()
