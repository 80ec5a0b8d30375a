#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that device code reports the caller's line (tests/static/lines.cu), without a GPU.

Compiles lines.cu to PTX with checks on; every `#line N` there, but those whose statement says
"no check", must appear as an immediate (the line the cold path stores). Exit status 0 when all do.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--arch", default="90")
    parser.add_argument("--root", default=str(HERE.parent.parent))
    args = parser.parse_args()
    source = (HERE / "lines.cu").read_text().splitlines()
    expected = []
    for number, line in enumerate(source):
        m = re.match(r"#line (\d+)$", line)
        if m and "no check" not in source[number + 1]:
            expected.append((int(m.group(1)), source[number + 1].strip()))
    with tempfile.TemporaryDirectory() as tmp:
        ptx = pathlib.Path(tmp) / "lines.ptx"
        run = subprocess.run([args.nvcc, "-std=c++17", f"-arch=sm_{args.arch}", "-I", str(pathlib.Path(args.root) / "include"),
                              "-DCUGUARD_ENABLE_CHECKS=1", "-ptx", str(HERE / "lines.cu"), "-o", str(ptx)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"nvcc failed:\n{run.stderr}")
        immediates = set(int(x) for x in re.findall(r"\b(\d{6})\b", ptx.read_text()))
    missing = [(n, statement) for n, statement in expected if n not in immediates]
    for n, statement in missing:
        print(f"FAILED: line {n} ({statement}) is not what device code reports")
    print(f"lines: {len(expected) - len(missing)} of {len(expected)} checks report the caller's line")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
