# SPDX-License-Identifier: Apache-2.0
"""cuguard: checked views for CUDA kernels (a header-only C++17 library).

``get_include()`` lists the include directories a compiler needs for ``#include <cuguard/...>``
(cuguard's headers, and the CUDA toolkit's headers and CCCL that they include);
``get_cmake_dir()`` is the folder of cuguard's CMake package (``find_package(cuguard)``);
``cuguard.torch`` builds PyTorch extensions whose kernels use cuguard, with nvcc on a GPU and
under emulation (on CPU threads, over CPU tensors) elsewhere.
"""
import os
import pathlib
import shutil

__all__ = ["get_include", "get_cmake_dir", "cuda_home"]

_HERE = pathlib.Path(__file__).resolve().parent
_CHECKOUT = _HERE.parent.parent  # python/cuguard in a checkout


def cuda_home():
    """The CUDA toolkit's folder: CUDA_HOME or CUDA_PATH, else the one of nvcc on PATH, else
    /usr/local/cuda; None if none of them holds include/cuda_runtime.h."""
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(str(pathlib.Path(nvcc).resolve().parent.parent))
    candidates.append("/usr/local/cuda")
    for c in candidates:
        if c and (pathlib.Path(c) / "include" / "cuda_runtime.h").exists():
            return str(pathlib.Path(c))
    return None


def _headers():
    """cuguard's own include folders: the package's, or a checkout's include/ and kernels/."""
    if (_HERE / "include" / "cuguard" / "cuguard.hpp").exists():
        return [str(_HERE / "include")]
    if (_CHECKOUT / "include" / "cuguard" / "cuguard.hpp").exists():
        return [str(_CHECKOUT / "include"), str(_CHECKOUT / "kernels")]
    raise RuntimeError(f"cuguard: no headers beside {_HERE} (a broken installation)")


def get_include():
    """The include directories for a compiler: cuguard's headers, then the CUDA toolkit's
    include/cccl (cuda/std, which cuguard uses) and include, where a toolkit is found."""
    dirs = _headers()
    home = cuda_home()
    if home is not None:
        for sub in ("include/cccl", "include"):
            if (pathlib.Path(home) / sub).is_dir():
                dirs.append(str(pathlib.Path(home) / sub))
    return dirs


def get_cmake_dir():
    """The folder of cuguard's CMake package: pass it as cuguard_DIR (or in CMAKE_PREFIX_PATH) to
    find_package(cuguard CONFIG). Raises where the package was installed without CMake."""
    installed = _HERE / "lib" / "cmake" / "cuguard"
    if (installed / "cuguardConfig.cmake").exists():
        return str(installed)
    raise RuntimeError("cuguard: this installation has no CMake package (CMake was not found, or could not "
                       "configure, when it was installed); add_subdirectory(<checkout>) instead")
