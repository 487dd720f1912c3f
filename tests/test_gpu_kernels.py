"""The GPU benchmark kernels (benchmarks/gpu/kernels.py) run small under
Triton's CPU interpreter against torch references, so that what
benchmarks/gpu/bench.py times on the GPU is known to be correct code.
Sizes are not multiples of the tiles; inputs are fresh each run."""

from __future__ import annotations

import pathlib

import pytest
import torch

from c2t_interp import assert_close, convert, dev, fresh_seed, load, poison_host_allocations

SRC = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "gpu" / "kernels.py"


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    m = load(convert(SRC.read_text(), filename="benchmarks/gpu/kernels.py"), tmp_path_factory.mktemp("gpuk"), "gpu_kernels")
    poison_host_allocations(m)
    return m


@pytest.fixture
def g():
    seed = fresh_seed()
    return seed, torch.Generator().manual_seed(seed)


def test_add(mod, g):
    seed, gen = g
    a, b = dev(torch.randn(1000, generator=gen)), dev(torch.randn(1000, generator=gen))
    assert_close(mod.add(a, b, tile=128), a + b, msg=f"seed={seed}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_softmax(mod, g, dtype):
    seed, gen = g
    x = dev((torch.randn(7, 45, generator=gen) * 3).to(dtype))
    assert_close(mod.softmax(x), torch.softmax(x.float(), 1).to(dtype), dtype=dtype, relaxed=True, msg=f"seed={seed}")


def test_rms_norm(mod, g):
    seed, gen = g
    x, w = dev(torch.randn(5, 50, generator=gen)), dev(torch.randn(50, generator=gen))
    ref = x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-6) * w
    assert_close(mod.rms_norm(x, w), ref, relaxed=True, msg=f"seed={seed}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_matmul(mod, g, dtype):
    seed, gen = g
    a = dev(torch.randn(45, 70, generator=gen).to(dtype))
    b = dev(torch.randn(70, 37, generator=gen).to(dtype))
    ref = (a.double() @ b.double()).to(dtype)
    assert_close(mod.matmul(a, b, 16, 16, 16), ref, dtype=dtype, relaxed=True, msg=f"seed={seed}")


def test_transpose(mod, g):
    seed, gen = g
    x = dev(torch.randn(37, 50, generator=gen))
    assert_close(mod.transpose(x, 16, 32), x.t(), msg=f"seed={seed}")
