#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What users would otherwise run, on the shapes of bench/runtime/kernels.bench.cpp's largest GPU sizes:
torch.index_select and torch.nn.LSTM (cuDNN), timed with CUDA events. Writes JSON {name: seconds}.
Needs PyTorch with CUDA; prints why and writes nothing otherwise."""
import json
import sys

try:
    import torch
except ImportError:
    sys.exit("torch_baseline: PyTorch is not installed")
if not torch.cuda.is_available():
    sys.exit("torch_baseline: no CUDA device")


def timed(fn, repeat=50):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / 1e3 / repeat


out = {}
rows = 2048 * 64
table = torch.ones(rows, 256, device="cuda")
ids = (torch.arange(rows, device="cuda") * 7919) % rows
out[f"torch.index_select/{rows}x256"] = timed(lambda: torch.index_select(table, 0, ids))
for seq in (4, 16):
    lstm = torch.nn.LSTM(256, 256, 1).cuda()
    x = torch.full((seq, 32, 256), 0.5, device="cuda")
    with torch.no_grad():
        out[f"torch.nn.LSTM/seq{seq}x32x256"] = timed(lambda: lstm(x))
json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "torch_baseline.json", "w"), indent=1)
print(json.dumps(out, indent=1))
