# SPDX-License-Identifier: Apache-2.0
"""PyTorch extensions whose kernels use cuguard, built by torch.utils.cpp_extension.

``load(name, sources, checks=True, **kwargs)`` is ``torch.utils.cpp_extension.load`` with
cuguard's include directories and flags; ``CUDAExtension`` and ``BuildExtension`` are the same for
setup.py. With a GPU, a CUDA build of Torch and nvcc, the ``.cu`` sources are built by nvcc and the
kernels run on CUDA tensors. Otherwise, or with ``CUGUARD_EMULATION=1`` in the environment, the same
``.cu`` sources are built by the host compiler under emulation: ``<<<>>>`` launches, ``extern
__shared__`` arrays and all, from a translated copy in the build directory that keeps the file's
name and lines (cuguard/emulate.py), ATen's CUDA host headers taking their CPU meaning
(include/cuguard/detail/adapters/aten_cuda); the kernels then run on CPU threads over CPU
tensors, and ``device()`` says ``"cpu"``. ``checks`` sets CUGUARD_ENABLE_CHECKS (1 or 0);
``sanitize=True`` also checks the kernels' raw-pointer accesses against the live tensor storages
(under emulation, wherever it runs).
"""
import atexit
import contextlib
import ctypes
import functools
import hashlib
import io
import os
import pathlib
import re
import shlex
import subprocess
import sys
import types
import warnings

import torch as _torch

from . import cuda_home, get_include
from .emulate import macro_lines, shadow_cccl, shadow_torch, translate_file, translate_host_file, translate_nvcc_file, \
    translate_tensors_file

# (Quietly: without a CUDA build of Torch the import prints that no CUDA runtime was found.)
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import torch.utils.cpp_extension as _cpp

__all__ = ["load", "CUDAExtension", "BuildExtension", "device", "on_gpu"]

BuildExtension = _cpp.BuildExtension


def on_gpu():
    """True where extensions are built by nvcc and run on CUDA tensors: CUGUARD_EMULATION is not
    1, Torch is a CUDA build that sees a GPU, and nvcc is found."""
    home = cuda_home()
    return (os.environ.get("CUGUARD_EMULATION") != "1" and _torch.version.cuda is not None
            and _torch.cuda.is_available() and home is not None and (pathlib.Path(home) / "bin" / "nvcc").exists())


def device():
    """Where an extension's kernels take their tensors: "cuda", or "cpu" under emulation."""
    return "cuda" if on_gpu() else "cpu"


def _checks_flag(checks):
    return f"-DCUGUARD_ENABLE_CHECKS={1 if checks else 0}"


def _aten_cuda_include():
    """The folder whose <ATen/cuda/...> and <c10/cuda/...> headers give ATen's CUDA host API its
    CPU meaning under emulation: ahead of Torch's own on the include path."""
    return os.path.join(get_include()[0], "cuguard", "detail", "adapters", "aten_cuda")


def _emulation_includes(folder):
    """The include directories an emulated build searches before the extension's and Torch's:
    ATen's CUDA host API with its CPU meaning, and (in `folder`) Torch's CUDA headers that launch a
    kernel (CUDAApplyUtils.cuh) and CUB's and Thrust's headers that hold inline PTX or a <<<>>>
    launch, translated as cuguard_emulate translates them (the other headers are their own)."""
    dirs = [_aten_cuda_include()]
    torch_include = _cpp.include_paths()[0]
    if shadow_torch(torch_include, os.path.join(folder, "torch")):
        dirs.append(os.path.join(folder, "torch"))
    home = cuda_home()
    cccl = next((os.path.join(home, sub) for sub in ("include/cccl", "include")
                 if home is not None and os.path.isfile(os.path.join(home, sub, "cub", "cub.cuh"))), None)
    if cccl is not None:
        shadow_cccl(cccl, folder)
        dirs.append(folder)
    return dirs


@functools.lru_cache(maxsize=None)
def _changes_meaning_flag():
    """GCC's flag that makes its "changes meaning" rule a warning (CUB's class templates break it;
    nvcc's host pass never sees them): -fpermissive before GCC 13, as cuguard_emulate does."""
    compiler = os.environ.get("CXX", "c++")
    try:
        out = subprocess.run([compiler, "-dumpfullversion", "-dumpversion"], capture_output=True, text=True,
                             timeout=60).stdout.strip()
        about = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    if "clang" in about.lower() or not out[:1].isdigit():
        return []
    return ["-fpermissive"] if int(out.split(".")[0]) < 13 else ["-Wno-changes-meaning"]


@functools.lru_cache(maxsize=None)
def _language_standard():
    """-std=c++17 (cuguard's least), or the later standard Torch's headers require (ATen.h's
    `#error C++20 or later compatible compiler is required`: Torch's own flags say it, and
    cuguard's come after them)."""
    try:
        with open(os.path.join(_cpp.include_paths()[0], "ATen", "ATen.h"), encoding="utf-8") as f:
            required = re.search(r"C\+\+(\d\d) or later", f.read())
    except (OSError, IndexError):
        required = None
    year = int(required.group(1)) if required else 17
    return f"-std=c++{year if 17 < year < 90 else 17}"


def _emulation_flags(checks):
    # -O1: emulated kernels run every thread's code on the CPU; -g1: line tables, so that a fault
    # in a kernel names its line; later flags (the user's) win.
    return [_language_standard(), "-O1", "-g1", "-DCUGUARD_EMULATION=1", _checks_flag(checks)] + _changes_meaning_flag()


# What sanitize=True adds under emulation: GCC's access callbacks before every load and store
# (-fsanitize=kernel-address: the callbacks without AddressSanitizer's runtime, which a plain
# python3 cannot load; cuguard defines them), and the check of kernels' raw accesses against the
# live tensor storages (include/cuguard/detail/runtime/live_memory.hpp); and the callbacks before
# a float converts to an integer that cannot hold it and before a shift by the width or more
# (conversion_hooks.hpp).
_SANITIZE_FLAGS = ["-fsanitize=kernel-address", "-fsanitize-recover=kernel-address",
                   "-fsanitize=float-cast-overflow,shift-exponent", "-fsanitize-recover=float-cast-overflow,shift-exponent",
                   "--param=asan-instrumentation-with-call-threshold=0", "--param=asan-stack=0",
                   "--param=asan-globals=0", "-DCUGUARD_IMPL_ACCESS_HOOKS=1"]


# What an emulated build with checks on adds (sanitize=True too): the live tensor storages known,
# so that a T* converted to a cuguard::ptr is bounded by its tensor's storage.
_STORAGE_FLAGS = ["-DCUGUARD_IMPL_SANITIZE_STORAGES=1"]


def _storage_source(folder):
    """The translation unit an emulated build with checks on adds to an extension: Torch's CPU
    allocator wrapped, and the functions Python tells the storages of a call's tensors through."""
    return _generated_source(folder, "cuguard_storages.cpp", "#include <cuguard/detail/adapters/torch_sanitize.hpp>\n")


def _generated_source(folder, name, text):
    """`folder`/`name` holding `text` (written only where it differs: an unchanged file is not
    rebuilt)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    text = "// generated by cuguard.torch for checks=True\n" + text
    if not os.path.exists(path) or pathlib.Path(path).read_text() != text:
        with open(path, "w") as f:
            f.write(text)
    return path


def _emulated_flags(checks, sanitize, given=()):
    """The flags of an emulated build (checks, the live storages, the access callbacks) with the
    extension's own C++ flags `given`: theirs come after cuguard's, but for their optimization and
    debug levels (-O3, -g: for their host code, which a GPU build gives nvcc's .cu files
    nothing of), which come before, so that cuguard's -O1 -g1 hold; an emulated kernel's code
    is all the file's threads', and -O3 -g on a file of unrolled inline-PTX GEMMs took 8 GB and
    more than 15 minutes. CUGUARD_EMULATION_CFLAGS (e.g. "-O0 -g") comes last of all."""
    given = [os.fspath(f) for f in given or []]
    levels = [f for f in given if re.fullmatch(r"-O.*|-g.*", f) and f not in ("-gsplit-dwarf",)]
    rest = [f for f in given if f not in levels]
    own = _emulation_flags(checks or sanitize) + (_STORAGE_FLAGS if checks or sanitize else []) + \
        (_SANITIZE_FLAGS if sanitize else [])
    return levels + own + rest + shlex.split(os.environ.get("CUGUARD_EMULATION_CFLAGS", ""))


def _trace_source(folder):
    """The translation unit a GPU build with checks on adds to an extension: cuguard::torch, whose
    loading follows the CUDA caching allocator's trace (a T* converted to a cuguard::ptr bounded
    by its block; NVTX's pools with CUGUARD_NVTX_POOLS=1), also where no source includes it, and
    the function a pending report is taken with (include/cuguard/detail/adapters/torch_gpu_unit.hpp)."""
    return _generated_source(folder, "cuguard_allocator_trace.cpp",
                             "#include <torch/extension.h>\n#include <cuguard/detail/adapters/torch_gpu_unit.hpp>\n")


def _storage_ranges(values, out):
    """(first byte, bytes) of the storage of every CPU tensor among `values` (lists, tuples and
    dicts looked into)."""
    for v in values:
        if isinstance(v, _torch.Tensor):
            if v.device.type != "cpu" or v.layout != _torch.strided:  # (sparse, mkldnn: no storage)
                continue
            try:
                storage = v.untyped_storage()
            except AttributeError:  # Torch before 2.0
                storage = v.storage()
            if storage.data_ptr() != 0 and storage.nbytes() != 0:
                out.append((storage.data_ptr(), storage.nbytes()))
        elif isinstance(v, (list, tuple)):
            _storage_ranges(v, out)
        elif isinstance(v, dict):
            _storage_ranges(v.values(), out)
    return out


def _sanitized(function, library):
    """`function` of a sanitized extension, telling the extension the storages of the tensors it
    is called with for the time of the call (they may be older than the extension)."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        ranges = _storage_ranges(list(args) + list(kwargs.values()), [])
        n = len(ranges)
        begins = (ctypes.c_uint64 * n)(*[b for b, _ in ranges])
        sizes = (ctypes.c_uint64 * n)(*[size for _, size in ranges])
        added = (ctypes.c_ubyte * n)()
        library.cuguard_sanitize_enter(begins, sizes, added, n)
        try:
            result = function(*args, **kwargs)
            _raise_pending(library)
            return result
        finally:
            library.cuguard_sanitize_leave(begins, added, n)
    return call


def _raise_pending(library):
    """Raises a report of the call's kernels still pending once it returned (a launch inside a
    library, CUB's, whose error code its caller does not read; initcheck's reads), as the launch
    would have: IndexError out of bounds, else RuntimeError."""
    text = ctypes.create_string_buffer(1 << 16)
    kind = library.cuguard_sanitize_check(text, ctypes.c_size_t(len(text)))
    if kind:
        raise (IndexError if kind == 1 else RuntimeError)(text.value.decode("utf-8", "replace"))


def _distributed_job():
    """(rank, world size, backend) of this process's torch.distributed job, or None."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size(), str(dist.get_backend())
    except (ImportError, RuntimeError, ValueError):
        pass
    return None


def _in_job(error, job):
    """The report `error` says, naming the rank that raised it, written to stderr at once (the
    job's log has it whatever the rank does next); unless CUGUARD_DISTRIBUTED_ABORT=0, this rank's
    process group is destroyed, so that the other ranks' collectives fail now rather than wait for
    it until their timeout."""
    import torch.distributed as dist
    rank, world, backend = job
    abort = os.environ.get("CUGUARD_DISTRIBUTED_ABORT", "1") != "0"
    text = str(error)
    if "\n  in rank " not in text:  # (the extension names it where RANK and WORLD_SIZE are set)
        text += f"\n  in rank {rank} of {world} (torch.distributed, {backend})"
    if abort:
        text += ("; its process group was destroyed, so that the other ranks' collectives fail now "
                 "instead of waiting for it (CUGUARD_DISTRIBUTED_ABORT=0 keeps it)")
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    if abort:
        dist.destroy_process_group()
    return type(error)(text)


def _pending(library, wait):
    """The report the extension's kernels recorded and nothing raised yet (`wait`: once the
    device's work is done), as the exception Python raises, or None (a GPU build's
    cuguard_torch_report, include/cuguard/detail/adapters/torch_gpu_unit.hpp)."""
    text = ctypes.create_string_buffer(1 << 16)
    kind = library.cuguard_torch_report(text, ctypes.c_size_t(len(text)), 1 if wait else 0)
    return (IndexError if kind == 1 else RuntimeError)(text.value.decode("utf-8", "replace")) if kind else None


def _report_at_exit(library):
    """At exit: a report of the last kernels that no call raised is printed, never lost."""
    error = _pending(library, True)
    if error is not None:
        print(f"cuguard: a report no call of the extension raised, found at exit:\n{error}", file=sys.stderr)


def _reported(function, library=None):
    """`function` of a checked extension: in a torch.distributed job, a cuguard report it raises
    names the rank (_in_job). With `library` (a GPU build): once the call returned, a report its
    kernels recorded is raised by it; with CUGUARD_LAUNCH_BLOCKING=1 after the device's work is
    done (each call waits for the device), else where the kernels have already recorded it (the
    next call raises a later one)."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            result = function(*args, **kwargs)
            error = _pending(library, os.environ.get("CUGUARD_LAUNCH_BLOCKING") == "1") if library else None
            if error is not None:
                raise error
            return result
        except (IndexError, RuntimeError) as error:
            job = _distributed_job() if str(error).startswith("cuguard:") else None
            if job is None:
                raise
            raise _in_job(error, job) from None
    return call


def _wrap_functions(module, storages):
    """The module's functions wrapped: _sanitized where cuguard is told the storages of their
    tensors (emulation), and _reported (on a GPU, taking the reports its kernels recorded after
    each call, and at exit)."""
    library = ctypes.CDLL(module.__file__)
    gpu = None if storages or not hasattr(library, "cuguard_torch_report") else library
    if gpu is not None:
        atexit.register(_report_at_exit, gpu)
    for name in dir(module):
        function = getattr(module, name)
        if not name.startswith("_") and type(function).__name__ == "builtin_function_or_method":
            setattr(module, name, _reported(_sanitized(function, library) if storages else function, gpu))
    return module


def _nvcc_macros(cuda_flags):
    """The macros nvcc's command line gives an extension's .cu files, as lines for their
    translations: PyTorch's (__CUDA_NO_HALF_OPERATORS__ and the like, so that at::Half's operators
    are the ones chosen, as on a GPU), then the -D and -U of the extension's own nvcc flags."""
    common = getattr(_cpp, "COMMON_NVCC_FLAGS", None) or [
        "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
        "-D__CUDA_NO_HALF2_OPERATORS__"]
    return macro_lines(list(common) + [os.fspath(f) for f in cuda_flags or []])


_CPP = (".cpp", ".cc", ".cxx", ".c++", ".C")


def _translated(sources, folder, include_dirs=(), macros="", pointers=False):
    """The sources with each .cu replaced by its translation for the host compiler (in `folder`),
    its first lines `macros` (_nvcc_macros), and each C++ source that tests a tensor's device
    (`x.is_cuda()`, its headers' too) by its copy where that test has the emulated device's meaning
    (emulate.translate_host). Quoted includes are looked for beside each file, then in
    `include_dirs` (the extension's own, not cuguard's); `pointers`: the raw pointers of their
    device code made checked (cuguard/pointers.py)."""
    out = []
    for src in sources:
        src = os.fspath(src)
        path = os.path.abspath(src)
        digest = hashlib.sha1(path.encode()).hexdigest()[:8]  # one copy per file, even of one name
        target = os.path.join(folder, f"{os.path.basename(src)}.{digest}.cpp")
        if src.endswith(".cu"):
            translate_file(path, target, torch=True, include_dirs=include_dirs, macros=macros, pointers=pointers)
            out.append(target)
        elif src.endswith(_CPP) and translate_host_file(path, target, include_dirs, tensors=pointers):
            out.append(target)
        else:
            out.append(src)
    return out


def _build(name, sources, kwargs, as_written):
    """_cpp.load(name, sources, **kwargs), where the build fails at the object of a copy with
    checked pointers (a key of `as_written`: its value the source's path, and a function that
    makes its copy as written): that source built as written instead, said in a warning, and the
    build tried again (ninja builds what is left; a failure that names no such object, or one of
    a source as written, is raised)."""
    sources = list(sources)
    while True:
        try:
            return _cpp.load(name, sources, **kwargs)
        except RuntimeError as error:
            text = str(error)
            failed = [s for s in sources if s in as_written and ("FAILED:" not in text or _object_failed(text, s))]
            if not failed:
                raise
            first = next((line.strip() for line in text.splitlines() if ": error" in line), "")
            for copy in failed:
                source, make = as_written.pop(copy)
                warnings.warn(f"cuguard: the copy of {source} with checked pointers does not build "
                              f"({first}); it is built as written, its raw pointers unchecked (`#pragma cuguard "
                              f"unchecked file` in it, or pointers=False, says so before the build)", stacklevel=3)
                sources[sources.index(copy)] = make()


def _object_failed(text, source):
    """True if ninja's output `text` says the object of `source` failed (`FAILED: ops.cu.1a2b3c4d.o`,
    `...cuda.o`)."""
    stem = os.path.splitext(os.path.basename(source))[0]
    return re.search(r"^FAILED: .*\b" + re.escape(stem) + r"(?:\.cuda)?\.o\b", text, re.M) is not None


def _build_directory(name, kwargs):
    given = kwargs.get("build_directory")
    if given:
        return given
    return _cpp._get_build_directory(name, kwargs.get("verbose", False))


def _checked_for_nvcc(sources, folder, include_dirs=()):
    """The sources with each .cu replaced by its copy for nvcc (in `folder`) whose device code's
    raw pointers are checked (emulate.translate_nvcc: cuguard/pointers.py), and each C++ source
    that takes a tensor's data pointer by its copy that names it (translate_tensors_file)."""
    out = []
    for src in sources:
        src = os.fspath(src)
        path = os.path.abspath(src)
        digest = hashlib.sha1(path.encode()).hexdigest()[:8]
        target = os.path.join(folder, f"{os.path.basename(src)}.{digest}{os.path.splitext(src)[1]}")
        if src.endswith(".cu"):
            translate_nvcc_file(path, target, include_dirs, torch=True)
            out.append(target)
        elif src.endswith(_CPP) and translate_tensors_file(path, target, include_dirs):
            out.append(target)
        else:
            out.append(src)
    return out


def _pointers_wanted(pointers, checks, sanitize):
    """Whether a build translates its device code's raw pointers to checked ones: as asked, else
    where checks are on and sanitize is not (sanitize checks the raw accesses themselves)."""
    if pointers is None:
        return bool(checks) and not sanitize
    return bool(pointers) and bool(checks or sanitize)


def load(name, sources, checks=True, sanitize=False, pointers=None, **kwargs):
    """torch.utils.cpp_extension.load(name, sources, **kwargs) for sources that use cuguard: with
    nvcc on a GPU, else under emulation (see the module's doc). extra_include_paths,
    extra_cflags, extra_cuda_cflags and extra_ldflags given are kept, after cuguard's (under
    emulation, the -D and -U of extra_cuda_cflags are the .cu files' first lines, after PyTorch's
    own: _nvcc_macros; and the -O and -g of extra_cflags come before cuguard's -O1 -g1, which
    hold: _emulated_flags).

    sanitize=True builds under emulation wherever it runs (the ops take CPU tensors), with checks
    on, and checks every load and store of the extension's kernels through a raw pointer against
    the tensor storages alive: an access past or before a storage, or into a freed one, is a
    cuguard report raised as IndexError (out of bounds) or RuntimeError (use after free), naming
    the kernel, the file and line, the block, the thread, the launch, the address and the storage
    (the kernel argument that pointed into it, its element type and count). The module's
    functions are wrapped to tell it the storages of their tensor arguments.

    With checks on (and not sanitize), the raw pointers of the kernels and device functions are
    checked in the build's copy of the sources, the files unchanged, for nvcc as under emulation
    (cuguard/pointers.py): each T* parameter and local a cuguard::ptr<T>, bounded by the tensor
    storage (on a GPU: the caching allocator's block) its launch argument points into, a cast
    keeping the bounds; an access outside them is reported as a renamed pointer's is (IndexError
    naming the parameter, the offset, the extent and the line). pointers=False builds the sources
    as written (their cuguard views still checked); pointers=True adds the translation to
    sanitize=True. `#pragma cuguard unchecked` keeps the function after it as written, `#pragma
    cuguard unchecked file` the whole file.

    In a torch.distributed job, a report raised by a function of the module names the rank and
    the world size, is written to stderr at once, and this rank's process group is destroyed so
    that the other ranks do not wait for it (CUGUARD_DISTRIBUTED_ABORT=0: kept)."""
    kwargs = dict(kwargs)
    pointers = _pointers_wanted(pointers, checks, sanitize)
    own_includes = [os.fspath(d) for d in kwargs.get("extra_include_paths") or []]
    kwargs["extra_include_paths"] = get_include() + list(kwargs.get("extra_include_paths") or [])
    if kwargs.get("build_directory"):
        # Made where it is missing, on a GPU as under emulation (PyTorch's load expects it).
        os.makedirs(kwargs["build_directory"], exist_ok=True)
    if on_gpu() and not sanitize:
        kwargs["extra_cflags"] = [_checks_flag(checks)] + list(kwargs.get("extra_cflags") or [])
        kwargs["extra_cuda_cflags"] = ["--expt-relaxed-constexpr", _checks_flag(checks)] + \
            list(kwargs.get("extra_cuda_cflags") or [])
        own = os.path.join(_build_directory(name, kwargs), "cuguard")
        written = [os.fspath(s) for s in sources]
        sources = _checked_for_nvcc(written, own, own_includes) if pointers else written
        extra = [_trace_source(own)] if checks else []
        as_written = {copy: (w, lambda w=w: w) for copy, w in zip(sources, written) if copy != w}
        module = _build(name, list(sources) + extra, kwargs, as_written)
        return _wrap_functions(module, False) if checks and isinstance(module, types.ModuleType) else module
    macros = _nvcc_macros(kwargs.pop("extra_cuda_cflags", None))
    build = _build_directory(name, kwargs)
    os.makedirs(build, exist_ok=True)
    kwargs["extra_include_paths"] = _emulation_includes(os.path.join(build, "cuguard_cccl")) + \
        kwargs["extra_include_paths"]
    kwargs["build_directory"] = build
    storages = checks or sanitize
    kwargs["extra_cflags"] = _emulated_flags(checks, sanitize, kwargs.get("extra_cflags"))
    kwargs["extra_ldflags"] = ["-ldl"] + list(kwargs.get("extra_ldflags") or [])
    folder = os.path.join(build, "cuguard_emulated")
    translated = _translated(sources, folder, own_includes, macros, pointers)
    # (where a copy with checked pointers does not build: the copy of the source as written)
    raw = os.path.join(build, "cuguard_emulated_as_written")
    as_written = {copy: (os.fspath(w), lambda w=w: _translated([w], raw, own_includes, macros, False)[0])
                  for copy, w in zip(translated, sources) if pointers and copy != os.fspath(w)}
    module = _build(name, translated + ([_storage_source(folder)] if storages else []), kwargs, as_written)
    # (is_python_module=False gives no module to wrap: ops registered with TORCH_LIBRARY)
    return _wrap_functions(module, True) if storages and isinstance(module, types.ModuleType) else module


def _with_flags(extra_compile_args, key, flags):
    args = dict(extra_compile_args) if isinstance(extra_compile_args, dict) else {"cxx": list(extra_compile_args or [])}
    args[key] = flags + list(args.get(key, []))
    return args


def CUDAExtension(name, sources, *args, checks=True, sanitize=False, pointers=None, **kwargs):  # noqa: N802 (torch's name)
    """torch.utils.cpp_extension.CUDAExtension for sources that use cuguard (setup.py, with
    BuildExtension): built by nvcc on a GPU, else a CppExtension of the same sources under
    emulation, whose .cu files are translated into build/cuguard_emulated/<name>/ when setup.py
    runs. sanitize=True: as load's (under emulation, raw accesses checked against the live
    storages); the module's functions are not wrapped, so the storages of tensors made before
    the module was imported are not known to it (load's are, for each call). pointers: as
    load's (by default, the raw pointers checked where checks are on)."""
    pointers = _pointers_wanted(pointers, checks, sanitize)
    own_includes = [os.fspath(d) for d in kwargs.get("include_dirs") or []]
    kwargs["include_dirs"] = get_include() + list(kwargs.get("include_dirs") or [])
    extra = kwargs.pop("extra_compile_args", {})
    if on_gpu() and not sanitize:
        extra = _with_flags(extra, "cxx", [_checks_flag(checks)])
        extra = _with_flags(extra, "nvcc", ["--expt-relaxed-constexpr", _checks_flag(checks)])
        folder = os.path.join("build", "cuguard", name.replace(".", "_"))
        os.makedirs(folder, exist_ok=True)
        sources = _checked_for_nvcc(sources, folder, own_includes) if pointers else list(sources)
        sources = sources + ([_trace_source(folder)] if checks else [])
        return _cpp.CUDAExtension(name, sources, *args, extra_compile_args=extra, **kwargs)
    macros = _nvcc_macros(extra.get("nvcc") if isinstance(extra, dict) else None)
    if isinstance(extra, dict):
        extra = list(extra.get("cxx", []))
    folder = os.path.join("build", "cuguard_emulated", name.replace(".", "_"))
    kwargs["include_dirs"] = _emulation_includes(os.path.abspath(os.path.join("build", "cuguard_cccl"))) + kwargs["include_dirs"]
    os.makedirs(folder, exist_ok=True)
    libraries = kwargs.pop("libraries", None) or []
    translated = _translated(sources, folder, own_includes, macros, pointers) + \
        ([_storage_source(folder)] if checks or sanitize else [])
    flags = _emulated_flags(checks, sanitize, extra)
    return _cpp.CppExtension(name, translated, *args, extra_compile_args=flags,
                             libraries=list(libraries) + ["dl"], **kwargs)
