# SPDX-License-Identifier: Apache-2.0
"""pip install <checkout>: the cuguard package (python/cuguard) with the library inside it, as
nanobind and pybind11 ship theirs: the headers in cuguard/include, and where CMake is on PATH
the CMake package (cuguard::cuguard, cuguard_emulate) in cuguard/lib/cmake/cuguard, installed by the
project's own CMakeLists.txt. Nothing is built or downloaded but this package."""
import pathlib
import re
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


def version():
    text = (ROOT / "include/cuguard/version.hpp").read_text()
    parts = [re.search(rf"#define CUGUARD_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class build_with_library(build_py):
    """build_py, then the headers (and the CMake package where CMake configures) into the package."""

    def run(self):
        super().run()
        package = pathlib.Path(self.build_lib) / "cuguard"
        for sub in ("include", "lib"):
            shutil.rmtree(package / sub, ignore_errors=True)
        shutil.copytree(ROOT / "include/cuguard", package / "include/cuguard")
        shutil.copytree(ROOT / "kernels/cuguard", package / "include/cuguard", dirs_exist_ok=True)
        cmake = shutil.which("cmake")
        if cmake is None:
            return
        with tempfile.TemporaryDirectory() as build, tempfile.TemporaryDirectory() as prefix:
            configure = [cmake, "-S", str(ROOT), "-B", build, "-DCUGUARD_BUILD_TESTS=OFF", "-DCUGUARD_BUILD_EXAMPLES=OFF",
                         "-DCUGUARD_BUILD_BENCHMARKS=OFF", "-DCUGUARD_TORCH=OFF", "-DCUGUARD_INSTALL=ON",
                         "-DCMAKE_INSTALL_LIBDIR=lib"]
            if subprocess.run(configure, capture_output=True).returncode != 0:
                print("cuguard: CMake could not configure (no CUDA toolkit?): the package has no CMake files")
                return
            subprocess.run([cmake, "--install", build, "--prefix", prefix], check=True, capture_output=True)
            # The package is the install prefix: the config finds <prefix>/include from <prefix>/lib/cmake/cuguard.
            shutil.copytree(pathlib.Path(prefix) / "lib", package / "lib")
            shutil.copytree(pathlib.Path(prefix) / "include", package / "include", dirs_exist_ok=True)


# Beside the CMake build folders, not in build/ (a CMake build of the checkout may be there).
setup(version=version(), cmdclass={"build_py": build_with_library}, options={"build": {"build_base": "build-python"}})
