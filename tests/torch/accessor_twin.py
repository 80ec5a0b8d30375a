#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cuguard::torch's accessors cost nothing with checks off: accessor_twin.cu's kernels, written in
ATen's accessor style, compiled by nvcc once with ATen's accessors (aten_twin::) and once with
cuguard's (cuguard_twin::). With checks off each pair must be the same PTX (normalized as
tests/static/ptx_static.py normalizes a kernel and its raw twin), and the same SASS where cuobjdump
is found; with checks on each pair must differ (so that the comparison can fail).

  accessor_twin.py --nvcc NVCC --arch 90 --root CHECKOUT --torch-include DIR
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "static"))
import ptx_static  # noqa: E402


def compile_twins(args, checks, out):
    ptx = out / f"twins{checks}.ptx"
    cubin = out / f"twins{checks}.cubin"
    includes = ["-I", str(args.root / "include"), "-I", args.torch_include,
                "-I", str(pathlib.Path(args.torch_include) / "torch/csrc/api/include")]
    base = [args.nvcc, "-std=c++17", f"-arch=sm_{args.arch}", f"-DCUGUARD_ENABLE_CHECKS={checks}", *includes,
            str(HERE / "accessor_twin.cu")]
    for kind, target in (("-ptx", ptx), ("-cubin", cubin)):
        run = subprocess.run(base + [kind, "-o", str(target)], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"nvcc failed (checks={checks}):\n{run.stderr}")
    return ptx_static.entry_functions(ptx.read_text()), cubin


def pairs(functions):
    """[(key, aten mangled name, cuguard mangled name)] for every twin pair."""
    names = ptx_static.demangle(list(functions))
    by_pretty = {pretty: mangled for mangled, pretty in names.items()}
    found = []
    for mangled, pretty in sorted(names.items()):
        if "aten_twin::" not in pretty:
            continue
        # The parameter types name the accessor family: the key is the kernel's name.
        key = pretty.split("aten_twin::")[1].split("(")[0]
        ours = [m for p, m in by_pretty.items() if f"cuguard_twin::{key}(" in p]
        found.append((key, mangled, ours[0] if ours else None))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvcc", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--torch-include", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        off, off_cubin = compile_twins(args, 0, out)
        on, _ = compile_twins(args, 1, out)
        cuobjdump = ptx_static.find_cuobjdump(None, args.nvcc, args.root)
        sass = ptx_static.sass_functions(cuobjdump, off_cubin) if cuobjdump else None
        found = pairs(off)
        checked = {key: (aten, ours) for key, aten, ours in pairs(on)}
        if len(found) < 3:
            failures.append(f"expected 3 twin pairs, found {len(found)}")
        for key, aten, ours in found:
            if ours is None or checked.get(key, (None, None))[1] is None:
                failures.append(f"{key}: no cuguard_twin kernel")
                continue
            same_off = ptx_static.normalize(aten, off[aten]) == ptx_static.normalize(ours, off[ours])
            aten_on, ours_on = checked[key]
            same_on = ptx_static.normalize(aten_on, on[aten_on]) == ptx_static.normalize(ours_on, on[ours_on])
            line = f"{key}: checks off PTX {'identical' if same_off else 'DIFFERS'}"
            if not same_off:
                failures.append(f"{key}: checks-off PTX differs from ATen's accessor")
            if same_on:
                failures.append(f"{key}: the checked build is identical to ATen's: the comparison proves nothing")
            if sass is not None:
                same_sass = sass.get(aten) == sass.get(ours) and sass.get(aten) is not None
                line += f", SASS {'identical' if same_sass else 'DIFFERS'}"
                if not same_sass:
                    failures.append(f"{key}: checks-off SASS differs from ATen's accessor")
            else:
                line += ", SASS not compared (no cuobjdump)"
            print(line + f"; checks on {'identical (bad)' if same_on else 'differs'}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
