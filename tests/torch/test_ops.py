# SPDX-License-Identifier: Apache-2.0
"""The cuguard_demo extension (examples/torch) from Python, checks on, kernels under emulation on
CPU tensors: its ops against PyTorch's own, every bad tensor argument as a ValueError naming the
tensor, a planted out-of-bounds index as an IndexError with the whole report, and the op working
again afterwards."""
import os
import pathlib
import re
import sys

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "examples" / "torch"))
import build  # noqa: E402


@pytest.fixture(scope="module")
def ops():
    build.load(True, os.environ.get("CUGUARD_TORCH_BUILD_DIR", str(ROOT / "build" / "torch_ops")))
    return torch.ops.cuguard_demo


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
