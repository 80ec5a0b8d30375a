# SPDX-License-Identifier: Apache-2.0
"""Builds and loads the cuguard_demo extension (cuguard_ops.cu) through the cuguard package's
cuguard.torch.load, which wraps torch.utils.cpp_extension.load.

load(checks) returns nothing; afterwards torch.ops.cuguard_demo.embedding,
torch.ops.cuguard_demo.masked_gather, torch.ops.cuguard_demo.gather1 and
torch.ops.cuguard_demo.check exist. With a GPU, a CUDA build of Torch and nvcc, the kernels are
built by nvcc and run on CUDA tensors; otherwise, or when CUGUARD_EMULATION=1, the same .cu file
is built by the host compiler and the kernels run on CPU threads on CPU tensors (cuguard's
emulation). The package is the installed one (pip install <checkout>), or else this checkout's.
"""
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
try:
    import cuguard.torch
except ImportError:  # not installed: the checkout's package
    sys.path.insert(0, str(ROOT / "python"))
    import cuguard.torch

cpp = cuguard.torch._cpp  # torch.utils.cpp_extension, imported quietly


def device() -> str:
    """Where the ops' tensors live: "cuda" or, under emulation, "cpu"."""
    return cuguard.torch.device()


def options(checks: bool) -> dict:
    """What torch.utils.cpp_extension.load needs for a host source that includes
    <cuguard/torch.hpp>, built under emulation, with or without cuguard's checks."""
    return dict(extra_include_paths=cuguard.get_include(), extra_cflags=cuguard.torch._emulation_flags(checks),
                extra_ldflags=["-ldl"], verbose=False)


def load(checks: bool, build_dir: str) -> None:
    name = "cuguard_demo_checked" if checks else "cuguard_demo_unchecked"
    if cuguard.torch.on_gpu():
        name += "_cuda"
    os.makedirs(build_dir, exist_ok=True)
    cuguard.torch.load(name, [HERE / "cuguard_ops.cu"], checks=checks, build_directory=build_dir,
                       is_python_module=False, verbose=False)
