#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Static costs of checks on kernels as users write them (bench/static/user_kernels.cu), without a
GPU: registers, instructions in the kernel, and instructions per iteration of its innermost loop,
for raw accessors, a hand-written check, cuguard with checks off and on, and cuda::std::mdspan with
CCCL's device assertions.

Compiles kernels.cu to sm_<arch> cubins three times (checks off, checks on, the mdspan kernels
with -DCCCL_ENABLE_DEVICE_ASSERTIONS), reads registers and spills from ptxas -v and the SASS from
cuobjdump -sass, and the registers each kernel needs without spilling from ptxas runs on its PTX
(ptx_static.registers_needed), and instructions per iteration of the innermost loop on the path
where every check passes (tests/static/sass_paths.py).

Checks: with checks off every cuguard kernel has the SASS of its raw twin, and no kernel spills.
--goals also checks issue 13's goals for checks on (at most raw + 8 registers; innermost loop at
most 1.25x the hand check's instructions) and fails where they are not met. The pointers suite
also builds the raw kernels with their pointers checked by the build (python/cuguard/pointers.py,
as cuguard_check_pointers and pointers=True translate them, into a namespace tr::), whose
innermost loop must cost at most 1.05x the instructions of the kernel renamed by hand.
--table FILE writes the Markdown table (bench/results/user-kernels.md); --expect FILE fails unless the
measured tables are the ones FILE holds (CI: the committed table cannot drift).
"""
import argparse
import datetime
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tests" / "static"))
sys.path.insert(0, str(ROOT / "python"))
import ptx_static  # noqa: E402  (find_cuobjdump, find_ptxas, registers_needed, resources, sass_listing)
from sass_paths import body_end, innermost_loop  # noqa: E402

# kernel -> (marker instructions of one source iteration, how many)
KERNELS = {
    "copy2d": (r"\bST[GS]?(\.|\s)", 1),
    "embedding": (r"\bST[GS]?(\.|\s)", 1),
    "gather1": (r"\bST[GS]?(\.|\s)", 1),
    "matmul16": (r"\bBAR\.SYNC", 2),
    "lstm_cell": (r"\bST[GS]?(\.|\s)", 2),
    "rowsum": (r"\bFADD\b", 1),
}
VARIANTS = [("raw", "raw", 0), ("hand", "hand check", 0), ("cg", "cuguard checks off", 0), ("cg", "cuguard checks on", 1),
            ("md", "mdspan + CCCL assertions", None)]

# --suite: which kernels. "views": user_kernels.cu (checked views, and mdspan beside them);
# "pointers": pointer_kernels.cu, raw-pointer kernels with each T* renamed cuguard::ptr<T>.
SUITES = {
    "views": {"source": "user_kernels.cu", "kernels": KERNELS, "variants": VARIANTS, "loop_goal": 1.25,
              "title": "Checks on kernels as users write them: static costs"},
    "pointers": {"source": "pointer_kernels.cu",
                 "kernels": {"rows": (r"\bST[GS]?(\.|\s)", 1), "gather": (r"\bST[GS]?(\.|\s)", 1),
                             "params": (r"\bST[GS]?(\.|\s)", 1), "vec4": (r"\bST[GS]?(\.|\s)", 1)},
                 "variants": VARIANTS[:4] + [("tr", "checked by the build, checks on", 1)], "loop_goal": 1.3,
                 "translated": True,
                 "title": "cuguard::ptr on raw-pointer kernels as extensions write them: static costs"},
}


def translated_source(source_name, work):
    """The source with a copy of its namespace raw:: as namespace tr::, its pointers checked by
    the build (cuguard.pointers, as cuguard_check_pointers translates a file)."""
    from cuguard import emulate, pointers
    text = (HERE / source_name).read_text()
    masked = emulate._mask(text)
    begin = re.search(r"\bnamespace raw\s*\{", masked)
    end = emulate._match_forward(masked, begin.end() - 1, "{", "}")
    block = "namespace tr" + text[begin.start() + len("namespace raw"):end + 1]
    edits = sorted(e for group in pointers.pointer_edits(block, emulate._mask(block)) for e in group)
    out = work / f"translated_{source_name}"
    out.write_text(f'#include "{HERE / source_name}"\n{pointers.PRELUDE}' + "".join(emulate._edited(block, edits, str(out))) + "\n")
    return out


def compile_cubin(nvcc, arch, checks, work, source_name="user_kernels.cu", source=None):
    """(cubin path, ptxas log, PTX path) of `source_name` with CUGUARD_ENABLE_CHECKS=checks; checks
    None: the mdspan kernels with CCCL's device assertions."""
    name = "mdspan" if checks is None else f"checks{checks}"
    cubin, ptx = work / f"{name}.cubin", work / f"{name}.ptx"
    flags = ["-DUSER_KERNELS_MDSPAN", "-DCCCL_ENABLE_DEVICE_ASSERTIONS"] if checks is None else [f"-DCUGUARD_ENABLE_CHECKS={checks}"]
    common = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-I", str(ROOT / "include"), *flags]
    source = str(source or HERE / source_name)
    run = subprocess.run([*common, "-cubin", "-Xptxas", "-v", source, "-o", str(cubin)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nvcc failed ({name}):\n{run.stderr}")
    ptx_run = subprocess.run([*common, "-ptx", source, "-o", str(ptx)], capture_output=True, text=True)
    if ptx_run.returncode != 0:
        sys.exit(f"nvcc -ptx failed ({name}):\n{ptx_run.stderr}")
    return cubin, run.stderr + run.stdout, ptx


def kernel_name(demangled):
    """("cg", "copy2d") for "cg::copy2d(cuguard::...)"; (None, None) for anything else."""
    m = re.match(r"(\w+)::(\w+)\(", demangled)
    return (m.group(1), m.group(2)) if m else (None, None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", default="90")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--table")
    ap.add_argument("--goals", action="store_true")
    ap.add_argument("--expect", help="the committed table (bench/results/user-kernels.md) that the measurements must match")
    ap.add_argument("--suite", choices=sorted(SUITES), default="views")
    args = ap.parse_args()
    suite = SUITES[args.suite]
    kernels, variants, loop_goal = suite["kernels"], suite["variants"], suite["loop_goal"]
    cuobjdump = ptx_static.find_cuobjdump(args.cuobjdump, args.nvcc, ROOT)
    if cuobjdump is None:
        print("user_kernels: no cuobjdump (scripts/install-test-deps puts one in .ci/tools): skipped")
        return 1 if os.environ.get("CUGUARD_REQUIRE_SASS") == "1" else 0
    results = {}  # (kernel, variant label) -> dict
    failures = []
    off_sass = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        ptxas = ptx_static.find_ptxas(args.nvcc)
        source = translated_source(suite["source"], work) if suite.get("translated") else None
        for checks in dict.fromkeys(want for _, _, want in variants):
            cubin, log, ptx = compile_cubin(args.nvcc, args.arch, checks, work, suite["source"], source)
            ptx_static.SPILLS.clear()
            regs = ptx_static.resources(log)
            spills = dict(ptx_static.SPILLS)
            listing = ptx_static.sass_listing(cuobjdump, cubin)
            names = ptx_static.demangle(list(listing))
            for mangled, code in listing.items():
                ns, kernel = kernel_name(names[mangled])
                if kernel not in kernels:
                    continue
                for variant, label, want in variants:
                    if variant != ns or want != checks:
                        continue
                    body = body_end(code)
                    loop = innermost_loop(body, *kernels[kernel])
                    default_regs = regs.get(mangled, (None, 0))[0]
                    results[(kernel, label)] = {"regs": default_regs, "insns": len(body), "loop": loop,
                                                "spills": spills.get(mangled, 0),
                                                "needed": ptx_static.registers_needed(ptxas, args.arch, ptx, mangled,
                                                                                      default_regs or 0)}
                    if spills.get(mangled, 0):
                        failures.append(f"{kernel} ({label}) spills {spills[mangled]} bytes")
                    if checks == 0 and ns in ("raw", "cg"):
                        off_sass[(kernel, ns)] = [ins for _, ins in body]
    for kernel in kernels:
        if off_sass.get((kernel, "raw")) != off_sass.get((kernel, "cg")):
            failures.append(f"{kernel}: with checks off the SASS differs from the raw kernel's")

    def cell(r):
        if r is None:
            return "not built"
        loop = (f"{r['loop'][0]:.0f}" + ("+" if r["loop"][2] else "")) if r["loop"] else "no loop"
        return f"{r['regs']} / {loop}"

    lines = ["| kernel | " + " | ".join(label for _, label, _ in variants) + " |",
             "| --- |" + " --- |" * len(variants)]
    for kernel in kernels:
        lines.append(f"| {kernel} | " + " | ".join(cell(results.get((kernel, label))) for _, label, _ in variants) + " |")
    if any(r["loop"] and r["loop"][2] for r in results.values()):
        lines += ["", "N+: the loop holds an inner loop the compiler did not unroll; the hot path runs it once, "
                  "so its other passes are not counted: a lower bound."]
    lines += ["", "Instructions in the whole kernel (SASS, without the padding after its end):", "",
              "| kernel | " + " | ".join(label for _, label, _ in variants) + " |",
              "| --- |" + " --- |" * len(variants)]
    for kernel in kernels:
        lines.append(f"| {kernel} | " + " | ".join(str(results[(kernel, label)]["insns"]) if (kernel, label) in results
                                                  else "not built" for _, label, _ in variants) + " |")

    def needed(r):
        if r is None:
            return "not built"
        n, at_floor = r["needed"]
        return f"<= {n}" if at_floor else str(n)

    lines += ["", "Registers needed without spilling (the fewest `--maxrregcount` with no spill; \"<= 24\": ptxas's "
              "lowest allowed count, so the kernel may need fewer). ptxas's default count above also takes registers "
              "that cost no occupancy: up to 32 on sm_90 (65536 registers for 2048 threads per SM).", "",
              "| kernel | " + " | ".join(label for _, label, _ in variants) + " |",
              "| --- |" + " --- |" * len(variants)]
    for kernel in kernels:
        lines.append(f"| {kernel} | " + " | ".join(needed(results.get((kernel, label))) for _, label, _ in variants) + " |")
    goals = []
    for kernel in kernels:
        raw, hand, on = (results.get((kernel, label)) for label in ("raw", "hand check", "cuguard checks on"))
        if not (raw and hand and on):
            continue
        reg_ok = on["regs"] <= raw["regs"] + 8
        countable = bool(on["loop"] and hand["loop"] and not on["loop"][2] and not hand["loop"][2])
        loop_ok = countable and on["loop"][0] <= loop_goal * hand["loop"][0]
        ratio = f"{on['loop'][0] / hand['loop'][0]:.2f}x" if countable else "not countable (inner loop)"
        goals.append(f"| {kernel} | {on['regs'] - raw['regs']:+d} | {needed(on)} (raw {needed(raw)}) | {ratio} | "
                     f"{'met' if reg_ok and loop_ok else 'not met'} |")
        if args.goals and not (reg_ok and loop_ok):
            failures.append(f"{kernel}: checks on {on['regs']} registers (raw {raw['regs']}), loop {ratio} of the hand check's")
    lines += ["", "Checks on against the goals (at most raw + 8 registers, ptxas's default count; innermost loop at "
              "most " + f"{loop_goal}x the hand check's):", "",
              "| kernel | registers over raw | registers needed | loop vs hand check | goals |",
              "| --- | --- | --- | --- | --- |", *goals]
    if suite.get("translated"):
        lines += ["", "The raw kernels with their pointers checked by the build (python/cuguard/pointers.py) against "
                  "the same kernels renamed by hand, checks on (at most 1.05x the renamed kernel's innermost loop):", "",
                  "| kernel | loop, checked by the build | loop, renamed by hand | ratio |", "| --- | --- | --- | --- |"]
        for kernel in kernels:
            tr, on = (results.get((kernel, label)) for label in ("checked by the build, checks on", "cuguard checks on"))
            if not (tr and on and tr["loop"] and on["loop"]):
                failures.append(f"{kernel}: no innermost loop measured, checked by the build or renamed by hand")
                continue
            ratio = tr["loop"][0] / on["loop"][0]
            lines.append(f"| {kernel} | {tr['loop'][0]:.0f} | {on['loop'][0]:.0f} | {ratio:.2f}x |")
            if ratio > 1.05:
                failures.append(f"{kernel}: checked by the build, its loop is {ratio:.2f}x the renamed kernel's (at most 1.05x)")
    table = "\n".join(lines)
    print("Registers / instructions per innermost-loop iteration (sm_" + args.arch + "):\n")
    print(table)
    if args.table:
        version = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout
        release = re.search(r"release [\d.]+, V[\d.]+", version)
        header = ["# " + suite["title"], "",
                  f"`bench/static/user_kernels.py --suite {args.suite}` on `bench/static/{suite['source']}`, sm_{args.arch}, nvcc "
                  f"{release.group(0) if release else '(version unknown)'}, {datetime.date.today().isoformat()}. "
                  "No GPU: registers from ptxas, instructions from the SASS (cuobjdump). Each cell: registers / "
                  "instructions per iteration of the innermost loop (on its hot path: every check passes, every access is made; tests/static/sass_paths.py).", ""]
        pathlib.Path(args.table).write_text("\n".join(header) + "\n" + table + "\n")
    if args.expect and not pathlib.Path(args.expect).read_text().endswith("\n" + table + "\n"):
        failures.append(f"{args.expect} is not what this measures: rerun bench/static/user_kernels.py --table {args.expect}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
