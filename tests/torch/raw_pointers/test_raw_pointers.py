# SPDX-License-Identifier: Apache-2.0
"""A raw-pointer extension (ops.cu, ops.cpp: written as pytorch_cluster's and detectron2's are,
ATen's CUDA host headers and <<<>>> on ATen's current stream) built unchanged through
cuguard.torch.load (pointers=False: as written) with nvcc on a GPU, else under emulation. Its ops against PyTorch
references, a launch of no blocks raising as on a GPU, a fault as a report; built with
sanitize=True, its planted off-by-ones (a read one past an input, a write one past an output)
reported at their lines, and nothing reported of the correct ops."""
import os
import pathlib
import re

import pytest
import torch

import cuguard.torch

HERE = pathlib.Path(__file__).resolve().parent
DEVICE = cuguard.torch.device()
EARLY_EMPTY = torch.Tensor([])  # (made before any extension of the tests wrapped the allocator)


def each_empty_tensor_is_a_null_pointer(ops):
    """An absent input given as an empty tensor, made before the extension loaded and after, is
    a null pointer in the kernel (`opt != nullptr` false: every element 1), as Torch gives it."""
    for empty in (EARLY_EMPTY, torch.Tensor([]), torch.empty(0), torch.zeros(0)):
        assert torch.equal(ops.optional_or_one(empty.to(DEVICE), 5).cpu(), torch.ones(5))
    x = torch.arange(5.0)
    assert torch.equal(ops.optional_or_one(x.to(DEVICE), 5).cpu(), x)


def marker_line(text):
    for number, line in enumerate((HERE / "ops.cu").read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(text)


def build(name, **kwargs):
    root = os.environ.get("CUGUARD_RAW_POINTERS_BUILD_DIR") or str(HERE / "build")
    return cuguard.torch.load(name, [HERE / "ops.cpp", HERE / "ops.cu"], build_directory=os.path.join(root, name),
                              verbose=False, **kwargs)


@pytest.fixture(scope="module")
def ops():
    return build("cuguard_raw_pointers", checks=True, pointers=False)


def fps_reference(src, ptr, per_batch):
    """Farthest point sampling as fps_kernel computes it, in PyTorch."""
    out = []
    for b in range(ptr.numel() - 1):
        points = src[ptr[b]:ptr[b + 1]]
        count = min(per_batch, points.shape[0])
        dist = torch.full((points.shape[0],), 1e38, dtype=src.dtype)
        chosen = [0]
        for _ in range(1, count):
            dist = torch.minimum(dist, ((points - points[chosen[-1]]) ** 2).sum(1))
            chosen.append(int(torch.argmax(dist)))
        out += [int(ptr[b]) + c for c in chosen]
    return torch.tensor(out, dtype=torch.int64)


def points():
    gen = torch.Generator().manual_seed(3)
    src = torch.randn(700, 3, generator=gen, dtype=torch.float64)
    ptr = torch.tensor([0, 300, 301, 700])
    return src, ptr


def test_farthest_point_sampling_matches_its_reference(ops):
    src, ptr = points()
    out = ops.fps(src.to(DEVICE), ptr.to(DEVICE), 20, 0).cpu()
    assert torch.equal(out, fps_reference(src, ptr, 20))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_a_kernel_template_deduced_at_its_launch_gathers_rows(ops, dtype):
    gen = torch.Generator().manual_seed(5)
    src = torch.randn(50, 33, generator=gen).to(dtype)
    index = torch.randint(0, 50, (70,), generator=gen)
    out = ops.gather_rows(src.to(DEVICE), index.to(DEVICE), 0).cpu()
    assert torch.equal(out, src[index])


def test_a_float4_kernel_computes_its_reference(ops):
    x = torch.randn(4099)
    assert torch.equal(ops.twice(x.to(DEVICE), 0).cpu(), 2 * x)


def test_a_launch_of_no_blocks_raises_at_the_launch_check_as_on_a_gpu(ops):
    src = torch.randn(5, 4).to(DEVICE)
    with pytest.raises(RuntimeError, match="CUDA error: invalid configuration argument"):
        ops.gather_rows(src, torch.zeros(0, dtype=torch.int64).to(DEVICE), 0)
    index = torch.tensor([4, 0])
    assert torch.equal(ops.gather_rows(src, index.to(DEVICE), 0).cpu(), src.cpu()[index])


def test_a_wild_index_faults_as_a_report_and_the_interpreter_goes_on(ops):
    if DEVICE != "cpu":
        pytest.skip("a fault on a GPU loses the CUDA context; this is emulation's report")
    src = torch.randn(5, 4)
    with pytest.raises(RuntimeError, match=r"(?s)illegal address: .* faulted \(SIGSEGV\).*gather_rows_kernel") as caught:
        ops.gather_rows(src, torch.tensor([1, 1 << 40]), 0)
    assert f"ops.cu:{marker_line('raw-ops: row read')} in " in str(caught.value)
    assert torch.equal(ops.gather_rows(src, torch.tensor([3]), 0), src[3:4])


def test_an_integer_division_by_zero_is_a_report_and_the_interpreter_goes_on(ops):
    if DEVICE != "cpu":
        pytest.skip("a GPU gives an unspecified quotient; this is emulation's report of the host's trap")
    x = torch.arange(10)
    with pytest.raises(RuntimeError, match=r"integer division by zero: thread \(0,0,0\) trapped \(SIGFPE\)") as caught:
        ops.quotient(x, 0)
    assert f"ops.cu:{marker_line('raw-ops: quotient')} in " in str(caught.value)
    assert torch.equal(ops.quotient(x, 3), x // 3)


def test_an_implicit_conversion_of_nan_to_int_is_reported_under_sanitize(sanitized):
    # A GPU gives 0 (saturated); the host's conversion does not, and emulation says so at the line.
    x = torch.tensor([1.5, -2.5, 7.0])
    assert torch.equal(sanitized.as_int(x), torch.tensor([1, -2, 7], dtype=torch.int32))
    with pytest.raises(RuntimeError) as raised:
        sanitized.as_int(torch.tensor([1.5, float("nan"), 3e9]))
    report = str(raised.value)
    assert report.startswith("cuguard: float-to-integer conversion out of range: thread (1,0,0) converts nan"), report
    assert ": a GPU gives 0 (saturated)" in report, report
    assert f"ops.cu:{marker_line('raw-ops: implicit conversion')} in " in report, report


def test_a_shift_by_the_width_is_reported_under_sanitize(sanitized):
    x = torch.tensor([1, 3, -5], dtype=torch.int32)
    assert torch.equal(sanitized.shifted(x, 4), x * 16)
    with pytest.raises(RuntimeError) as raised:
        sanitized.shifted(x, 32)
    report = str(raised.value)
    assert report.startswith("cuguard: shift out of range: thread (0,0,0) shifts 1 ('int', 32 bits) by 32: a GPU clamps"), report
    assert f"ops.cu:{marker_line('raw-ops: shift')} in " in report, report


# Made before the sanitized extension is loaded: known to it only while an op is called with it.
EARLY_SRC, EARLY_PTR = points()


@pytest.fixture(scope="module")
def sanitized():
    return build("cuguard_raw_pointers_sanitized", sanitize=True)


def test_a_sanitized_extension_reports_nothing_of_correct_kernels(sanitized):
    src, ptr = points()
    assert torch.equal(sanitized.fps(src, ptr, 20, 0), fps_reference(src, ptr, 20))
    gen = torch.Generator().manual_seed(5)
    table = torch.randn(50, 33, generator=gen)
    index = torch.randint(0, 50, (70,), generator=gen)
    assert torch.equal(sanitized.gather_rows(table, index, 0), table[index])


def test_an_empty_tensor_is_a_null_pointer_with_checks_and_with_sanitize(ops, sanitized):
    each_empty_tensor_is_a_null_pointer(ops)
    each_empty_tensor_is_a_null_pointer(sanitized)


def test_torch_own_cpu_ops_work_beside_a_sanitized_extension(sanitized):
    # (its allocator wrapper keeps a storage's context its data, as oneDNN's glue requires)
    x, w = torch.randn(2, 4, 16, 16), torch.randn(8, 4, 3, 3)
    y = torch.nn.functional.conv2d(x, w)
    assert y.shape == (2, 8, 14, 14)
    assert torch.allclose(y[0, 0, 0, 0], (x[0, :, :3, :3] * w[0]).sum(), atol=1e-4)
    if torch.backends.mkldnn.is_available():
        assert torch.equal(x.to_mkldnn().to_dense(), x)


def test_sanitize_reports_a_read_one_past_an_input_at_its_line(sanitized):
    for src, ptr in (points(), (EARLY_SRC, EARLY_PTR)):
        with pytest.raises(IndexError) as caught:
            sanitized.fps(src, ptr, 20, 1)
        report = str(caught.value)
        assert report.startswith("cuguard: out-of-bounds read of 8 bytes through a raw pointer at (2100) of "
                                 "'src' double[2100]: element 2100 >= extent 2100\n"
                                 "  address 0x"), report
        assert "0 bytes past the end of the 16800 bytes of a tensor's storage" in report
        assert f"ops.cu:{marker_line('raw-ops: fps read')} in " in report
        assert "block (2,0,0) thread (143,0,0) of launch #" in report
        assert " fps_kernel<double><<<(3,1,1),(256,1,1)>>> at " in report
    assert torch.equal(sanitized.fps(src, ptr, 20, 0), fps_reference(src, ptr, 20))  # the next call works


def test_sanitize_reports_a_float4_read_across_the_end_of_an_input(sanitized):
    x = torch.arange(10, dtype=torch.float32)
    assert torch.equal(sanitized.twice(x, 0), 2 * x)
    with pytest.raises(IndexError) as caught:
        sanitized.twice(x, 1)
    report = str(caught.value)
    # (the host compiler reads the float4's members one by one: the first past the end is reported)
    assert report.startswith("cuguard: out-of-bounds read of 4 bytes through a raw pointer at (10) of "
                             "'x' float[10]: element 10 >= extent 10\n"
                             "  address 0x"), report
    assert f"ops.cu:{marker_line('raw-ops: float4 read')} in " in report


def test_sanitize_reports_a_write_one_past_an_output_at_its_line(sanitized):
    table = torch.randn(50, 33)
    with pytest.raises(IndexError) as caught:
        sanitized.gather_rows(table, torch.tensor([1, 2, 3]), 1)
    report = str(caught.value)
    assert report.startswith("cuguard: out-of-bounds write of 4 bytes through a raw pointer at (99) of "
                             "'out' float[99]: element 99 >= extent 99\n"), report
    assert f"ops.cu:{marker_line('raw-ops: gather write')} in " in report
    assert "block (0,0,0) thread (98,0,0) of launch #" in report
    assert torch.equal(sanitized.gather_rows(table, torch.tensor([4]), 0), table[4:5])
    # docs/pytorch.md shows this report: the address, the folder and the launch's number masked.
    guide = (HERE.parents[2] / "docs" / "pytorch.md").read_text()
    shown = guide.split("<!-- sanitize-report: begin -->\n```\n")[1].split("```\n<!-- sanitize-report: end -->")[0]
    masked = re.sub(r"0x[0-9a-f]+", "0x...", f"IndexError: {report}\n")
    masked = re.sub(r"launch #\d+", "launch #N", masked.replace(str(HERE) + "/", ".../"))
    assert masked == shown


@pytest.mark.parametrize("past", [10, 1 << 10, 1 << 20, 1 << 30, "wild"])
def test_a_store_far_past_a_storage_or_wild_is_reported_before_it_and_nothing_is_corrupted(sanitized, past):
    # Under sanitize nothing outside the kernel's memory is written: a store past a storage by up
    # to 2 GiB is reported before it happens (the storages lie apart in a guarded region), a wild
    # one faults as a report; then 100 more ops and a full collection run on an intact process.
    import gc
    x = torch.zeros(100)
    wild = 0x10 if past == "wild" else 0
    with pytest.raises((IndexError, RuntimeError)) as raised:
        sanitized.poke(x, 0 if wild else 400 + past, wild)
    report = str(raised.value)
    assert f"ops.cu:{marker_line('raw-ops: poke')} in " in report, report
    if not wild:
        assert report.startswith("cuguard: out-of-bounds write of 4 bytes through a raw pointer"), report
        assert f"{past} bytes past the end of the 400 bytes of a tensor's storage" in report, report
    assert torch.equal(x, torch.zeros(100))
    table = torch.randn(50, 33)
    for i in range(100):
        index = torch.randint(0, 50, (20,))
        assert torch.equal(sanitized.gather_rows(table, index, 0), table[index])
    gc.collect()
    assert torch.equal(x, torch.zeros(100))
