#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compile time of five small user-style kernels (bench/compile/kernels.cu), nvcc -c: on raw
pointers; on checked views with the headers they need (views and launch), checks off and on;
and with <cuguard/cuguard.hpp>, checks off and on. The builds alternate round after round, so
that a slow moment of the machine falls on all of them; the median of each is compared with the
raw build. A benchmark, not a test: it asserts nothing.

  bench/compile/compile_time.py [--rounds 7] [--arch 90] [--nvcc nvcc] [--markdown FILE]
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "bench", "compile", "kernels.cu")
BUILDS = {
    "raw pointers": ["-DCUGUARD_BENCH_RAW"],
    "views and launch, checks off": ["-DCUGUARD_ENABLE_CHECKS=0"],
    "views and launch, checks on": ["-DCUGUARD_ENABLE_CHECKS=1"],
    "cuguard.hpp, checks off": ["-DCUGUARD_ENABLE_CHECKS=0", "-DCUGUARD_BENCH_ENTRY_HEADER"],
    "cuguard.hpp, checks on": ["-DCUGUARD_ENABLE_CHECKS=1", "-DCUGUARD_BENCH_ENTRY_HEADER"],
}


def compile_once(nvcc, arch, flags, out):
    cmd = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-I", os.path.join(ROOT, "include"), *flags,
           "-c", SOURCE, "-o", out]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def nvcc_version(nvcc):
    text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return text[-1] if text else "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", default=os.environ.get("CUDACXX", "nvcc"))
    ap.add_argument("--arch", default="90")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args()

    times = {name: [] for name in BUILDS}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "kernels.o")
        compile_once(args.nvcc, args.arch, BUILDS["views and launch, checks on"], out)  # warm the file cache
        for _ in range(args.rounds):
            for name, flags in BUILDS.items():
                times[name].append(compile_once(args.nvcc, args.arch, flags, out))

    raw = statistics.median(times["raw pointers"])
    lines = [
        f"nvcc -c of bench/compile/kernels.cu (5 kernels and their launches), sm_{args.arch}, nvcc's default optimization, "
        f"{args.rounds} alternating rounds, median",
        f"{nvcc_version(args.nvcc)}; {platform.machine()}, {os.cpu_count()} cores",
        "",
        "| build | median s | min s | max s | / raw |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, t in times.items():
        med = statistics.median(t)
        lines.append(f"| {name} | {med:.2f} | {min(t):.2f} | {max(t):.2f} | {med / raw:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
