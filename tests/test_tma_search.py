"""TMA descriptors in the tuning search (runtime: _c2t_exhaustive_search, _c2t_run_kernel; launcher:
the `_fits` check).

A converted launcher takes its kernel's pointer path by default (use_tma="tuned"): descriptors were
slower for most kernels on the H200. But not for all: TileGym's fp8 matmul at 256x128x64 ran 190-199
TFLOPS through pointers at 8 warps and 160 at 16, and 215-228 with descriptors at 16 (BENCHMARKS.md,
"The warps phase on the GPU"). So the search also times the configs close to the fastest with
descriptors, where every tensor of the launch allows them (the launcher's own check: 16-byte aligned
base and strides...), and keeps them for that launch's shape; a later launch of the same shape whose
tensors do not allow them takes the pointer path with what the search chose there, and an explicit
use_tma=False always takes pointers. Here the device check and the timer
are faked (each timed run priced by its tile, stages, warps and path), tensors claim to be on CUDA
so that the launcher's alignment check decides, and the kernel runs in Triton's interpreter (both
paths), checked against torch on sizes that are not multiples of the tiles.
"""

from __future__ import annotations

import pytest

from c2t_interp import assert_close
from test_cluster_share_search import SRC, PricedKernel, priced_search
from test_cluster_share_search import _ab as cluster_ab
from test_tma_interpreter import _FakeCuda

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)


class PathPricedKernel(PricedKernel):
    """PricedKernel whose attempts and prices also hold the launch's path (USE_TMA)."""

    def __getitem__(self, grid):
        run = super().__getitem__(grid)

        def launch(*args, **kwargs):
            result = run(*args, **kwargs)
            self.attempts[-1] = (*self.attempts[-1], kwargs.get("USE_TMA"))
            return result

        return launch


def cuda_like(t):
    return t.as_subclass(_FakeCuda)


@pytest.fixture
def mod(tmp_path, monkeypatch):
    empty = lambda *a, **k: cuda_like(torch.empty(*a, **k))  # the host code's output: "on CUDA" too
    return priced_search(SRC, "tma_search", tmp_path, monkeypatch, empty=empty)


def _ab(M=300, N=200, K=72):
    # K = 72 fp32: 288-byte rows of a, a multiple of 16 (descriptors allowed); N = 200: 800-byte rows.
    return cluster_ab(M, N, K)


# (TM, TN, num_stages, num_warps, USE_TMA) -> ms. 256x128 is the rows share of the 512x128 2-CTA config;
# the rule gives it 8 warps. Through pointers 16 warps lose; with descriptors they win.
COST = {(128, 128, None, 4, False): 2.0, (512, 128, None, 8, False): 9.0, (512, 64, None, 8, False): 9.0,
        (256, 128, None, 8, False): 1.9, (256, 128, None, 16, False): 2.5,
        (256, 128, None, 8, True): 2.0, (256, 128, None, 16, True): 1.5}


def test_descriptors_are_timed_where_the_tensors_allow_them_and_kept(mod):
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, COST)
    a, b = _ab()
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)
    # The listed configs and the shares through pointers, then the close ones (1.9, 2.0) at 4 stages;
    # then the share at 16 warps (slower), with descriptors at the rule's 8 (slower), and at 16 (kept).
    assert m.timed[:4] == [(128, 128, None, 4, False), (512, 128, None, 8, False), (256, 128, None, 8, False),
                           (512, 64, None, 8, False)], m.timed
    assert m.timed[6:] == [(256, 128, None, 16, False), (256, 128, None, 8, True), (256, 128, None, 16, True),
                           (128, 128, None, 4, True)], m.timed
    m.mm_kernel.attempts.clear()
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)  # the cached choice
    assert m.mm_kernel.attempts == [(256, 128, None, 16, True)], "descriptors at 16 warps kept for the op's launches"


def test_no_descriptors_where_a_tensor_does_not_allow_them(mod):
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, COST)
    a, b = _ab(K=70)  # 280-byte rows of a: not a multiple of 16
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)
    assert all(t[-1] is False for t in m.timed), m.timed
    m.mm_kernel.attempts.clear()
    m.matmul(cuda_like(a), cuda_like(b))
    assert m.mm_kernel.attempts == [(256, 128, None, 8, False)]


def test_host_tensors_are_never_timed_with_descriptors(mod):
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, COST)
    m.torch.empty = torch.empty  # the output a plain CPU tensor
    a, b = _ab()
    assert_close(m.matmul(a, b), a @ b, dtype=torch.float32)
    assert all(t[-1] is False for t in m.timed), m.timed


def test_a_descriptor_choice_holds_only_where_the_launch_allows_it(mod):
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, COST)
    a, b = _ab()
    m.matmul(cuda_like(a), cuda_like(b))
    # The same shape, strides and dtypes (the choice's key), but a's base 4 bytes past a 16-byte boundary.
    storage = torch.empty(300 * 72 + 1)
    shifted = storage[1:].view(300, 72)
    shifted.copy_(a)
    assert shifted.data_ptr() % 16 != 0
    c = cuda_like(torch.empty(300, 200))
    m.mm_kernel.attempts.clear()
    m.launch_mm_kernel((2, 2, 1), cuda_like(shifted), cuda_like(b), c, 256, 128, 32)
    assert m.mm_kernel.attempts == [(256, 128, None, 8, False)], "pointers, at the rule's warps: as untuned"
    assert_close(c, a @ b, dtype=torch.float32)
    # The default ("tuned") of an aligned launch: the choice applies; an explicit use_tma=False: pointers.
    m.mm_kernel.attempts.clear()
    m.launch_mm_kernel((2, 2, 1), cuda_like(a), cuda_like(b), c, 256, 128, 32, use_tma="tuned")
    m.launch_mm_kernel((2, 2, 1), cuda_like(a), cuda_like(b), c, 256, 128, 32, use_tma=False)
    assert m.mm_kernel.attempts == [(256, 128, None, 16, True), (256, 128, None, 8, False)]
    assert_close(c, a @ b, dtype=torch.float32)


def test_a_launch_without_descriptors_keeps_the_pointer_paths_choice(mod):
    # Found by review: pointers at 16 warps won (1.7 < 1.9), then descriptors at 16 (1.5). A launch of
    # the same shape whose tensors do not allow descriptors takes the pointer path's 16 warps.
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, {**COST, (256, 128, None, 16, False): 1.7})
    a, b = _ab()
    m.matmul(cuda_like(a), cuda_like(b))
    shifted = torch.empty(300 * 72 + 1)[1:].view(300, 72)
    shifted.copy_(a)
    c = cuda_like(torch.empty(300, 200))
    m.mm_kernel.attempts.clear()
    m.launch_mm_kernel((2, 2, 1), cuda_like(shifted), cuda_like(b), c, 256, 128, 32)
    m.launch_mm_kernel((2, 2, 1), cuda_like(a), cuda_like(b), c, 256, 128, 32)
    assert m.mm_kernel.attempts == [(256, 128, None, 16, False), (256, 128, None, 16, True)]
    assert_close(c, a @ b, dtype=torch.float32)


@pytest.mark.parametrize("spill_step", [False, True])
def test_the_launcher_passes_the_flag_only_for_its_default_path(mod, spill_step):
    # No search has run: the default path checks the tensors only where the runtime's spill step may
    # choose descriptors (a kernel with tl.dot at the launcher rule's warps; test_spill_warps.py),
    # never for the caller's own warps or an explicit use_tma.
    code, m = mod
    assert "**({\"_c2t_tma\": \"USE_TMA\"} if use_tma_fits and not use_tma else {})" in code, code
    m._c2t_spill_switch[:] = [spill_step]
    seen = []
    real = m._c2t_run_kernel
    m._c2t_run_kernel = lambda kernel, grid, *args, **kw: (seen.append(kw.get("_c2t_tma")),
                                                           real(kernel, grid, *args, **kw))[1]
    a, b = _ab()
    c = cuda_like(torch.empty(300, 200))
    for use_tma, warps in (("tuned", {}), (False, {}), (None, {}), (True, {}), ("tuned", {"num_warps": 4})):
        m.launch_mm_kernel((3, 2, 1), cuda_like(a), cuda_like(b), c, 128, 128, 32, use_tma=use_tma, **warps)
        assert_close(c, a @ b, dtype=torch.float32)
    assert seen == ["USE_TMA" if spill_step else None, None, None, None, None]


def test_short_kernels_are_not_timed_with_descriptors(mod):
    # Below _C2T_TMA_MIN_US a choice's host cost (no native reuse, the descriptors' check and scratch)
    # outweighs what descriptors save on the device: the launch stays on its default path.
    _, m = mod
    m.mm_kernel = PathPricedKernel(m.mm_kernel, {k: v / 100 for k, v in COST.items()})  # 15-90 us
    assert m._C2T_TMA_MIN_US == 100.0
    a, b = _ab()
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)
    assert all(t[-1] is False for t in m.timed), m.timed
    m.mm_kernel.attempts.clear()
    m.matmul(cuda_like(a), cuda_like(b))
    assert m.mm_kernel.attempts == [(256, 128, None, 8, False)]


@pytest.mark.parametrize("tma_ms, kept", [(1.86, False), (1.83, True)])
def test_descriptors_are_kept_only_when_they_win_by_the_margin(mod, tma_ms, kept):
    # s37: the search timed flashinfer's paged decode 1-3% faster with descriptors, and the op then ran
    # 20-40% slower with them (BENCHMARKS.md); descriptors now have to win by _C2T_TMA_MARGIN (3%).
    _, m = mod
    cost = {k: v for k, v in COST.items() if k[:2] != (256, 128)}
    cost.update({(256, 128, None, 8, False): 1.9, (256, 128, None, 16, False): 2.5,
                 (256, 128, None, 8, True): tma_ms, (256, 128, None, 16, True): 2.6})
    m.mm_kernel = PathPricedKernel(m.mm_kernel, cost)
    assert m._C2T_TMA_MARGIN == 0.03
    a, b = _ab()
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)
    assert (256, 128, None, 8, True) in m.timed, m.timed
    m.mm_kernel.attempts.clear()
    assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)  # the cached choice
    assert m.mm_kernel.attempts == [(256, 128, None, 8, kept)], m.mm_kernel.attempts


class DescriptorsFail(PathPricedKernel):
    """A kernel whose descriptor path Triton cannot compile (TileGym's sparse MLA on the H200, s34)."""

    __name__ = "mm_kernel"

    def __getitem__(self, grid):
        run = super().__getitem__(grid)

        def launch(*args, **kwargs):
            if kwargs.get("USE_TMA"):
                self.attempts.append((args[-3], args[-2], kwargs.get("num_stages"), kwargs.get("num_warps"), True))
                raise RuntimeError("PassManager::run failed")
            return run(*args, **kwargs)

        return launch


def test_a_search_under_use_tma_none_falls_back_per_config_where_descriptors_do_not_compile(mod):
    # The plug-in's --c2t-use-tma auto (or a caller's use_tma=None) reaches the search's timed launches:
    # every config's descriptors fail to compile, so each is timed through pointers (s34: sparse MLA's
    # "exhaustive_search: all 28 configs failed" when the fallback skipped searches), said once.
    import warnings

    _, m = mod
    launcher = m.launch_mm_kernel
    names = list(launcher.__code__.co_varnames[:launcher.__code__.co_argcount])
    defaults = list(launcher.__defaults__)
    defaults[names.index("use_tma") - (len(names) - len(defaults))] = None
    launcher.__defaults__ = tuple(defaults)
    m.mm_kernel = DescriptorsFail(m.mm_kernel, COST)
    a, b = _ab()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_close(m.matmul(cuda_like(a), cuda_like(b)), a @ b, dtype=torch.float32)
    said = [str(w.message) for w in caught if "could not compile mm_kernel's TMA descriptor path" in str(w.message)]
    # Once per specialization (each config's tiles are one), in one text from one place: shown once under
    # Python's default warning filter.
    assert said and len(set(said)) == 1, [str(w.message) for w in caught]
    tried = [t for t in m.mm_kernel.attempts if t[-1] is True]
    assert tried, "descriptors were tried"
    timed = [t for t in m.timed if t[-1] is not True]
    assert timed and all(t[-1] is False for t in timed), m.timed  # every timed launch ran pointers
