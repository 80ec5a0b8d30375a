#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What cuguard.torch.load(..., sanitize=True) costs: the raw-pointer extension of
tests/torch/raw_pointers built under emulation three ways (checks off, checks on, sanitize=True)
and its ops timed on CPU tensors beside PyTorch's own (median of --repeat runs, milliseconds);
prints a Markdown table.

  python3 bench/tools/torch_sanitize_cost.py [--build DIR] [--repeat N]
"""
import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import torch  # noqa: E402

import cuguard.torch  # noqa: E402

SOURCES = [ROOT / "tests/torch/raw_pointers/ops.cpp", ROOT / "tests/torch/raw_pointers/ops.cu"]


def median_ms(f, repeat):
    f()  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=str(ROOT / "build-bench-sanitize"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    builds = {
        "checks off": dict(checks=False),
        "checks on": dict(checks=True),
        "sanitize=True": dict(sanitize=True),
    }
    ops = {label: cuguard.torch.load(f"cuguard_cost_{i}", SOURCES, build_directory=os.path.join(args.build, str(i)),
                                     verbose=False, **kw)
           for i, (label, kw) in enumerate(builds.items())}
    gen = torch.Generator().manual_seed(1)
    table = torch.randn(4096, 64, generator=gen)
    index = torch.randint(0, 4096, (8192,), generator=gen)
    points = torch.randn(4096, 3, generator=gen, dtype=torch.float64)
    ptr = torch.tensor([0, 1024, 2048, 3072, 4096])
    cases = {
        "gather_rows 8192 x 64 float (524,288 elements)": (lambda m: m.gather_rows(table, index, 0),
                                                            lambda: table[index]),
        "fps 4 x 1024 points, 64 samples each": (lambda m: m.fps(points, ptr, 64, 0), None),
    }
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"cuguard.torch sanitize cost: {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Torch {torch.__version__}, commit {commit}, median of {args.repeat}, ms\n")
    print("| op | PyTorch | checks off | checks on | sanitize=True |")
    print("| --- | --- | --- | --- | --- |")
    for name, (run, reference) in cases.items():
        off = median_ms(lambda: run(ops["checks off"]), args.repeat)
        cells = [f"{median_ms(reference, args.repeat):.2f}" if reference else "-", f"{off:.2f}"]
        for label in ("checks on", "sanitize=True"):
            t = median_ms(lambda: run(ops[label]), args.repeat)
            cells.append(f"{t:.2f} ({t / off:.1f}x)")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
