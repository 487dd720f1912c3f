"""The generated launchers launch through the runtime's _c2t_run_kernel: when a kernel
overflows shared memory at Triton's default num_stages (cuTile's tile sizes, e.g. TileGym's
MLA decoding on the H200) and the caller chose no num_stages, the launch is retried with 2,
then 1 stages (straight to 1 for a prefetch-only kernel at the rule's 16 warps:
tests/test_loop_pipelining.py), and the stages that fit are remembered per specialization.

Triton's CPU interpreter has no shared memory, so the kernel of a converted module is
replaced by a fake that raises triton's OutOfResources the way a compiled kernel does.
"""

from __future__ import annotations

import types
import warnings

import pytest

from c2t_interp import assert_close, convert, dev, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)
import triton  # noqa: E402
import triton.language  # noqa: E402
from triton.runtime.errors import OutOfResources  # noqa: E402

SRC = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def scale_kernel(x, out, TILE: ConstInt):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=t * 2.0)


def scale(x, tile=64):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile),), scale_kernel, (x, out, tile))
    return out
'''


class _Param:
    def __init__(self, is_constexpr):
        self.is_constexpr = is_constexpr


class FakeKernel:
    """Stands in for a @triton.jit kernel: shared memory grows with TILE and num_stages
    (default 3); a launch over `limit` raises OutOfResources("shared memory") like Triton's
    CompiledKernel. Runs the real kernel when it fits; records every attempt."""

    def __init__(self, real, limit, error_name="shared memory"):
        self.real, self.limit, self.error_name = real, limit, error_name
        # Which arguments are constexprs, as a JITFunction's .params says (the interpreter's
        # InterpretedFunction has no .params).
        ann = real.fn.__annotations__
        self.params = [_Param(ann.get(n) is triton.language.constexpr) for n in real.arg_names]
        self.attempts = []

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            stages = kwargs.get("num_stages", 3)
            tile = args[-1]
            self.attempts.append((tile, kwargs.get("num_stages")))
            need = tile * 1024 * stages
            if need > self.limit:
                raise OutOfResources(need, self.limit, self.error_name)
            kw = {k: v for k, v in kwargs.items() if k != "num_stages"}  # the interpreter ignores it
            return self.real[grid](*args, **kw)

        return launch


@pytest.fixture
def mod(tmp_path):
    code = convert(SRC, filename="retry.py")
    assert "    _c2t_run_kernel(\n        scale_kernel, grid,\n" in code, code
    return load(code, tmp_path, "retry")


def _x(n=300):
    return dev(torch.randn(n, generator=torch.Generator().manual_seed(n)))


def test_retries_fewer_stages_and_remembers(mod):
    # TILE=64 fits only with one stage; TILE=32 fits at the default three.
    fake = FakeKernel(mod.scale_kernel, limit=100 * 1024)
    mod.scale_kernel = fake
    x = _x()
    with pytest.warns(UserWarning, match="overflows shared memory at Triton's default num_stages; launched with "
                      "num_stages=1") as said:
        assert_close(mod.scale(x, 64), x * 2.0)
    assert [w.filename for w in said] == [__file__], "said where the op was called"
    assert fake.attempts == [(64, None), (64, 2), (64, 1)]  # the default stages are tried once
    # Remembered: the next launch of the same specialization goes straight to one stage, silently.
    fake.attempts.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(mod.scale(_x(129), 64), _x(129) * 2.0)
    assert fake.attempts == [(64, 1)]
    # Another specialization (TILE=32) that fits at the default keeps Triton's default stages.
    fake.attempts.clear()
    assert_close(mod.scale(x, 32), x * 2.0)
    assert fake.attempts == [(32, None)]
    fake.attempts.clear()
    mod.scale(x, 32)
    assert fake.attempts == [(32, None)]
    fits = next(iter(mod._c2t_fitting_stages.values()))
    assert sorted(fits.values(), key=str) == [1, None]


def test_two_stages_when_they_fit(mod):
    fake = FakeKernel(mod.scale_kernel, limit=64 * 1024 * 2)
    mod.scale_kernel = fake
    x = _x()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.attempts[-1] == (64, 2)


def test_kernel_that_fits_is_launched_once(mod):
    fake = FakeKernel(mod.scale_kernel, limit=10**9)
    mod.scale_kernel = fake
    x = _x()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.attempts == [(64, None)]
    assert mod._c2t_fitting_stages == {}


def test_callers_num_stages_is_kept(mod):
    fake = FakeKernel(mod.scale_kernel, limit=64 * 1024 * 1)
    mod.scale_kernel = fake
    x, out = _x(), dev(torch.empty(300))
    with pytest.raises(OutOfResources):
        mod.launch_scale_kernel((5,), x, out, 64, num_stages=2)
    assert fake.attempts == [(64, 2)]


def test_other_resources_are_not_retried(mod):
    fake = FakeKernel(mod.scale_kernel, limit=0, error_name="threads")
    mod.scale_kernel = fake
    with pytest.raises(OutOfResources, match="threads"):
        mod.scale(_x(), 64)
    assert fake.attempts == [(64, None)]


def test_not_even_one_stage_fits(mod):
    fake = FakeKernel(mod.scale_kernel, limit=1)
    mod.scale_kernel = fake
    with pytest.raises(OutOfResources, match="shared memory"):
        mod.scale(_x(), 64)
    assert fake.attempts[-1] == (64, 1)


def test_helper_is_emitted_once_per_module():
    code = convert(SRC + SRC.replace("scale", "shift").split("ConstInt = ct.Constant[int]\n")[1], filename="two.py")
    assert code.count("def _c2t_run_kernel(") == 1
    assert code.count("    _c2t_run_kernel(\n") == 2  # one call per launcher
    assert triton  # the runtime refers to triton.runtime.errors.OutOfResources


def test_a_remembered_count_that_overflows_steps_down_further(mod):
    # The key holds dtypes and constexprs, not all of Triton's specializations: a
    # specialization remembered at two stages may need one (hostile-input finding).
    fake = FakeKernel(mod.scale_kernel, limit=64 * 1024 * 2)
    mod.scale_kernel = fake
    x = _x()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.attempts[-1] == (64, 2)
    fake.limit = 64 * 1024  # the same key now fits only with one stage
    fake.attempts.clear()
    assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.attempts == [(64, 2), (64, 1)]


MUL_SRC = '''
import cuda.tile as ct
import torch


@ct.kernel
def mul_kernel(x, out, F: ct.Constant, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=t * F)
'''
AFFINE_SRC = MUL_SRC + '''

def affine(x, f, tile=64):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], tile),), mul_kernel, (x, out, f, tile))
    return out
'''


class TypedKernel(FakeKernel):
    """A FakeKernel whose int F needs twice the shared memory of a float F: the two compile apart
    (cuTile's ConstantConstraint compares types; Triton types 2 as int32, 2.0 as fp32), so each has
    its own fitting stages."""

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            stages, f = kwargs.get("num_stages", 3), args[-2]  # (x, its extent and stride, out, ..., F, TILE)
            self.attempts.append((f, kwargs.get("num_stages")))
            need = 64 * 1024 * stages * (1 if type(f) is float else 2)
            if need > self.limit:
                raise OutOfResources(need, self.limit, self.error_name)
            return self.real[grid](*args, **{k: v for k, v in kwargs.items() if k != "num_stages"})

        return launch


def test_constants_of_another_type_have_their_own_stages(tmp_path):
    # 2 and 2.0 are equal keys; a table keyed by the values alone gave the float the int's one stage.
    m = load(convert(AFFINE_SRC, filename="affine.py"), tmp_path, "affine")
    m.mul_kernel = fake = TypedKernel(m.mul_kernel, limit=64 * 1024 * 3)
    x = _x()
    with pytest.warns(UserWarning, match="num_stages=1"):
        assert_close(m.affine(x, 2), x * 2)
    fake.attempts.clear()
    assert_close(m.affine(x, 2.0), x * 2.0)
    assert fake.attempts == [(2.0, None)]  # the float fits at Triton's default stages
    fake.attempts.clear()
    assert_close(m.affine(x, 2), x * 2)
    assert fake.attempts == [(2, 1)]  # the int's step down is still remembered


class OccupiedKernel(FakeKernel):
    """A FakeKernel with cuTile's kernel option occupancy (the converter's `k._c2t_occupancy = N`) and
    JITFunction.warmup: compiling without launching reports a block's shared memory, `kb` KB per
    pipeline stage (default 3)."""

    def __init__(self, real, occupancy, kb, limit=10**9):
        super().__init__(real, limit)
        self._c2t_occupancy, self.kb, self.warmups = occupancy, kb, []

    def warmup(self, *args, grid, **kwargs):
        self.warmups.append(kwargs.get("num_stages"))
        return types.SimpleNamespace(metadata=types.SimpleNamespace(shared=self.kb * 1024 * kwargs.get("num_stages", 3)))


@pytest.fixture
def sm(monkeypatch):
    """The active driver, reporting an H200's 227 KB of shared memory per block (228 KB per SM)."""
    utils = types.SimpleNamespace(get_device_properties=lambda device: {"max_shared_mem": 227 * 1024})
    driver = types.SimpleNamespace(active=types.SimpleNamespace(utils=utils, get_current_device=lambda: 0))
    monkeypatch.setattr(triton.runtime, "driver", driver)


@pytest.mark.parametrize("kb, occupancy, launched", [
    (40, 2, 2),     # 2 x 121 KB at three stages > 228 KB; 2 x 81 KB at two fits: two stages, as cuTile's occupancy asks
    (32, 2, None),  # 2 x 97 KB fits at Triton's default
    (64, 2, None),  # 2 x 129 KB at two stages does not fit either: the default (never one stage for occupancy)
    (24, 4, 2),     # 4 x 73 > 228; 4 x 49 fits
    (40, 1, None),  # one block per SM: nothing to make room for
])
def test_occupancy_chooses_stages_that_leave_room_for_it(mod, sm, kb, occupancy, launched):
    fake = OccupiedKernel(mod.scale_kernel, occupancy, kb)
    mod.scale_kernel = fake
    x = _x()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a choice, not an overflow: nothing to warn about
        assert_close(mod.scale(x, 64), x * 2.0)
    assert fake.attempts == [(64, launched)]
    # Remembered per specialization: compiled ahead once for the choice.
    warmups = list(fake.warmups)
    assert len(warmups) == (0 if occupancy == 1 else 1 if kb == 32 else 2)
    fake.attempts.clear()
    assert_close(mod.scale(_x(129), 64), _x(129) * 2.0)
    assert fake.attempts == [(64, launched)] and fake.warmups == warmups


def test_occupancy_keeps_the_callers_stages_and_the_overflow_retry(mod, sm):
    fake = OccupiedKernel(mod.scale_kernel, 2, 40)
    mod.scale_kernel = fake
    x, out = _x(), dev(torch.empty(300))
    mod.launch_scale_kernel((5,), x, out, 64, num_stages=3)
    assert fake.attempts == [(64, 3)] and fake.warmups == []
    # Two stages chosen for occupancy, but they overflow this kernel's block: one stage, said once.
    fake2 = OccupiedKernel(fake.real, 2, 40, limit=64 * 1024)
    mod.scale_kernel = fake2
    with pytest.warns(UserWarning, match="num_stages=1"):
        assert_close(mod.scale(x, 64), x * 2.0)
    assert fake2.attempts == [(64, 2), (64, 1)]


def test_occupancy_without_a_device_launches_as_before(mod):
    # No driver properties (the interpreter, CPU): Triton's default, no compile ahead.
    fake = OccupiedKernel(mod.scale_kernel, 2, 40)
    mod.scale_kernel = fake
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert fake.attempts == [(64, None)]


def test_the_overflow_warning_names_a_line_when_the_module_runs_as_a_script(tmp_path):
    # Every frame belongs to the converted module (run as __main__, calling its own op): the warning
    # names the module's outermost line, not a place past the stack ("sys:1").
    import os
    import subprocess
    import sys

    code = convert(SRC, filename="script.py") + '''
if __name__ == "__main__":
    from triton.runtime.errors import OutOfResources

    real = scale_kernel

    class OneStage:  # fits only at num_stages=1
        params = getattr(real, "params", [])

        def __getitem__(self, grid):
            def launch(*a, **kw):
                if kw.get("num_stages", 3) > 1:
                    raise OutOfResources(1, 0, "shared memory")
                kw.pop("num_stages")
                return real[grid](*a, **kw)
            return launch

    scale_kernel = OneStage()
    scale(torch.randn(300), 64)
'''
    script = tmp_path / "script.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, "-W", "always", str(script)], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "TRITON_INTERPRET": "1"})
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if "overflows shared memory" in line]
    assert len(said) == 1 and said[0].startswith(f"{script}:"), r.stderr
