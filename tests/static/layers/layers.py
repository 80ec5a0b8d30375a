#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The view layer stands alone: a translation unit that includes only <cuguard/checked_view.hpp>
parses none of the runtime (the registry's containers, locks, the fiber scheduler, iostreams),
defines no device state symbol and runs no start-up code of cuguard's; a program of views alone
(view_alone.cpp) links and runs without the runtime. Checked with g++ and nvcc, checks on and
off. The headers stay light: neither the view layer nor a translation unit of views and
cuguard::launch (nvcc) parses <string>, <stdexcept>, <atomic> or <vector> (reports are built in
detail::text), which is most of what they would add to nvcc's compile time; nor does
<cuguard/cuguard.hpp> but for <vector> (no mdspan, <map>, <mutex> or iostreams either). The one exception is by design: an nvcc build with checks on defines the translation unit's
device state symbol and registers it at start-up, so that its kernels have a report channel and
a lifetime table whichever translation unit launches them; layers.py requires both there and
neither anywhere else. Under emulation (g++ with CUGUARD_EMULATION=1) the same holds: a
translation unit of views reaches the emulated thread through the device seam
(detail/platform/device.hpp) and parses no scheduler, race detector, <ucontext.h>, <sys/mman.h> or
<link.h>.

Every public header compiles alone (a translation unit that includes it and nothing else), under
emulation with g++ (checks on and off) and with nvcc (checks on): but the emulation-only headers
under nvcc, and torch.hpp and dlpack.hpp, which need their libraries' headers (their suites test
them).

The layer rules, by path: every header belongs to a layer (a folder of detail/, or the table
PUBLIC_LAYERS for the public headers), and includes headers of its own layer and of layers below
it only (LAYERS, bottom to top); no header includes itself through others (no include circle).
The house rules (house.py): no header or kernel file over 450 lines, no function of 60 lines or
more, and every cuguard include of a header used.

  layers.py --root <source tree> --nvcc <nvcc or ''> --arch 90 --cccl <folder of cuda/std> [--cuda <include>]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import house  # noqa: E402 (the house rules: lines a file, lines a function, each include used)

# Headers that only the runtime may bring in: (what, pattern on the line markers' paths).
FORBIDDEN_HEADERS = [
    ("<map>", r"/(map|bits/stl_map\.h)$"),
    ("<deque>", r"/(deque|bits/stl_deque\.h)$"),
    ("<mutex>", r"/(mutex|bits/std_mutex\.h)$"),
    ("<thread>", r"/(thread|bits/std_thread\.h)$"),
    ("iostreams", r"/(iostream|ostream|istream|sstream)$"),
    ("the fiber scheduler", r"/cuguard/detail/emulation/(grid_runner|fiber_context|stack_pool)\.hpp$"),
    ("<ucontext.h>", r"/ucontext\.h$"),
    ("<sys/mman.h>", r"/sys/mman\.h$"),
    ("<link.h>", r"/link\.h$"),
    ("the race detector", r"/cuguard/detail/emulation/race_(detector|cells)\.hpp$"),
    ("the emulation engine", r"/cuguard/emulation\.hpp$"),
    ("the lifetime registry", r"/cuguard/lifetime\.hpp$"),
]
# Standard headers that the view layer and the launch path leave out, for compile time.
HEAVY_HEADERS = [
    ("<string>", r"/(string|bits/basic_string\.h)$"),
    ("<stdexcept>", r"/stdexcept$"),
    ("<atomic>", r"/(atomic|bits/atomic_base\.h)$"),
    ("<vector>", r"/(vector|bits/stl_vector\.h)$"),
]
VIEW_FORBIDDEN = FORBIDDEN_HEADERS + HEAVY_HEADERS + [
    ("the runtime", r"/cuguard/(runtime|launch|check|device_buffer)\.hpp$"),
]
LAUNCH_FORBIDDEN = FORBIDDEN_HEADERS + HEAVY_HEADERS
# What <cuguard/cuguard.hpp> leaves out (a kernel file's compile time: bench/compile): the heavy
# headers but <vector> (device_buffer::to_host returns one), and libcu++'s mdspan
# (<cuguard/mdspan.hpp>); the lifetime registry it has, built without containers or <mutex>.
UMBRELLA_FORBIDDEN = [h for h in FORBIDDEN_HEADERS if h[0] != "the lifetime registry"] + \
    [h for h in HEAVY_HEADERS if h[0] != "<vector>"] + [("libcu++'s mdspan", r"/cuda/std/mdspan$")]
# Symbols that only the runtime defines (nm -C of the object or program).
FORBIDDEN_SYMBOLS = [
    ("the device state symbol", r"cuguard_impl_device_state"),
    ("the device state registration", r"cuguard_impl_state_registration"),
    ("the lifetime registry", r"lifetime_registry"),
    ("the runtime's state", r"runtime_state|registered_state_symbols|runtime_hooks"),
    ("the fiber scheduler", r"grid_runner"),
]

# What an nvcc checked translation unit defines for its device state and its registration.
DEVICE_STATE = r"cuguard_impl_device_state|cuguard_impl_state_registration|registered_state_symbols|state_symbol|host_mutex|host_lock|_GLOBAL__sub_I"

failures = []


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def headers_of(preprocessed):
    paths = set()
    for m in re.finditer(r'^# \d+ "([^"]+)"', preprocessed, re.M):
        paths.add(os.path.normpath(m.group(1)))
    return paths


def check_header_alone(name, compiler, flags, out_dir, suffix, device_state_expected=False):
    """The object of a translation unit that includes checked_view.hpp and nothing else."""
    src = os.path.join(out_dir, "header_alone" + suffix)
    with open(src, "w") as f:
        f.write("#include <cuguard/checked_view.hpp>\n")
    obj = os.path.join(out_dir, name + ".header_alone.o")
    build = run([*compiler, *flags, "-c", src, "-o", obj])
    if build.returncode != 0:
        failures.append(f"{name}: checked_view.hpp alone does not compile:\n{build.stderr}")
        return
    symbols = run(["nm", "-C", obj]).stdout
    expected = ("cuguard_impl_device_state", "cuguard_impl_state_registration")
    if device_state_expected:
        for e in expected:
            if e not in symbols:
                failures.append(f"{name}: an nvcc checked translation unit lacks {e}")
    hits = [line for line in symbols.splitlines()
            if ("cuguard" in line or "_GLOBAL__sub_I" in line) and not (device_state_expected and re.search(DEVICE_STATE, line))]
    if hits:
        failures.append(f"{name}: checked_view.hpp alone defines {hits[0].strip()}")


def forbid_headers(name, what_includes, preprocessed, forbidden):
    paths = headers_of(preprocessed)
    for what, pattern in forbidden:
        hits = sorted(p for p in paths if re.search(pattern, p))
        if hits:
            failures.append(f"{name}: {what_includes} pulls in {what}: {hits[0]}")


def check_light(name, compiler, flags, out_dir, headers, forbidden):
    """A translation unit of `headers` alone parses none of `forbidden`."""
    what = " with ".join(headers)
    src = os.path.join(out_dir, "light.cu")
    with open(src, "w") as f:
        f.write("".join(f"#include <cuguard/{h}>\n" for h in headers))
    pre = run([*compiler, *flags, "-E", src])
    if pre.returncode != 0:
        failures.append(f"{name}: {what} do not preprocess:\n{pre.stderr}")
        return
    before = len(failures)
    forbid_headers(name, what, pre.stdout, forbidden)
    if len(failures) == before:
        print(f"ok   {name}: {what} light")


def check(name, compiler, flags, source, out_dir, expect_violation, device_state_expected=False):
    pre = run([*compiler, *flags, "-E", source])
    if pre.returncode != 0:
        failures.append(f"{name}: preprocessing failed:\n{pre.stderr}")
        return
    forbid_headers(name, "checked_view.hpp", pre.stdout, VIEW_FORBIDDEN)
    exe = os.path.join(out_dir, name)
    build = run([*compiler, *flags, source, "-o", exe])
    if build.returncode != 0:
        failures.append(f"{name}: does not build without the runtime:\n{build.stderr}")
        return
    symbols = run(["nm", "-C", exe]).stdout
    for what, pattern in FORBIDDEN_SYMBOLS:
        hits = [line for line in symbols.splitlines()
                if re.search(pattern, line) and not (device_state_expected and re.search(DEVICE_STATE, line))]
        if hits:
            failures.append(f"{name}: the program holds {what}: {hits[0].strip()}")
    # Start-up code of cuguard's own: g++ emits _GLOBAL__sub_I_<file> for a translation unit with
    # dynamic initialization (nvcc always registers its module, so only g++ is asked).
    if compiler[0].endswith("g++") and re.search(r"_GLOBAL__sub_I", symbols):
        failures.append(f"{name}: the translation unit runs start-up code (a dynamic initializer)")
    result = run([exe])
    if result.returncode != 0 or "views alone: ok" not in result.stdout:
        failures.append(f"{name}: the program failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    elif expect_violation and "cuguard: out-of-bounds access to 'data' float[2, 3] at (2, 0)" not in result.stdout:
        failures.append(f"{name}: no out-of-bounds report in:\n{result.stdout}")
    else:
        print(f"ok   {name}")


# The layers, bottom to top: a header includes headers of its layer and of the layers below.
LAYERS = ["config", "report", "platform", "record", "index", "fail", "view", "emulation", "runtime",
          "adapters", "umbrella", "extensions"]
# The public headers' layers (a header of detail/ is of its folder's layer; detail/adapters/ is
# of the extensions: torch.hpp's accessors).
PUBLIC_LAYERS = {
    "config.hpp": "config", "version.hpp": "config", "type_name.hpp": "config",
    "violation.hpp": "report", "report.hpp": "report", "violation_error.hpp": "report",
    "argument_error.hpp": "report",
    "checked_index.hpp": "view", "checked_view.hpp": "view", "make_view.hpp": "view", "expect.hpp": "view",
    "vec.hpp": "view", "describe.hpp": "view", "ptr.hpp": "view",
    "emulation.hpp": "emulation", "shared_memory.hpp": "emulation",
    "runtime.hpp": "runtime", "launch.hpp": "runtime", "check.hpp": "runtime", "device_buffer.hpp": "runtime",
    "cuda_error.hpp": "runtime", "lifetime.hpp": "runtime", "emulated_runtime.hpp": "runtime",
    "mdspan.hpp": "adapters", "cuguard.hpp": "umbrella", "torch.hpp": "extensions", "dlpack.hpp": "extensions",
}
INCLUDE = re.compile(r"^\s*#\s*include\s*<cuguard/([^>]+)>", re.M)


def layer_of(rel):
    if rel.startswith("detail/adapters/"):
        return "extensions"
    if rel.startswith("detail/"):
        parts = rel.split("/")
        return parts[1] if len(parts) > 2 else None
    return PUBLIC_LAYERS.get(rel)


def check_layer_rules(include_dir):
    """Every include of every header, whatever the mode (each #include line counts)."""
    root = os.path.join(include_dir, "cuguard")
    graph = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".hpp"):
                continue
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path) as h:
                graph[rel] = INCLUDE.findall(h.read())
    before = len(failures)
    for rel, targets in sorted(graph.items()):
        mine = layer_of(rel)
        if mine not in LAYERS:
            failures.append(f"layers: {rel} is in no layer (a folder of detail/ not in LAYERS, or a public "
                            "header not in PUBLIC_LAYERS)")
            continue
        for t in targets:
            theirs = layer_of(t)
            if t not in graph:
                failures.append(f"layers: {rel} includes <cuguard/{t}>, which does not exist")
            elif theirs in LAYERS and LAYERS.index(theirs) > LAYERS.index(mine):
                failures.append(f"layers: {rel} ({mine}) includes <cuguard/{t}> ({theirs}), a layer above it")
    # Include circles: a depth-first walk that meets a header still on its path.
    state = {}

    def walk(rel, path):
        state[rel] = "open"
        for t in graph.get(rel, []):
            if state.get(t) == "open":
                failures.append("layers: include circle " + " -> ".join(path[path.index(t):] + [t]))
            elif t in graph and t not in state:
                walk(t, path + [t])
        state[rel] = "done"

    for rel in sorted(graph):
        if rel not in state:
            walk(rel, [rel])
    if len(failures) == before:
        print(f"ok   layers: {len(graph)} headers in {len(LAYERS)} layers, no include upward, no circle")


# Public headers that need another library's headers, and those only emulation builds include.
NEEDS_LIBRARY = {"torch.hpp", "dlpack.hpp"}
EMULATION_ONLY = {"emulation.hpp", "emulated_runtime.hpp"}


def check_public_headers_alone(name, compiler, flags, out_dir, suffix, skip):
    """Each public header (include/cuguard/*.hpp, but `skip`) compiles alone."""
    include = next(flags[i + 1] for i, f in enumerate(flags) if f == "-I")
    for header in sorted(os.listdir(os.path.join(include, "cuguard"))):
        if not header.endswith(".hpp") or header in skip:
            continue
        src = os.path.join(out_dir, "public_alone" + suffix)
        with open(src, "w") as f:
            f.write(f"#include <cuguard/{header}>\n")
        build = run([*compiler, *flags, "-c", src, "-o", os.path.join(out_dir, "public_alone.o")])
        if build.returncode != 0:
            failures.append(f"{name}: <cuguard/{header}> alone does not compile:\n{build.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--arch", default="90")
    ap.add_argument("--cccl", required=True, help="folder holding cuda/std (the toolkit's CCCL headers)")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cuda", default="", help="the toolkit's include folder (cuda_runtime.h), for emulation")
    args = ap.parse_args()
    include = os.path.join(args.root, "include")
    source = os.path.join(args.root, "tests", "static", "layers", "view_alone.cpp")
    check_layer_rules(include)
    house.check(args.root, failures)
    with tempfile.TemporaryDirectory() as tmp:
        for checks in (1, 0):
            emulated = ["-std=c++17", "-I", include, "-I", args.cccl, *(["-I", args.cuda] if args.cuda else []),
                        "-DCUGUARD_EMULATION=1", f"-DCUGUARD_ENABLE_CHECKS={checks}"]
            check_header_alone(f"emulation.checks{checks}", [args.cxx], emulated, tmp, ".cpp")
            check_public_headers_alone(f"emulation.checks{checks}", [args.cxx], [*emulated, "-fsyntax-only"], tmp, ".cpp",
                                       NEEDS_LIBRARY)
            check(f"emulation.checks{checks}", [args.cxx], emulated, source, tmp, checks == 1)
            flags = ["-std=c++17", "-I", include, "-I", args.cccl, f"-DCUGUARD_ENABLE_CHECKS={checks}"]
            check_header_alone(f"g++.checks{checks}", [args.cxx], flags, tmp, ".cpp")
            check(f"g++.checks{checks}", [args.cxx], flags, source, tmp, checks == 1)
            if args.nvcc:
                cu = os.path.join(tmp, "view_alone.cu")
                with open(cu, "w") as f:
                    f.write(f'#include "{source}"\n')
                nv = ["-std=c++17", f"-arch=sm_{args.arch}", "-I", include, f"-DCUGUARD_ENABLE_CHECKS={checks}"]
                check_header_alone(f"nvcc.checks{checks}", [args.nvcc], nv, tmp, ".cu", device_state_expected=checks == 1)
                if checks == 1:
                    check_public_headers_alone(f"nvcc.checks{checks}", [args.nvcc], nv, tmp, ".cu",
                                               NEEDS_LIBRARY | EMULATION_ONLY)
                check(f"nvcc.checks{checks}", [args.nvcc], nv, cu, tmp, checks == 1, device_state_expected=checks == 1)
                check_light(f"nvcc.checks{checks}", [args.nvcc], nv, tmp, ["checked_view.hpp", "launch.hpp"],
                            LAUNCH_FORBIDDEN)
                check_light(f"nvcc.checks{checks}", [args.nvcc], nv, tmp, ["cuguard.hpp"], UMBRELLA_FORBIDDEN)
    for f in failures:
        print("FAIL " + f)
    print(f"{'FAILED' if failures else 'passed'}: the view layer stands alone")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
