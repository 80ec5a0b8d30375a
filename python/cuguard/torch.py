# SPDX-License-Identifier: Apache-2.0
"""PyTorch extensions whose kernels use cuguard, built by torch.utils.cpp_extension.

``load(name, sources, checks=True, **kwargs)`` is ``torch.utils.cpp_extension.load`` with
cuguard's include directories and flags; ``CUDAExtension`` and ``BuildExtension`` are the same for
setup.py. With a GPU, a CUDA build of Torch and nvcc, the ``.cu`` sources are built by nvcc and the
kernels run on CUDA tensors. Otherwise, or with ``CUGUARD_EMULATION=1`` in the environment, the same
``.cu`` sources are built by the host compiler under emulation: ``<<<>>>`` launches, ``extern
__shared__`` arrays and all, from a translated copy in the build directory that keeps the file's
name and lines (cuguard/emulate.py); the kernels then run on CPU threads over CPU tensors, and
``device()`` says ``"cpu"``. ``checks`` sets CUGUARD_ENABLE_CHECKS (1 or 0).
"""
import contextlib
import hashlib
import io
import os
import pathlib

import torch as _torch

from . import cuda_home, get_include
from .emulate import translate_file

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


def _emulation_flags(checks):
    # -O1: emulated kernels run every thread's code on the CPU; -g1: line tables, so that a fault
    # in a kernel names its line; later flags (the user's) win.
    return ["-std=c++17", "-O1", "-g1", "-DCUGUARD_EMULATION=1", _checks_flag(checks)]


def _translated(sources, folder):
    """The sources with each .cu replaced by its translation for the host compiler (in `folder`)."""
    out = []
    for src in sources:
        src = os.fspath(src)
        if not src.endswith(".cu"):
            out.append(src)
            continue
        path = os.path.abspath(src)
        digest = hashlib.sha1(path.encode()).hexdigest()[:8]  # one copy per file, even of one name
        target = os.path.join(folder, f"{os.path.basename(src)}.{digest}.cpp")
        translate_file(path, target, torch=True)
        out.append(target)
    return out


def _build_directory(name, kwargs):
    given = kwargs.get("build_directory")
    if given:
        return given
    return _cpp._get_build_directory(name, kwargs.get("verbose", False))


def load(name, sources, checks=True, **kwargs):
    """torch.utils.cpp_extension.load(name, sources, **kwargs) for sources that use cuguard: with
    nvcc on a GPU, else under emulation (see the module's doc). extra_include_paths,
    extra_cflags, extra_cuda_cflags and extra_ldflags given are kept, after cuguard's."""
    kwargs = dict(kwargs)
    kwargs["extra_include_paths"] = get_include() + list(kwargs.get("extra_include_paths") or [])
    if kwargs.get("build_directory"):
        # Made where it is missing, on a GPU as under emulation (PyTorch's load expects it).
        os.makedirs(kwargs["build_directory"], exist_ok=True)
    if on_gpu():
        kwargs["extra_cflags"] = [_checks_flag(checks)] + list(kwargs.get("extra_cflags") or [])
        kwargs["extra_cuda_cflags"] = ["--expt-relaxed-constexpr", _checks_flag(checks)] + \
            list(kwargs.get("extra_cuda_cflags") or [])
        return _cpp.load(name, [os.fspath(s) for s in sources], **kwargs)
    kwargs.pop("extra_cuda_cflags", None)
    kwargs["extra_include_paths"] = [_aten_cuda_include()] + kwargs["extra_include_paths"]
    build = _build_directory(name, kwargs)
    os.makedirs(build, exist_ok=True)
    kwargs["build_directory"] = build
    kwargs["extra_cflags"] = _emulation_flags(checks) + list(kwargs.get("extra_cflags") or [])
    kwargs["extra_ldflags"] = ["-ldl"] + list(kwargs.get("extra_ldflags") or [])
    return _cpp.load(name, _translated(sources, os.path.join(build, "cuguard_emulated")), **kwargs)


def _with_flags(extra_compile_args, key, flags):
    args = dict(extra_compile_args) if isinstance(extra_compile_args, dict) else {"cxx": list(extra_compile_args or [])}
    args[key] = flags + list(args.get(key, []))
    return args


def CUDAExtension(name, sources, *args, checks=True, **kwargs):  # noqa: N802 (torch's name)
    """torch.utils.cpp_extension.CUDAExtension for sources that use cuguard (setup.py, with
    BuildExtension): built by nvcc on a GPU, else a CppExtension of the same sources under
    emulation, whose .cu files are translated into build/cuguard_emulated/<name>/ when setup.py runs."""
    kwargs["include_dirs"] = get_include() + list(kwargs.get("include_dirs") or [])
    extra = kwargs.pop("extra_compile_args", {})
    if on_gpu():
        extra = _with_flags(extra, "cxx", [_checks_flag(checks)])
        extra = _with_flags(extra, "nvcc", ["--expt-relaxed-constexpr", _checks_flag(checks)])
        return _cpp.CUDAExtension(name, sources, *args, extra_compile_args=extra, **kwargs)
    if isinstance(extra, dict):
        extra = list(extra.get("cxx", []))
    kwargs["include_dirs"] = [_aten_cuda_include()] + kwargs["include_dirs"]
    folder = os.path.join("build", "cuguard_emulated", name.replace(".", "_"))
    os.makedirs(folder, exist_ok=True)
    libraries = kwargs.pop("libraries", None) or []
    return _cpp.CppExtension(name, _translated(sources, folder), *args,
                             extra_compile_args=_emulation_flags(checks) + list(extra),
                             libraries=list(libraries) + ["dl"], **kwargs)

