# SPDX-License-Identifier: Apache-2.0
"""An extension in ATen's accessor style (ops.cu, ops.cpp) built through cuguard.torch.load: with
nvcc on a GPU, else unchanged under emulation. Forward and backward against ATen, a planted
off-by-one as an IndexError naming the file and line, the kernel, the tensor, the index and the
extent, and the op working again after it."""
import os
import pathlib
import re

import pytest
import torch

import cuguard
import cuguard.torch

HERE = pathlib.Path(__file__).resolve().parent


def marker_line(text):
    for number, line in enumerate((HERE / "ops.cu").read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(text)


@pytest.fixture(scope="module")
def ops():
    build = os.environ.get("CUGUARD_ATEN_STYLE_BUILD_DIR") or str(HERE / "build")
    return cuguard.torch.load("cuguard_aten_style", [HERE / "ops.cpp", HERE / "ops.cu"], checks=True,
                              build_directory=build, verbose=False)


class SigmoidScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, ops):
        ctx.save_for_backward(x, w)
        ctx.ops = ops
        return ops.forward(x, w, 0)

    @staticmethod
    def backward(ctx, grad_y):
        x, w = ctx.saved_tensors
        grad_x, grad_w = ctx.ops.backward(grad_y.contiguous(), x, w)
        return grad_x, grad_w, None


def inputs():
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(5, 70, generator=gen, dtype=torch.float64).to(cuguard.torch.device())
    w = torch.randn(70, generator=gen, dtype=torch.float64).to(cuguard.torch.device())
    return x.requires_grad_(), w.requires_grad_()


def test_forward_and_backward_match_aten(ops):
    x, w = inputs()
    y = SigmoidScale.apply(x, w, ops)
    (y * y).sum().backward()
    xr, wr = (t.detach().clone().requires_grad_() for t in (x, w))
    yr = torch.sigmoid(xr) * wr
    (yr * yr).sum().backward()
    torch.testing.assert_close(y, yr)
    torch.testing.assert_close(x.grad, xr.grad)
    torch.testing.assert_close(w.grad, wr.grad)


def test_a_planted_off_by_one_is_an_index_error_at_its_line_and_the_op_works_again(ops):
    if cuguard.torch.device() == "cuda":
        pytest.skip("built by nvcc, a <<<>>> launch is CUDA's own: the report waits for the next "
                    "cuguard::torch::launch or check, which this extension does not call")
    x, w = (t.detach() for t in inputs())
    with pytest.raises(IndexError) as caught:
        ops.forward(x, w, 1)
    said = str(caught.value)
    line = marker_line("aten-style: forward read")
    first = said.splitlines()[0]
    # (its parameter's name: the translated <<<>>> launch read the kernel's declaration)
    assert re.search(r"cuguard: out-of-bounds access to 'x' double\[5, 70\] at \(\d, 70\): "
                     r"dim 1 index 70 >= extent 70", first), first
    assert f"ops.cu:{line} in sigmoid_scale_forward_kernel" in said
    assert re.search(r"sigmoid_scale_forward_kernel<double><<<\(2,5,1\),\(64,1,1\)>>> at \S*ops.cu:\d+ in "
                     r"sigmoid_scale_forward", said), said
    torch.testing.assert_close(ops.forward(x, w, 0), torch.sigmoid(x) * w)


def test_get_include_names_cuguards_headers():
    assert any(pathlib.Path(d, "cuguard", "torch.hpp").exists() for d in cuguard.get_include())
