# SPDX-License-Identifier: Apache-2.0
"""The raw-pointer extension of test_raw_pointers.py (ops.cu, ops.cpp) built unchanged with
checks=True: the build makes its kernels' raw pointers checked (cuguard/pointers.py), bounded by
the tensors host code took them from, so that it computes what it computed and its planted
off-by-ones (a read one past an input, a write one past an output through a pointer passed on to
a device helper, a float4 read past the last whole float4, a read past the points through a
cast to the extension's own vec3, a kernel template deduced at its launch, a read from one slice
of a flat buffer into the next, a write past the last tensor of a table of void* cast in a
functor, pointers taken in the bindings and passed to a launcher) are IndexErrors naming the
line, the kernel's parameter, the tensor, the offset and the extent, as the hand-renamed
ops_ptr.cu's are; the next call works. On a GPU the same copy is built by nvcc (a report raised
by the call with CUGUARD_LAUNCH_BLOCKING=1, report_of)."""
import os
import pathlib
import re

import pytest
import torch

import cuguard.torch

from test_ptr_adoption import STORAGE, each_op_matches_its_reference, report_of
from test_raw_pointers import each_empty_tensor_is_a_null_pointer, fps_reference, marker_line, points

HERE = pathlib.Path(__file__).resolve().parent
DEVICE = cuguard.torch.device()


def build(name, **kwargs):
    root = os.environ.get("CUGUARD_RAW_POINTERS_BUILD_DIR") or str(HERE / "build")
    return cuguard.torch.load(name, [HERE / "ops.cpp", HERE / "ops.cu"], build_directory=os.path.join(root, name),
                              verbose=False, **kwargs)


@pytest.fixture(scope="module")
def checked():
    return build("cuguard_checked_pointers", checks=True)


def test_checked_pointers_compute_what_raw_pointers_computed(checked):
    each_op_matches_its_reference(checked)
    each_empty_tensor_is_a_null_pointer(checked)


def test_a_read_one_past_an_input_is_reported_with_the_parameter_and_the_line(checked):
    src, ptr = points()
    report = report_of(lambda: checked.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'src' const double[2100]: offset 2100 >= "
                             "extent 2100\n"), report
    assert f"ops.cu:{marker_line('raw-ops: fps read')} in " in report
    assert torch.equal(checked.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 0).cpu(), fps_reference(src, ptr, 20))


def test_a_write_one_past_an_output_of_a_deduced_template_is_reported(checked):
    table = torch.randn(50, 33)
    report = report_of(lambda: checked.gather_rows(table.to(DEVICE), torch.tensor([1, 2, 3]).to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'out' float[99]: offset 99 >= extent 99\n"
                             "  the pointer was taken from tensor 'out' (its elements are the bounds)\n" + STORAGE), report
    assert f"ops.cu:{marker_line('raw-ops: gather write')} in " in report


def test_a_float4_read_past_the_last_whole_float4_is_reported(checked):
    x = torch.arange(10, dtype=torch.float32)
    report = report_of(lambda: checked.twice(x.to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'x' const float4[2]: offset 2 >= extent 2\n"), \
        report
    assert f"ops.cu:{marker_line('raw-ops: float4 read')} in " in report


def test_a_read_from_one_slice_of_a_flat_buffer_into_the_next_is_reported_naming_both(checked):
    flat = torch.zeros(30).to(DEVICE)
    x, y = flat[0:10], flat[10:20]
    x.copy_(torch.arange(10.0))
    report = report_of(lambda: checked.axpy_slices(x, y, 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'x' const float[10]: offset 10 >= extent 10\n"
                             "  the pointer was taken from tensor 'x' (its elements are the bounds); the access lands in "
                             "tensor 'y'\n"), report
    assert f"ops.cu:{marker_line('raw-ops: axpy read')} in " in report
    if DEVICE == "cpu":  # docs/pytorch.md shows this report: the folder and the launch's number masked
        guide = (HERE.parents[2] / "docs" / "pytorch.md").read_text()
        shown = guide.split("<!-- checks-report: begin -->\n```\n")[1].split("```\n<!-- checks-report: end -->")[0]
        assert re.sub(r"launch #\d+", "launch #N", f"IndexError: {report}\n".replace(str(HERE) + "/", ".../")) == shown
    y.zero_()
    checked.axpy_slices(x, y, 0)
    assert torch.equal(y.cpu(), 2 * torch.arange(10.0)) and torch.equal(flat[20:].cpu(), torch.zeros(10))


def test_a_table_of_void_pointers_from_a_tensor_list_is_bounded_by_each_tensor(checked):
    flat = torch.ones(25).to(DEVICE)
    tensors = list(flat[:21].split([5, 7, 9]))  # (the storage reaches 4 floats past the last)
    report = report_of(lambda: checked.scale_list(tensors, 2.0, 1))
    # (named by the member host code stored it in, and by its tensor, with the subscripts' values)
    assert report.startswith("cuguard: out-of-bounds access through pointer 'table.addresses[2]' float[9]: offset 9 >= "
                             "extent 9\n  the pointer was taken from tensor 'tensors[2]' "), report
    # (the function as the compiler names it, its class's template arguments put in)
    assert f"ops.cu:{marker_line('raw-ops: table write')} in scale_functor<float, float>::operator()\n" in report
    flat.fill_(1)
    checked.scale_list(tensors, 2.0, 0)
    assert torch.equal(flat.cpu(), torch.cat([torch.full((21,), 2.0), torch.ones(4)]))


def test_a_pointer_taken_in_the_bindings_and_passed_to_a_launcher_is_named_by_its_tensor(checked):
    x = torch.arange(12.0).to(DEVICE)
    report = report_of(lambda: checked.plus_one(x[2:9], 1))  # (a slice: the storage reaches past it)
    assert report.startswith("cuguard: out-of-bounds access through pointer 'in' const float[7]: offset 7 >= extent 7\n"
                             "  the pointer was taken from tensor 'input' (its elements are the bounds)\n"), report
    assert f"ops.cu:{marker_line('raw-ops: plus one')} in " in report
    assert torch.equal(checked.plus_one(x[2:9], 0).cpu(), torch.arange(3.0, 10.0))


def test_a_read_past_the_points_through_a_cast_to_a_vector_type_is_reported(checked):
    points = torch.randn(4, 3)
    report = report_of(lambda: checked.norms(points.to(DEVICE), 1))
    assert report.startswith("cuguard: out-of-bounds access through pointer 'points' const element[4]: offset 4 >= "
                             "extent 4\n  the pointer was taken from tensor 'points' (its elements are the bounds)\n"), report
    assert f"ops.cu:{marker_line('raw-ops: vec3 read')} in " in report
    assert torch.allclose(checked.norms(points.to(DEVICE), 0).cpu(), points.norm(dim=1))
