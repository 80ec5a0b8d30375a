# SPDX-License-Identifier: Apache-2.0
"""The seed scenario in PyTorch: an embedding lookup and a masked gather written with cuguard (the
cuguard_demo extension), whose mask_idx holds one index past the end, then torch.nn.LSTM
allocating its hidden state and running. Three runs, each in its own process (a TORCH_LIBRARY
namespace is registered once per process):

  1. without checks: what a user sees today;
  2. without checks, CUGUARD_LAUNCH_BLOCKING=1 (like CUDA_LAUNCH_BLOCKING=1);
  3. with checks: an IndexError naming the kernel's line, 'mask_idx', the index and the extent.

With a GPU (and a CUDA build of Torch) the ops run on CUDA tensors; under emulation (no GPU, or
CUGUARD_EMULATION=1) the kernels run on CPU threads on CPU tensors.
Usage: python3 seed_scenario.py [BUILD_DIR] (default: build-torch-demo in the checkout)
"""
import os
import subprocess
import sys

import torch

import build


def scenario(bad: bool) -> float:
    torch.manual_seed(0)
    seq_len, batch, vocab, dim, hidden = 8, 4, 50, 16, 32
    on = build.device()
    weight = torch.randn(vocab, dim).to(on)
    tokens = torch.randint(0, vocab, (seq_len * batch,)).to(on)
    embedded = torch.ops.cuguard_demo.embedding(weight, tokens)  # [seq_len * batch, dim]
    # The positions a padding mask kept; the last one is one past the end when `bad`.
    mask_idx = torch.arange(seq_len * batch)
    if bad:
        mask_idx[-1] = seq_len * batch
    gathered = torch.ops.cuguard_demo.masked_gather(embedded, mask_idx.to(on))
    lstm = torch.nn.LSTM(dim, hidden, num_layers=2, bidirectional=True).to(on)
    output, _ = lstm(gathered.reshape(seq_len, batch, dim))  # allocates its hidden state here
    torch.ops.cuguard_demo.check()  # the end of a step: what the ops' kernels recorded
    return float(output.double().abs().sum())


def run(mode: str, build_dir: str) -> None:
    build.load(mode == "checked", os.path.join(build_dir, mode))
    try:
        with_bad, without = scenario(True), scenario(False)
    except IndexError as e:
        print(f"IndexError: {e}")
        print(f"the op works again after the error: checksum without the bad index {scenario(False):.6f}")
        return
    except RuntimeError as e:  # on a GPU without checks: CUDA's error, wherever it surfaces
        print(f"RuntimeError: {str(e).splitlines()[0]}")
        return
    print(f"output checksum with the bad index: {with_bad:.6f}; without it: {without:.6f}")
    if with_bad != without:
        print("the output is silently wrong, and no error was raised anywhere")
    else:
        print("the output happens to be right (the bytes past the end matched), and no error was raised")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--run":
        run(sys.argv[2], sys.argv[3])
        return 0
    default = os.path.join(os.path.dirname(os.path.dirname(build.HERE)), "build-torch-demo")
    build_dir = sys.argv[1] if len(sys.argv) > 1 else default
    runs = [
        ("1. without checks (what a user sees today)", "unchecked", {}),
        ("2. without checks, CUGUARD_LAUNCH_BLOCKING=1 (like CUDA_LAUNCH_BLOCKING=1)", "unchecked",
         {"CUGUARD_LAUNCH_BLOCKING": "1"}),
        ("3. with checks (CUGUARD_ENABLE_CHECKS=1)", "checked", {}),
    ]
    for title, mode, env in runs:
        print(f"== {title}", flush=True)
        result = subprocess.run([sys.executable, __file__, "--run", mode, build_dir], env={**os.environ, **env})
        if result.returncode != 0:
            return result.returncode
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
