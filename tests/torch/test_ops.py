# SPDX-License-Identifier: Apache-2.0
"""The cuguard_demo extension (examples/torch) from Python, checks on, kernels under emulation on
CPU tensors: its ops against PyTorch's own, every bad tensor argument as a ValueError naming the
tensor, a planted out-of-bounds index as an IndexError with the whole report, and the op working
again afterwards. With the test extension probe.cpp: views of DLPack capsules (from
torch.utils.dlpack.to_dlpack, and made by hand with each bad field), and a view kept past its
tensor's life as use_after_free."""
import ctypes
import os
import pathlib
import re
import sys

import pytest
import torch
import torch.utils.dlpack

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "examples" / "torch"))
import build  # noqa: E402


@pytest.fixture(scope="module")
def ops():
    build.load(True, os.environ.get("CUGUARD_TORCH_BUILD_DIR", str(ROOT / "build" / "torch_ops")))
    return torch.ops.cuguard_demo


@pytest.fixture(scope="module")
def probe():
    build_dir = os.environ.get("CUGUARD_TORCH_BUILD_DIR", str(ROOT / "build" / "torch_ops")) + "-probe"
    os.makedirs(build_dir, exist_ok=True)
    return build.cpp.load(name="cuguard_probe", sources=[str(pathlib.Path(__file__).with_name("probe.cpp"))],
                          build_directory=build_dir, is_python_module=True, **build.options(True))


def access_line():
    """The line of masked_gather's access in cuguard_ops.cpp, from its marker comment."""
    lines = (ROOT / "examples" / "torch" / "cuguard_ops.cpp").read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if "cuguard-op-access: masked_gather" in line)


def test_ops_match_pytorch(ops):
    torch.manual_seed(1)
    weight = torch.randn(10, 7)
    ids = torch.tensor([3, 0, 9, 3])
    assert torch.equal(ops.embedding(weight, ids), torch.nn.functional.embedding(ids, weight))
    assert torch.equal(ops.masked_gather(weight, ids), torch.index_select(weight, 0, ids))
    # A transposed (strided) input, and no index at all.
    assert torch.equal(ops.masked_gather(weight.t(), torch.tensor([6, 1])), weight.t()[[6, 1]])
    assert ops.embedding(weight, torch.zeros(0, dtype=torch.long)).shape == (0, 7)
    index = torch.tensor([[6, 0, 6], [1, 1, 2]] * 5)
    assert torch.equal(ops.gather1(weight, index), torch.gather(weight, 1, index))
    assert torch.equal(ops.gather1(weight.t(), index[:7] % 5), torch.gather(weight.t(), 1, index[:7] % 5))


def test_gather_index_past_the_end_names_the_index_tensor_and_position(ops):
    weight = torch.zeros(3, 4)
    index = torch.tensor([[0, 1], [2, 4], [3, 3]])  # [1, 1] = 4: one past the end of dim 1
    with pytest.raises(IndexError) as raised:
        ops.gather1(weight, index)
    said = str(raised.value)
    assert said.startswith("cuguard: out-of-bounds access to 'input' const float[3, 4] at (1, 4): dim 1 index 4 >= extent 4")
    assert "index 4 came from 'index'[1, 1]" in said


def test_out_of_bounds_index_is_an_index_error_with_the_report_and_the_op_works_again(ops):
    table = torch.arange(12, dtype=torch.float32).reshape(6, 2)
    mask_idx = torch.tensor([0, 6])  # 6: one past the end
    with pytest.raises(IndexError) as raised:
        ops.masked_gather(table, mask_idx)
    said = str(raised.value)
    assert said.startswith("cuguard: out-of-bounds access to 'input' const float[6, 2] at (6, 0): "
                           "dim 0 index 6 >= extent 6")
    assert "index 6 came from 'mask_idx'[1]" in said
    assert re.search(rf"at \S*cuguard_ops\.cpp:{access_line()} in masked_gather_kernel", said)
    assert "of launch #" in said and "masked_gather_kernel<<<(2,1,1),(64,1,1)>>>" in said
    assert torch.equal(ops.masked_gather(table, torch.tensor([5, 0])), table[[5, 0]])


@pytest.mark.parametrize(
    "weight, ids, expected",
    [
        (torch.zeros(4, 3, dtype=torch.float64), torch.tensor([0]), "'weight' has dtype Double, expected Float"),
        (torch.zeros(4, 3), torch.tensor([[0]]), "'ids' has 2 dimensions, expected 1"),
        (torch.zeros(4, 3), torch.tensor([0], dtype=torch.int32), "'ids' has dtype Int, expected Long"),
        (torch.zeros(4, 3, 2), torch.tensor([0]), "'weight' has 3 dimensions, expected 2"),
        (torch.zeros(4, 3).to_sparse(), torch.tensor([0]), "'weight' has layout Sparse, expected a strided tensor"),
        (torch.zeros(4, 3, device="meta"), torch.tensor([0]),
         "'weight' is on meta, expected a CPU tensor: this build runs kernels on CPU threads (emulation)"),
    ],
)
def test_bad_tensor_arguments_are_value_errors_naming_the_tensor(ops, weight, ids, expected):
    with pytest.raises(ValueError) as raised:
        ops.embedding(weight, ids)
    said = str(raised.value)
    assert said.splitlines()[0] == expected
    assert re.search(r"\n  at \S*cuguard_ops\.cpp:\d+ in ", said)


def test_opcheck(ops):
    if not hasattr(torch.library, "opcheck"):
        pytest.skip(f"torch.library.opcheck is not in Torch {torch.__version__}")
    torch.library.opcheck(ops.embedding, (torch.randn(5, 3), torch.tensor([1, 4])))


def test_views_of_to_dlpack_capsules(probe):
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    assert probe.dlpack_sum_f32_2d(torch.utils.dlpack.to_dlpack(t)) == 15.0
    assert probe.dlpack_sum_f32_2d(torch.utils.dlpack.to_dlpack(t.t().contiguous().t())) == 15.0  # strides [1, 2]
    assert probe.dlpack_sum_f32_2d(torch.utils.dlpack.to_dlpack(t[:, 1:])) == 12.0  # 1 + 2 + 4 + 5: data moved by the offset
    ids = torch.tensor([4, 0, 2])
    assert probe.dlpack_describe_i64_1d(torch.utils.dlpack.to_dlpack(ids)).startswith("'ids' const int64[3]")
    with pytest.raises(ValueError) as raised:
        probe.dlpack_sum_f32_2d(torch.utils.dlpack.to_dlpack(t.double()))
    assert str(raised.value).splitlines()[0] == "'x' has dtype float64, expected float32 (a view of float)"
    with pytest.raises(ValueError) as raised:
        probe.dlpack_sum_f32_2d(torch.utils.dlpack.to_dlpack(t[0]))
    assert str(raised.value).splitlines()[0] == "'x' has 1 dimensions, expected 2"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class HandMade:
    """A float32 [2, 3] DLPack tensor over a torch tensor's data, in a capsule, made field by field
    (DLPack 0.6's layout, which 1.x's DLTensor keeps)."""

    def __init__(self):
        self.data = torch.arange(6, dtype=torch.float32)
        self.shape = (ctypes.c_int64 * 3)(2, 3, 1)
        self.strides = (ctypes.c_int64 * 3)(3, 1, 1)
        self.m = DLManagedTensor()
        t = self.m.dl_tensor
        t.data = self.data.data_ptr()
        t.device = DLDevice(1, 0)  # kDLCPU
        t.ndim = 2
        t.dtype = DLDataType(2, 32, 1)  # kDLFloat, 32 bits, 1 lane
        t.shape = self.shape
        t.strides = self.strides
        t.byte_offset = 0

    def capsule(self):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.m), b"dltensor", None)


def bad_ndim(t, x): t.ndim = 3
def bad_bits(t, x): t.dtype.bits = 16
def bad_lanes(t, x): t.dtype.lanes = 4
def bad_code(t, x): t.dtype.code = 4  # kDLBfloat
def bad_device(t, x): t.device.device_type = 4  # kDLOpenCL
def bad_offset(t, x): t.byte_offset = 2
def bad_stride(t, x): x.strides[0] = -3
def no_shape(t, x): t.shape = None


@pytest.mark.parametrize(
    "spoil, expected",
    [
        (bad_ndim, "'x' has 3 dimensions, expected 2"),
        (bad_bits, "'x' has dtype float16, expected float32 (a view of float)"),
        (bad_lanes, "'x' has dtype float32x4, expected float32 (a view of float)"),
        (bad_code, "'x' has dtype bfloat32, expected float32 (a view of float)"),
        (bad_device, "'x' is on DLPack device type 4, expected kDLCPU, kDLCUDA, kDLCUDAHost or kDLCUDAManaged"),
        (bad_offset, "'x' has byte_offset 2, not a multiple of the element size 4"),
        (bad_stride, "'x' has stride -3 in dim 0: negative strides are not supported (make a contiguous copy)"),
        (no_shape, "'x' has no shape (null) for 2 dimensions"),
    ],
)
def test_hand_made_dlpack_tensors_with_a_bad_field_are_value_errors(probe, spoil, expected):
    x = HandMade()
    assert probe.dlpack_sum_f32_2d(x.capsule()) == 15.0
    spoil(x.m.dl_tensor, x)
    with pytest.raises(ValueError) as raised:
        probe.dlpack_sum_f32_2d(x.capsule())
    assert str(raised.value).splitlines()[0] == expected


def test_hand_made_dlpack_tensor_null_strides_and_null_data(probe):
    x = HandMade()
    x.m.dl_tensor.strides = None  # DLPack 0.6 (Debian's dlpack.h): row-major
    assert probe.dlpack_sum_f32_2d(x.capsule()) == 15.0
    x.m.dl_tensor.data = None  # elements without data: the view's own check
    with pytest.raises(RuntimeError) as raised:
        probe.dlpack_sum_f32_2d(x.capsule())
    assert "'x'" in str(raised.value).splitlines()[0]


def test_a_view_kept_past_its_tensor_is_use_after_free_naming_it(probe):
    hidden = torch.ones(8)
    probe.keep(hidden)
    assert probe.sum_kept() == 8.0
    del hidden  # PyTorch frees the storage; the next tensor may get the same block
    other = torch.zeros(8)
    with pytest.raises(RuntimeError) as raised:
        probe.sum_kept()
    said = str(raised.value)
    assert said.startswith("cuguard: use after free:")
    assert "allocation 't' (32 bytes) was released" in said
    assert other.sum() == 0


def test_load_makes_a_missing_build_directory_on_a_gpu_as_under_emulation(monkeypatch, tmp_path):
    import cuguard.torch as ct
    seen = {}

    def fake_load(name, sources, **kwargs):  # PyTorch's load opens a lock file in the folder first
        seen["exists"] = os.path.isdir(kwargs["build_directory"])
        seen["cuda_flags"] = kwargs.get("extra_cuda_cflags")
        seen["kernel"] = pathlib.Path(sources[0]).read_text()

    monkeypatch.setattr(ct, "on_gpu", lambda: True)
    monkeypatch.setattr(ct._cpp, "load", fake_load)
    folder = tmp_path / "not" / "made" / "yet"
    (tmp_path / "kernel.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 0; }\n")
    ct.load("cuguard_unbuilt", [str(tmp_path / "kernel.cu")], checks=True, build_directory=str(folder))
    assert seen["exists"] and seen["cuda_flags"] == ["--expt-relaxed-constexpr", "-DCUGUARD_ENABLE_CHECKS=1"]
    # With checks on, nvcc builds the copy whose raw pointers are checked (pointers=False: as written).
    assert "__global__ void k(::cuguard::ptr<float> x)" in seen["kernel"], seen["kernel"]
    ct.load("cuguard_unbuilt", [str(tmp_path / "kernel.cu")], pointers=False, build_directory=str(folder))
    assert seen["kernel"].startswith("__global__ void k(float* x)")


def test_a_source_whose_checked_copy_does_not_build_is_built_as_written_with_a_warning(monkeypatch, tmp_path):
    import cuguard.torch as ct
    builds = []

    def fake_load(name, sources, **kwargs):  # the copy with checked pointers fails as ninja says it
        builds.append([pathlib.Path(s).read_text() for s in sources if ".cu." in s])
        copy = next(s for s in sources if ".cu." in s)
        if "::cuguard::ptr" in pathlib.Path(copy).read_text():
            stem = pathlib.Path(copy).stem
            raise RuntimeError(f"Error building extension '{name}': [1/2] c++ ...\nFAILED: {stem}.o\n"
                               f"{tmp_path}/k.cu:2:5: error: cannot convert\nninja: build stopped")

    monkeypatch.setattr(ct, "on_gpu", lambda: False)
    monkeypatch.setattr(ct._cpp, "load", fake_load)
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) {\n  float *a, *b; a = x; b = a; }\n")
    with pytest.warns(UserWarning, match=r"the copy of .*k\.cu with checked pointers does not build \(.*k\.cu:2:5: "
                                         r"error: cannot convert\); it is built as written"):
        ct.load("cuguard_fallback", [str(tmp_path / "k.cu")], build_directory=str(tmp_path / "build"))
    assert len(builds) == 2 and "::cuguard::ptr" in builds[0][0] and "::cuguard::ptr" not in builds[1][0]
    # An error the copies did not cause is raised as it is.
    monkeypatch.setattr(ct._cpp, "load", lambda name, sources, **kwargs: (_ for _ in ()).throw(
        RuntimeError("Error building extension 'x': FAILED: other.o")))
    with pytest.raises(RuntimeError, match="FAILED: other.o"):
        ct.load("cuguard_fallback", [str(tmp_path / "k.cu")], build_directory=str(tmp_path / "build"))


def test_an_emulated_build_keeps_its_own_optimization_level_over_the_extensions(monkeypatch, tmp_path):
    import cuguard.torch as ct
    seen = {}
    monkeypatch.setattr(ct, "on_gpu", lambda: False)
    monkeypatch.setattr(ct._cpp, "load", lambda name, sources, **kwargs: seen.update(kwargs))
    monkeypatch.setenv("CUGUARD_EMULATION_CFLAGS", "-O0 -g")
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 0; }\n")
    ct.load("cuguard_levels", [str(tmp_path / "k.cu")], build_directory=str(tmp_path / "build"),
            extra_cflags=["-g", "-O3", "-fopenmp"], extra_cuda_cflags=["-DSCALE=2"])
    flags = seen["extra_cflags"]
    # The extension's levels first (cuguard's -O1 -g1 hold), its other flags after cuguard's,
    # CUGUARD_EMULATION_CFLAGS last.
    assert flags[:2] == ["-g", "-O3"] and flags.index("-O1") > 1 and flags.index("-g1") > 1
    assert flags.index("-fopenmp") > flags.index("-O1") and flags[-2:] == ["-O0", "-g"]
    assert "extra_cuda_cflags" not in seen
    (copy,) = (tmp_path / "build" / "cuguard_emulated").glob("k.cu.*.cpp")
    assert "#define SCALE 2\n" in copy.read_text()
