"""CTA-cluster configs and warps in the tuning search (runtime: _c2t_cluster_share,
_c2t_exhaustive_search).

cuTile runs a config with num_ctas=N as a cluster of N CTAs sharing its tile; Triton 3.6 runs no
clusters, so the converted search also times the config's per-program share: the matrix product's
rows or its columns halved (4 CTAs: both) and num_ctas 1, found by trying the config's fields through
the host code's own args_fn / hints_fn. For kernels with matrix products whose warps the launcher's
rule chose (8), the configs close to the fastest are timed at 16 warps too, and the winner's warps
are kept for later launches. Here the device check and the timer are faked (each timed run is
priced by its tile rows, stages and warps) and the kernel runs in Triton's interpreter, so the
product is checked against torch on sizes that are not multiples of the tiles.
"""

from __future__ import annotations

import pytest

from c2t_interp import assert_close, dev
from test_launch_retry import FakeKernel
from triton.runtime.errors import OutOfResources
from test_stage_search import MM_KERNEL, load_for_search

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

SRC = '''
from types import SimpleNamespace

import cuda.tile as ct
import torch
from cuda.tile.tune import exhaustive_search

ConstInt = ct.Constant[int]
_cache = {}


''' + MM_KERNEL + '''

def configs():
    yield SimpleNamespace(TILE_M=128, TILE_N=128, TILE_K=32, num_ctas=1, occupancy=1)
    yield SimpleNamespace(TILE_M=512, TILE_N=128, TILE_K=32, num_ctas=2, occupancy=1)


def matmul(a, b, space=None, hints=None):
    M, N = a.shape[0], b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    space = list(space or configs())
    key = (M, N, len(space))
    if key not in _cache:
        result = exhaustive_search(
            space, torch.cuda.current_stream(),
            lambda cfg: (ct.cdiv(M, cfg.TILE_M), ct.cdiv(N, cfg.TILE_N), 1),
            mm_kernel,
            lambda cfg: (a, b, c, cfg.TILE_M, cfg.TILE_N, cfg.TILE_K),
            hints or (lambda cfg: {"num_ctas": cfg.num_ctas, "occupancy": cfg.occupancy}))
        best = result.best.config
        _cache[key] = (best, mm_kernel.replace_hints(num_ctas=best.num_ctas), result)
    best, hinted, _ = _cache[key]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(M, best.TILE_M), ct.cdiv(N, best.TILE_N), 1), hinted,
              (a, b, c, best.TILE_M, best.TILE_N, best.TILE_K))
    return c
'''


class PricedKernel(FakeKernel):
    """Runs the interpreter's kernel; records each launch's (TM, TN, num_stages, num_warps) and
    prices it from `cost` (ms; unknown ones 10)."""

    def __init__(self, real, cost, overflows=lambda tm, stages: False):
        super().__init__(real, limit=10**12)
        self.arg_names, self.cost, self.overflows = real.arg_names, cost, overflows
        for attr in ("_c2t_launcher", "_c2t_pipelined", "_c2t_dot_tiles"):
            if hasattr(real, attr):
                setattr(self, attr, getattr(real, attr))

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            tm, tn = args[-3], args[-2]  # TM, TN, TK are the last positional arguments
            assert type(kwargs.get("num_warps", 4)) is int, "Triton gets plain ints, not the rule's marker"
            self.attempts.append((tm, tn, kwargs.get("num_stages"), kwargs.get("num_warps")))
            if self.overflows(tm, kwargs.get("num_stages")):
                raise OutOfResources(10**6, 10**5, "shared memory")
            kw = {k: v for k, v in kwargs.items() if k not in ("num_stages", "num_warps")}
            return self.real[grid](*args, **kw)

        return launch


def priced_search(src, name, tmp_path, monkeypatch, empty=torch.empty):
    """(code, module) of `src` (a matmul with kernel mm_kernel) whose search's timer prices each
    timed run from the PricedKernel the test installs as m.mm_kernel, and records it in m.timed."""
    code, m = load_for_search(src, name, tmp_path, monkeypatch, empty=empty, float32=torch.float32)
    m.timed = []

    def device_ms(fn):
        m.mm_kernel.attempts.clear()
        fn()
        attempt = m.mm_kernel.attempts[-1]
        m.timed.append(attempt)
        return m.mm_kernel.cost.get(attempt, 10.0)

    m._c2t_device_ms = device_ms
    return code, m


@pytest.fixture
def mod(tmp_path, monkeypatch):
    return priced_search(SRC, "cluster_share", tmp_path, monkeypatch)


def _ab(M=300, N=200, K=70):
    g = torch.Generator().manual_seed(M * N + K)
    return torch.randn((M, K), generator=g), torch.randn((K, N), generator=g)


def test_the_converter_marks_the_accumulators_tile_parameters(mod):
    code, _ = mod
    assert "mm_kernel._c2t_dot_tiles = ((3, 4),)" in code, code  # TM, TN: positions 3 and 4 of (a, b, c, TM, TN, TK)


@pytest.mark.parametrize("split", ["rows", "columns"])
def test_the_cluster_configs_shares_are_searched_and_win(mod, split):
    _, m = mod
    # The rule's warps: 4 for 128x128, 8 for 256x128 and 512x64 (32768 accumulator elements) and 512x128.
    win = (256, 128) if split == "rows" else (512, 64)
    m.mm_kernel = PricedKernel(m.mm_kernel, {(128, 128, None, 4): 2.0, (512, 128, None, 8): 5.0,
                                             (256, 128, None, 8): 1.5, (512, 64, None, 8): 1.5, (*win, None, 8): 1.0})
    a, b = _ab()
    assert_close(m.matmul(dev(a), dev(b)), a @ b, dtype=torch.float32)
    best, _, result = m._cache[(300, 200, 2)]
    assert (best.TILE_M, best.TILE_N, best.TILE_K, best.num_ctas, best.occupancy) == (*win, 32, 1, 1)
    # The two configs as given, then the 2-CTA config's shares: rows halved, columns halved.
    assert [t[:2] for t in m.timed[:4]] == [(128, 128), (512, 128), (256, 128), (512, 64)]
    assert len(result.successes) == 4
    # The user's configs are not changed.
    assert [c.TILE_M for c in m.configs()] == [128, 512]


def test_more_warps_are_timed_for_close_configs_and_kept(mod):
    _, m = mod
    cost = {(128, 128, None, 4): 2.0, (512, 128, None, 8): 9.0, (256, 128, None, 8): 1.9, (512, 64, None, 8): 9.0,
            (256, 128, 4, 8): 2.5, (256, 128, None, 16): 1.5, (128, 128, 4, 4): 2.2}
    m.mm_kernel = PricedKernel(m.mm_kernel, cost)
    a, b = _ab()
    assert_close(m.matmul(dev(a), dev(b)), a @ b, dtype=torch.float32)
    # Close to the fastest (1.9): 128x128 (2.0) and the rows share; 4 stages for both, then 16 warps
    # for the share only (128x128 chose 4 warps, which the search does not change).
    assert m.timed[4:] == [(256, 128, 4, 8), (128, 128, 4, 4), (256, 128, None, 16)], m.timed
    m.mm_kernel.attempts.clear()
    assert_close(m.matmul(dev(a), dev(b)), a @ b, dtype=torch.float32)  # the cached choice
    assert m.mm_kernel.attempts == [(256, 128, None, 16)], "the searched warps are kept for the op's launches"
    m.mm_kernel.attempts.clear()
    c = dev(torch.empty(300, 200))
    m.launch_mm_kernel((3, 2, 1), dev(a), dev(b), c, 128, 128, 32)  # another specialization: its own warps
    assert m.mm_kernel.attempts == [(128, 128, None, 4)]


def test_blackwell_searches_no_16_warps(mod, monkeypatch):
    # On sm_100 Triton 3.6 compiles tl.dot at 16 warps to mma.sync, not tcgen05 (s36's compile census):
    # the search times the other count on Hopper only. The device is stood in for (no GPU here).
    _, m = mod
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    for capability, more in (((9, 0), 16), ((10, 0), None), ((12, 0), None)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, c=capability: c)
        assert m._c2t_more_warps(8) == more, capability
    assert m._c2t_more_warps(4) is None  # 4 warps: no other count anywhere


def test_hinted_warps_are_not_searched(mod):
    _, m = mod
    m.mm_kernel = PricedKernel(m.mm_kernel, {(256, 128, None, 8): 1.0, (256, 128, None, 16): 0.5})
    a, b = _ab()
    hints = lambda cfg: {"num_ctas": cfg.num_ctas, "num_worker_warps": 8}
    m.matmul(dev(a), dev(b), space=[m.SimpleNamespace(TILE_M=256, TILE_N=128, TILE_K=32, num_ctas=1, occupancy=1)],
             hints=hints)
    assert all(w == 8 for *_, w in m.timed), m.timed


def _grid(cfg, M=1000, N=1000):
    return (-(-M // cfg.TILE_M), -(-N // cfg.TILE_N), 1)


# Configs whose shares cannot be made, or must not be: each is searched as given only.
NO_SHARE = {
    "no cluster": (lambda cfg: {"num_ctas": 1}, [("TILE_M", 512), ("num_ctas", 1)]),
    "num_ctas a literal": (lambda cfg: {"num_ctas": 2}, []),
    "rows and columns below 128": (None, [("TILE_M", 64), ("TILE_N", 64)]),
    "rows and columns not fields": (None, [("TILE_M", 200), ("TILE_N", 200)]),
}


@pytest.mark.parametrize("case", sorted(NO_SHARE))
def test_configs_without_a_share(mod, case):
    _, m = mod
    hints, fields = NO_SHARE[case]
    cfg = m.SimpleNamespace(TILE_M=512, TILE_N=128, TILE_K=32, num_ctas=2, occupancy=1)
    for f, v in fields:
        setattr(cfg, f, v)
    args_fn = lambda c: (None, None, None, c.TILE_M, c.TILE_N, c.TILE_K)
    if case == "rows and columns not fields":
        args_fn = lambda c: (None, None, None, 256, 256, c.TILE_K)  # literals
    shares = m._c2t_cluster_shares(cfg, m.mm_kernel, _grid, args_fn,
                                   hints or (lambda c: {"num_ctas": c.num_ctas, "occupancy": c.occupancy}))
    assert shares == []


def test_only_the_split_that_can_be_made(mod):
    _, m = mod
    cfg = m.SimpleNamespace(TILE_M=256, TILE_N=64, TILE_K=64, num_ctas=2)
    (share,) = m._c2t_cluster_shares(cfg, m.mm_kernel, _grid, lambda c: (None, None, None, c.TILE_M, c.TILE_N, c.TILE_K),
                                     lambda c: {"num_ctas": c.num_ctas})
    assert vars(share) == {"TILE_M": 128, "TILE_N": 64, "TILE_K": 64, "num_ctas": 1}  # 64 columns: not split


def test_a_four_cta_cluster_halves_rows_and_columns(mod):
    _, m = mod
    cfg = m.SimpleNamespace(TILE_M=256, TILE_N=256, TILE_K=64, num_ctas=4, occupancy=1)
    (share,) = m._c2t_cluster_shares(cfg, m.mm_kernel, _grid, lambda c: (None, None, None, c.TILE_M, c.TILE_N, c.TILE_K),
                                     lambda c: {"num_ctas": c.num_ctas})
    assert vars(share) == {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64, "num_ctas": 1, "occupancy": 1}
    assert cfg.TILE_M == 256 and cfg.num_ctas == 4  # a copy


# Found by a hostile review of the first form.

def test_a_callers_own_warps_are_kept(mod):
    _, m = mod
    m.mm_kernel = PricedKernel(m.mm_kernel, {(128, 128, None, 4): 2.0, (256, 128, None, 8): 1.9,
                                             (256, 128, None, 16): 1.5})
    a, b = _ab()
    m.matmul(dev(a), dev(b))  # 256x128 at 16 warps wins for the rule's 8
    m.mm_kernel.attempts.clear()
    c = dev(torch.empty(300, 200))
    m.launch_mm_kernel((2, 2, 1), dev(a), dev(b), c, 256, 128, 32, num_warps=8)  # the caller's 8: kept
    m._c2t_launch((2, 2, 1), m._c2t_kernel(m.mm_kernel, num_worker_warps=8), dev(a), dev(b), c, 256, 128, 32)
    assert [w for *_, w in m.mm_kernel.attempts] == [8, 8]
    assert_close(c, a @ b, dtype=torch.float32)
    # A search of a kernel object whose hints fix its warps times no other count.
    m.timed.clear()
    m._c2t_exhaustive_search([m.SimpleNamespace(TILE_M=256, TILE_N=128, TILE_K=32, num_ctas=1)], None, _grid,
                             m._c2t_kernel(m.mm_kernel, num_worker_warps=8),
                             lambda cfg: (dev(a), dev(b), c, cfg.TILE_M, cfg.TILE_N, cfg.TILE_K), quiet=True)
    assert all(w == 8 for *_, w in m.timed), m.timed


def test_the_stages_the_retry_chose_are_kept_with_the_warps(mod):
    _, m = mod
    cost = {(128, 128, None, 4): 2.0, (256, 128, 2, 8): 1.9, (256, 128, 2, 16): 1.5, (512, 128, 1, 8): 9.0,
            (512, 64, 1, 8): 9.0}
    m.mm_kernel = PricedKernel(m.mm_kernel, cost, overflows=lambda tm, stages: tm >= 256 and stages is None)
    a, b = _ab()
    m.matmul(dev(a), dev(b))
    m.mm_kernel.attempts.clear()
    assert_close(m.matmul(dev(a), dev(b)), a @ b, dtype=torch.float32)
    assert m.mm_kernel.attempts == [(256, 128, 2, 16)], "what was timed: 2 stages (the retry's) at 16 warps"


def test_a_searched_choice_holds_for_its_shape_only(mod):
    _, m = mod
    m.mm_kernel = PricedKernel(m.mm_kernel, {(128, 128, None, 4): 2.0, (256, 128, None, 8): 1.9,
                                             (256, 128, None, 16): 1.5})
    a, b = _ab()
    m.matmul(dev(a), dev(b))
    a2, b2 = _ab(M=520)
    c2 = dev(torch.empty(520, 200))
    m.mm_kernel.attempts.clear()
    m.launch_mm_kernel((3, 2, 1), dev(a2), dev(b2), c2, 256, 128, 32)  # same tiles, a shape never searched
    assert m.mm_kernel.attempts == [(256, 128, None, 8)]
    assert_close(c2, a2 @ b2, dtype=torch.float32)


FULL_ROW = SRC.replace("ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc)",
                       "ct.store(c, index=(ct.bid(0), 0), tile=acc)").replace(
    "y = ct.load(b, index=(k, ct.bid(1))", "y = ct.load(b, index=(k, 0)").replace(
    "lambda cfg: (ct.cdiv(M, cfg.TILE_M), ct.cdiv(N, cfg.TILE_N), 1)", "lambda cfg: (ct.cdiv(M, cfg.TILE_M), 1, 1)")


def test_no_share_where_the_grid_does_not_spread_the_halved_tile(tmp_path, monkeypatch):
    # One program covers a whole row block (TILE_N >= N): halving TILE_N would leave columns unwritten.
    _, m = priced_search(FULL_ROW, "full_row", tmp_path, monkeypatch)
    m.mm_kernel = PricedKernel(m.mm_kernel, {(256, 256, None, 8): 2.0, (256, 128, None, 8): 1.0,
                                             (128, 256, None, 8): 1.5})
    a, b = _ab(M=300, N=256, K=70)
    out = m.matmul(dev(a), dev(b), space=[m.SimpleNamespace(TILE_M=256, TILE_N=256, TILE_K=32, num_ctas=2, occupancy=1)])
    assert_close(out, a @ b, dtype=torch.float32)
    assert {t[:2] for t in m.timed} == {(256, 256), (128, 256)}, m.timed  # the rows share only


def test_a_share_the_host_code_cannot_take_is_a_failed_config(mod):
    _, m = mod
    m.mm_kernel = PricedKernel(m.mm_kernel, {(128, 128, None, 4): 2.0, (512, 128, None, 8): 3.0})
    kernels = {(128, 128): m.mm_kernel, (512, 128): m.mm_kernel}  # one kernel object per listed tile
    a, b = _ab()
    c = dev(torch.empty(300, 200))
    result = m._c2t_exhaustive_search(
        [m.SimpleNamespace(TILE_M=128, TILE_N=128, TILE_K=32, num_ctas=1),
         m.SimpleNamespace(TILE_M=512, TILE_N=128, TILE_K=32, num_ctas=2)], None, lambda cfg: _grid(cfg, 300, 200),
        lambda cfg: kernels[(cfg.TILE_M, cfg.TILE_N)], lambda cfg: (dev(a), dev(b), c, cfg.TILE_M, cfg.TILE_N, cfg.TILE_K),
        lambda cfg: {"num_ctas": cfg.num_ctas}, quiet=True)
    assert (result.best.config.TILE_M, result.best.config.TILE_N) == (128, 128)
    assert len(result.successes) == 2 and [f[1] for f in result.failures] == [KeyError, KeyError]
