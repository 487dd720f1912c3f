"""Pipeline stages in the tuning search: for a kernel with a loop Triton software-pipelines (the
converter marks it `k._c2t_pipelined = True`), the converted exhaustive_search times every config
at Triton's default num_stages, then the (at most 3) configs within 1.25x of the fastest again at
_C2T_SEARCH_STAGES, and later launches of the winning config's specialization use the winner's
stages; kernels without such a loop are timed once per config.

The search needs a CUDA device to time configs; here the device check and the timer are faked
(_c2t_device_ms returns a time per launched num_stages) and the kernel is a FakeKernel that runs
the interpreter's kernel and records each launch's num_stages.
"""

from __future__ import annotations

import types

import pytest

from c2t_interp import assert_close, convert, dev, load
from test_launch_retry import FakeKernel

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

# A tiled matrix product whose K loop Triton pipelines (cuTile source; ConstInt = ct.Constant[int]).
MM_KERNEL = '''
@ct.kernel
def mm_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(TM, TK))):
        x = ct.load(a, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(b, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(x, y, acc)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=acc)
'''

SRC = '''
from types import SimpleNamespace

import cuda.tile as ct
import torch
from cuda.tile.tune import exhaustive_search

ConstInt = ct.Constant[int]
_cache = {}


@ct.kernel
def rows_kernel(x, out, TILE: ConstInt):
    for r in range(ct.bid(0), ct.cdiv(x.shape[0], TILE), ct.num_blocks(0)):
        t = ct.load(x, index=(r,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(r,), tile=t * 2.0)


@ct.kernel
def flat_kernel(x, out, TILE: ConstInt):
    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(ct.bid(0),), tile=t * 2.0)


def tuned(x, kernel_name, tiles=(32, 64)):
    kernel = rows_kernel if kernel_name == "rows" else flat_kernel
    out = torch.empty_like(x)
    n = x.shape[0]
    grid = lambda c: (ct.cdiv(n, c.TILE),)
    key = (n, kernel_name, tiles)
    if key not in _cache:
        configs = [SimpleNamespace(TILE=t, num_worker_warps=4) for t in tiles]
        result = exhaustive_search(configs, torch.cuda.current_stream(), grid, kernel,
                                   lambda c: (x, out, c.TILE), lambda c: {"num_worker_warps": c.num_worker_warps})
        best = result.best.config
        _cache[key] = (best, kernel.replace_hints(num_worker_warps=best.num_worker_warps))
    best, hinted = _cache[key]
    ct.launch(torch.cuda.current_stream(), grid(best), hinted, (x, out, best.TILE))
    return out
'''


class TimedKernel(FakeKernel):
    """A FakeKernel whose launches the fake timer prices: `cost[(TILE, num_stages)]` ms."""

    def __init__(self, real, cost):
        super().__init__(real, limit=10**12)
        self.arg_names, self.cost = real.arg_names, cost
        for attr in ("_c2t_launcher", "_c2t_pipelined"):
            if hasattr(real, attr):
                setattr(self, attr, getattr(real, attr))


def load_for_search(src, name, tmp_path, monkeypatch, **torch_names):
    """(converted source, module) of `src` whose tuning search may run without a CUDA device: the
    search's device check passes, and the module's `torch` is a namespace of `torch_names` plus a
    current_stream() of None. The caller fakes the timer (_c2t_device_ms)."""
    code = convert(src, filename=f"{name}.py")
    m = load(code, tmp_path, name)
    # Triton's interpreter imports triton.experimental.gluon at its first launch, which asserts
    # TRITON_INTERPRET=1 while importing: imported here, before the variable is removed.
    import triton.experimental.gluon  # noqa: F401

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # read by the search only; kernels exist already
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    m.torch = types.SimpleNamespace(**torch_names, cuda=types.SimpleNamespace(current_stream=lambda: None))
    return code, m


@pytest.fixture
def mod(tmp_path, monkeypatch):
    # The search's device check and timer (no CUDA device here): each timed run is priced by the
    # fake kernel's cost table at the stages it launched with.
    code, m = load_for_search(SRC, "stage_search", tmp_path, monkeypatch, empty_like=torch.empty_like)

    def device_ms(fn):
        for k in (m.rows_kernel, m.flat_kernel):
            k.attempts.clear()
        fn()
        fn()
        (k,) = [k for k in (m.rows_kernel, m.flat_kernel) if k.attempts]
        return k.cost[k.attempts[-1]]

    m._c2t_device_ms = device_ms
    return code, m


def _x(n=300):
    return dev(torch.randn(n, generator=torch.Generator().manual_seed(n)))


def test_the_converter_marks_kernels_with_pipelined_loops(mod):
    code, _ = mod
    assert "rows_kernel._c2t_pipelined = True" in code  # a prefetching grid-stride loop
    assert "flat_kernel._c2t_pipelined" not in code     # no loop: stages change nothing
    assert "_C2T_SEARCH_STAGES = 4" in code


def test_more_stages_win_and_later_launches_keep_them(mod):
    _, m = mod
    # TILE=64 at 4 stages is the fastest of the four (config, stages) pairs.
    m.rows_kernel = TimedKernel(m.rows_kernel, {(32, None): 2.0, (32, 4): 3.0, (64, None): 1.5, (64, 4): 1.0})
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    x = _x()
    assert_close(m.tuned(x, "rows"), x * 2.0)
    (result,) = [v for k, v in m._cache.items()]
    assert result[0].TILE == 64
    # The op's own launch after the search: the winner's stages, for its specialization only.
    assert m.rows_kernel.attempts[-1] == (64, 4)
    m.rows_kernel.attempts.clear()
    assert_close(m.tuned(x, "rows"), x * 2.0)  # the cached choice: no search, the same stages
    assert m.rows_kernel.attempts == [(64, 4)]
    m.rows_kernel.attempts.clear()
    m.launch_rows_kernel((3,), x, torch.empty_like(x), 32)  # another specialization: Triton's default
    assert m.rows_kernel.attempts == [(32, None)]


def test_default_stages_win_when_faster(mod):
    _, m = mod
    m.rows_kernel = TimedKernel(m.rows_kernel, {(32, None): 1.0, (32, 4): 1.2, (64, None): 2.0, (64, 4): 0.5})
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    x = _x()
    assert_close(m.tuned(x, "rows", tiles=(32,)), x * 2.0)
    assert m.rows_kernel.attempts[-1] == (32, None)


def test_kernels_without_pipelined_loops_are_timed_once(mod):
    _, m = mod
    m.rows_kernel = TimedKernel(m.rows_kernel, {})
    m.flat_kernel = TimedKernel(m.flat_kernel, {(32, None): 2.0, (64, None): 1.0})
    timed = []
    device_ms = m._c2t_device_ms
    m._c2t_device_ms = lambda fn: timed.append(1) or device_ms(fn)
    x = _x()
    assert_close(m.tuned(x, "flat"), x * 2.0)
    assert len(timed) == 2  # one run per config
    assert m.flat_kernel.attempts[-1] == (64, None)


def test_a_k_loop_with_an_mma_is_marked():
    # Triton pipelines a loop with a tl.dot itself: num_stages applies, the search tries more.
    code = convert('''
import cuda.tile as ct

ConstInt = ct.Constant[int]


''' + MM_KERNEL + '''

@ct.kernel
def one_tile_kernel(a, b, c, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    x = ct.load(a, index=(ct.bid(0), 0), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(0, ct.bid(1)), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(x, y, ct.zeros((TM, TN), dtype=ct.float32)))
''', filename="mm.py")
    assert "mm_kernel._c2t_pipelined = True" in code
    assert "one_tile_kernel._c2t_pipelined" not in code  # an mma outside any loop


def test_searched_options_hold_per_shape_then_reuse_returns(tmp_path, monkeypatch):
    # A kernel with options a search chose launches with the choice for its shape: through kernel[grid]
    # once, then reused under the options chosen, then natively for that exact shape only (Triton's
    # specialization, which the native launch checks, does not see the shape a choice is for); once
    # a search keeps the launch's own options again, its launches are reused, then native.
    from test_fast_launch import _native_module

    m = _native_module(tmp_path, monkeypatch, src=SRC, kernel="rows_kernel")
    k = m.rows_kernel
    real = k.real
    k._c2t_launcher, k._c2t_pipelined = real._c2t_launcher, real._c2t_pipelined
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    m.torch = types.SimpleNamespace(empty_like=torch.empty_like, cuda=types.SimpleNamespace(current_stream=lambda: None))
    cost = {(32, None): 2.0, (32, 4): 3.0, (64, None): 1.5, (64, 4): 1.0}
    priced = []

    def device_ms(fn):
        n = len(k.jit_launches)
        fn()
        fn()
        assert len(k.jit_launches) == n + 2, "timed launches go through kernel[grid] at the stages asked"
        priced.append((k.jit_tiles[-1], k.jit_launches[-1]))
        return cost[priced[-1]]

    m._c2t_device_ms = device_ms
    k.jit_tiles = []
    run = k.__getitem__

    def getitem(grid):
        launch = run(grid)
        return lambda *a, **kw: (k.jit_tiles.append(a[-1]), launch(*a, **kw))[1]

    k.__getitem__ = getitem
    monkeypatch.setattr(type(k), "__getitem__", lambda self, grid: self.__dict__["__getitem__"](grid))
    x = _x()
    assert_close(m.tuned(x, "rows"), x * 2.0)
    # 32 is not within 1.25x of 64's 1.5 ms: only 64 is timed again, at 4 stages.
    assert priced == [(32, None), (64, None), (64, 4)]
    assert k.jit_launches[-1] == 4 and k.jit_tiles[-1] == 64  # the op's launch: compiled at the chosen stages
    jit, native, reused = len(k.jit_launches), len(k.native), len(k.reused)
    for _ in range(3):
        assert_close(m.tuned(x, "rows"), x * 2.0)
    assert k.jit_launches[jit:] == [] and len(k.reused) == reused + 1 and len(k.native) == native + 2, \
        "reused once, then native"
    (table,) = [t for _, t in k._c2t_compiled.values()]
    (staged,) = [entry for key, entry in table.items() if ("num_stages", 4) in key]
    assert "'num_stages': 4" in staged[3], "the kernel compiled at the chosen stages"
    assert k.native[-1]["compiled"] is staged[2] and "_c2t_fast" not in vars(k)
    y = _x(200)
    m.launch_rows_kernel((3,), y, torch.empty_like(y), 64)  # a shape never searched: Triton's default
    assert k.jit_launches[-1] is None, "not the other shape's kernel"
    jit = len(k.jit_launches)
    for _ in range(3):  # each shape natively with its own compiled kernel (y: once reused first)
        native = len(k.native)
        m.launch_rows_kernel((3,), y, torch.empty_like(y), 64)
        y_native = k.native[-1]["compiled"] if len(k.native) > native else None
        assert_close(m.tuned(x, "rows"), x * 2.0)
        assert k.native[-1]["compiled"] is staged[2]
    assert len(k.jit_launches) == jit and y_native is not None and y_native is not staged[2]
    assert len(k._c2t_fast_shapes) == 2
    # Another search of the same configs (another cache key) where the default stages win: the choice
    # is dropped and the kernel's launches are reused, then native, again.
    cost[(64, 4)] = 2.0
    assert_close(m.tuned(x, "rows", tiles=(64, 32)), x * 2.0)
    assert "_c2t_tuned_options" in vars(m) and m.rows_kernel not in m._c2t_tuned_options
    assert "_c2t_fast_shapes" not in vars(k), "the search dropped the shapes' native launches"
    native = len(k.native)
    for _ in range(3):
        assert_close(m.tuned(x, "rows", tiles=(64, 32)), x * 2.0)
    assert len(k.native) >= native + 2, "reused once, then native"
    assert m._c2t_stage_probe is None


def test_only_configs_close_to_the_fastest_are_timed_at_more_stages(mod):
    _, m = mod
    tiles = (16, 32, 64, 128, 256)
    cost = {(16, None): 1.0, (32, None): 1.1, (64, None): 1.2, (128, None): 1.24, (256, None): 3.0}
    cost.update({(t, 4): 0.9 + t / 1000 for t in tiles})
    m.rows_kernel = TimedKernel(m.rows_kernel, cost)
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    timed = []
    device_ms = m._c2t_device_ms

    def record(fn):
        ms = device_ms(fn)
        timed.append(m.rows_kernel.attempts[-1])
        return ms

    m._c2t_device_ms = record
    x = _x()
    assert_close(m.tuned(x, "rows", tiles=tiles), x * 2.0)
    # All five at the default; the three fastest of the four within 1.25x again at 4 stages (each a
    # compile; 128 is close too but past the cap, 256 is not close).
    assert timed == [(t, None) for t in tiles] + [(16, 4), (32, 4), (64, 4)]
    assert m.rows_kernel.attempts[-1] == (16, 4)


# Found by a hostile review of the first form: a second search over a tuned specialization, shapes
# sharing a config, and other threads' launches while a search times a config.

def test_a_second_search_times_the_default_stages_again(mod):
    _, m = mod
    m.rows_kernel = TimedKernel(m.rows_kernel, {(32, None): 2.0, (32, 4): 3.0, (64, None): 1.5, (64, 4): 1.0})
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    x = _x()
    m.tuned(x, "rows", tiles=(32, 64))  # TILE=64 at 4 stages wins and is kept
    timed = []
    device_ms = m._c2t_device_ms
    m._c2t_device_ms = lambda fn: (lambda ms: timed.append(m.rows_kernel.attempts[-1]) or ms)(device_ms(fn))
    m.tuned(x, "rows", tiles=(64, 32))  # another cache key, the same configs: timed as asked, not at the kept 4
    assert timed == [(64, None), (32, None), (64, 4)]
    assert m.rows_kernel.attempts[-1] == (64, 4)


def test_each_shape_keeps_its_own_searched_stages(mod):
    _, m = mod
    n = {}
    cost = {300: {(32, None): 3.0, (32, 4): 3.0, (64, None): 1.0, (64, 4): 2.0},
            600: {(32, None): 3.0, (32, 4): 3.0, (64, None): 2.0, (64, 4): 1.0}}
    m.rows_kernel = TimedKernel(m.rows_kernel, {})
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    device_ms = m._c2t_device_ms
    m._c2t_device_ms = lambda fn: (m.rows_kernel.__dict__.update(cost=cost[n["n"]]), device_ms(fn))[1]
    a, b = _x(300), _x(600)
    n["n"] = 300
    m.tuned(a, "rows")
    n["n"] = 600
    m.tuned(b, "rows")
    assert m.rows_kernel.attempts[-1] == (64, 4)
    m.rows_kernel.attempts.clear()
    m.tuned(a, "rows")  # 300's cached config: the stages its own search chose, not 600's
    assert m.rows_kernel.attempts == [(64, None)]


def test_other_threads_launches_while_a_config_is_timed(mod):
    import threading

    _, m = mod
    m.rows_kernel = TimedKernel(m.rows_kernel, {(32, None): 2.0, (32, 4): 3.0, (64, None): 1.5, (64, 4): 1.0,
                                                (16, None): 1.0, (16, 4): 1.0})
    m.flat_kernel = TimedKernel(m.flat_kernel, {})
    x, y = _x(), _x(200)
    device_ms, calls = m._c2t_device_ms, []

    def with_other_thread(fn):
        calls.append(1)
        ms = device_ms(fn)
        if len(calls) == 3:  # while the winner (TILE=64 at 4 stages) is timed: another thread's launch
            # of an untimed tile, and another thread's whole search of this module
            t = threading.Thread(target=lambda: (m.launch_rows_kernel((3,), x, torch.empty_like(x), 128),
                                                 m.tuned(y, "rows", tiles=(16,))))
            t.start()
            t.join()
        return ms

    m._c2t_device_ms = with_other_thread
    m.tuned(x, "rows")
    assert m.rows_kernel.attempts[-1] == (64, 4), "this search's winner applied"
    assert m._c2t_stage_probe is None
    m.rows_kernel.attempts.clear()
    m.launch_rows_kernel((3,), x, torch.empty_like(x), 128)
    assert m.rows_kernel.attempts == [(128, None)], "the other thread's launch was not recorded as timed"
