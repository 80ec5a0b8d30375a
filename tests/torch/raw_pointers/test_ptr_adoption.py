# SPDX-License-Identifier: Apache-2.0
"""The raw-pointer extension of test_raw_pointers.py adopting cuguard::ptr (ops_ptr.cu, docs/pytorch.md's
"Adopting cuguard in a raw-pointer extension"), built through cuguard.torch.load: step 1, the
kernels' T* parameters renamed, computes what ops.cu computes, and its planted off-by-ones (a read
one past an input, a write one past an output, a float4 read past the end) are IndexErrors naming
the line, the kernel's parameter, the offset and the extent (under emulation, whose translated
launches name the parameters); step 2, the launch arguments named with cuguard::torch::ptr, names
the tensor and bounds the pointer by its elements; checks off computes the same; the next call
works."""
import os
import pathlib
import re

import pytest
import torch

import cuguard.torch

from test_raw_pointers import each_empty_tensor_is_a_null_pointer, fps_reference, points

HERE = pathlib.Path(__file__).resolve().parent
DEVICE = cuguard.torch.device()


def marker_line(text):
    for number, line in enumerate((HERE / "ops_ptr.cu").read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(text)


def build(name, flags=(), **kwargs):
    root = os.environ.get("CUGUARD_RAW_POINTERS_BUILD_DIR") or str(HERE / "build")
    return cuguard.torch.load(name, [HERE / "ops.cpp", HERE / "ops_ptr.cu"], build_directory=os.path.join(root, name),
                              extra_cflags=list(flags), extra_cuda_cflags=list(flags), verbose=False, **kwargs)


@pytest.fixture(scope="module")
def renamed():
    return build("cuguard_ptr_renamed", checks=True)


@pytest.fixture(scope="module")
def named():
    return build("cuguard_ptr_named", ["-DNAMED_ARGUMENTS"], checks=True)


@pytest.fixture(scope="module")
def unchecked():
    return build("cuguard_ptr_unchecked", checks=False)


def each_op_matches_its_reference(ops):
    src, ptr = points()
    assert torch.equal(ops.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 0).cpu(), fps_reference(src, ptr, 20))
    gen = torch.Generator().manual_seed(5)
    for dtype in (torch.float32, torch.float64, torch.float16):
        table = torch.randn(50, 33, generator=gen).to(dtype)
        index = torch.randint(0, 50, (70,), generator=gen)
        assert torch.equal(ops.gather_rows(table.to(DEVICE), index.to(DEVICE), 0).cpu(), table[index])
    x = torch.randn(4099, generator=gen)
    assert torch.equal(ops.twice(x.to(DEVICE), 0).cpu(), 2 * x)


def test_renamed_pointers_compute_what_raw_pointers_computed(renamed):
    each_op_matches_its_reference(renamed)


def test_renamed_pointers_with_checks_off_compute_the_same(unchecked):
    each_op_matches_its_reference(unchecked)


def test_an_empty_tensor_is_a_null_pointer_renamed_named_viewed_and_unchecked(renamed, named, unchecked):
    # (named: a cuguard::torch view of it too, whose data() is null)
    for ops in (renamed, named, unchecked):
        each_empty_tensor_is_a_null_pointer(ops)


def test_named_pointers_compute_the_same(named):
    each_op_matches_its_reference(named)


def report_of(call):
    """The IndexError `call` raises: on a GPU with CUGUARD_LAUNCH_BLOCKING=1 (cuguard.torch's
    wrapper waits for the call's kernels and raises what they recorded)."""
    blocking = os.environ.get("CUGUARD_LAUNCH_BLOCKING")
    if DEVICE == "cuda":
        os.environ["CUGUARD_LAUNCH_BLOCKING"] = "1"
    try:
        with pytest.raises(IndexError) as caught:
            call()
    finally:
        if DEVICE == "cuda" and blocking is None:
            del os.environ["CUGUARD_LAUNCH_BLOCKING"]
        elif DEVICE == "cuda":
            os.environ["CUGUARD_LAUNCH_BLOCKING"] = blocking
    return str(caught.value)


STORAGE = "  the pointer is into a tensor's storage (396 bytes)\n" if DEVICE == "cpu" else ""  # (a GPU: its block)


def test_renamed_pointers_report_a_read_one_past_an_input(renamed):
    src, ptr = points()
    report = report_of(lambda: renamed.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'src' const double[2100]: offset 2100 >= "
                             "extent 2100\n"), report
    assert f"ops_ptr.cu:{marker_line('ptr-ops: fps read')} in " in report
    assert "block (2,0,0) thread (143,0,0) of launch #" in report
    assert torch.equal(renamed.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 0).cpu(), fps_reference(src, ptr, 20))


def test_renamed_pointers_report_a_write_one_past_an_output(renamed):
    table = torch.randn(50, 33)
    report = report_of(lambda: renamed.gather_rows(table.to(DEVICE), torch.tensor([1, 2, 3]).to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'out' float[99]: offset 99 >= extent 99\n"
                             + STORAGE), report
    assert f"ops_ptr.cu:{marker_line('ptr-ops: gather write')} in " in report
    assert "block (0,0,0) thread (98,0,0) of launch #" in report


def test_renamed_pointers_report_a_float4_read_past_the_last_whole_float4(renamed):
    x = torch.arange(10, dtype=torch.float32)
    report = report_of(lambda: renamed.twice(x.to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'x' const float4[2]: offset 2 >= extent 2\n"), \
        report
    assert f"ops_ptr.cu:{marker_line('ptr-ops: float4 read')} in " in report


def test_named_arguments_name_the_tensor(named):
    src, ptr = points()
    report = report_of(lambda: named.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'src' const double[2100]: "
                             "offset 2100 >= extent 2100\n"), report
    table = torch.randn(50, 33)
    report = report_of(lambda: named.gather_rows(table.to(DEVICE), torch.tensor([1, 2, 3]).to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'out' float[99]: "
                             "offset 99 >= extent 99\n"), report
    assert torch.equal(named.gather_rows(table.to(DEVICE), torch.tensor([4]).to(DEVICE), 0).cpu(), table[4:5])
    if DEVICE == "cpu":  # docs/pytorch.md shows this report (under emulation): the folder and the launch's number masked
        guide = (HERE.parents[2] / "docs" / "pytorch.md").read_text()
        shown = guide.split("<!-- ptr-report: begin -->\n```\n")[1].split("```\n<!-- ptr-report: end -->")[0]
        masked = re.sub(r"launch #\d+", "launch #N", f"IndexError: {report}\n".replace(str(HERE) + "/", ".../"))
        assert masked == shown


def test_a_named_argument_of_the_wrong_dtype_is_a_value_error_naming_it(named):
    with pytest.raises(ValueError, match="'index' has dtype Int, expected Long"):
        named.gather_rows(torch.randn(5, 4).to(DEVICE), torch.tensor([1], dtype=torch.int32).to(DEVICE), 0)


def test_named_arguments_bound_a_pointer_by_the_tensor_not_its_storage(renamed, named):
    if DEVICE == "cuda":
        pytest.skip("a view copied to the GPU (.to) is a tensor of its own storage")
    src, ptr = points()
    larger = torch.cat([src, torch.randn(100, 3, dtype=src.dtype)])[:700]  # a view of 700 rows of an 800-row storage
    # Bounded by its storage, src's read of row 700 passes: the report is of the next access, dist's.
    report = report_of(lambda: renamed.fps(larger.to(DEVICE), ptr.to(DEVICE), 20, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'dist' double[700]: "
                             "offset 700 >= extent 700\n"), report
    report = report_of(lambda: named.fps(larger.to(DEVICE), ptr.to(DEVICE), 20, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'src' const double[2100]: "
                             "offset 2100 >= extent 2100\n"), report
