# SPDX-License-Identifier: Apache-2.0
"""Builds and loads the cuguard_demo extension (cuguard_ops.cpp) with torch.utils.cpp_extension.

load(checks) returns nothing; afterwards torch.ops.cuguard_demo.embedding and
torch.ops.cuguard_demo.masked_gather exist. Without nvcc, or when CUGUARD_EMULATION=1, the kernels
are built by the host compiler and run on CPU threads on CPU tensors (cuguard's emulation).
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


def load(checks: bool, build_dir: str) -> None:
    name = "cuguard_demo_checked" if checks else "cuguard_demo_unchecked"
    os.makedirs(build_dir, exist_ok=True)
    cpp.load(
        name=name,
        sources=[str(HERE / "cuguard_ops.cpp")],
        extra_include_paths=[str(ROOT / "include"), str(CUDA / "include" / "cccl"), str(CUDA / "include")],
        extra_cflags=["-std=c++17", "-O1", "-DCUGUARD_EMULATION=1", f"-DCUGUARD_ENABLE_CHECKS={1 if checks else 0}"],
        extra_ldflags=["-ldl"],
        build_directory=build_dir,
        is_python_module=False,
        verbose=False,
    )
