# SPDX-License-Identifier: Apache-2.0
"""Installs the checkout with pip into a fresh virtual environment (which sees the system's
Torch and pytest) and runs the extensions' tests there (aten_style/, raw_pointers/, idioms/), from
outside the checkout, so that `import cuguard` is the installed package: what a user's
`pip install <checkout>` gives. Each extension is built in WORKDIR.

  in_venv.py CHECKOUT WORKDIR
"""
import os
import pathlib
import shutil
import subprocess
import sys

root, work = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
venv = work / "venv"
shutil.rmtree(venv, ignore_errors=True)
work.mkdir(parents=True, exist_ok=True)
subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
python = venv / "bin" / "python"
# The system's setuptools builds it (no download of a build backend).
subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-build-isolation",
                str(root)], check=True)
where = subprocess.run([str(python), "-c", "import cuguard; print(cuguard.__file__)"], check=True, cwd=work,
                       capture_output=True, text=True).stdout.strip()
if not where.startswith(str(venv)):
    sys.exit(f"cuguard imported from {where}, not from the virtual environment")
print(f"cuguard installed at {pathlib.Path(where).parent}")
env = dict(os.environ, CUGUARD_ATEN_STYLE_BUILD_DIR=str(work / "aten_style"),
           CUGUARD_RAW_POINTERS_BUILD_DIR=str(work / "raw_pointers"), CUGUARD_IDIOMS_BUILD_DIR=str(work / "idioms"))
env.pop("PYTHONPATH", None)
sys.exit(subprocess.run([str(python), "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                         str(root / "tests/torch/aten_style/test_aten_style.py"),
                         str(root / "tests/torch/raw_pointers/test_raw_pointers.py"),
                         str(root / "tests/torch/raw_pointers/test_ptr_adoption.py"),
                         str(root / "tests/torch/raw_pointers/test_checked_pointers.py"),
                         str(root / "tests/torch/raw_pointers/test_distributed.py"),
                         str(root / "tests/torch/idioms/test_idioms.py")], cwd=work, env=env).returncode)
