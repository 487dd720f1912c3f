"""The runtime's spill step (_c2t_spill_free): a kernel with tl.dot that the launcher's rule
gives 4 warps is compiled ahead (JITFunction.warmup) and, where it spills registers at 4 warps
(at least _C2T_SPILL_MIN_WORDS) and at most half as much at 8, launched at 8; the choice is
remembered per specialization. Measured on the H200
for cutile-python's fmha decode kernel (BENCHMARKS.md, s32 section).

Triton's CPU interpreter compiles nothing, so the kernel of a converted module is replaced by a
fake whose warmup reports the spills a compiled kernel would (CompiledKernel.n_spills after
_init_handles) and which runs the real kernel under the interpreter.
"""

from __future__ import annotations

import types

import pytest

from c2t_interp import assert_close, convert, dev, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)
import triton.language  # noqa: E402
from triton.runtime.errors import OutOfResources  # noqa: E402

from test_launch_retry import SRC, _Param  # noqa: E402  (the same one-kernel module)

class SpillingKernel:
    """Stands in for a @triton.jit kernel with tl.dot (the converter's _c2t_dot_tiles mark): compiled
    at w warps it spills spills[w] words per thread (0 if absent); at more than `shared_stages`
    pipeline stages (Triton's default is 3) it overflows shared memory. Records launches and
    compiles-ahead as (TILE, num_warps, num_stages)."""

    _c2t_dot_tiles = ((2, 2),)

    def __init__(self, real, spills, shared_stages=3):
        self.real, self.spills, self.shared_stages = real, spills, shared_stages
        ann = real.fn.__annotations__
        self.params = [_Param(ann.get(n) is triton.language.constexpr) for n in real.arg_names]
        self.launches, self.warmups = [], []

    def _fits(self, kwargs):
        stages = kwargs.get("num_stages", 3)
        if stages > self.shared_stages:
            raise OutOfResources(stages * 1024, self.shared_stages * 1024, "shared memory")

    def warmup(self, *args, grid, **kwargs):
        self.warmups.append((args[-1], kwargs["num_warps"], kwargs.get("num_stages")))
        compiled = types.SimpleNamespace(n_spills=None)

        def init():  # CompiledKernel._init_handles: loads the module, raises an overflow
            self._fits(kwargs)
            compiled.n_spills = self.spills.get(kwargs["num_warps"], 0)

        compiled._init_handles = init
        return compiled

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.launches.append((args[-1], kwargs.get("num_warps"), kwargs.get("num_stages")))
            self._fits(kwargs)
            kw = {k: v for k, v in kwargs.items() if k not in ("num_stages", "num_warps")}
            return self.real[grid](*args, **kw)

        return launch


@pytest.fixture
def mod(tmp_path):
    code = convert(SRC, filename="spill.py")
    assert "num_warps" in code and "def _c2t_spill_free(" in code, code
    m = load(code, tmp_path, "spill")
    m._c2t_spill_switch[:] = [True]  # whatever C2T_SPILL_WARPS says in the test's environment
    return m


def _x(n=300):
    return dev(torch.randn(n, generator=torch.Generator().manual_seed(n)))


def test_spilling_at_four_warps_launches_at_eight_and_remembers(mod):
    fake = SpillingKernel(mod.scale_kernel, {4: 296})  # fmha decode's 64 x 256 tiles on the H200
    mod.scale_kernel = fake
    x = _x()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.warmups == [(64, 4, None), (64, 8, None)]
    assert fake.launches == [(64, 8, None)]  # never launched at the spilling count
    fake.launches.clear()
    assert_close(mod.scale(_x(129), 64), _x(129) * 2.0)
    assert fake.warmups == [(64, 4, None), (64, 8, None)]  # decided once per specialization
    assert fake.launches in ([], [(64, 8, None)])  # reused (no kernel[grid]) or through it at 8
    assert list(next(iter(mod._c2t_spill_warps.values())).values()) == [(8, 296, 0, None, False)]  # warps, spills at 4, 8, with descriptors (none here)


@pytest.mark.parametrize("spills, launched", [
    ({4: 768, 8: 150}, 8),  # fmha decode's 64 x 256 tiles (ptxas: 3072 and 600 bytes per thread)
    ({4: 300, 8: 151}, 4),  # 8 warps spill more than half as much: the rule's 4
    ({4: 30, 8: 12}, 4),    # 64 x 128 tiles: 8 warps ran slower (below _C2T_SPILL_MIN_WORDS)
    ({}, 4),                # no spills: the rule's 4, one compile ahead
])
def test_the_rules_warps_stay_unless_eight_spill_none(mod, spills, launched):
    fake = SpillingKernel(mod.scale_kernel, spills)
    mod.scale_kernel = fake
    x = _x()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.launches == [(64, launched, None)]
    assert [w for _, w, _ in fake.warmups] == ([4, 8] if spills.get(4, 0) >= 128 else [4])


def test_spills_below_the_threshold_keep_the_rules_warps(mod):
    mod._C2T_SPILL_MIN_WORDS = 256
    fake = SpillingKernel(mod.scale_kernel, {4: 255, 8: 0})
    mod.scale_kernel = fake
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert fake.warmups == [(64, 4, None)] and fake.launches == [(64, 4, None)]


def test_callers_warps_and_kernels_without_dot_are_left_alone(mod):
    fake = SpillingKernel(mod.scale_kernel, {4: 304})
    mod.scale_kernel = fake
    x, out = _x(), dev(torch.empty(300))
    mod.launch_scale_kernel((5,), x, out, 64, num_warps=4)
    assert fake.warmups == [] and fake.launches == [(64, 4, None)]
    plain = SpillingKernel(fake.real, {4: 304})
    plain._c2t_dot_tiles = None  # no tl.dot: the tile rule holds as it is
    mod.scale_kernel = plain
    assert_close(mod.scale(x, 64), x * 2.0)
    assert plain.warmups == [] and [w for _, w, _ in plain.launches] == [4]


def test_switched_off_by_the_environment(mod):
    mod._c2t_spill_switch[:] = [False]  # C2T_SPILL_WARPS=0
    fake = SpillingKernel(mod.scale_kernel, {4: 304})
    mod.scale_kernel = fake
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert fake.warmups == [] and [w for _, w, _ in fake.launches] == [4]


def test_the_switch_reads_the_environment_once(mod, monkeypatch):
    mod._c2t_spill_switch.clear()
    monkeypatch.setenv("C2T_SPILL_WARPS", "off")
    assert mod._c2t_spill_step_on() is False
    monkeypatch.setenv("C2T_SPILL_WARPS", "1")
    assert mod._c2t_spill_step_on() is False  # read once per process


def test_the_stage_retry_decides_again_at_the_stages_that_fit(mod):
    # Three stages overflow shared memory when compiled ahead: the overflow goes to the stage retry
    # (2, then 1) as a launch's would, and the warps are decided at the stages launched.
    fake = SpillingKernel(mod.scale_kernel, {4: 304}, shared_stages=1)
    mod.scale_kernel = fake
    x = _x()
    with pytest.warns(UserWarning, match="num_stages=1"):
        assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.launches == [(64, 8, 1)]
    assert fake.warmups == [(64, 4, None), (64, 4, 2), (64, 4, 1), (64, 8, 1)]


def test_a_kernel_that_cannot_compile_ahead_launches_as_asked_once_decided(mod):
    # The interpreter's kernels have no JITFunction.warmup: launched at the rule's warps, and the
    # specialization is not tried again on later launches.
    fake = SpillingKernel(mod.scale_kernel, {4: 296})

    def no_warmup(*args, grid, **kwargs):
        fake.warmups.append("tried")
        raise AttributeError("warmup")

    fake.warmup = no_warmup
    mod.scale_kernel = fake
    for n in (300, 129):
        assert_close(mod.scale(_x(n), 64), _x(n) * 2.0)
    assert fake.warmups == ["tried"] and [w for _, w, _ in fake.launches] == [4, 4]


# ---------------------------------------------------------------------------
# The spill step with the runtime's other choices (hostile round, s32): the tuning search's choice,
# compiled-kernel reuse, the stage retry, a backend without spill counts.

SEARCH_SRC = '''
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


def tuned(x):
    out = torch.empty_like(x)
    n = x.shape[0]
    grid = lambda c: (ct.cdiv(n, c.TILE),)
    if n not in _cache:
        result = exhaustive_search([SimpleNamespace(TILE=64)], torch.cuda.current_stream(), grid, rows_kernel,
                                   lambda c: (x, out, c.TILE))
        _cache[n] = result.best.config
    best = _cache[n]
    ct.launch(torch.cuda.current_stream(), grid(best), rows_kernel, (x, out, best.TILE))
    return out
'''


def test_the_tuning_searchs_choice_launches_at_the_warps_it_timed(tmp_path, monkeypatch):
    # The search times its configs through the spill step (8 warps here) and keeps 4 stages; the
    # launches at its choice must keep the 8 warps it timed, not the rule's spilling 4.
    from test_stage_search import load_for_search

    code, m = load_for_search(SEARCH_SRC, "spill_search", tmp_path, monkeypatch, empty_like=torch.empty_like)
    assert "rows_kernel._c2t_pipelined = True" in code
    m._c2t_spill_switch[:] = [True]
    fake = SpillingKernel(m.rows_kernel, {4: 296}, shared_stages=10)
    fake.arg_names = m.rows_kernel.arg_names
    for attr in ("_c2t_launcher", "_c2t_pipelined"):  # what the search reads of a converted kernel
        setattr(fake, attr, getattr(m.rows_kernel, attr))
    m.rows_kernel = fake

    def device_ms(fn):  # 4 stages time fastest
        fake.launches.clear()
        fn()
        fn()
        return 0.5 if fake.launches[-1][2] == 4 else 1.0

    m._c2t_device_ms = device_ms
    x = _x()
    assert_close(m.tuned(x), x * 2.0)
    assert list(next(iter(m._c2t_tuned_options.values())).values()) == [{"num_stages": 4}]
    fake.launches.clear()
    assert_close(m.tuned(x), x * 2.0)
    assert fake.launches and all(w == 8 and s == 4 for _, w, s in fake.launches), fake.launches


def test_a_later_launch_keeps_the_stages_the_retry_found(mod):
    # Three stages overflow: the first launch settles on 8 warps at 2 stages. A later launch that is
    # not reused goes there straight, without overflowing (and warning) again.
    fake = SpillingKernel(mod.scale_kernel, {4: 304}, shared_stages=2)
    mod.scale_kernel = fake
    with pytest.warns(UserWarning, match="num_stages=2"):
        assert_close(mod.scale(_x(), 64), _x() * 2.0)
    fake.launches.clear()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(mod.scale(_x(129), 64), _x(129) * 2.0)
    assert fake.launches == [(64, 8, 2)]


def test_a_backend_without_spill_counts_keeps_the_rules_warps(mod):
    fake = SpillingKernel(mod.scale_kernel, {})
    fake.spills = types.SimpleNamespace(get=lambda warps, default: None)  # n_spills None
    mod.scale_kernel = fake
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert [w for _, w, _ in fake.launches] == [4]


@pytest.mark.parametrize("callers_first", [False, True])
def test_the_callers_four_warps_and_the_rules_are_reused_apart(tmp_path, monkeypatch, callers_first):
    # The rule's 4 (_C2TRuleWarps) equals a caller's num_warps=4 but may launch at the spill step's 8:
    # each reuses its own compiled kernel, whichever launched first.
    from test_launch_reuse import FakeJIT, load_with_fake_driver

    class SpillJIT(FakeJIT):
        _c2t_dot_tiles = ((2, 2),)

        def __init__(self, real):
            super().__init__(real)
            self.compiled_warps = []

        def warmup(self, *args, grid, **kwargs):
            return types.SimpleNamespace(_init_handles=lambda: None, n_spills={4: 296}.get(kwargs["num_warps"], 0))

        def __getitem__(self, grid):
            inner = super().__getitem__(grid)

            def run(*args, **kwargs):
                self.compiled_warps.append(kwargs.get("num_warps"))
                return inner(*args, **kwargs)

            return run

    m = load_with_fake_driver(tmp_path, monkeypatch, f"spill_reuse_{callers_first}", SpillJIT)
    m._c2t_spill_switch[:] = [True]
    x = dev(torch.randn(256))
    order = [{"num_warps": 4}, {}] if callers_first else [{}, {"num_warps": 4}]
    for options in order + order:  # each twice: the second time reused
        out = dev(torch.empty(256))
        m.launch_scale_kernel((4,), x, out, 64, **options)
        assert_close(out, x * 2)
    assert m.scale_kernel.compiled_warps == ([4, 8] if callers_first else [8, 4])
