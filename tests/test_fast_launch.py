"""cutile2triton.fast_launch: a reused launch natively in one call while the arguments keep the last
launch's specialization (BENCHMARKS.md, "Host time per call").

The native module's argument check is compared with Triton's own specializer (the native function
Triton 3.6's binder calls) on the same arguments: the native launch must accept exactly the
arguments Triton would launch the same compiled kernel for, and pack them as Triton's launcher
does. No GPU here: the module's capture mode returns the packed launch instead of calling the
driver, and a fake JITFunction runs the real kernel in the interpreter for every launch, reused,
native or not, so every result is checked against PyTorch.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import types

import pytest

from c2t_interp import assert_close, dev

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)
import triton  # noqa: E402

from test_launch_reuse import STREAM, FakeJIT, load_with_fake_driver  # noqa: E402

fast_launch = pytest.importorskip("cutile2triton.fast_launch")
native = fast_launch.native_module()
# CI sets C2T_REQUIRE_NATIVE=1 (.ci/run): there a module that cannot be built fails rather than skips.
if native is None and os.environ.get("C2T_REQUIRE_NATIVE") == "1":
    raise RuntimeError("C2T_REQUIRE_NATIVE=1 but cutile2triton.fast_launch.native_module() is None")
pytestmark = pytest.mark.skipif(native is None, reason="the native launch module cannot be built here (no C compiler?)")


def _specializer():
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend

    backend = make_backend(GPUTarget("cuda", 90, 32))

    def spec(value, constexpr=False):
        if constexpr:
            return ("constexpr", value)
        try:
            return native_specialize_impl(backend, value, False, True, True)
        except Exception:  # noqa: BLE001 -- a type Triton cannot specialize
            return ("unspecializable", repr(type(value)))

    return spec


SPEC = _specializer()


def fake_compiled(function=0x1234, meta=(4, 1, 2048), scratch=0):
    """What plan() reads of Triton 3.6's CompiledKernel after its first launch."""
    run = types.SimpleNamespace(global_scratch_size=scratch, profile_scratch_size=0, launch_cooperative_grid=False,
                                launch_pdl=False)
    return types.SimpleNamespace(function=function, packed_metadata=meta, run=run,
                                 metadata=types.SimpleNamespace(tensordesc_meta=None))


# One argument of each kind the plan handles; CONSTEXPR marks the kernel's constexpr parameters.
CONSTEXPR = {7}
X = torch.zeros(64, dtype=torch.float16)
BASE = (X, 32, 17, 2**40 + 1, 0.5, 1, True, 64, None)


def _variants():
    yield from [(0, X[1:]), (0, X[8:]), (0, X.float()), (0, 5), (0, X.to(torch.bfloat16))]
    for i in (1, 2):
        yield from [(i, v) for v in (16, 17, 1, 0, -16, -17, 2**31 - 1, -2**31, 2**31, 2**31 + 16, True, 17.0)]
    yield from [(3, v) for v in (2**40, 2**40 + 3, 2**31, 7, 2**63, -2**63, -2**63 + 1)]
    yield from [(4, v) for v in (0.25, 1, 1e300, True)]
    yield from [(5, v) for v in (1, 2, 16, True, 1.0)]
    yield from [(6, v) for v in (False, 1, 0)]
    yield from [(7, v) for v in (64, 65, 64.0, True, "64")]
    yield from [(8, v) for v in (None, X, 0)]


def _spec_of(args):
    return [SPEC(v, i in CONSTEXPR) for i, v in enumerate(args)]


def _pack(args):
    """The parameter bytes Triton's launcher passes for BASE-shaped args: constexprs dropped."""
    out = []
    for (ty, _), v in zip(_spec_of(args), args):
        if ty == "constexpr":
            continue
        if ty.startswith("*"):
            out.append(struct.pack("<Q", v.data_ptr()))
        elif ty == "fp32":  # C's (float) conversion, as Triton's pack_fp32: out of range -> inf
            out.append(torch.tensor([v], dtype=torch.float64).float().numpy().tobytes())
        else:
            out.append(struct.pack({"i32": "<i", "i64": "<q", "u1": "<?"}[ty], v))
    return out + [bytes(8), bytes(8)]  # the global and profile scratch pointers


def test_plan_packs_each_argument_as_tritons_launcher():
    bound = {f"a{i}": v for i, v in enumerate(BASE)}
    launch, plan = fast_launch.plan(fake_compiled(), _spec_of(BASE), bound, len(BASE))
    cap = []
    assert launch(plan, 3, 2, 1, STREAM, BASE, cap) is True
    assert cap == [{"grid": (3, 2, 1), "block": 128, "shared": 2048, "stream": STREAM, "params": _pack(BASE)}]


@pytest.mark.parametrize("at,value", list(_variants()), ids=lambda v: repr(v)[:24])
def test_accepts_exactly_what_triton_specializes_alike(at, value):
    # Triton would launch BASE's compiled kernel for these arguments iff its specializer gives the
    # same specialization; for a constexpr parameter the native launch also wants the same type
    # (64 and 64.0 are equal keys, but not the same constexpr to compile).
    bound = {f"a{i}": v for i, v in enumerate(BASE)}
    launch, plan = fast_launch.plan(fake_compiled(), _spec_of(BASE), bound, len(BASE))
    args = BASE[:at] + (value,) + BASE[at + 1:]
    same = _spec_of(args) == _spec_of(BASE) and (at not in CONSTEXPR or type(value) is type(BASE[at]))
    cap = []
    assert launch(plan, 1, 1, 1, STREAM, args, cap) is same
    if same:
        assert cap[0]["params"] == _pack(args)
    else:
        assert cap == []


@pytest.mark.parametrize("value,same", [(0.0, True), (-0.0, False), (0, False), (-1.5, False)])
def test_a_float_constexpr_matches_only_with_its_sign(value, same):
    # 0.0 and -0.0 are equal (and so Triton's specializations) but not the same constant: 1 / x differs,
    # and cuTile compiles them apart (its ConstantConstraint compares a float's bits).
    base = BASE[:7] + (0.0,) + BASE[8:]
    launch, plan = fast_launch.plan(fake_compiled(), _spec_of(base), {f"a{i}": v for i, v in enumerate(base)},
                                    len(base))
    cap = []
    assert launch(plan, 1, 1, 1, STREAM, base[:7] + (value,) + base[8:], cap) is same
    assert len(cap) == int(same)


def _expand(args, expand):
    """A converted launcher's arguments as it passes them to the kernel (cpp/host/launcher.cpp):
    expand code r, an array of rank r: itself, extents, strides; 128 + r, rank at most r: extents
    and strides padded with 1 and 0, then its rank; 0: the argument."""
    out = []
    for v, code in zip(args, expand):
        out.append(v)
        if code:
            r, pad = code & 127, (code & 127) - v.dim()
            out += [*v.shape, *[1] * pad, *v.stride(), *[0] * pad] + ([v.dim()] if code >= 128 else [])
    return tuple(out)


# A launcher's arguments (x: rank 2, y: rank at most 2, a scalar, a float, a constexpr) and codes.
XL = torch.zeros(6, 8, dtype=torch.float16)[:, :5]
LAUNCHER = (XL, torch.zeros(4), 7, 0.5, 64)
CODES = bytes([2, 128 + 2, 0, 0, 0])


def _launcher_plan(args=LAUNCHER):
    flat = _expand(args, CODES)
    constexpr = {len(flat) - 1}
    spec = [SPEC(v, i in constexpr) for i, v in enumerate(flat)]
    return flat, fast_launch.plan(fake_compiled(), spec, {f"a{i}": v for i, v in enumerate(flat)}, len(flat))


def test_a_launchers_arrays_expand_as_the_launcher_passes_them():
    flat, (launch, plan) = _launcher_plan()
    want, got = [], []
    assert launch(plan, 2, 1, 1, STREAM, flat, want) is True
    assert launch(plan, 2, 1, 1, STREAM, LAUNCHER, got, CODES) is True
    assert got == want and want  # the flat launch's packing is Triton's (test_plan_packs_each_argument...)
    # Rank 1 for an array of rank at most 2 is padded as the launcher pads it (1, 0, then the rank).
    assert flat[6:11] == (4, 1, 1, 0, 1)


@pytest.mark.parametrize("args", [
    (XL.unsqueeze(0),) + LAUNCHER[1:],  # rank 3 for rank 2
    (XL[0],) + LAUNCHER[1:],  # rank 1 for rank 2
    LAUNCHER[:1] + (torch.zeros(2, 2, 2),) + LAUNCHER[2:],  # rank 3 for at most 2
    (5,) + LAUNCHER[1:],  # not an array
    (types.SimpleNamespace(shape=[6, 5], stride=lambda: (8, 1), dtype=torch.float16, data_ptr=lambda: 0),)
    + LAUNCHER[1:],  # a shape that is not a tuple
    LAUNCHER[:4],  # an argument short
    (XL.contiguous(),) + LAUNCHER[1:],  # strides of another specialization (8 -> 5: not divisible by 16 either,
], ids=["rank3", "rank1", "upto3", "int", "listshape", "short", "contiguous"])
def test_a_launchers_arguments_that_differ_go_through_the_launcher(args):
    _, (launch, plan) = _launcher_plan()
    cap = []
    same = len(args) == len(LAUNCHER) and all(getattr(a, "shape", None) == getattr(b, "shape", None)
                                               and type(a) is type(b) for a, b in zip(args, LAUNCHER))
    assert launch(plan, 1, 1, 1, STREAM, args, cap, CODES if len(args) == len(CODES) else CODES[:len(args)]) is same
    assert (cap != []) is same


def test_a_launchers_array_whose_shape_raises():
    class Shapeless:
        dtype = torch.float16

        def __init__(self, exc):
            self.exc = exc

        @property
        def shape(self):
            raise self.exc

        def data_ptr(self):
            return 0

    _, (launch, plan) = _launcher_plan()
    assert launch(plan, 1, 1, 1, STREAM, (Shapeless(RuntimeError("x")),) + LAUNCHER[1:], [], CODES) is False
    with pytest.raises(KeyboardInterrupt):
        launch(plan, 1, 1, 1, STREAM, (Shapeless(KeyboardInterrupt()),) + LAUNCHER[1:], [], CODES)


def test_grids_tritons_launcher_would_refuse_are_left_to_it():
    # Triton parses grid extents as C ints; negative extents mean whatever its launcher makes of them.
    bound = {f"a{i}": v for i, v in enumerate(BASE)}
    launch, plan = fast_launch.plan(fake_compiled(), _spec_of(BASE), bound, len(BASE))
    for grid in [(2**31, 1, 1), (1, 2**31, 1), (-1, 1, 1), (1, 1, -5), (65536, 65536, 1), (2**62, 4, 1)]:
        assert launch(plan, *grid, STREAM, BASE, []) is False, grid
    with pytest.raises(TypeError):
        launch(plan, 1.5, 1, 1, STREAM, BASE, [])


def test_no_plan_where_tritons_launcher_does_more():
    bound = {f"a{i}": v for i, v in enumerate(BASE)}
    spec = _spec_of(BASE)
    assert fast_launch.plan(fake_compiled(scratch=64), spec, bound, len(BASE)) is None  # scratch buffer
    assert fast_launch.plan(fake_compiled(meta=(4, 16, 0)), spec, bound, len(BASE)) is None  # 16-CTA cluster
    desc = spec[:1] + [("tensordesc<fp16[16]>", None)] + spec[2:]
    assert fast_launch.plan(fake_compiled(), desc, bound, len(BASE)) is None
    assert fast_launch.plan(fake_compiled(), spec, bound, 2) is None  # a keyword argument that is not constexpr
    plan = fast_launch.plan(fake_compiled(), spec[:8] + [("constexpr", None)], bound, 7)  # keyword constexprs
    assert plan is not None and len(plan[1][6]) == 7
    assert plan[0](plan[1], 1, 1, 1, STREAM, BASE[:7], [])
    assert not plan[0](plan[1], 1, 1, 1, STREAM, BASE, [])  # another argument count


# ---------------------------------------------------------------- inside the converted module


class TritonSpecJIT(FakeJIT):
    """FakeJIT whose binder specializes as Triton 3.6's (its native specializer)."""

    def binder(self, *args, **kwargs):
        bound, _, options = super().binder(*args, **kwargs)
        return bound, [SPEC(v, n in self.constexprs) for n, v in bound.items()], options


class NativeCompiled:
    """A CompiledKernel with what plan() reads; its launches run the real kernel."""

    def __init__(self, jit):
        self.jit, self.function, self.packed_metadata = jit, 0x5EED, (4, 1, 0)
        self.metadata = types.SimpleNamespace(tensordesc_meta=None)
        self.run = types.SimpleNamespace(global_scratch_size=0, profile_scratch_size=0, launch_cooperative_grid=False,
                                         launch_pdl=False, launch=self.launch)

    def launch(self, gx, gy, gz, stream, function, coop, pdl, scratch, profile, packed, *rest):
        self.jit.reused.append(((gx, gy, gz), stream))
        self.jit.real[(gx, gy, gz)](*rest[3:])


@pytest.fixture
def mod(tmp_path, monkeypatch):
    return _native_module(tmp_path, monkeypatch)


def _native_module(tmp_path, monkeypatch, src=None, kernel="scale_kernel"):
    """A converted module (test_launch_retry's SRC by default) whose `kernel` counts its launches: through
    Triton (jit_launches), reused (reused), native (native; `expanded` of them from the launcher's call)."""
    m = load_with_fake_driver(tmp_path, monkeypatch, "fast", TritonSpecJIT, **({"src": src} if src else {}),
                              kernel=kernel)
    assert m._c2t_fast_plan is fast_launch.plan, "converted modules use cutile2triton's native launch when installed"
    k = getattr(m, kernel)
    k.compiled_type, k.native, k.expanded = NativeCompiled, [], 0

    def plan(compiled, specialization, bound, nargs):  # the real plan; its launch captured, then run
        made = fast_launch.plan(compiled, specialization, bound, nargs)
        if made is None:
            return None

        # The parameters past the positional ones are the plan's, as bound when it was made.
        kw = {n: v for i, (n, v) in enumerate(bound.items()) if i >= nargs}

        def launch(p, gx, gy, gz, stream, args, _capture=None, expand=None):
            cap = []
            if not made[0](p, gx, gy, gz, stream, args, cap, expand):
                return False
            k.native.append({**cap[0], "compiled": compiled})
            k.expanded += expand is not None
            k.real[(gx, gy, gz)](*(_expand(args, expand) if expand is not None else args), **kw)
            return True

        return launch, made[1]

    monkeypatch.setattr(m, "_c2t_fast_plan", plan)
    return m


COPY2D = """
import cuda.tile as ct

@ct.kernel
def copy_kernel(x, out, T: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(T, T), padding_mode=ct.PaddingMode.ZERO))
"""


def test_a_tma_flag_among_the_options_is_the_launchers_error(tmp_path, monkeypatch):
    # The kernel's TMA flag passed again in the options: the launch raises (a keyword given twice),
    # reused or not; the native attempt must not merge it away.
    m = _native_module(tmp_path, monkeypatch, COPY2D, "copy_kernel")
    k, x = m.copy_kernel, dev(torch.randn(64, 16))
    out = dev(torch.empty(64, 16))
    for _ in range(3):
        m.launch_copy_kernel((4,), x, out, 16)
    assert k.expanded == 1
    assert_close(out, x)
    for flag in (False, True):
        with pytest.raises(TypeError, match="multiple values for keyword argument 'USE_TMA'"):
            m.launch_copy_kernel((4,), x, out, 16, USE_TMA=flag)
    assert len(k.native) == 1


ROWS = """
import cuda.tile as ct

@ct.kernel
def rows_kernel(x, out, n: int, T: ct.Constant[int]):
    for r in range(ct.bid(0), n, ct.num_blocks(0)):
        t = ct.load(x, index=(r,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(r,), tile=t * 2.0)
"""


def test_num_stages_of_a_prefetching_kernel_stays_native(tmp_path, monkeypatch):
    # A caller's num_stages also sets the prefetching loops' stages (C2T_PREFETCH_STAGES, which
    # _c2t_run_kernel adds): the launcher's own call steps aside, the expanded arguments launch natively.
    m = _native_module(tmp_path, monkeypatch, ROWS, "rows_kernel")
    k, x, out = m.rows_kernel, _x(), dev(torch.empty(300))
    assert "C2T_PREFETCH_STAGES" in k.arg_names
    for _ in range(4):
        m.launch_rows_kernel((2,), x, out, 5, 64, num_stages=2)
    assert_close(out, x * 2.0)
    assert (len(k.jit_launches), len(k.native), k.expanded) == (1, 2, 0)
    assert k._c2t_fast[2]["C2T_PREFETCH_STAGES"] == 2


def test_keywords_in_another_order_go_through_triton(mod):
    # Values compared as a dict, types in order: the same order too, or 1/True swapped between two
    # keywords would pass both checks.
    k, x, out = mod.scale_kernel, _x(), dev(torch.empty(300))
    for _ in range(3):
        mod._c2t_run_kernel(k, (5,), x, 300, 1, out, 300, 1, TILE=64, num_warps=4)
    assert len(k.native) == 1
    mod._c2t_run_kernel(k, (5,), x, 300, 1, out, 300, 1, num_warps=4, TILE=64)
    assert len(k.native) == 1
    assert_close(out, x * 2.0)


def _x(n=300, offset=0):
    return dev(torch.randn(n + offset, generator=torch.Generator().manual_seed(n)))[offset:]


def test_third_launch_is_native(mod):
    k = mod.scale_kernel
    for i in range(3):
        assert_close(mod.scale(_x(300 + i), 64), _x(300 + i) * 2.0)
    assert (len(k.jit_launches), len(k.reused), len(k.native)) == (1, 1, 1)
    assert k.native[0]["grid"] == (5, 1, 1) and k.native[0]["stream"] == STREAM
    assert k.expanded == 1, "the launcher's own native call, its arrays expanded natively"


def test_an_array_of_another_rank_still_gets_the_launchers_error(mod):
    k = mod.scale_kernel
    for _ in range(3):
        mod.scale(_x(), 64)
    assert len(k.native) == 1
    with pytest.raises(ValueError, match="the kernel takes arrays of rank x: 1, out: 1; got x: 2"):
        mod.launch_scale_kernel((5,), _x().reshape(20, 15), dev(torch.empty(300)), 64)
    assert len(k.native) == 1


def test_other_specializations_go_through_triton(mod):
    k = mod.scale_kernel
    mod.scale(_x(300), 64)
    mod.scale(_x(301), 64)  # reused: the native plan is set
    assert_close(mod.scale(_x(320), 64), _x(320) * 2.0)  # 320 % 16 == 0: another specialization
    assert_close(mod.scale(_x(300, offset=1), 64), _x(300, offset=1) * 2.0)  # a misaligned tensor
    assert_close(mod.scale(_x(300), 32), _x(300) * 2.0)  # another constexpr
    assert (len(k.jit_launches), len(k.native)) == (4, 0)
    assert_close(mod.scale(_x(302), 32), _x(302) * 2.0)  # the last specialization again: reused, then native
    assert_close(mod.scale(_x(303), 32), _x(303) * 2.0)
    assert (len(k.jit_launches), len(k.native)) == (4, 1)


def test_other_options_go_through_triton(mod):
    k, x, out = mod.scale_kernel, _x(), dev(torch.empty(300))
    for _ in range(3):
        mod.launch_scale_kernel((5,), x, out, 64, num_warps=8)
    assert len(k.native) == 1
    mod.launch_scale_kernel((5,), x, out, 64, num_warps=4)
    assert (len(k.jit_launches), len(k.native)) == (2, 1)
    assert_close(out, x * 2.0)


def test_hooks_and_a_cleared_cache_stop_native_launches(mod):
    k, seen = mod.scale_kernel, []
    for _ in range(3):
        mod.scale(_x(), 64)
    assert len(k.native) == 1
    triton.knobs.runtime.launch_enter_hook.add(seen.append)
    try:
        mod.scale(_x(), 64)
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(seen.append)
    k.kernel_cache.clear()  # Triton compiles again: its new kernel, not the planned one
    assert_close(mod.scale(_x(), 64), _x() * 2.0)
    assert (len(k.jit_launches), len(k.native)) == (3, 1)


def _native_in_subprocess(env, tmp_path):
    code = ("import warnings, json; warnings.simplefilter('always')\n"
            "from cutile2triton import fast_launch\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    m = fast_launch.native_module()\n"
            "print(json.dumps([m is not None, [str(x.message) for x in w]]))\n")
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path / "cache"), **env)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    import json

    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("value", ["0", "off", "False", " no "])
def test_turned_off_by_the_environment(value, tmp_path):
    assert _native_in_subprocess({"C2T_FAST_LAUNCH": value}, tmp_path) == [False, []]


def test_a_build_failure_is_said_once_and_launches_go_through_triton(tmp_path):
    built, warned = _native_in_subprocess({"CC": "/bin/false", "C2T_FAST_LAUNCH": "1"}, tmp_path)
    assert not built
    assert len(warned) == 1 and "native launch of reused kernels is unavailable" in warned[0], warned


def test_keyword_arguments_match_by_type_too(mod):
    # 1 and True are equal, but Triton specializes a parameter passed 1 as a constexpr and True as u1:
    # the native launch of the first must not run for the second.
    k, x, out = mod.scale_kernel, _x(), dev(torch.empty(300))
    for _ in range(3):
        mod._c2t_run_kernel(k, (5,), x, 300, 1, out, 300, out_stride_0=1, TILE=64)
    assert len(k.native) == 1
    assert_close(out, x * 2.0)
    # Through Triton (whose interpreter then rejects a bool stride: not a launch of the plan's kernel).
    with pytest.raises(ValueError, match="int1"):
        mod._c2t_run_kernel(k, (5,), x, 300, 1, out, 300, out_stride_0=True, TILE=64)
    assert (len(k.jit_launches), len(k.native)) == (2, 1)


def test_an_interrupt_while_checking_propagates():
    # An argument whose check raises an ordinary exception does not match (Triton's launch meets it
    # again); KeyboardInterrupt is not swallowed.
    class Interrupting:
        dtype = torch.float16

        def data_ptr(self):
            raise KeyboardInterrupt

    class Failing(Interrupting):
        def data_ptr(self):
            raise RuntimeError("no storage")

    bound = {f"a{i}": v for i, v in enumerate(BASE)}
    launch, plan = fast_launch.plan(fake_compiled(), _spec_of(BASE), bound, len(BASE))
    assert launch(plan, 1, 1, 1, STREAM, (Failing(),) + BASE[1:], []) is False
    with pytest.raises(KeyboardInterrupt):
        launch(plan, 1, 1, 1, STREAM, (Interrupting(),) + BASE[1:], [])


def test_the_cpu_launch_benchmark_runs(monkeypatch, capsys):
    # benchmarks/launch_host_cpu.py drives a converted launcher through Triton, the reuse table and the
    # native call (its own asserts: the result, that the timed launches were native); here with few calls.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "launch_host_cpu.py"
    spec = importlib.util.spec_from_file_location("launch_host_cpu", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    real_best = bench.best_us
    monkeypatch.setattr(bench, "best_us", lambda fn: real_best(fn, calls=20, rounds=1))
    monkeypatch.setattr(triton.runtime, "driver", triton.runtime.driver)  # main() replaces it: restored after
    bench.main()
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == ["launcher", "run_kernel", "native"], out


def test_a_tuned_kernel_is_native_per_shape_but_never_with_a_descriptor_choice(tmp_path, monkeypatch):
    # A search's choice that takes TMA descriptors holds only where the tensors allow them, which the
    # native launch does not check: such a shape is reused, never native. A choice without them is
    # native after one reused launch, for that exact shape only (another shape: reused first).
    m = _native_module(tmp_path, monkeypatch, COPY2D, "copy_kernel")
    k = m.copy_kernel
    choice = {"tma": True, "num_stages": 3, "pointer": {"num_stages": 4}}
    m._c2t_tuned_options[k] = {"a shape": choice}
    monkeypatch.setattr(m, "_c2t_tuned_choice", lambda kernel, args, kwargs: choice)

    def copy(rows):
        x = dev(torch.randn(rows, 16, generator=torch.Generator().manual_seed(rows)))
        out = dev(torch.zeros(rows, 16))
        m.launch_copy_kernel((rows // 16,), x, out, 16)
        assert_close(out, x)

    for _ in range(4):
        copy(64)
    # CPU tensors never allow descriptors: the pointer path's choice, through kernel[grid] once.
    assert k.jit_launches == [4] and k.native == [] and "_c2t_fast_shapes" not in vars(k)
    choice = {"num_stages": 4}
    for _ in range(3):
        copy(64)
    assert k.jit_launches == [4] and len(k.native) == 2 and list(k._c2t_fast_shapes) != []
    copy(128)  # another shape (the same specialization and choice): reused once, then native too
    assert k.jit_launches == [4] and len(k.native) == 2 and len(k._c2t_fast_shapes) == 2
    copy(128)
    assert len(k.native) == 3


def test_one_shape_in_several_dtypes_is_native_in_each(tmp_path, monkeypatch):
    # The native launches of a tuned kernel are keyed by each array's dtype too: launches of one shape
    # in several dtypes, alternating, are each native with their own compiled kernel.
    m = _native_module(tmp_path, monkeypatch, COPY2D, "copy_kernel")
    k = m.copy_kernel
    choice = {"num_stages": 4}
    m._c2t_tuned_options[k] = {"a shape": choice}
    monkeypatch.setattr(m, "_c2t_tuned_choice", lambda kernel, args, kwargs: choice)
    compiled = {}
    for _ in range(4):
        for dt in (torch.float32, torch.float16):
            x = dev(torch.randn(64, 16).to(dt))
            out = dev(torch.zeros(64, 16, dtype=dt))
            n = len(k.native)
            m.launch_copy_kernel((4,), x, out, 16)
            assert_close(out, x)
            if len(k.native) > n:
                compiled.setdefault(dt, set()).add(id(k.native[-1]["compiled"]))
    # each dtype: through Triton, reused once, then native twice, always its own kernel
    assert {dt: len(c) for dt, c in compiled.items()} == {torch.float32: 1, torch.float16: 1}
    assert len(k.native) == 4 and compiled[torch.float32] != compiled[torch.float16]


def test_a_choice_changed_while_a_launch_stores_its_native_entry_is_not_native(tmp_path, monkeypatch):
    # Another thread's search may change a shape's choice (and drop the native launches) between this
    # launch's read of the choice and its store of the shape's native entry: the store checks the choice
    # again and keeps the entry only if it is still the one launched with.
    m = _native_module(tmp_path, monkeypatch, COPY2D, "copy_kernel")
    k = m.copy_kernel
    first, later = {"num_stages": 4}, {"num_stages": 4}  # equal options, another search's choice
    reads = []
    m._c2t_tuned_options[k] = {"a shape": first}
    monkeypatch.setattr(m, "_c2t_tuned_choice", lambda kernel, args, kwargs: reads.append(1) or (
        first if len(reads) <= 2 else later))
    x = dev(torch.randn(64, 16))
    for launch in range(4):
        out = dev(torch.zeros(64, 16))
        m.launch_copy_kernel((4,), x, out, 16)
        assert_close(out, x)
        if launch == 1:  # reused, stored, then found changed (the third read): not kept
            assert not k.__dict__.get("_c2t_fast_shapes") and k.native == []
    assert len(k.native) == 1, "stored again under the new choice, then native"


GROUPED = """
import cuda.tile as ct

@ct.kernel
def grouped_scale(Xs, Os, T: ct.Constant[int]):
    # Block g scales list element g's first T elements by g + 1.
    g = ct.bid(0)
    x = ct.load(Xs[g], index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Os[g], index=(0,), tile=x * (g + 1))
"""


def test_a_list_kernels_reused_launch_is_native(tmp_path, monkeypatch):
    # Lists of arrays (grouped GEMMs) go natively too: the launcher makes or finds the list's table
    # first (_c2t_array_list), then passes table, length, first array and facts as they are. Other
    # lengths are the same specialization; other facts (a list of strided views) another one.
    m = _native_module(tmp_path, monkeypatch, GROUPED, "grouped_scale")
    k = m.grouped_scale

    def run(n, step=1):
        gen = torch.Generator().manual_seed(n * 10 + step)
        xs = [dev(torch.randn(16 * step, generator=gen))[::step] for _ in range(n)]
        os_ = [dev(torch.zeros(16)) for _ in range(n)]
        m.launch_grouped_scale((n,), xs, os_, 16)
        for g, (x, o) in enumerate(zip(xs, os_)):
            assert_close(o, x * (g + 1), msg=f"group {g} of {n}")

    for _ in range(3):
        run(3)
    assert (len(k.jit_launches), len(k.reused), len(k.native), k.expanded) == (1, 1, 1, 1)
    run(5)  # another length: the same specialization, native
    assert (len(k.jit_launches), len(k.native)) == (1, 2)
    assert k.native[-1]["grid"] == (5, 1, 1)
    run(3, step=2)  # strided elements: other facts (a constexpr), through Triton
    assert (len(k.jit_launches), len(k.native)) == (2, 2)
    with pytest.raises(ValueError, match="every array of the list must have 1 dimensions"):
        m.launch_grouped_scale((1,), [dev(torch.zeros(4, 4))], [dev(torch.zeros(16))], 16)
