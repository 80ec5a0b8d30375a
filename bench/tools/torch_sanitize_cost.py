#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What cuguard.torch.load(..., sanitize=True) costs: the raw-pointer extension of
tests/torch/raw_pointers built under emulation three ways (checks off, checks on, sanitize=True;
the last also with initcheck off, CUGUARD_EMULATION_INITCHECK=0), each run in a process of its own,
and its ops timed on CPU tensors beside PyTorch's own (median of --repeat runs, milliseconds);
prints a Markdown table.

  python3 bench/tools/torch_sanitize_cost.py [--build DIR] [--repeat N]
"""
import argparse
import json
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


BUILDS = {  # label: (load's arguments, environment)
    "checks off": (dict(checks=False), {}),
    "checks on": (dict(checks=True), {}),
    "sanitize=True": (dict(sanitize=True), {}),
    "sanitize=True, initcheck off": (dict(sanitize=True), {"CUGUARD_EMULATION_INITCHECK": "0"}),
}


def cases(table, index, points, ptr):
    return {
        "gather_rows 8192 x 64 float (524,288 elements)": (lambda m: m.gather_rows(table, index, 0),
                                                            lambda: table[index]),
        "fps 4 x 1024 points, 64 samples each": (lambda m: m.fps(points, ptr, 64, 0), None),
    }


def measure(label, build, repeat):
    """{case: median ms} of one build, alone in this process (a sanitized extension changes how
    every storage of the process is allocated: its loading must not touch the others' runs)."""
    kw, _ = BUILDS[label]
    index_of = list(BUILDS).index(label)
    module = cuguard.torch.load(f"cuguard_cost_{min(index_of, 2)}", SOURCES,
                                build_directory=os.path.join(build, str(min(index_of, 2))), verbose=False, **kw)
    gen = torch.Generator().manual_seed(1)
    table = torch.randn(4096, 64, generator=gen)
    index = torch.randint(0, 4096, (8192,), generator=gen)
    points = torch.randn(4096, 3, generator=gen, dtype=torch.float64)
    ptr = torch.tensor([0, 1024, 2048, 3072, 4096])
    out = {}
    for name, (run, reference) in cases(table, index, points, ptr).items():
        out[name] = median_ms(lambda: run(module), repeat)
        if reference is not None and label == "checks off":
            out[name + " (PyTorch)"] = median_ms(reference, repeat)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=str(ROOT / "build-bench-sanitize"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # (a child: one build's medians as JSON)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.build, args.repeat)))
        return
    results = {}
    for label, (_, env) in BUILDS.items():
        run = subprocess.run([sys.executable, __file__, "--build", args.build, "--repeat", str(args.repeat), "--one", label],
                             capture_output=True, text=True, env=dict(os.environ, **env), check=True)
        results[label] = json.loads(run.stdout.strip().splitlines()[-1])
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"cuguard.torch sanitize cost: {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Torch {torch.__version__}, commit {commit}, median of {args.repeat}, ms\n")
    print("| op | PyTorch | " + " | ".join(BUILDS) + " |")
    print("| --- " * (len(BUILDS) + 2) + "|")
    for name in results["checks off"]:
        if name.endswith("(PyTorch)"):
            continue
        off = results["checks off"][name]
        reference = results["checks off"].get(name + " (PyTorch)")
        cells = [f"{reference:.2f}" if reference is not None else "-", f"{off:.2f}"]
        cells += [f"{results[label][name]:.2f} ({results[label][name] / off:.1f}x)" for label in list(BUILDS)[1:]]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
