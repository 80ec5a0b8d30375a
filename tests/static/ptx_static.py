#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Static costs of cuguard's kernels, without a GPU.

Compiles tests/static/kernels.cu with checks off and on (nvcc -cubin -Xptxas -v, keeping the
PTX) and:
  * checks that with checks off every kernel compiles to the same PTX as its raw-pointer twin
    (names, parameter names and labels normalized, independent instructions of a block in a
    canonical order), with the same registers and stack, and
    that no report code (cold functions, device state, trap, printf) is left;
  * compares the SASS of every kernel and its twin too (cuobjdump -sass of the same cubin): it must
    be identical, with no exception;
  * measures registers, stack and PTX instructions with checks on, and checks them against the
    budgets in budgets.json (a change that bloats the checks fails);
  * --table FILE writes the measurements as a Markdown table (bench/results/static-costs.md).
Exit status 0 when every check holds.

cuobjdump is looked for with --cuobjdump (or CUGUARD_CUOBJDUMP in the environment), on PATH,
next to nvcc, then in the PyPI package nvidia-cuda-cuobjdump (it runs nvdisasm, from
nvidia-cuda-nvdisasm, found next to it). Without it the SASS is not compared (said in the output); with
CUGUARD_REQUIRE_SASS=1 in the environment (CI) that is a failure.
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sass_paths  # noqa: E402
REPORT_CODE = re.compile(r"fail_access|fail_view|fail_finite|cuguard_impl_device_state|device_report|trap;|vprintf")


def compile_kernels(nvcc, arch, root, checks, workdir):
    out = workdir / f"checks{checks}"
    out.mkdir()
    cmd = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-I", str(root / "include"), "-I", str(root / "kernels"),
           f"-DCUGUARD_ENABLE_CHECKS={checks}", "-cubin", "-Xptxas", "-v", "--keep", "--keep-dir", str(out),
           str(HERE / "kernels.cu"), "-o", str(out / "kernels.cubin")]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nvcc failed (checks={checks}):\n{run.stderr}")
    ptx = (out / "kernels.ptx").read_text()
    return ptx, run.stderr + run.stdout


def compile_seconds(nvcc, arch, root, checks, workdir):
    """(whole, device) seconds to compile the kernels alone (kernels.cu without the twins) into an
    object file, as a build does: the whole nvcc -c, and its device passes (cicc and ptxas), from
    nvcc --time."""
    times = workdir / f"time{checks}.csv"
    cmd = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-I", str(root / "include"), "-I", str(root / "kernels"),
           f"-DCUGUARD_ENABLE_CHECKS={checks}", "-DCUGUARD_STATIC_KERNELS_ONLY", "-c", str(HERE / "kernels.cu"),
           "-o", str(workdir / f"kernels{checks}.o"), "--time", str(times)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nvcc failed (checks={checks}, kernels alone):\n{run.stderr}")
    whole = device = 0.0
    for row in times.read_text().splitlines()[1:]:
        fields = [f.strip() for f in row.split(",")]
        if len(fields) >= 8 and fields[7] == "ms":
            whole += float(fields[6]) / 1000
            if fields[1] in ("cicc", "ptxas"):
                device += float(fields[6]) / 1000
    return whole, device


def find_ptxas(nvcc):
    """The ptxas beside `nvcc`."""
    return str(pathlib.Path(shutil.which(nvcc) or nvcc).parent / "ptxas")


def registers_needed(ptxas, arch, ptx_file, entry, default):
    """The fewest registers `entry` compiles to without spilling (bisection over --maxrregcount),
    and whether that is only ptxas's lowest allowed count (the kernel may need fewer). ptxas's
    default count also takes registers that cost nothing up to the next occupancy step; this is
    what the code needs."""
    def compile_with(n):
        return subprocess.run([ptxas, f"-arch=sm_{arch}", "-v", f"--maxrregcount={n}", "--entry", entry, str(ptx_file),
                               "-o", os.devnull], capture_output=True, text=True).stderr

    def spills(n):
        m = re.search(r"Function properties for " + re.escape(entry) + r"\s+\d+ bytes stack frame, (\d+) bytes spill "
                      r"stores, (\d+) bytes spill loads", compile_with(n))
        return m is None or int(m.group(1)) + int(m.group(2)) > 0
    floor = re.search(r"lower bound of (\d+)", compile_with(1))
    low = int(floor.group(1)) if floor else 1
    high = max(default, low)
    while low < high:
        middle = (low + high) // 2
        if spills(middle):
            low = middle + 1
        else:
            high = middle
    return high, floor is not None and high == int(floor.group(1))


def find_cuobjdump(given, nvcc, root=None):
    given = given or os.environ.get("CUGUARD_CUOBJDUMP")
    if given:
        return given if pathlib.Path(given).is_file() else None
    for candidate in (shutil.which("cuobjdump"), pathlib.Path(shutil.which(nvcc) or nvcc).parent / "cuobjdump"):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    # Where scripts/install-test-deps puts NVIDIA's from PyPI.
    if root:
        found = sorted(glob.glob(os.path.join(str(root), ".ci", "tools", "nvidia", "*", "bin", "cuobjdump")))
        if found:
            return found[-1]
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        found = sorted(glob.glob(os.path.join(root, "*", "bin", "cuobjdump")))
        if found:
            return found[-1]
    return None


def sass_listing(cuobjdump, cubin):
    """{mangled name: [(address, instruction)]} from cuobjdump -sass: the address and the
    instruction text of every line, without its encoding."""
    run = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"cuobjdump failed:\n{run.stderr}")
    functions = {}
    for chunk in re.split(r"\n\s*Function : ", run.stdout)[1:]:
        name, body = chunk.split("\n", 1)
        functions[name.strip()] = [(int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2)).strip()) for m in
                                   re.finditer(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", body, re.MULTILINE)]
    return functions


def sass_functions(cuobjdump, cubin):
    """{mangled name: [instructions]} from cuobjdump -sass: the instruction text of every line,
    without addresses and encodings (branch targets stay: they are offsets in the function)."""
    return {name: [ins for _, ins in code] for name, code in sass_listing(cuobjdump, cubin).items()}


def entry_functions(ptx):
    """{mangled name: [body lines]} for every .entry in the PTX."""
    functions, name, body, depth = {}, None, [], 0
    for line in ptx.splitlines():
        m = re.match(r"\s*\.visible \.entry (\S+)\(", line) or re.match(r"\s*\.entry (\S+)\(", line)
        if m and name is None:
            name, body, depth = m.group(1), [], 0
        if name is not None:
            body.append(line)
            depth += line.count("{") - line.count("}")
            if line.strip() == "}" and depth == 0:
                functions[name] = body
                name = None
    return functions


def demangle(names):
    run = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, run.stdout.splitlines()))


def kernel_key(demangled):
    """'cuguard::kernels::gather_kernel<float, long, 3ul>' and 'twin::gather_kernel<float, long, 3>' -> one key."""
    m = re.search(r"(?:cuguard::kernels|twin)::(\w+<[^()]*>)\(", demangled)
    if not m:
        return None
    return re.sub(r"(\d+)ul\b", r"\1", m.group(1))


COMMUTATIVE = re.compile(r"^(?:mul\.lo|mul\.wide|add|and|or|xor|min|max)\.")
# Instructions without side effects whose only inputs are their operands (ld.param reads the
# kernel's immutable parameters): within a basic block they may come in any order their
# operands allow. Everything else keeps its place relative to every other such instruction.
PURE = re.compile(r"^(?:ld\.param|mov|cvt|cvta|add|sub|mul|mad|mul24|mad24|div|rem|shl|shr|shf|and|or|xor|not|cnot|"
                  r"neg|abs|min|max|setp|selp|set|slct|fma|rcp|sqrt|rsqrt|ex2|lg2|sin|cos|tanh|copysign|bfe|bfi|"
                  r"clz|popc|brev|prmt|testp)\.")
BOUNDARY = re.compile(r"^(?:bra|ret|exit|trap|call|brkpt)\b")
NAME = re.compile(r"%(?:rd|r|f|fd|p|rs|h|hh)\d+|_ZZ\w+")
# Any other %name: the thread's coordinates are constants; anything else (a carry flag, a clock,
# the stack pointer, a temporary of an asm block) keeps the line in its place.
OTHER_NAME = re.compile(r"%(?!(?:rd|r|f|fd|p|rs|h|hh)\d)(\w+)")
CONSTANT_SPECIAL = {"tid", "ntid", "ctaid", "nctaid"}


def normalize(name, body):
    """The function body in a canonical form: its name, labels, static symbols and registers
    renamed in order of first appearance, the sources of commutative instructions sorted, and
    within each basic block the instructions without side effects (PURE) put in a canonical
    order that their operands allow (list scheduling, smallest renamed text first); the others
    keep their order. Two bodies compare equal when they are the same instructions on the same
    data, whatever the numbering and the order of independent instructions."""
    text = []
    for line in body:
        line = re.sub(r"//.*", "", line).strip()
        if not line or line.startswith((".loc", ".file", ".reg")):
            continue
        line = line.replace(name, "KERNEL")
        text.append(re.sub(r"\s+", " ", re.sub(r"\$L__BB\d+_(\d+)", r"$L__BB_\1", line)))

    names = {}

    def render(line, assign):
        def rename(m):
            n = m.group(0)
            if n not in names:
                if not assign:
                    return "?"
                kind = "SYMBOL" if n.startswith("_ZZ") else re.match(r"%[a-z]+", n).group(0)
                names[n] = f"{kind}#{sum(1 for v in names.values() if v.startswith(kind + '#'))}"
            return names[n]
        line = NAME.sub(rename, line)
        m = re.match(r"(\S+) ([^,]+), ([^,]+), ([^,;]+);$", line)
        if m and COMMUTATIVE.match(m.group(1)):
            a, b = sorted([m.group(3), m.group(4)])
            line = f"{m.group(1)} {m.group(2)}, {a}, {b};"
        return line

    def schedulable(line):
        # Labels, directives, braces, predicated instructions and control flow end a block, and so
        # do instructions with a carry (.cc, addc...) or another %name than a register.
        if not line.endswith(";") or line.startswith(("@", "{", "}", ".")) or BOUNDARY.match(line):
            return False
        opcode = line.split(" ", 1)[0]
        if ".cc" in opcode or re.match(r"(?:addc|subc|madc)\.", opcode):
            return False
        return all(m.group(1).split(".")[0] in CONSTANT_SPECIAL for m in OTHER_NAME.finditer(line))

    def destinations(operands):
        """(results, the rest) of an instruction's operands: the first operand, or a whole
        {vector} of them."""
        if operands.startswith("{"):
            end = operands.index("}") + 1
            return operands[:end], operands[end:]
        first, _, rest = operands.partition(",")
        return first, rest

    out, block = [], []

    def flush():
        # Dependences: registers (read after write, write after read, write after write), and
        # program order among the instructions that are not PURE.
        deps, last_def, uses_since, last_ordered = [], {}, {}, None
        for i, line in enumerate(block):
            operands = line.split(" ", 1)[1] if " " in line else ""
            first, rest = destinations(operands)
            pure = bool(PURE.match(line))
            defined = set(NAME.findall(first)) if pure else set(NAME.findall(operands))
            used = set(NAME.findall(rest)) if pure else set(NAME.findall(operands))
            d = {last_def[r] for r in used if r in last_def}
            for r in defined:
                d |= uses_since.get(r, set())
                if r in last_def:
                    d.add(last_def[r])
            if not pure:
                if last_ordered is not None:
                    d.add(last_ordered)
                last_ordered = i
            d.discard(i)
            deps.append(d)
            for r in used:
                uses_since.setdefault(r, set()).add(i)
            for r in defined:
                last_def[r] = i
                uses_since[r] = set()
        done, remaining = set(), list(range(len(block)))
        while remaining:
            ready = [i for i in remaining if deps[i] <= done]
            pick = min(ready, key=lambda i: (render(block[i], False), i))
            out.append(render(block[pick], True))
            done.add(pick)
            remaining.remove(pick)
        block.clear()

    for line in text:
        if schedulable(line):
            block.append(line)
        else:
            flush()
            out.append(render(line, True))
    flush()
    return out


def instructions(body):
    return sum(1 for line in body
               if (s := re.sub(r"//.*", "", line).strip()).endswith(";") and not s.startswith("."))


SPILLS = {}  # mangled entry name -> bytes spilled (stores + loads) at ptxas's default count


def resources(log):
    """{mangled name: (registers, stack bytes)} from ptxas -v, and {mangled name: spilled bytes}."""
    result, name, stack = {}, None, 0
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            name = m.group(1)
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and name:
            stack = int(m.group(1))
            SPILLS[name] = int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            result[name] = (int(m.group(1)), stack)
            name = None
    return result


# The marker instructions of one source iteration of each kernel's innermost loop (or, without a
# loop, of its work), for sass_paths.hot_path: stores, atomics or barriers.
STORE = r"\bST[GS]?(\.|\s)"
KERNEL_MARKERS = {
    "index_select_kernel": (STORE, 1),
    "gather_kernel": (STORE, 1),
    "scatter_add_kernel": (r"\b(?:RED|ATOM)\S*\.ADD", 1),
    "mask_counts_kernel": (r"\bBAR\.RED", 1),
    "exclusive_scan_kernel": (r"\bBAR\.SYNC", 2),
    "mask_positions_kernel": (r"\bBAR\.SYNC", 2),
    "masked_rows_kernel": (STORE, 1),
    "gemm_nt_kernel": (r"\bBAR\.SYNC", 2),
    "lstm_cell_kernel": (STORE, 2),
    "copy2d_kernel": (STORE, 1),
}
# The goals of checks on against unchecked code (issue 53): hot-path instructions, geometric mean
# and largest ratio over every kernel; registers.
LOOP_GOAL_MEAN, LOOP_GOAL_MAX, EXTRA_REGISTER_GOAL = 1.35, 1.6, 8
# The failures --lower-budgets resolves (a budget missing, or above what is measured); one over a
# budget stays a failure.
LOWERED = re.compile(r"under its budget|no (?:loop_ratio|extra_registers) budget")


def resident_warps(registers):
    """Warps an SM of sm_90 holds at `registers` per thread (65536 registers, allocated per warp in
    units of 8 per thread, at most 64 warps): the occupancy step a register count is in."""
    return min(64, 65536 // (-(-max(registers, 1) // 8) * 8 * 32))


def user_kernel_rows(nvcc, arch, cuobjdump):
    """[(key, source, registers off, registers on, hot path off, hot path on)] of the kernels of
    bench/static (the user-style suites of user_kernels.py), cuguard's with checks off and on."""
    sys.path.insert(0, str(HERE.parent.parent / "bench" / "static"))
    import user_kernels  # noqa: E402  (its suites, compile_cubin and kernel_name)
    rows = []
    for suite_name in ("views", "pointers"):
        suite = user_kernels.SUITES[suite_name]
        measured = {}
        with tempfile.TemporaryDirectory() as tmp:
            for checks in (0, 1):
                cubin, log, _ = user_kernels.compile_cubin(nvcc, arch, checks, pathlib.Path(tmp), suite["source"])
                regs = resources(log)
                listing = sass_listing(cuobjdump, cubin)
                names = demangle(list(listing))
                for mangled, code in listing.items():
                    ns, kernel = user_kernels.kernel_name(names[mangled])
                    if ns == "cg" and kernel in suite["kernels"]:
                        path = sass_paths.kernel_hot_path(sass_paths.body_end(code), *suite["kernels"][kernel])
                        measured[(kernel, checks)] = (regs.get(mangled, (0, 0))[0], path)
        for kernel in suite["kernels"]:
            off, on = measured.get((kernel, 0), (0, None)), measured.get((kernel, 1), (0, None))
            rows.append((f"{suite_name}:{kernel}", f"bench/static/{suite['source']}", off[0], on[0], off[1], on[1]))
    return rows


def loop_costs(rows, budgets, failures, lowered=None):
    """Checks each row's hot-path ratio (checks on over off) and extra registers against its budget
    (the budgets a change may lower, never raise: a budget above what is measured must come down
    to it), and returns the Markdown table with the geometric mean and the largest ratio."""
    lines = ["| kernel | source | hot path | instructions unchecked / checked | ratio | budget | registers unchecked / "
             "checked | register budget |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    ratios = {}
    for key, source, regs_off, regs_on, path_off, path_on in rows:
        budget = budgets.get(key, {})
        if path_off is None or path_on is None:
            failures.append(f"{key}: no hot path found (unchecked {path_off}, checked {path_on})")
            continue
        ratio = path_on[0] / path_off[0]
        ratios[key] = ratio
        shown = round(ratio + 0.005, 2)  # rounded up: the budget a measurement fits under
        extra = regs_on - regs_off
        want = budget.get("loop_ratio")
        if want is None:
            failures.append(f"{key}: no loop_ratio budget in budgets.json (measured {shown:.2f})")
        elif ratio > want:
            failures.append(f"{key}: checked hot path {path_on[0]:.1f} instructions, unchecked {path_off[0]:.1f}: "
                            f"{ratio:.3f}x, over its budget {want:.2f}x")
        elif shown < want:
            failures.append(f"{key}: hot path {ratio:.3f}x, under its budget {want:.2f}x: lower loop_ratio to {shown:.2f}")
        want_regs = budget.get("extra_registers")
        if want_regs is None:
            failures.append(f"{key}: no extra_registers budget in budgets.json (measured {extra})")
        elif extra > want_regs and source != "kernels/":  # (kernels/: said with the other budgets)
            failures.append(f"{key}: checks add {extra} registers, budget {want_regs}")
        elif extra < want_regs:
            failures.append(f"{key}: checks add {extra} registers, under its budget {want_regs}: lower extra_registers "
                            f"to {extra}")
        if lowered is not None:  # --lower-budgets: what is measured, where it is lower or missing
            if want is None or shown < want:
                lowered.setdefault(key, {})["loop_ratio"] = shown
            if want_regs is None or extra < want_regs:
                lowered.setdefault(key, {})["extra_registers"] = extra
        what = path_on[1] if path_on[1] == path_off[1] else f"{path_off[1]} / {path_on[1]}"
        lines.append(f"| `{key}` | {source} | {what} | {path_off[0]:.1f} / {path_on[0]:.1f} | {ratio:.2f}x | "
                     f"{want if want is not None else 'none'} | {regs_off} / {regs_on} ({extra:+d}) | "
                     f"{want_regs if want_regs is not None else 'none'} |")
    if not ratios:
        return "\n".join(lines) + "\n"
    mean = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    worst = max(ratios.values())
    above = [key for key, r in ratios.items() if r > LOOP_GOAL_MAX]
    over = [r[0] for r in rows if r[3] - r[2] > EXTRA_REGISTER_GOAL and resident_warps(r[3]) < resident_warps(r[2])]
    summary = (f"Over {len(ratios)} kernels: geometric mean {mean:.3f}x (goal at most {LOOP_GOAL_MEAN}x: "
               f"{'met' if mean <= LOOP_GOAL_MEAN else 'not met'}), largest {worst:.2f}x (goal at most {LOOP_GOAL_MAX}x: "
               f"{'met' if not above else 'not met: ' + ', '.join(above)}); "
               f"registers at most unchecked + {EXTRA_REGISTER_GOAL} or in the same occupancy step: "
               f"{'met' if not over else 'not met: ' + ', '.join(over)}.")
    return "\n".join(lines) + "\n\n" + summary + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--arch", default="90")
    parser.add_argument("--root", default=str(HERE.parent.parent))
    parser.add_argument("--table", help="write the measurements as Markdown to this file")
    parser.add_argument("--budgets", default=str(HERE / "budgets.json"))
    parser.add_argument("--lower-budgets", action="store_true",
                        help="write what is measured into the budgets where it is lower than the budget or none is set "
                             "(never raises one)")
    parser.add_argument("--diff", metavar="KEY", help="print the normalized checks-off PTX of KEY and its twin as a diff")
    parser.add_argument("--cuobjdump", help="cuobjdump to disassemble the cubins with (default: found, see above)")
    args = parser.parse_args()
    root = pathlib.Path(args.root)

    work_dir = tempfile.TemporaryDirectory()
    work = pathlib.Path(work_dir.name)
    ptx_off, log_off = compile_kernels(args.nvcc, args.arch, root, 0, work)
    ptx_on, log_on = compile_kernels(args.nvcc, args.arch, root, 1, work)
    build_off, build_on = (compile_seconds(args.nvcc, args.arch, root, c, work) for c in (0, 1))
    ptxas = find_ptxas(args.nvcc)
    cuobjdump = find_cuobjdump(args.cuobjdump, args.nvcc, root)
    listing_off = sass_listing(cuobjdump, work / "checks0" / "kernels.cubin") if cuobjdump else None
    listing_on = sass_listing(cuobjdump, work / "checks1" / "kernels.cubin") if cuobjdump else None
    sass_off = {k: [ins for _, ins in code] for k, code in listing_off.items()} if cuobjdump else None
    sass_on = {k: [ins for _, ins in code] for k, code in listing_on.items()} if cuobjdump else None

    off, on = entry_functions(ptx_off), entry_functions(ptx_on)
    names = demangle(sorted(set(off) | set(on)))
    res_off, res_on = resources(log_off), resources(log_on)
    failures = []

    kernels, twins, checked = {}, {}, {}
    for mangled, pretty in names.items():
        key = kernel_key(pretty)
        if key is None:
            continue
        if pretty.startswith("void twin::"):
            twins[key] = mangled
        elif mangled in off:
            kernels[key] = mangled
        if mangled in on and not pretty.startswith("void twin::"):
            checked[key] = mangled
    if args.diff:
        import difflib
        k, t = kernels[args.diff], twins[args.diff]
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in normalize(k, off[k])],
                                                   [l + "\n" for l in normalize(t, off[t])], "kernel", "twin"))
        return 0
    if not kernels:
        failures.append("no kernels found in the PTX")

    budgets = json.loads(pathlib.Path(args.budgets).read_text()) if pathlib.Path(args.budgets).exists() else {}
    rows, sass_same = [], 0
    if cuobjdump is None and os.environ.get("CUGUARD_REQUIRE_SASS") == "1":
        failures.append("cuobjdump not found (CUGUARD_REQUIRE_SASS=1): pip install nvidia-cuda-cuobjdump "
                        "nvidia-cuda-nvdisasm")
    for key in sorted(kernels):
        k = kernels[key]
        t = twins.get(key)
        if t is None:
            failures.append(f"{key}: no raw twin in twins.cuh")
            continue
        same = normalize(k, off[k]) == normalize(t, off[t])
        known = budgets.get(key, {}).get("twin_differs")
        if not same and not known:
            a, b = normalize(k, off[k]), normalize(t, off[t])
            diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            failures.append(f"{key}: checks-off PTX differs from its twin at line {diff}: "
                            f"'{a[diff] if diff < len(a) else '<end>'}' vs '{b[diff] if diff < len(b) else '<end>'}'")
        if same and known:
            failures.append(f"{key}: now identical to its twin: remove twin_differs from {args.budgets}")
        (regs_k, stack_k), (regs_t, stack_t) = res_off.get(k, (0, 0)), res_off.get(t, (0, 0))
        slack = budgets.get(key, {}).get("twin_register_slack", 0) if known else 0
        if regs_k > regs_t + slack or stack_k != stack_t:
            failures.append(f"{key}: checks off uses {regs_k} registers and {stack_k} bytes of stack, its twin "
                            f"{regs_t} and {stack_t}")
        # The comparison must be able to fail: the checked build differs from the twin.
        c = checked.get(key)
        if c is not None and normalize(c, on[c]) == normalize(t, off[t]):
            failures.append(f"{key}: the checked build is identical to the raw twin: the comparison proves nothing")
        if sass_off is not None:
            if sass_off.get(k) is None or sass_off.get(k) != sass_off.get(t):
                a, b = sass_off.get(k, []), sass_off.get(t, [])
                diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                failures.append(f"{key}: checks-off SASS differs from its twin at instruction {diff}: "
                                f"'{a[diff] if diff < len(a) else '<end>'}' vs '{b[diff] if diff < len(b) else '<end>'}'")
            else:
                sass_same += 1
            c = checked.get(key)
            if c is not None and sass_on.get(c) == sass_off.get(t):
                failures.append(f"{key}: the checked SASS is identical to the raw twin's: the comparison proves nothing")
        if REPORT_CODE.search("\n".join(off[k])):
            failures.append(f"{key}: report code left in the checks-off PTX")
        c = checked.get(key)
        if c is None:
            failures.append(f"{key}: missing from the checked build")
            continue
        regs_off, stack_off = res_off.get(k, (0, 0))
        regs_on, stack_on = res_on.get(c, (0, 0))
        for build, entry in (("checks off", k), ("checks on", c)):
            if SPILLS.get(entry, 0):
                failures.append(f"{key}: spills {SPILLS[entry]} bytes with {build} at ptxas's default register count")
        need_off = registers_needed(ptxas, args.arch, work / "checks0" / "kernels.ptx", k, regs_off)
        need_on = registers_needed(ptxas, args.arch, work / "checks1" / "kernels.ptx", c, regs_on)
        rows.append((key, same, regs_off, regs_on, stack_off, stack_on, instructions(off[k]), instructions(on[c]),
                     need_off, need_on))

    for key, _, regs_off, regs_on, _, _, ins_off, ins_on, _, _ in rows:
        budget = budgets.get(key)
        if budget is None:
            failures.append(f"{key}: no budget in {args.budgets}")
            continue
        if regs_on - regs_off > budget["extra_registers"]:
            failures.append(f"{key}: checks add {regs_on - regs_off} registers, budget {budget['extra_registers']}")
        need_on = next(r[9][0] for r in rows if r[0] == key)
        if "registers_needed" not in budget:
            failures.append(f"{key}: no registers_needed budget in {args.budgets}")
        elif need_on > budget["registers_needed"]:
            failures.append(f"{key}: needs {need_on} registers with checks on, budget {budget['registers_needed']}")
        if ins_on > budget["instructions"]:
            failures.append(f"{key}: {ins_on} PTX instructions with checks on, budget {budget['instructions']}")

    # Checked against unchecked: the hot path's instructions (SASS) and the registers, for these
    # kernels and the user-style kernels of bench/static, against the budgets.
    loop_table = "Not measured: no cuobjdump.\n"
    if cuobjdump:
        loop_rows = []
        for key, *_ in rows:
            k, c = kernels[key], checked[key]
            marker = KERNEL_MARKERS.get(key.split("<")[0])
            if marker is None:
                failures.append(f"{key}: no marker in KERNEL_MARKERS")
                continue
            paths = [sass_paths.kernel_hot_path(sass_paths.body_end(code), *marker) for code in (listing_off[k], listing_on[c])]
            loop_rows.append((key, "kernels/", res_off.get(k, (0, 0))[0], res_on.get(c, (0, 0))[0], *paths))
        loop_rows += user_kernel_rows(args.nvcc, args.arch, cuobjdump)
        lowered = {} if args.lower_budgets else None
        loop_table = loop_costs(loop_rows, budgets, failures, lowered)
        if lowered:
            for key, values in lowered.items():
                budgets.setdefault(key, {}).update(values)
            pathlib.Path(args.budgets).write_text(json.dumps(budgets, indent=2, sort_keys=True) + "\n")
            failures = [f for f in failures if not LOWERED.search(f)]
            print(f"ptx_static: lowered or added the budgets of {len(lowered)} kernels in {args.budgets}")

    def needed(n):
        return f"<= {n[0]}" if n[1] else str(n[0])
    header = ("| kernel | checks off = raw twin | registers off / on | registers needed off / on | stack bytes off / on "
              "| PTX instructions off / on |\n| --- | --- | --- | --- | --- | --- |\n")
    table = header + "".join(
        f"| `{key}` | {'identical' if same else 'differs: ' + budgets.get(key, {}).get('twin_differs', 'unexplained')} "
        f"| {ro} / {rn} (+{rn - ro}) | {needed(no)} / {needed(nn)} | {so} / {sn} | {io} / {inn} |\n"
        for key, same, ro, rn, so, sn, io, inn, no, nn in rows)
    compile_line = (f"Compile time of the kernels alone (tests/static/kernels.cu without the twins, nvcc -c -arch=sm_{args.arch}, "
                    f"one run each): checks off {build_off[0]:.1f} s, on {build_on[0]:.1f} s "
                    f"({build_on[0] / build_off[0]:.2f}x); of that, the device passes (cicc and ptxas) "
                    f"{build_off[1]:.1f} s and {build_on[1]:.1f} s ({build_on[1] / build_off[1]:.2f}x).\n")
    sass_line = (f"SASS with checks off (cuobjdump -sass): identical to the raw twin for {sass_same} of "
                 f"{len(kernels)} kernels.\n" if cuobjdump else
                 "SASS: not compared (no cuobjdump; pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm).\n")
    print(table)
    print(loop_table)
    print(sass_line.rstrip() + (f" ({cuobjdump})\n" if cuobjdump else ""))
    print(compile_line)
    if args.table:
        pathlib.Path(args.table).write_text(
            "# Static costs of the kernels (no GPU needed)\n\n"
            "Written by `tests/static/ptx_static.py --table bench/results/static-costs.md`; CI checks the identity and the\n"
            "budgets (tests/static/budgets.json) on every run. Registers and stack from `ptxas -v`, instructions\n"
            f"counted in the PTX; sm_{args.arch}, {subprocess.run([args.nvcc, '--version'], capture_output=True, text=True).stdout.strip().splitlines()[-1]}.\n\n"
            "With checks off, a kernel is its raw-pointer twin (tests/static/twins.cuh): the same SASS, and the\n"
            "same PTX up to the names of registers and labels and the order of independent instructions within\n"
            "a block (a kernel that differs would need a reason in budgets.json; none does).\n"
            "With checks on, the hot path gains one compare per index, the lifetime check (one load when the view\n"
            "is tracked) and one branch per access. Each access also gets an inlined cold block that, for the\n"
            "first violation of a launch, stores the facts of the access into the report channel (the host\n"
            "completes the record: texts, kind, allocation): most of the extra PTX instructions are those\n"
            "never-run stores, and the registers they need while the kernel's own values stay live are most of\n"
            "the extra registers. A kernel whose violation has no report channel calls a printf that never\n"
            "returns (the stack bytes).\n\n"
            "'registers off / on' is what ptxas picks by default: once a kernel needs more than an occupancy step\n"
            "(32, 40, 48, ... on sm_90) it also takes the free registers up to the next one, for scheduling.\n"
            "'registers needed' is the fewest it compiles to without spilling (--maxrregcount bisection; '<= 24':\n"
            "sm_90 allows no lower limit, so the kernel may need fewer).\n\n"
            + table + "\n" + sass_line + "\n" + compile_line + "\n"
            "## Checked against unchecked: the hot path\n\n"
            "The kernels above and the user-style kernels of bench/static (bench/static/user_kernels.py's suites:\n"
            "checked views, and raw-pointer kernels with T* renamed cuguard::ptr<T>), each compiled with checks off\n"
            "and on. Instructions: the SASS of one iteration of the innermost loop on its hot path (every check\n"
            "passes, every access is made; tests/static/sass_paths.py), or, for a kernel without a loop, of its path\n"
            "from entry to exit. Registers: ptxas's default count. The budgets are tests/static/budgets.json's, which\n"
            "CI holds every change to and which only come down (--lower-budgets writes lower measurements). These\n"
            "are static counts: what a GPU measures is in the GPU results (bench/results/*-nvidia-*.md).\n\n"
            + loop_table)
    for f in failures:
        print("FAILED:", f)
    print(f"ptx_static: {len(failures)} failures over {len(rows)} kernels")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
