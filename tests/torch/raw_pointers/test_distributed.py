# SPDX-License-Identifier: Apache-2.0
"""A cuguard report in a torch.distributed job (gloo, two processes, CPU tensors under emulation):
the rank that raised it is named with the world size, the report is on that rank's stderr, and the
other rank, waiting in a collective, gets an error at once instead of waiting for its timeout."""
import datetime
import os
import pathlib
import socket
import time

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from test_ptr_adoption import DEVICE, build

BUILD = ("cuguard_ptr_named", ["-DNAMED_ARGUMENTS"])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_rank(rank, world, port, folder):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120))
    ops = build(*BUILD, checks=True)
    if rank == 1:
        try:
            ops.gather_rows(torch.randn(50, 33).to(DEVICE), torch.tensor([1, 2, 3]).to(DEVICE), 1)  # one past the end
            outcome = "no error"
        except IndexError as error:
            outcome = str(error)
    else:
        began = time.monotonic()
        try:
            dist.all_reduce(torch.ones(4))
            outcome = "all_reduce returned"
        except RuntimeError as error:
            outcome = f"all_reduce failed after {time.monotonic() - began:.1f} s: {error}"
    (pathlib.Path(folder) / f"rank{rank}.txt").write_text(outcome)


@pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is not available in this Torch")
def test_a_report_names_its_rank_and_the_other_ranks_do_not_wait(tmp_path, capfd):
    build(*BUILD, checks=True)  # built here once; the ranks load it
    mp.spawn(one_rank, args=(2, free_port(), str(tmp_path)), nprocs=2, join=True)
    raised = (tmp_path / "rank1.txt").read_text()
    assert raised.startswith("cuguard: out-of-bounds access through pointer 'out' float[99]: offset 99 >= extent 99\n"), raised
    assert "\n  in rank 1 of 2 (torch.distributed, gloo); its process group was destroyed" in raised, raised
    waited = (tmp_path / "rank0.txt").read_text()
    assert waited.startswith("all_reduce failed after "), waited
    assert float(waited.split()[3]) < 60, waited
    assert "in rank 1 of 2 (torch.distributed, gloo)" in capfd.readouterr().err


def test_outside_a_distributed_job_a_report_is_unchanged():
    ops = build(*BUILD, checks=True)
    with pytest.raises(IndexError) as caught:
        ops.gather_rows(torch.randn(50, 33).to(DEVICE), torch.tensor([1, 2, 3]).to(DEVICE), 1)
    assert "rank" not in str(caught.value)
