"""The runtime's _c2t_run_kernel reuses a launch's compiled kernel once its specialization has
launched (cpp/host/runtime_launch.cpp, _c2t_compiled_slot): Triton 3.6's JITFunction.run costs more host
time per launch than cuTile's whole ct.launch (BENCHMARKS.md, "Host launch path").

Triton's CPU interpreter has no compiled kernels, so the converted module's kernel is replaced by
a fake with the JITFunction internals the runtime reads (device_caches with the binder, hooks,
used_global_vals) and a fake compiled kernel whose launcher runs the real kernel in the
interpreter: every launch, reused or not, is checked against PyTorch.
"""

from __future__ import annotations

import inspect
import types
import warnings

import pytest

from c2t_interp import assert_close, convert, dev, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)
import triton  # noqa: E402
import triton.language  # noqa: E402
from triton.runtime.errors import OutOfResources  # noqa: E402
from triton.runtime.jit import compute_cache_key  # noqa: E402

from test_launch_retry import MUL_SRC, SRC, _Param  # noqa: E402  (the same one-kernel modules)

STREAM = 0x5EED


class FakeCompiled:
    """A CompiledKernel: function handle, packed metadata, and .run, the C launcher's signature."""

    def __init__(self, jit):
        self.jit, self.function, self.packed_metadata = jit, object(), ("packed",)

    @property
    def run(self):
        def launch(gx, gy, gz, stream, function, packed, launch_metadata, enter_hook, exit_hook, *args):
            assert (function, packed) == (self.function, self.packed_metadata)
            assert (launch_metadata, enter_hook, exit_hook) == (None, None, None)
            self.jit.reused.append(((gx, gy, gz), stream))
            self.jit.real[(gx, gy, gz)](*args)

        return launch


class FakeCudaLauncher:
    """Triton 3.6's CudaLauncher: __call__ allocates the scratch buffers the kernel needs, then
    calls the C launch, whose arguments put the cooperative-grid and PDL flags and the two scratch
    pointers before the packed metadata."""

    def __init__(self, compiled, scratch=0):
        self.compiled, self.global_scratch_size, self.profile_scratch_size = compiled, scratch, 0
        self.launch_cooperative_grid, self.launch_pdl = False, True

    def __call__(self, gx, gy, gz, stream, function, *args):
        self.compiled.jit.via_call += 1
        scratch = object() if self.global_scratch_size else None
        self.launch(gx, gy, gz, stream, function, False, True, scratch, None, *args)

    def launch(self, gx, gy, gz, stream, function, coop, pdl, scratch, profile_scratch, packed, launch_metadata,
               enter_hook, exit_hook, *args):
        c = self.compiled
        assert (function, packed, coop, pdl) == (c.function, c.packed_metadata, False, True)
        assert (scratch is None) == (self.global_scratch_size == 0) and profile_scratch is None
        assert (launch_metadata, enter_hook, exit_hook) == (None, None, None)
        c.jit.reused.append(((gx, gy, gz), stream))
        c.jit.real[(gx, gy, gz)](*args)


class FakeCompiledCuda(FakeCompiled):
    """A CompiledKernel whose .run is a CudaLauncher (as on NVIDIA GPUs)."""

    def __init__(self, jit, scratch=0):
        super().__init__(jit)
        self._run = FakeCudaLauncher(self, scratch)

    @property
    def run(self):
        return self._run


class FakeJIT:
    """A JITFunction over the interpreter's kernel. Its binder specializes as Triton does in kind:
    constexprs by value, tensors by dtype and 16-byte alignment, integers by divisibility by 16
    and value 1."""

    def __init__(self, real, shared_limit=None):
        self.real, self.arg_names = real, real.arg_names
        self.signature = inspect.signature(real.fn)
        self.constexprs = {n for n, a in real.fn.__annotations__.items() if a is triton.language.constexpr}
        self.params = [_Param(n in self.constexprs) for n in self.signature.parameters]  # as JITFunction's
        self.pre_run_hooks, self.used_global_vals, self.debug = [], {}, None
        self.device_caches = {}  # JITFunction.run fills it at a device's first launch
        self.kernel_cache = {}
        self.shared_limit = shared_limit
        self.jit_launches, self.reused, self.via_call = [], [], 0
        self.compiled_type = FakeCompiled

    def binder(self, *args, **kwargs):
        bound = self.signature.bind(*args, **{k: v for k, v in kwargs.items() if k in self.signature.parameters})
        bound.apply_defaults()
        spec = []
        for name, v in bound.arguments.items():
            if name in self.constexprs:
                spec.append(("constexpr", v))
            elif isinstance(v, torch.Tensor):
                spec.append(("*" + str(v.dtype), v.data_ptr() % 16 == 0))
            elif isinstance(v, int):
                spec.append(("i32", (v % 16 == 0, v == 1)))
            else:
                spec.append(("fp32", None))
        options = {k: v for k, v in kwargs.items() if k not in self.signature.parameters}
        return bound.arguments, spec, options

    def __getitem__(self, grid):
        def run(*args, **kwargs):
            kwargs["debug"] = kwargs.get("debug", self.debug) or triton.knobs.runtime.debug  # as JITFunction.run
            self.device_caches.setdefault(0, (self.kernel_cache, {}, None, None, self.binder))
            bound, spec, options = self.binder(*args, **kwargs)
            self.jit_launches.append(kwargs.get("num_stages"))
            if self.shared_limit is not None and kwargs.get("num_stages", 3) > self.shared_limit:
                raise OutOfResources(kwargs.get("num_stages", 3), self.shared_limit, "shared memory")
            # Triton's cache key, looked up through its memo (device_caches[device][1]) as JITFunction.run does.
            key = compute_cache_key(self.device_caches[0][1], spec, options)
            compiled = self.kernel_cache.setdefault(key, self.compiled_type(self))
            g = tuple(grid) + (1,) * (3 - len(grid))
            self.real[g](*bound.values())
            return compiled

        return run


def load_with_fake_driver(tmp_path, monkeypatch, name, jit_type, src=SRC, kernel="scale_kernel"):
    """`src` (default SRC) converted and loaded, Triton's active driver replaced by device 0 and stream
    STREAM, and the module's `kernel` wrapped in `jit_type` (a FakeJIT)."""
    code = convert(src, filename=f"{name}.py")
    driver = types.SimpleNamespace(active=types.SimpleNamespace(get_current_device=lambda: 0,
                                                                get_current_stream=lambda device: STREAM))
    monkeypatch.setattr(triton.runtime, "driver", driver)
    m = load(code, tmp_path, name)
    setattr(m, kernel, jit_type(getattr(m, kernel)))
    return m


@pytest.fixture
def mod(tmp_path, monkeypatch):
    return load_with_fake_driver(tmp_path, monkeypatch, "reuse", FakeJIT)


def _x(n=300):
    return dev(torch.randn(n, generator=torch.Generator().manual_seed(n)))


def test_second_launch_reuses_the_compiled_kernel(mod):
    k = mod.scale_kernel
    assert_close(mod.scale(_x(300), 64), _x(300) * 2.0)
    assert (len(k.jit_launches), k.reused) == (1, [])
    # Same specialization (300 and 301 are both not multiples of 16): reused, with the new values.
    assert_close(mod.scale(_x(301), 64), _x(301) * 2.0)
    assert (len(k.jit_launches), k.reused) == (1, [((5, 1, 1), STREAM)])


@pytest.mark.parametrize("scratch", [0, 64])
def test_cuda_launcher_is_called_directly_unless_the_kernel_needs_scratch(mod, scratch):
    # Without scratch buffers the reused launch calls the C launch itself (one Python frame less);
    # a kernel that needs global scratch memory goes through CudaLauncher.__call__, which allocates it.
    k = mod.scale_kernel
    k.compiled_type = lambda jit: FakeCompiledCuda(jit, scratch)
    assert_close(mod.scale(_x(300), 64), _x(300) * 2.0)
    assert_close(mod.scale(_x(301), 64), _x(301) * 2.0)
    assert_close(mod.scale(_x(302), 64), _x(302) * 2.0)
    assert (len(k.jit_launches), len(k.reused)) == (1, 2)
    assert k.via_call == (2 if scratch else 0)


@pytest.mark.parametrize("how", ["cleared", "overwritten"])
def test_kernel_no_longer_in_tritons_cache_is_not_reused(mod, how):
    # Triton's cache emptied in place (to force a recompile) or an entry replaced (JITFunction.preload):
    # JITFunction.run would compile again, so the kernel it no longer holds is not launched.
    k = mod.scale_kernel
    mod.scale(_x(), 64)
    if how == "cleared":
        k.kernel_cache.clear()
    else:
        k.kernel_cache.update({key: FakeCompiled(k) for key in k.kernel_cache})
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert (len(k.jit_launches), k.reused) == (2, [])  # through kernel[grid]: Triton finds or compiles it
    assert_close(mod.scale(_x(), 64), _x() * 2.0)  # Triton's kernel for it now: reused
    assert len(k.reused) == 1


def test_another_specialization_launches_through_triton(mod):
    k = mod.scale_kernel
    mod.scale(_x(300), 64)
    assert_close(mod.scale(_x(320), 64), _x(320) * 2.0)  # 320 % 16 == 0: another specialization
    assert_close(mod.scale(_x(300), 32), _x(300) * 2.0)  # another constexpr
    assert (len(k.jit_launches), k.reused) == (3, [])
    mod.scale(_x(320), 64)
    assert len(k.reused) == 1


def test_other_launch_options_launch_through_triton(mod):
    k, x, out = mod.scale_kernel, _x(), dev(torch.empty(300))
    mod.launch_scale_kernel((5,), x, out, 64, num_warps=4)
    mod.launch_scale_kernel((5,), x, out, 64, num_warps=8)
    assert (len(k.jit_launches), k.reused) == (2, [])
    mod.launch_scale_kernel((5,), x, out, 64, num_warps=8)
    assert len(k.reused) == 1
    assert_close(out, x * 2.0)


def test_rebuilt_triton_cache_is_not_reused(mod):
    k = mod.scale_kernel
    mod.scale(_x(), 64)
    k.kernel_cache = {}  # as after JITFunction's source changed: device_caches cleared and rebuilt
    k.device_caches.clear()
    mod.scale(_x(), 64)  # the device's first launch again
    mod.scale(_x(), 64)  # the new cache's kernel
    assert len(k.jit_launches) == 2 and len(k.reused) == 1


@pytest.mark.parametrize("hook", ["launch_enter_hook", "launch_exit_hook"])
def test_launch_hooks_see_every_launch(mod, hook):
    k, seen = mod.scale_kernel, []
    mod.scale(_x(), 64)
    chain = getattr(triton.knobs.runtime, hook)
    chain.add(seen.append)
    try:
        mod.scale(_x(), 64)
        mod.scale(_x(), 64)
    finally:
        chain.remove(seen.append)
    assert (len(k.jit_launches), k.reused) == (3, [])


def test_pre_run_hooks_see_every_launch(mod):
    k = mod.scale_kernel
    mod.scale(_x(), 64)
    k.pre_run_hooks.append(lambda *a, **kw: None)
    mod.scale(_x(), 64)
    assert (len(k.jit_launches), k.reused) == (2, [])


def test_changed_global_value_goes_through_triton(mod):
    # JITFunction.run raises when a global the kernel used has changed since it compiled.
    k, scope = mod.scale_kernel, {"SCALE": 2.0}
    k.used_global_vals = {("SCALE", id(scope)): (2.0, scope)}
    mod.scale(_x(), 64)
    mod.scale(_x(), 64)
    assert len(k.reused) == 1
    scope["SCALE"] = 3.0
    mod.scale(_x(), 64)
    assert (len(k.jit_launches), len(k.reused)) == (2, 1)


def test_unhashable_option_goes_through_triton(mod):
    k, x, out = mod.scale_kernel, _x(), dev(torch.empty(300))
    for _ in range(2):
        mod.launch_scale_kernel((5,), x, out, 64, extra=[1])
    assert (len(k.jit_launches), k.reused) == (2, [])


def test_kernel_debug_attribute_is_part_of_the_key(mod):
    # JITFunction.run compiles with debug = kwargs.get("debug", kernel.debug) or knobs.runtime.debug:
    # a kernel switched to debug=True (device asserts on) after a launch gets a new compiled kernel.
    # The key held the knob and the launch's kwargs but not kernel.debug, so the non-debug kernel
    # was reused.
    k = mod.scale_kernel
    mod.scale(_x(), 64)
    k.debug = True
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert (len(k.jit_launches), k.reused) == (2, [])
    assert len(k.kernel_cache) == 2
    mod.scale(_x(), 64)
    assert len(k.reused) == 1


def test_retried_stages_are_reused_without_retrying(mod):
    k = mod.scale_kernel
    k.shared_limit = 1  # fits only with one stage
    with pytest.warns(UserWarning, match="launched with num_stages=1"):
        assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert k.jit_launches == [None, 2, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(mod.scale(_x(301), 64), _x(301) * 2.0)
    assert k.jit_launches == [None, 2, 1] and len(k.reused) == 1


def test_interpreter_kernels_are_launched_as_before(tmp_path):
    m = load(convert(SRC, filename="interp.py"), tmp_path, "interp")
    assert_close(m.scale(_x(), 64), _x() * 2.0)
    assert_close(m.scale(_x(), 64), _x() * 2.0)
    assert not hasattr(m.scale_kernel, "_c2t_compiled")


def test_a_choice_that_overflows_is_dropped_and_keys_no_other_kernel(tmp_path, monkeypatch):
    # A search's choice that overflows shared memory here (timed on another device) is dropped: the
    # shape launches as untuned (with the retry), and the compiled-kernel table never holds a kernel
    # under options it was not compiled with, so a caller's own num_stages=4 still overflows and raises.
    m = load_with_fake_driver(tmp_path, monkeypatch, "overflowing_choice", FakeJIT)
    k = m.scale_kernel
    k.shared_limit = 3
    x, out = _x(), dev(torch.empty(300))
    args = (x, 300, 1, out, 300, 1, 64)
    m._c2t_tuned_options[k] = {m._c2t_stages_key(k, args, {}, scalars=True): {"num_stages": 4}}
    m._c2t_run_kernel(k, (5,), *args)
    assert_close(out, x * 2.0)
    assert k.jit_launches == [4, None] and k not in m._c2t_tuned_options
    m._c2t_run_kernel(k, (5,), *args)
    assert k.jit_launches == [4, None], "then reused as untuned"
    with pytest.raises(OutOfResources):
        m._c2t_run_kernel(k, (5,), *args, num_stages=4)


def test_tritons_memo_of_cache_keys_tells_equal_constexprs_of_other_types_apart(tmp_path):
    # Triton 3.6 memoizes its cache key string by the (specialization, options) tuple, where the
    # constexprs 4 and 4.0 (1 and True) compare equal: the second launch would get the first's kernel.
    # cuTile compiles them apart (ConstantConstraint compares types); the runtime's memo keys types too.
    m = load(convert(SRC, filename="memo.py"), tmp_path, "memo")
    values = (4, 4.0, True, 1, 0.0, -0.0)  # equal pairs: a dict keyed by them would hold three entries
    spec = [[("*fp32", True), ("constexpr", v)] for v in values]
    plain = {}
    assert compute_cache_key(plain, spec[0], {}) == compute_cache_key(plain, spec[1], {})  # Triton's own
    typed = m._C2TTypedKeys()
    keys = [compute_cache_key(typed, s, {}) for s in spec]
    assert len(set(keys)) == 6 and "4.0" in keys[1] and "True" in keys[2] and "-0.0" in keys[5]
    assert compute_cache_key(typed, [("*fp32", True), ("constexpr", 4)], {}) == keys[0]  # still a memo
    assert len(typed) == 6
    seeded = m._C2TTypedKeys(typed)  # made from a memo: the same entries
    assert seeded.get(((("*fp32", True), ("constexpr", 4.0)), "{}")) == keys[1]


def test_constexprs_of_another_type_compile_apart(tmp_path, monkeypatch):
    # Through the runtime: 4 after 4.0 is another kernel, in Triton's memo and in the reuse table.
    m = load_with_fake_driver(tmp_path, monkeypatch, "constkinds", FakeJIT, MUL_SRC, "mul_kernel")
    k, x = m.mul_kernel, dev(torch.arange(300, dtype=torch.int32))
    for f in (4, 4.0, 4, 4.0, True, 1):
        out = dev(torch.empty(300, dtype=torch.int32))
        m.launch_mul_kernel((5,), x, out, f, 64)
        assert_close(out, x * 4 if f != 1 else x)
    assert len(k.kernel_cache) == 4  # int 4, float 4.0, True, int 1: four kernels
    assert len(k.jit_launches) == 4 and len(k.reused) == 2  # the second 4 and 4.0 reuse their own
    assert type(k.device_caches[0][1]) is m._C2TTypedKeys
