# SPDX-License-Identifier: Apache-2.0
"""Idioms of published extensions that emulation must take as nvcc does, each in a kernel written
here in that style (rasterizer_style.cu, optimizer_style.cu), built unchanged by
cuguard.torch.load with sanitize=True: the toolkit's headers included one by one
(<device_launch_parameters.h>), cuRAND's device API, CUB's umbrella header with its device-wide
radix sort and scan and a block primitive (its TempStorage over dynamic shared memory too), an
empty tensor for an absent input, launches spelled `<< <` and `>> >`, a struct of `void*` cast
back in a functor, CUDA's math functions called unqualified with only ATen's headers included,
ATen's own CUDA_tensor_apply2 (a launch in Torch's header), at::Half's conversion to __half, its
comparisons and atomicAdd through __half (PyTorch's nvcc flags leave __half's operators out), an
op registered for the CUDA dispatch key (TORCH_LIBRARY_IMPL), dropout from ATen's CUDA generator. Each op matches plain PyTorch with
nothing reported; a planted overrun through the struct's pointer is reported."""
import os
import pathlib
import re
import subprocess

import pytest
import torch

import cuguard.torch

HERE = pathlib.Path(__file__).resolve().parent
DEVICE = cuguard.torch.device()


@pytest.fixture(scope="module")
def ops():
    root = os.environ.get("CUGUARD_IDIOMS_BUILD_DIR") or str(HERE / "build")
    sources = [HERE / "ops.cpp", HERE / "rasterizer_style.cu", HERE / "optimizer_style.cu"]
    return cuguard.torch.load("cuguard_idioms", sources, build_directory=os.path.join(root, "idioms"), sanitize=True,
                              verbose=False)


def test_the_module_exports_no_cuda_runtime_function_for_libcudart_to_take(ops):
    # A CUDA build of Torch puts libcudart in the process's global scope: an exported
    # cudaGetDevice would be its, which sees no device (CUB's scan failed with 101, then 35).
    symbols = subprocess.run(["nm", "-D", "--defined-only", ops.__file__], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    exported = [line.split()[-1] for line in symbols if re.search(r" [TWVi] (cuda|cu)[A-Z]\w*$", line)]
    assert exported == []


def test_cub_device_scan_and_radix_sort_bin_items_as_a_rasterizer_does(ops):
    gen = torch.Generator().manual_seed(7)
    first = torch.randint(0, 40, (300,), generator=gen, dtype=torch.int32)
    count = torch.randint(0, 4, (300,), generator=gen, dtype=torch.int32)
    keys, values = ops.bin_items(first.to(DEVICE), count.to(DEVICE))
    expected = sorted((int(first[i]) + t) << 32 | i for i in range(300) for t in range(int(count[i])))
    assert keys.cpu().tolist() == expected
    assert values.cpu().tolist() == [k & 0xFFFFFFFF for k in expected]


@pytest.mark.parametrize("dynamic", [False, True])
def test_a_cub_block_scan_in_a_class_template_or_over_dynamic_shared_memory_sums_each_block(ops, dynamic):
    x = torch.randn(300, generator=torch.Generator().manual_seed(8))
    out = ops.block_prefix(x.to(DEVICE), dynamic).cpu()
    expected = torch.cat([torch.cumsum(chunk, 0) for chunk in x.split(128)])
    assert torch.allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_at_half_converts_to_cudas_half_for_a_shuffle(ops):
    x = torch.arange(32, dtype=torch.float16)
    expected = x + torch.cat([x[1:], x[-1:]])
    assert torch.equal(ops.pair_sums(x.to(DEVICE)).cpu(), expected)


def test_an_op_registered_for_the_cuda_dispatch_key_answers_for_the_emulated_devices_tensors(ops):
    x = torch.arange(32, dtype=torch.half)
    assert torch.equal(torch.ops.cuguard_idioms.pair_sums(x.to(DEVICE)).cpu(), ops.pair_sums(x.to(DEVICE)).cpu())


def test_bindings_that_call_the_cuda_runtime_api_themselves_reach_the_emulated_one(ops):
    x = torch.arange(10.0)
    assert torch.equal(ops.copied_by_runtime(x.to(DEVICE)).cpu(), x)


def test_at_half_compares_with_its_own_operators_as_under_torchs_nvcc_flags(ops):
    x = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6] * 4, dtype=torch.float16)
    expected = torch.maximum(x, torch.cat([x[1:], x[-1:]]))
    assert torch.equal(ops.pair_max(x.to(DEVICE)).cpu(), expected)


def test_an_atomic_add_of_cudas_half_given_an_at_half_sums_every_value(ops):
    x = torch.tensor([0.5, 1.0, 2.0, 0.25] * 8, dtype=torch.float16)
    assert ops.half_total(x.to(DEVICE)).cpu().tolist() == [30.0]


def test_atens_own_pointwise_apply_launches_from_torchs_header(ops):
    a, b = torch.randn(1000), torch.randn(1000)
    assert torch.equal(ops.apply_multiply(a.to(DEVICE), b.to(DEVICE)).cpu(), a * b)


def test_curand_device_api_draws_uniform_numbers_per_thread(ops):
    like = torch.empty(0, device=DEVICE)
    a = ops.uniform(300, 7, like).cpu()
    assert bool(((a > 0) & (a <= 1)).all())
    assert torch.equal(a, ops.uniform(300, 7, like).cpu())  # the same seed, the same numbers
    assert len(set(a.tolist())) > 290  # each thread its own subsequence
    assert not torch.equal(a, ops.uniform(300, 8, like).cpu())


def test_dropout_draws_from_atens_cuda_generator_a_new_offset_each_call(ops):
    x = torch.ones(4096)
    first, second = ops.dropout(x.to(DEVICE), 0.75).cpu(), ops.dropout(x.to(DEVICE), 0.75).cpu()
    for out in (first, second):
        kept = out != 0
        assert torch.all(out[kept] == 1 / 0.75)
        assert 0.7 < kept.float().mean().item() < 0.8
    assert not torch.equal(first, second)  # (the generator's offset moved)


def test_an_empty_tensor_made_after_the_load_is_a_null_pointer_as_torch_gives_it(ops):
    empty = torch.Tensor([]).to(DEVICE)  # (made after the extension wrapped the allocator)
    assert torch.equal(ops.optional_or_one(empty, 5).cpu(), torch.ones(5))
    x = torch.arange(5.0)
    assert torch.equal(ops.optional_or_one(x.to(DEVICE), 5).cpu(), x)


def test_a_struct_of_void_pointers_scales_every_tensor_and_finds_inf(ops):
    gen = torch.Generator().manual_seed(9)
    inputs = [torch.randn(n, generator=gen) for n in (100, 64, 1)]
    outputs = [torch.empty_like(t) for t in inputs]
    assert ops.multi_tensor_scale([t.to(DEVICE) for t in inputs], outputs, 0.5, 0) == 0
    for i, o in zip(inputs, outputs):
        assert torch.equal(o, i * 0.5)
    inputs[1][3] = float("inf")
    assert ops.multi_tensor_scale(inputs, outputs, 0.5, 0) == 1


def test_an_overrun_through_the_structs_pointer_is_reported_at_its_line(ops):
    line = next(n for n, text in enumerate((HERE / "optimizer_style.cu").read_text().splitlines(), start=1)
                if "idioms: scale read" in text)
    inputs = [torch.randn(100)]
    with pytest.raises(IndexError) as raised:
        ops.multi_tensor_scale(inputs, [torch.empty(100)], 2.0, 1)  # the last chunk reads one past the input
    report = str(raised.value)
    assert report.startswith("cuguard: out-of-bounds")
    assert f"optimizer_style.cu:{line}" in report
    out = torch.empty(100)
    assert ops.multi_tensor_scale(inputs, [out], 2.0, 0) == 0  # the next call works
    assert torch.equal(out, inputs[0] * 2.0)


def test_reads_of_storage_nothing_wrote_are_reported_and_written_storage_is_not(ops):
    # initcheck: torch.empty's bytes, never written, read by a kernel.
    with pytest.raises(RuntimeError) as raised:
        ops.optional_or_one(torch.empty(5), 5)
    report = str(raised.value)
    assert report.startswith("cuguard: uninitialized read of 4 bytes through a raw pointer at (0) of 'opt' float[5]")
    assert "rasterizer_style.cu:" in report
    # Written by Torch's ops, by host code, by a kernel before: nothing to report.
    assert torch.equal(ops.optional_or_one(torch.zeros(5), 5), torch.zeros(5))
    assert torch.equal(ops.optional_or_one(torch.empty(5).fill_(2.0), 5), torch.full((5,), 2.0))
    written = torch.empty(5)
    written.numpy()[:] = 3.0
    assert torch.equal(ops.optional_or_one(written, 5), torch.full((5,), 3.0))
    by_kernel = torch.empty(5)
    ops.multi_tensor_scale([torch.ones(5)], [by_kernel], 4.0, 0)
    assert torch.equal(ops.optional_or_one(by_kernel, 5), torch.full((5,), 4.0))


def test_a_sort_of_keys_a_culled_item_left_unwritten_is_reported_at_the_read(ops):
    # The rasterizer's crash in training: an item's tiles counted, its keys never written, the
    # sort reading them (on a GPU, whatever the caching allocator left there).
    first = torch.tensor([3, -1, 7], dtype=torch.int32)
    count = torch.tensor([1, 2, 1], dtype=torch.int32)
    with pytest.raises(RuntimeError) as raised:
        ops.bin_items(first.to(DEVICE), count.to(DEVICE))
    report = str(raised.value)
    assert report.startswith("cuguard: uninitialized read of 8 bytes through a raw pointer at (1) of "), report
    assert "int64[4]" in report or "uint64" in report, report
