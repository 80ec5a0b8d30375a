#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Instructions each phase of `nvcc -c` executes on one file, counted by valgrind (callgrind's
"I refs"): a compile-time measure that does not vary from run to run, where timings on a shared
machine vary by 20% to 50% from hour to hour. A benchmark, not a test: it asserts nothing, and
takes a few minutes (valgrind runs a program 50 to 100 times slower).

  bench/compile/compile_instructions.py [--root DIR] [--source FILE] [--checks 1] [--define NAME ...] [--arch 90] [--jobs 2]

--root: the checkout whose include/ is compiled (default: this one), so that two trees can be
compared with one script; --source: the file (default: bench/compile/kernels.cu of --root);
--define: macros for it (kernels.cu: CUGUARD_BENCH_RAW for raw pointers, CUGUARD_BENCH_ENTRY_HEADER
for <cuguard/cuguard.hpp>; neither: views and launch).
Needs valgrind (apt-get install valgrind).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# nvcc's phases as -dryrun prints them, by the program that runs them.
PHASES = [("gcc -E", r"^gcc .* -E "), ("cudafe++", r"^cudafe\+\+ "), ("cicc", r"cicc\" "), ("ptxas", r"^ptxas "),
          ("fatbinary", r"^fatbinary "), ("host gcc -c", r"^gcc .* -c ")]


def dryrun(nvcc, args, work):
    """(environment, [(phase, command)]) of nvcc's phases for `args`, keeping files in `work`."""
    out = subprocess.run([nvcc, *args, "--keep", "--keep-dir", work, "-dryrun"], capture_output=True, text=True)
    env, steps = dict(os.environ), []
    for line in out.stderr.splitlines():
        line = line[3:] if line.startswith("#$ ") else line
        assignment = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if assignment and " " not in assignment.group(1):
            env[assignment.group(1)] = os.path.expandvars(assignment.group(2).strip('"'))
            continue
        for phase, pattern in PHASES:
            if re.search(pattern, line):
                steps.append((phase, line))
                break
    return env, steps


def instructions(command, env, work):
    """Instructions `command` executes (callgrind's I refs), run on a copy of the files nvcc kept
    in `work` (each phase rewrites what another reads)."""
    with tempfile.TemporaryDirectory() as copy:
        shutil.copytree(work, copy, dirs_exist_ok=True)
        run = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={copy}/cg.%p", "sh", "-c",
                              command.replace(work, copy)], capture_output=True, text=True, env=env, cwd=copy)
    refs = re.findall(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if run.returncode != 0 or not refs:
        sys.exit(f"valgrind failed on: {command[:200]}\n{run.stderr[-2000:]}")
    return sum(int(r.replace(",", "")) for r in refs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", default=os.environ.get("CUDACXX", "nvcc"))
    ap.add_argument("--root", default=HERE)
    ap.add_argument("--source")
    ap.add_argument("--checks", default="1")
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--arch", default="90")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    source = os.path.abspath(args.source or os.path.join(root, "bench", "compile", "kernels.cu"))
    with tempfile.TemporaryDirectory() as work:
        flags = ["-std=c++17", f"-arch=sm_{args.arch}", "-I", os.path.join(root, "include"),
                 f"-DCUGUARD_ENABLE_CHECKS={args.checks}", *(f"-D{d}" for d in args.define), "-c", source, "-o", os.path.join(work, "out.o")]
        env, steps = dryrun(args.nvcc, flags, work)
        subprocess.run([args.nvcc, *flags, "--keep", "--keep-dir", work], check=True, cwd=work)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            counts = list(pool.map(lambda step: instructions(step[1], env, work), steps))
    totals = {}
    for (phase, _), n in zip(steps, counts):
        totals[phase] = totals.get(phase, 0) + n
    print(f"nvcc -c {os.path.relpath(source, root)} of {root}, CUGUARD_ENABLE_CHECKS={args.checks}"
          f"{''.join(' -D' + d for d in args.define)}, sm_{args.arch}: "
          "instructions (millions)")
    print("| phase | instructions |")
    print("| --- | --- |")
    for phase, _ in PHASES:
        if phase in totals:
            print(f"| {phase} | {totals[phase] / 1e6:,.0f} |")
    print(f"| all | {sum(totals.values()) / 1e6:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
