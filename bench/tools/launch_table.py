#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a checked launch costs the host: reads Google Benchmark JSON files of the two builds of
bench/runtime/launch.bench.cpp (checks off, checks on) and prints a Markdown table of each
launch's time in both and the difference, against the goal of at most 1 us more with checks on.

    launch_table.py UNCHECKED.json CHECKED.json
"""
import argparse
import json

GOAL_US = 1.0


def medians(path):
    """{benchmark: wall time in microseconds}: the median of the repetitions where the run repeated
    them (--benchmark_repetitions), else the one run."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    picked = [b for b in runs if b.get("aggregate_name") == "median"] or \
        [b for b in runs if b.get("run_type", "iteration") == "iteration"]
    return {b.get("run_name", b["name"]): b["real_time"] * unit[b.get("time_unit", "ns")] for b in picked}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("unchecked")
    parser.add_argument("checked")
    args = parser.parse_args()
    off, on = medians(args.unchecked), medians(args.checked)
    print(f"| launch | checks off | checks on | more with checks on | goal (at most {GOAL_US:g} us more) |")
    print("| --- | --- | --- | --- | --- |")
    for name in off:
        if name in on:
            extra = on[name] - off[name]
            print(f"| `{name}` | {off[name]:.2f} us | {on[name]:.2f} us | {extra:+.2f} us | "
                  f"{'met' if extra <= GOAL_US else 'not met'} |")


if __name__ == "__main__":
    main()
