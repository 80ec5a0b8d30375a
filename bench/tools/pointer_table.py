#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cuguard::ptr against raw pointers and the hand-written check: reads the Google Benchmark JSON of
bench.pointers.gpu.checked (bench/runtime/pointers.bench.cpp, whose raw and hand kernels take T*)
and prints a Markdown table: each kernel's time raw, hand-checked and with cuguard::ptr (checks
on), and the ratios ptr/raw and ptr/hand; the unchecked build's ptr kernels, where its JSON is
given, beside them (they are the raw kernels).

    pointer_table.py CHECKED.json [--unchecked UNCHECKED.json]
"""
import argparse
import json


def load(path):
    """{benchmark: seconds}: the median of the repetitions where the run repeated them, else the run."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    medians = {b["run_name"]: b for b in runs if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"}
    chosen = medians or {b["name"]: b for b in runs if b.get("run_type", "iteration") == "iteration"}
    return {name: b["real_time"] * unit[b.get("time_unit", "ns")] for name, b in chosen.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checked")
    parser.add_argument("--unchecked")
    args = parser.parse_args()
    on = load(args.checked)
    off = load(args.unchecked) if args.unchecked else {}
    print("| kernel | raw (us) | hand check (us) | cuguard::ptr, checks on (us) | ptr / raw | ptr / hand | "
          "cuguard::ptr, checks off (us) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kernel in dict.fromkeys(name.split("/")[0] for name in on):
        raw, hand, ptr = (on.get(f"{kernel}/{v}") for v in ("raw", "hand", "ptr"))
        if raw is None or hand is None or ptr is None:
            continue
        unchecked = off.get(f"{kernel}/ptr")
        print(f"| {kernel} | {raw * 1e6:.1f} | {hand * 1e6:.1f} | {ptr * 1e6:.1f} | {ptr / raw:.2f}x | {ptr / hand:.2f}x | "
              f"{f'{unchecked * 1e6:.1f}' if unchecked is not None else 'not run'} |")


if __name__ == "__main__":
    main()
