"""The spill step's descriptors (s33): a kernel with tl.dot that spills at the launcher rule's 4
warps (test_spill_warps.py) and has a TMA descriptor path is also compiled ahead with descriptors at 4
where the launch's tensors allow them (the launcher's checks), and takes them where they spill at most
half as much as pointers there. cutile-python's fmha decode at 64 x 256 tiles: ptxas (sm_90, CPU) 768
words through pointers at 4 warps, 150 at 8, 98 with descriptors at 4; on the H200 296 / 40 / 0, and
descriptors at 4 ran 27.2 us where pointers at 8 ran 51.4 (b=8 GQA; BENCHMARKS.md, s33).

Kernels are faked as in test_spill_warps.py (spills reported by warmup, the real kernel run by the
interpreter); tensors claim to be on CUDA (_FakeCuda) so that the launcher's descriptor checks decide.
"""

from __future__ import annotations

import threading
import types
from types import SimpleNamespace

import pytest

from c2t_interp import assert_close, convert, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)
from triton.runtime.errors import OutOfResources  # noqa: E402

from test_spill_warps import SpillingKernel  # noqa: E402

from test_cluster_share_search import SRC as MM_SRC  # noqa: E402  (a matmul whose kernel has a descriptor path)
from test_tma_interpreter import _FakeCuda  # noqa: E402


def _cuda_like(t):
    return t.as_subclass(_FakeCuda)


def _mm_inputs(K=72):
    # K = 72 fp32: 288-byte rows of a (a multiple of 16: descriptors allowed); 70: 280 bytes, not allowed.
    g = torch.Generator().manual_seed(K)
    return torch.randn((300, K), generator=g), torch.randn((K, 200), generator=g)


class DescribedSpillingKernel(SpillingKernel):
    """SpillingKernel whose spills are keyed by (num_warps, USE_TMA); records warmups and launches as
    (num_warps, USE_TMA), with num_stages too where `stages` is set. shared_stages: the most pipeline
    stages that fit in shared memory, per path ({USE_TMA: stages})."""

    def __init__(self, real, spills, shared_stages=None, stages=False):
        super().__init__(real, spills)
        self.path_stages, self.stages = shared_stages or {False: 3, True: 3}, stages

    def _path(self, kwargs):
        path = (kwargs["num_warps"], kwargs.get("USE_TMA", False))
        return (*path, kwargs.get("num_stages")) if self.stages else path

    def _fits_path(self, kwargs):
        self.shared_stages = self.path_stages[bool(kwargs.get("USE_TMA"))]
        self._fits(kwargs)

    def warmup(self, *args, grid, **kwargs):
        self.warmups.append(self._path(kwargs))
        compiled = types.SimpleNamespace(n_spills=None)

        def init():
            self._fits_path(kwargs)
            compiled.n_spills = self.spills.get((kwargs["num_warps"], kwargs.get("USE_TMA", False)), 0)

        compiled._init_handles = init
        return compiled

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.launches.append(self._path(kwargs))
            self._fits_path(kwargs)
            kw = {k: v for k, v in kwargs.items() if k not in ("num_stages", "num_warps")}
            return self.real[grid](*args, **kw)

        return launch


@pytest.fixture
def mm(tmp_path):
    code = convert(MM_SRC, filename="spill_mm.py")
    assert "_c2t_spill_tma_open(mm_kernel, options)" in code, code
    m = load(code, tmp_path, "spill_mm")
    m._c2t_spill_switch[:] = [True]
    return m


def _mm(m, a, b, **options):
    c = _cuda_like(torch.empty(300, 200))
    m.launch_mm_kernel((3, 2, 1), _cuda_like(a), _cuda_like(b), c, 128, 128, 32, **options)
    assert_close(c, a @ b, dtype=torch.float32)


FMHA_DECODE = {(4, False): 768, (8, False): 150, (4, True): 98}


def test_descriptors_at_the_rules_warps_where_they_spill_at_most_half(mm):
    fake = DescribedSpillingKernel(mm.mm_kernel, FMHA_DECODE)
    mm.mm_kernel = fake
    a, b = _mm_inputs()
    _mm(mm, a, b)
    assert fake.warmups == [(4, False), (8, False), (4, True)]
    assert fake.launches == [(4, True)]  # the descriptor path, at the rule's 4 warps
    assert list(next(iter(mm._c2t_spill_warps.values())).values()) == [(8, 768, 150, 98, True)]
    fake.launches.clear()
    _mm(mm, a, b)  # decided: no compile ahead, descriptors again (never the pointer launch's reuse)
    assert len(fake.warmups) == 3 and fake.launches == [(4, True)]


def test_tensors_that_do_not_allow_descriptors_take_pointers_at_the_steps_warps(mm):
    fake = DescribedSpillingKernel(mm.mm_kernel, FMHA_DECODE)
    mm.mm_kernel = fake
    a, b = _mm_inputs()
    _mm(mm, a, b)
    fake.launches.clear()
    a70, b70 = _mm_inputs(70)  # the same specialization, 280-byte rows: the launcher's check says no
    _mm(mm, a70, b70)
    _mm(mm, a, b)  # and descriptors again where they are allowed
    _mm(mm, a, b, use_tma=False)  # the caller's pointers: at the step's 8 warps
    assert fake.launches == [(8, False), (4, True), (8, False)]
    assert len(fake.warmups) == 3


def test_a_first_launch_without_descriptors_decides_pointers_for_good(mm):
    fake = DescribedSpillingKernel(mm.mm_kernel, FMHA_DECODE)
    mm.mm_kernel = fake
    a70, b70 = _mm_inputs(70)
    _mm(mm, a70, b70)
    a, b = _mm_inputs()
    _mm(mm, a, b)
    assert fake.warmups == [(4, False), (8, False)] and fake.launches == [(8, False), (8, False)]


@pytest.mark.parametrize("spills, launched", [
    ({(4, False): 300, (8, False): 100, (4, True): 151}, (8, False)),  # descriptors spill more than half
    ({(4, False): 300, (8, False): 200, (4, True): 200}, (4, False)),  # neither halves: the rule's 4
    ({(4, False): 100, (4, True): 0}, (4, False)),                      # below the threshold: nothing tried
])
def test_descriptors_only_where_they_halve_the_spills(mm, spills, launched):
    fake = DescribedSpillingKernel(mm.mm_kernel, spills)
    mm.mm_kernel = fake
    a, b = _mm_inputs()
    _mm(mm, a, b)
    assert fake.launches == [launched]
    assert (4, True) in fake.warmups or spills[(4, False)] < 128


def test_descriptors_take_the_stages_that_fit_them(mm):
    # fmha decode at 64 x 256 (ptxas, sm_90): two stages overflow shared memory through pointers (the
    # retry settles on one) and fit with descriptors, which the later launches find for themselves.
    fake = DescribedSpillingKernel(mm.mm_kernel, FMHA_DECODE, shared_stages={False: 1, True: 2}, stages=True)
    mm.mm_kernel = fake
    a, b = _mm_inputs()
    with pytest.warns(UserWarning, match="num_stages=1"):
        _mm(mm, a, b)
    assert fake.warmups == [(4, False, None), (4, False, 2), (4, False, 1), (8, False, 1), (4, True, 1)]
    assert fake.launches == [(4, True, 1)]  # the deciding launch: at the stages it was decided at
    with pytest.warns(UserWarning, match="num_stages=2"):
        _mm(mm, a, b)
    _mm(mm, a, b)
    assert fake.launches == [(4, True, 1), (4, True, None), (4, True, 2), (4, True, 2)]


def test_descriptor_overflow_keeps_pointers(mm):
    # The descriptor path's compile ahead fails (e.g. its shared memory does not fit): pointers.
    fake = DescribedSpillingKernel(mm.mm_kernel, FMHA_DECODE)
    warmup = fake.warmup

    def overflowing(*args, grid, **kwargs):
        if kwargs.get("USE_TMA"):
            raise OutOfResources(300000, 232448, "shared memory")
        return warmup(*args, grid=grid, **kwargs)

    fake.warmup = overflowing
    mm.mm_kernel = fake
    a, b = _mm_inputs()
    _mm(mm, a, b)
    assert fake.launches == [(8, False)]


def test_the_descriptor_kernel_is_never_reused_for_a_pointer_launch(tmp_path, monkeypatch):
    # The launch that chose descriptors ran under the pointer path's options (the launcher asked for
    # pointers): its compiled kernel must not be kept for them. A later launch whose tensors do not
    # allow descriptors, the same specialization otherwise, would reuse it on misaligned rows.
    from test_launch_reuse import load_with_fake_driver

    SpillJIT = _spill_jit()
    m = load_with_fake_driver(tmp_path, monkeypatch, "spill_tma_reuse", SpillJIT, src=MM_SRC, kernel="mm_kernel")
    m._c2t_spill_switch[:] = [True]
    a, b = _mm_inputs()
    a70, b70 = _mm_inputs(70)
    for x, y in ((a, b), (a70, b70), (a, b), (a70, b70), (a, b)):
        _mm(m, x, y)
    k = m.mm_kernel
    # Descriptors at the rule's 4: the first launch decides (its kernel kept under no options: it ran
    # under the pointer path's), the third is kept under the descriptors' own options and the fifth
    # reuses it. Pointers at the step's 8 for the 280-byte rows: compiled by the second launch, reused
    # by the fourth (after the launcher's check), never natively.
    assert (k.paths, k.reused_paths) == ([(4, True), (8, False), (4, True)], [False, True])
    assert "_c2t_fast" not in vars(k) or vars(k)["_c2t_fast"][2].get("USE_TMA"), vars(k).get("_c2t_fast")


# ---------------------------------------------------------------------------
# Hostile round (s33): threads, the tuning search, reuse of pointer launches, the allocator.

def _tagged_compiled_type():
    """test_launch_reuse's FakeCompiled, remembering whether it was compiled with descriptors and
    recording each reuse's path (USE_TMA) in jit.reused_paths."""
    from test_launch_reuse import FakeCompiled

    class TaggedCompiled(FakeCompiled):
        def __init__(self, jit):
            super().__init__(jit)
            self.tma = jit.compiling_tma

        @property
        def run(self):
            inner = FakeCompiled.run.fget(self)

            def launch(*args):
                self.jit.reused_paths.append(self.tma)
                return inner(*args)

            return launch

    return TaggedCompiled


def _spill_jit(hooks=None):
    """A FakeJIT (test_launch_reuse.py: compiled-kernel reuse as Triton's) spilling as FMHA_DECODE;
    hooks(phase, kwargs) runs at each compile ahead ("warmup"), before each launch ("run") and after it
    ("ran")."""
    from test_launch_reuse import FakeJIT

    tagged = _tagged_compiled_type()

    class SpillJIT(FakeJIT):
        _c2t_dot_tiles = ((3, 4),)

        def __init__(self, real):
            super().__init__(real)
            self.compiled_type, self.paths, self.reused_paths = tagged, [], []

        def warmup(self, *args, grid, **kwargs):
            if hooks:
                hooks("warmup", kwargs)
            path = (kwargs["num_warps"], kwargs.get("USE_TMA", False))
            return types.SimpleNamespace(_init_handles=lambda: None, n_spills=FMHA_DECODE.get(path, 0))

        def __getitem__(self, grid):
            inner = super().__getitem__(grid)

            def run(*args, **kwargs):
                if hooks:
                    hooks("run", kwargs)
                self.compiling_tma = kwargs.get("USE_TMA")
                self.paths.append((kwargs.get("num_warps"), kwargs.get("USE_TMA")))
                try:
                    return inner(*args, **kwargs)
                finally:
                    if hooks:
                        hooks("ran", kwargs)

            return run

    return SpillJIT


def test_a_race_between_deciding_launches_never_keeps_descriptors_for_pointers(tmp_path, monkeypatch):
    # Thread B (280-byte rows) is inside the spill step's compiles when thread A (288-byte rows) decides on
    # descriptors and launches; B then writes its own decision (pointers). A's descriptor kernel must not
    # be kept under the pointer path's options, where a misaligned or use_tma=False launch would reuse it:
    # what a launch took is what run() reports, not the shared table read afterwards (it was).
    from test_launch_reuse import load_with_fake_driver

    a_launching, b_inside, b_done = threading.Event(), threading.Event(), threading.Event()

    def hooks(phase, kwargs):
        me = threading.current_thread().name
        if phase == "warmup" and me == "B" and not b_inside.is_set():
            b_inside.set()
            assert a_launching.wait(10)
        if phase == "warmup" and me == "A":
            assert b_inside.wait(10)
        if phase == "run" and me == "A":
            a_launching.set()
            assert b_done.wait(10)  # one interpreter run at a time
        if phase == "ran" and me == "B":
            b_done.set()

    m = load_with_fake_driver(tmp_path, monkeypatch, "spill_race", _spill_jit(hooks), src=MM_SRC, kernel="mm_kernel")
    m._c2t_spill_switch[:] = [True]
    errors = []

    def go(K):
        try:
            _mm(m, *_mm_inputs(K))
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    ta, tb = threading.Thread(target=go, args=(72,), name="A"), threading.Thread(target=go, args=(70,), name="B")
    tb.start()
    ta.start()
    ta.join()
    tb.join()
    assert not errors, errors
    k = m.mm_kernel
    assert sorted(k.paths) == [(4, True), (8, False)], k.paths
    k.reused_paths.clear()
    _mm(m, *_mm_inputs(70))
    _mm(m, *_mm_inputs(72), use_tma=False)
    assert True not in k.reused_paths, k.reused_paths


@pytest.mark.parametrize("options", [{"use_tma": False}, {"num_warps": 4}, {"num_warps": 4, "use_tma": False}])
@pytest.mark.parametrize("step_chose_tma", [False, True])
def test_pointer_launches_are_reused_whatever_the_step_chose(tmp_path, monkeypatch, options, step_chose_tma):
    # Pointer launches of a specialization whose step chose descriptors went through kernel[grid] every
    # time; a caller's own num_warps=4 among them (it equals the rule's 4 in the tables' keys).
    from test_launch_reuse import load_with_fake_driver

    m = load_with_fake_driver(tmp_path, monkeypatch, f"spill_reuse_{len(options)}_{step_chose_tma}", _spill_jit(),
                              src=MM_SRC, kernel="mm_kernel")
    m._c2t_spill_switch[:] = [True]
    _mm(m, *_mm_inputs(72 if step_chose_tma else 70))  # the step decides (descriptors where allowed)
    k = m.mm_kernel
    before = len(k.jit_launches)
    for _ in range(4):
        _mm(m, *_mm_inputs(), **options)
    compiled = len(k.jit_launches) - before  # 0 where the deciding launch's pointer kernel is reused
    assert compiled <= 1 and compiled + len(k.reused_paths) == 4, (k.paths, k.reused_paths)
    assert True not in k.reused_paths


SEARCH_PRICE_MS = {(4, True): 0.021, (8, False, None): 0.051, (8, False, 4): 0.045, (4, False, None): 0.047,
                   (4, False, 4): 0.046}
ONE_CONFIG = [SimpleNamespace(TILE_M=128, TILE_N=128, TILE_K=32, num_ctas=1, occupancy=1)]


def _searched(tmp_path, monkeypatch, name):
    """MM_SRC's module with its search's device check and timer faked (test_stage_search.py), its kernel
    a DescribedSpillingKernel spilling as FMHA_DECODE, priced per path by SEARCH_PRICE_MS."""
    from test_stage_search import load_for_search

    _, m = load_for_search(MM_SRC, name, tmp_path, monkeypatch,
                           empty=lambda shape, dtype, device: _cuda_like(torch.empty(shape, dtype=dtype)),
                           float32=torch.float32)
    m._c2t_spill_switch[:] = [True]
    fake = DescribedSpillingKernel(m.mm_kernel, FMHA_DECODE, shared_stages={False: 4, True: 4}, stages=True)
    fake.arg_names = m.mm_kernel.arg_names
    for attr in ("_c2t_launcher", "_c2t_pipelined"):
        setattr(fake, attr, getattr(m.mm_kernel, attr))
    m.mm_kernel = fake

    def device_ms(fn):
        fake.launches.clear()
        fn()
        fn()
        w, t, s = fake.launches[-1]
        return SEARCH_PRICE_MS[(w, True)] if t else SEARCH_PRICE_MS[(w, False, s)]

    m._c2t_device_ms = device_ms
    return m, fake


@pytest.mark.parametrize("search_first", [True, False])
def test_the_tuning_search_times_and_keeps_the_steps_descriptors(tmp_path, monkeypatch, search_first):
    # The search's timed launches decide (or find) the spill step's choice with the launch's descriptor
    # check, as untuned launches do: a search first decided pointers for good (descriptors never compiled);
    # a search after the step chose descriptors timed pointers and its choice (4 stages) replaced them.
    m, fake = _searched(tmp_path, monkeypatch, f"spill_search_{search_first}")
    a, b = _mm_inputs()
    if not search_first:
        _mm(m, a, b)
        assert fake.launches[-1] == (4, True, None)
    assert_close(m.matmul(_cuda_like(a), _cuda_like(b), space=ONE_CONFIG), a @ b, dtype=torch.float32)
    assert (4, True, None) in fake.warmups
    fake.launches.clear()
    _mm(m, a, b)
    assert fake.launches and fake.launches[-1][:2] == (4, True), fake.launches


@pytest.fixture
def no_allocator():
    from triton.runtime import _allocation

    token = _allocation._allocator.set(_allocation.NullAllocator())
    yield _allocation
    _allocation._allocator.reset(token)


def test_pointer_launches_leave_tritons_allocator_alone(mm, no_allocator):
    # The launcher checks a dot kernel's tensors for descriptors on its default path now (the step may
    # choose them), but installs Triton's allocator only where descriptors are taken.
    fake = DescribedSpillingKernel(mm.mm_kernel, {(4, False): 100})  # below the threshold: pointers
    mm.mm_kernel = fake
    _mm(mm, *_mm_inputs())
    assert fake.launches == [(4, False)]
    assert isinstance(no_allocator._allocator.get(), no_allocator.NullAllocator)
    mm.mm_kernel = DescribedSpillingKernel(fake.real, FMHA_DECODE)
    mm._c2t_spill_warps.clear()
    _mm(mm, *_mm_inputs())
    assert not isinstance(no_allocator._allocator.get(), no_allocator.NullAllocator)
