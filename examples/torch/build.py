# SPDX-License-Identifier: Apache-2.0
"""Builds and loads the cuguard_demo extension (cuguard_ops.cpp) with torch.utils.cpp_extension.

load(checks) returns nothing; afterwards torch.ops.cuguard_demo.embedding,
torch.ops.cuguard_demo.masked_gather, torch.ops.cuguard_demo.gather1 and
torch.ops.cuguard_demo.check exist. With a GPU, a CUDA build of Torch and nvcc, the kernels are
built by nvcc and run on CUDA tensors; otherwise, or when CUGUARD_EMULATION=1, they are built by
the host compiler and run on CPU threads on CPU tensors (cuguard's emulation).
"""
import contextlib
import io
import os
import pathlib

import torch

# (Quietly: without a CUDA build of Torch, the import prints that no CUDA runtime was found.)
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    import torch.utils.cpp_extension as cpp

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))


def on_gpu() -> bool:
    """The ops run on CUDA tensors: a GPU answers, Torch is a CUDA build, nvcc is there, and
    CUGUARD_EMULATION is not 1."""
    return (os.environ.get("CUGUARD_EMULATION") != "1" and torch.cuda.is_available()
            and (CUDA / "bin" / "nvcc").exists())


def device() -> str:
    """Where the ops' tensors live: "cuda" or, under emulation, "cpu"."""
    return "cuda" if on_gpu() else "cpu"


def options(checks: bool) -> dict:
    """What torch.utils.cpp_extension.load needs for a source that includes <cuguard/torch.hpp>,
    built under emulation (kernels on CPU threads, CPU tensors), with or without cuguard's checks."""
    return dict(
        extra_include_paths=[str(ROOT / "include"), str(CUDA / "include" / "cccl"), str(CUDA / "include")],
        extra_cflags=["-std=c++17", "-O1", "-DCUGUARD_EMULATION=1", f"-DCUGUARD_ENABLE_CHECKS={1 if checks else 0}"],
        extra_ldflags=["-ldl"],
        verbose=False,
    )


def load(checks: bool, build_dir: str) -> None:
    name = "cuguard_demo_checked" if checks else "cuguard_demo_unchecked"
    os.makedirs(build_dir, exist_ok=True)
    if on_gpu():  # cuguard_ops.cu is cuguard_ops.cpp for nvcc (cpp_extension picks the compiler by suffix)
        cpp.load(
            name=name + "_cuda",
            sources=[str(HERE / "cuguard_ops.cu")],
            extra_include_paths=[str(ROOT / "include")],
            extra_cuda_cflags=["--expt-relaxed-constexpr", f"-DCUGUARD_ENABLE_CHECKS={1 if checks else 0}"],
            extra_cflags=[f"-DCUGUARD_ENABLE_CHECKS={1 if checks else 0}"],
            build_directory=build_dir,
            is_python_module=False,
            verbose=False,
        )
        return
    cpp.load(
        name=name,
        sources=[str(HERE / "cuguard_ops.cpp")],
        build_directory=build_dir,
        is_python_module=False,
        **options(checks),
    )
