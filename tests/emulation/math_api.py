#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every function of the CUDA Math API builds under emulation: the toolkit's own headers list
them (each documented declaration carries `\\ingroup CUDA_MATH_<group>`), so the list is the
toolkit's, read at test time, not ours. For the groups of the single, double, integer, half and
bfloat16 functions and the intrinsics (rounding-mode arithmetic, conversions and bit casts, SIMD),
one call of each overload, `::name(args...)` with arguments of the declared types, goes into a
probe that a .cu file translated for emulation would see (<cuguard/cuguard.hpp>, the half
precision intrinsics, the toolkit's <cuda_fp16.h> and <cuda_bf16.h>); the host compiler compiles
it (CUGUARD_EMULATION=1) and links it, and the test fails with the names that do not compile, or
with the link's undefined functions.

  math_api.py --cxx g++ --root <source tree> --cuda "<toolkit include>[;<more>]" [--cccl <dir>] [--list]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# The documented groups in scope (CUDA Math API: "Single Precision Mathematical Functions", ...).
# Out of it: quad precision (__float128, sm_100 only), the FP8/FP6/FP4 types, and the groups of
# types and constants.
GROUPS = re.compile(r"CUDA_MATH_(SINGLE|DOUBLE|INT|INTRINSIC_(SINGLE|DOUBLE|INT|CAST|SIMD)"
                    r"|_(HALF2?|BFLOAT162?)_(ARITHMETIC|COMPARISON|FUNCTIONS|MISC))$")
# Headers that hold the documented declarations (others are read too: the groups decide).
HEADER_FOLDERS = ("", "crt")
# A doc comment, then the declaration that follows it (to its first ';' or '{', or the next comment:
# some declarations end in a macro, `__DEF_IF_HOST`).
DOCUMENTED = re.compile(r"/\*\*((?:(?!\*/).)*)\*/((?:(?!/\*)[^;{])*)", re.S)
# The types the headers define: a documented constructor (`__half2(const __half2_raw &h)`) is no call.
STRUCT = re.compile(r"\b(?:struct|class)\s+(?:__CUDA_ALIGN__\s*\(\s*\d+\s*\)\s*)?(\w+)")
INGROUP = re.compile(r"\\ingroup\s+(\w+)")
# Words of a declaration that are not its type: storage, attributes, the toolkit's macros.
NOISE = re.compile(r"\b(?:extern|static|inline|__inline__|__forceinline__|constexpr|__host__|__device__|__cdecl|__CRTDECL"
                   r"|__\w*DECL__|__\w*builtin__|__CUDA_MATH_CRTIMP|_CRTIMP|__THROW|__SIGNBIT_THROW|NV_MATH_NOEXCEPT"
                   r"|_NOEXCEPT|noexcept|throw\s*\(\s*\)|__NV_\w+|_LIBCPP_\w+|__CUDA_\w+__)\b")
TYPE_WORDS = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned"}
# A lower bound on what the groups hold (CUDA 13 documents about 1,000 overloads, operators aside): fewer
# means the toolkit's headers changed their form and this reading missed them.
MIN_FUNCTIONS = 900


def param_type(param):
    """The type of one parameter as declared (`float const * p` -> `float const *`, `int width =
    warpSize` -> `int`, `__half` -> `__half`)."""
    param = param.split("=")[0]
    param = re.sub(r"\b(?:__restrict__|__restrict|restrict)\b", " ", param)
    if "*" in param or "&" in param:
        cut = max(param.rfind("*"), param.rfind("&"))
        head, tail = param[:cut + 1], param[cut + 1:]
        if tail.strip() not in ("", "const") and not re.fullmatch(r"\s*(const\s+)?\w+\s*", tail):
            raise ValueError(param)
        return " ".join(head.replace("*", " * ").replace("&", " & ").split())
    words = [w for w in param.split() if w not in ("const", "volatile")]
    if len(words) > 1 and words[-1] not in TYPE_WORDS:
        words = words[:-1]
    return " ".join(words)


def split_params(text):
    """The top-level comma-separated pieces of a parameter list."""
    pieces, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip() and p.strip() != "void"]


def documented_functions(cuda_include):
    """{(name, (parameter types...)): (group, header)} for every documented function in scope."""
    found = {}
    for folder in HEADER_FOLDERS:
        base = os.path.join(cuda_include, folder)
        for header in sorted(os.listdir(base)):
            if not header.endswith((".h", ".hpp")):
                continue
            with open(os.path.join(base, header), errors="replace") as f:
                text = f.read()
            text = re.sub(r"/\*(?!\*)(?:(?!\*/).)*\*/", " ", text, flags=re.S)  # plain comments
            types_here = set(STRUCT.findall(text))
            for doc in DOCUMENTED.finditer(text):
                groups = INGROUP.findall(doc.group(1))
                if not groups or "\\defgroup" in doc.group(1) or not GROUPS.search(groups[-1]):
                    continue
                decl = "\n".join(line for line in doc.group(2).split("\n") if not line.lstrip().startswith("#"))
                decl = NOISE.sub(" ", re.sub(r"//[^\n]*", "", decl))
                m = re.search(r"(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)[^()]*$", decl, re.S)
                if not m or "operator" in decl or re.search(r"\b(typedef|struct|template|define)\b", decl):
                    continue
                name = m.group(1)
                if re.match(r"_[A-Za-z]", name):
                    continue  # internal (_dsign, _Pragma): not part of the documented API
                if name in types_here or re.search(r"\)\s*:(?!:)", decl):
                    continue  # a constructor (and its member initializers)
                try:
                    types = tuple(param_type(p) for p in split_params(m.group(2)))
                except ValueError as e:
                    sys.exit(f"math_api: cannot read a parameter ({e}) of {name} in {header}: the reading needs an update")
                found.setdefault((name, types), (groups[-1], os.path.join(folder, header)))
    return found


def probe_value(t):
    return f"static_cast<{t}>(nullptr)" if t.endswith(("*", "* const")) else f"cuguard_probe_value<{t}>()"


def write_probe(functions, path):
    """The probe: one function a call; returns {line: (name, types)}."""
    lines = ["// generated by math_api.py: one call of each documented CUDA Math API overload",
             "#include <cuguard/cuguard.hpp>",
             "#include <cuguard/detail/emulation/half_intrinsics.hpp>",
             "#include <cuda_bf16.h>",
             "#include <cuda_fp16.h>",
             "template <class T> T cuguard_probe_value() { return T{}; }"]
    where = {}
    for i, (name, types) in enumerate(sorted(functions)):
        args = ", ".join(probe_value(t) for t in types)
        where[len(lines) + 1] = (name, types)
        lines.append(f"void probe_{i}() {{ (void)::{name}({args}); }}")
    lines.append("int main() {}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return where


def no_error_limit(cxx):
    """The flag that lets `cxx` report every error (each names a function that is missing)."""
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return "-ferror-limit=0" if "clang" in version else "-fmax-errors=0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--root", required=True, help="cuguard's source tree")
    ap.add_argument("--cuda", required=True, help="the toolkit's include folders, ';'-separated")
    ap.add_argument("--cccl", default="", help="the folder of the toolkit's CCCL (cuda/std)")
    ap.add_argument("--list", action="store_true", help="print the functions found and stop")
    args = ap.parse_args()
    cuda_dirs = [d for d in args.cuda.split(";") if d]
    toolkit = next((d for d in cuda_dirs if os.path.exists(os.path.join(d, "crt", "math_functions.h"))), None)
    if toolkit is None:
        sys.exit(f"math_api: no crt/math_functions.h in {cuda_dirs}")
    functions = documented_functions(toolkit)
    if args.list:
        for (name, types), (group, header) in sorted(functions.items()):
            print(f"{name}({', '.join(types)})  [{group}, {header}]")
        return 0
    if len(functions) < MIN_FUNCTIONS:
        sys.exit(f"math_api: only {len(functions)} documented functions found in {toolkit} (at least {MIN_FUNCTIONS} "
                 "expected): the reading of the toolkit's headers needs an update")
    cccl = args.cccl if os.path.isdir(args.cccl) else os.path.join(toolkit, "cccl")
    includes = [os.path.join(args.root, "include"), *([cccl] if os.path.isdir(cccl) else []), *cuda_dirs]
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "math_api_probe.cpp")
        where = write_probe(functions, probe)
        # Compiled to an object (a template's body instantiated) and linked (a function the
        # toolkit declares for device code only, and nobody defines, fails there).
        command = [args.cxx, "-std=c++17", "-DCUGUARD_EMULATION=1", "-DCUGUARD_ENABLE_CHECKS=1",
                   *(f"-I{d}" for d in includes), no_error_limit(args.cxx), "-c", probe, "-o", probe + ".o"]
        build = subprocess.run(command, capture_output=True, text=True)
        if build.returncode == 0:
            link = subprocess.run([args.cxx, probe + ".o", "-o", probe + ".exe", "-pthread", "-ldl"],
                                  capture_output=True, text=True)
            if link.returncode != 0:
                print(link.stderr[-6000:])
                print("math_api: the probe compiles but does not link (functions declared and never defined above)")
                return 1
    if build.returncode == 0:
        print(f"ok   {len(functions)} documented CUDA Math API overloads compile and link under emulation")
        return 0
    failed = {}
    for line, message in re.findall(r"math_api_probe\.cpp:(\d+):\d+:\s*(?:error|required from here)(.*)", build.stderr):
        if int(line) in where:
            failed.setdefault(where[int(line)], message.strip(": "))
    if not failed:
        print(build.stderr[-6000:])
        print("math_api: the probe does not compile, and no call is to blame (the headers above?)")
        return 1
    for (name, types), message in sorted(failed.items()):
        group, header = functions[(name, types)]
        print(f"FAIL {name}({', '.join(types)})  [{group}, {header}]: {message}")
    names = sorted({name for name, _ in failed})
    print(f"math_api: {len(failed)} of {len(functions)} overloads ({len(names)} names) do not compile under "
          f"emulation: {' '.join(names)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
