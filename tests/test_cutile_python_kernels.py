"""cutile-python's own test kernels (test/kernels/*.py, opt-in: C2T_CORPUS), converted as a tree and
run under the interpreter against PyTorch.

fused_moe.py reaches its tile helper through an absolute import (`from kernels.matmul import
swizzle_2d`, with cutile-python's test/ folder on sys.path), which driver/splice.h copies in; it was
rejected before ("name 'swizzle_2d' is not defined in tile code"). The converted modules are written
to a scratch `kernels` package and imported from there, as cutile-python's tests import theirs.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import sys

import pytest

from c2t_interp import assert_close, convert, dev, poison

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

CORPUS = os.environ.get("C2T_CORPUS")
KERNELS = pathlib.Path(CORPUS or "/nonexistent") / "cutile-python" / "test" / "kernels"

pytestmark = [pytest.mark.corpus,
              pytest.mark.skipif(not KERNELS.is_dir(), reason="C2T_CORPUS with cutile-python not set")]


@pytest.fixture
def kernels(tmp_path):
    """Imports the converted test/kernels package; yields a function module name -> module."""
    pkg = tmp_path / "kernels"
    pkg.mkdir()
    for src in ("__init__.py", "matmul.py", "fused_moe.py"):
        text = (KERNELS / src).read_text()
        # The real path as the filename: its imports are read from there (driver/splice.h).
        (pkg / src).write_text(text if src == "__init__.py" else convert(text, filename=str(KERNELS / src)))
    saved = {k: v for k, v in sys.modules.items() if k == "kernels" or k.startswith("kernels.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(tmp_path))
    try:
        yield lambda name: importlib.import_module(f"kernels.{name}")
    finally:
        sys.path.remove(str(tmp_path))
        for k in [k for k in sys.modules if k == "kernels" or k.startswith("kernels.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def test_fused_moe_kernel(kernels):
    m = kernels("fused_moe")
    assert not hasattr(m, "ct"), "the converted module still binds cuda.tile"
    g = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    num_tokens, topk, experts, n, k = 7, 2, 3, 40, 56  # N and K not multiples of the 32-wide tiles
    tile_m, tile_n, tile_k = 16, 32, 32
    a = torch.randn(num_tokens, k, generator=g).half()
    b = torch.randn(experts, n, k, generator=g).half()
    topk_ids = torch.randint(0, experts, (num_tokens, topk), generator=g)
    weights = torch.rand(num_tokens, topk, generator=g)
    sorted_ids, expert_ids = m.moe_align_tile_size_torch(topk_ids, tile_m, experts)
    c = poison(dev(torch.empty(num_tokens * topk, n, dtype=torch.float16)))
    grid = (-(-sorted_ids.shape[0] // tile_m) * -(-n // tile_n),)
    m.launch_fused_moe_kernel(grid, dev(a), dev(b), c, dev(weights.reshape(-1)), dev(sorted_ids), dev(expert_ids),
                              topk, True, tile_m, tile_n, tile_k)
    rows = torch.arange(num_tokens * topk)
    expected = torch.einsum("rk,rnk->rn", a.float()[rows // topk], b.float()[topk_ids.reshape(-1)])
    expected = (expected * weights.reshape(-1, 1)).half()
    assert_close(c, expected, msg=f"topk_ids={topk_ids.tolist()}")


def test_silu_and_mul_kernel(kernels):
    m = kernels("fused_moe")
    g = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    a, b = torch.randn(5, 64, generator=g), torch.randn(5, 64, generator=g)
    c = poison(dev(torch.empty(5, 64)))
    m.launch_silu_and_mul_kernel((5,), dev(a), dev(b), c, 64)
    assert_close(c, torch.nn.functional.silu(a) * b)


@pytest.mark.parametrize("F0, F1, F2, D", [(4, 2, 4, 8), (16, 16, 2, 64)])  # below 16: no tl.dot
def test_fft_kernel(tmp_path, F0, F1, F2, D):
    # cutile-python's FFT (test/kernels/fft.py, as bench_fft.py launches it): interleaved real and
    # imaginary parts split by ct.extract (tl.split halves), three complex contractions, permutes,
    # ct.cat. fp32 (complex64) against torch.fft; a batch that is not a multiple of the row tile BS.
    import math

    from c2t_interp import load

    m = load(convert((KERNELS / "fft.py").read_text(), filename=str(KERNELS / "fft.py")), tmp_path, "fft_conv")
    g = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
    N, batch, BS = F0 * F1 * F2, 5, 2

    def twiddles(rows, cols, factor):
        i, j = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
        return torch.view_as_real(torch.exp(-2 * math.pi * 1j * (i * j) / factor)).float()

    W0, W1, W2 = twiddles(F0, F0, F0), twiddles(F1, F1, F1), twiddles(F2, F2, F2)
    T0, T1 = twiddles(F0, F1 * F2, N), twiddles(F1, F2, F1 * F2)  # as bench_fft.make_twiddles
    x = torch.randn(batch, N, dtype=torch.complex64, generator=g)
    x_ri = torch.view_as_real(x)
    y_ri = poison(dev(torch.empty_like(x_ri)))
    m.launch_fft_kernel((-(-batch // BS),), dev(x_ri.reshape(batch, N * 2 // D, D)),
                        y_ri.view(batch, N * 2 // D, D), dev(W0), dev(W1), dev(W2),
                        dev(T0.reshape(F0, F1 * F2, 2)), dev(T1.reshape(F1, F2, 2)), N, F0, F1, F2, BS, D)
    ref = torch.fft.fft(x.to(torch.complex128), axis=-1)
    l2 = ((torch.view_as_complex(y_ri.cpu()).to(torch.complex128) - ref).norm() / ref.norm()).item()
    assert l2 < 1e-5, l2  # bench_fft.py's tolerance for complex64
