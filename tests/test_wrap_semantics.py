"""Integer wrap-around and float-constant semantics of cuTile that a hostile round (s35) found the converter
getting wrong; each case converted and run under Triton's CPU interpreter against a NumPy reference of the
cuTile rule (cited per test), on fresh random inputs where the rule allows.

- cuTile's integer arithmetic wraps (two's complement; cutile_api.md §2.4, §3.9, §3.14): a sum or product of
  values >= 0 may be negative, so `//` and `%` must floor and gather/scatter must test `>= 0` wherever the
  converter cannot rule a wrap out (int8/int16 arithmetic, casts to narrower ints, large multipliers).
- ct.cdiv is a true ceiling (_stub.py cdiv), also for unsigned values and near the int32 limit.
- ct.full wraps an integer constant into its dtype (core_ops.canonicalize_const_value_for_type).
- x ** 0 is 1 for every x (IEEE pow); tanh keeps its relative precision near 0.
- A loosely typed float constant compared with a float tile takes the tile's dtype (_ir/ops_utils.py).
- A name bound on one path of a runtime `if` is undefined after it (cuTile: "Undefined variable"), and a
  loop-carried variable keeps its dtype (cuTile: "has changed its type inside a loop"): said at conversion.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from c2t_interp import DEVICE, ConversionFailed, convert, convert_and_load, fresh_seed, poison

pytestmark = pytest.mark.skipif(DEVICE != "cpu", reason="run under TRITON_INTERPRET=1 on CPU tensors")

HEADER = "import cuda.tile as ct\nConstInt = ct.Constant[int]\n"


def _load(src: str, tmp_path, name: str):
    return convert_and_load(HEADER + textwrap.dedent(src), tmp_path, name)


def _floordiv(a: np.ndarray, b) -> np.ndarray:
    return np.floor_divide(a, b)


def test_hash_with_a_large_multiplier_floors(tmp_path):
    """An int32 LCG hash wraps negative: its % and // must be Python's (the result of % in [0, m))."""
    mod = _load("""
    @ct.kernel
    def k(R, Q, T: ConstInt):
        offs = ct.bid(0) * T + ct.arange(T, dtype=ct.int32)
        h = offs * 1103515245 + 12345
        ct.store(R, index=(ct.bid(0),), tile=h % 1000)
        ct.store(Q, index=(ct.bid(0),), tile=h // 1000)
    """, tmp_path, "lcg")
    seed = fresh_seed()
    n, t = 200 + seed % 800, 64  # the offsets, and so the hashes, differ per run
    r, q = poison(torch.empty(n, dtype=torch.int32)), poison(torch.empty(n, dtype=torch.int32))
    mod.launch_k(((n + t - 1) // t,), r, q, t)
    offs = np.arange(n, dtype=np.int64)
    h = ((offs * 1103515245 + 12345) + 2**31) % 2**32 - 2**31  # int32 wrap
    assert (h < 0).any(), f"seed {seed}: the reference must wrap"
    np.testing.assert_array_equal(r.numpy(), h % 1000, err_msg=f"seed {seed}")
    np.testing.assert_array_equal(q.numpy(), _floordiv(h, 1000), err_msg=f"seed {seed}")


@pytest.mark.parametrize("case", ["astype_int8", "abs_int8", "sum_int8", "arange_int8"])
def test_narrow_int_results_floor(case, tmp_path):
    """int8 values that wrap (a cast of 128..255, |-128|, a sum, an arange past 127) floor under // and %."""
    body = {
        "astype_int8": "v = ct.arange(256, dtype=ct.int32).astype(ct.int8)",
        "abs_int8": "v = ct.abs((ct.arange(256, dtype=ct.int32) - 128).astype(ct.int8))",
        "sum_int8": "v = ct.reshape(ct.sum(ct.reshape(ct.arange(256, dtype=ct.int8), (4, 64)), axis=1), (4,))",
        "arange_int8": "v = ct.arange(256, dtype=ct.int8)",
    }[case]
    n = 4 if case == "sum_int8" else 256
    mod = _load(f"""
    @ct.kernel
    def k(Q, R):
        {body}
        ct.store(Q, index=(0,), tile=(v // 7).astype(ct.int32))
        ct.store(R, index=(0,), tile=(v % 10).astype(ct.int32))
    """, tmp_path, case)
    q, r = poison(torch.empty(n, dtype=torch.int32)), poison(torch.empty(n, dtype=torch.int32))
    mod.launch_k((1,), q, r)
    i = np.arange(256, dtype=np.int64)
    v = {
        "astype_int8": i.astype(np.int8),
        "abs_int8": np.abs((i - 128).astype(np.int8)),  # |-128| wraps to -128 in int8
        "sum_int8": i.astype(np.int8).reshape(4, 64).sum(axis=1, dtype=np.int8),
        "arange_int8": i.astype(np.int8),
    }[case].astype(np.int64)
    assert (v < 0).any()
    np.testing.assert_array_equal(q.numpy(), _floordiv(v, 7))
    np.testing.assert_array_equal(r.numpy(), v % 10)


def test_gather_scatter_with_wrapped_index_stay_inside(tmp_path):
    """int8 indices 0, 64, -128, -64 (64 * 2 and 64 * 3 wrapped): the negative ones are out of bounds
    (_stub.py gather/scatter), so nothing is read or written outside the array (a view of a larger buffer)."""
    mod = _load("""
    @ct.kernel
    def k(A, O, T: ConstInt):
        j = ct.arange(T, dtype=ct.int32).astype(ct.int8) * 64
        ct.store(O, index=(0,), tile=ct.gather(A, j, padding_value=-1.0))
        ct.scatter(A, j, 555.0)
    """, tmp_path, "gather_wrap")
    base = torch.randn(400, generator=torch.Generator().manual_seed(fresh_seed()))
    before = base.clone()
    a = base[200:300]
    o = poison(torch.empty(4))
    mod.launch_k((1,), a, o, 4)
    np.testing.assert_array_equal(o.numpy(), np.array([before[200], before[264], -1.0, -1.0], np.float32))
    assert torch.equal(base[:200], before[:200]) and torch.equal(base[300:], before[300:])
    assert a[0] == 555.0 and a[64] == 555.0


def test_cdiv_unsigned_and_near_the_int32_limit(tmp_path):
    """ct.cdiv is a true ceiling: uint32 operands (cuTile's unsigned DivIOp), and x + y - 1 past INT32_MAX."""
    mod = _load("""
    @ct.kernel
    def k(X, Y, C, D, T: ConstInt):
        x = ct.load(X, index=(0,), shape=(T,))
        y = ct.load(Y, index=(0,), shape=(T,))
        ct.store(C, index=(0,), tile=ct.cdiv(x, y))
        ct.store(D, index=(0,), tile=ct.cdiv(ct.arange(T, dtype=ct.int32) + 2147483640, 16))
    """, tmp_path, "cdiv_wrap")
    g = np.random.default_rng(fresh_seed())
    x = torch.from_numpy(g.integers(0, 2**32 - 1, 8, dtype=np.uint64).astype(np.uint32))
    y = torch.from_numpy(g.integers(1, 2**20, 8, dtype=np.uint64).astype(np.uint32))
    c, d = torch.zeros(8, dtype=torch.uint32), poison(torch.empty(8, dtype=torch.int32))
    mod.launch_k((1,), x, y, c, d, 8)
    xn, yn = x.numpy().astype(np.int64), y.numpy().astype(np.int64)
    np.testing.assert_array_equal(c.numpy().astype(np.int64), -(-xn // yn))
    np.testing.assert_array_equal(d.numpy(), -(-(np.arange(8) + 2147483640) // 16))


def test_full_wraps_constants_and_not_of_unsigned(tmp_path):
    """ct.full(-1, uint8) is 255 and ct.full(200, int8) is -56 (floors under //); ~ of a uint8 tile."""
    mod = _load("""
    @ct.kernel
    def k(X, A, B, N, T: ConstInt):
        ct.store(A, index=(0,), tile=ct.full((T,), -1, dtype=ct.uint8))
        ct.store(B, index=(0,), tile=(ct.full((T,), 200, dtype=ct.int8) // 7).astype(ct.int32))
        x = ct.load(X, index=(0,), shape=(T,)).astype(ct.uint8)
        ct.store(N, index=(0,), tile=~x)
    """, tmp_path, "full_wrap")
    x = torch.randint(0, 256, (8,), dtype=torch.uint8, generator=torch.Generator().manual_seed(fresh_seed()))
    a, n = torch.zeros(8, dtype=torch.uint8), torch.zeros(8, dtype=torch.uint8)
    b = poison(torch.empty(8, dtype=torch.int32))
    mod.launch_k((1,), x, a, b, n, 8)
    assert a.tolist() == [255] * 8 and b.tolist() == [-56 // 7] * 8
    np.testing.assert_array_equal(n.numpy(), ~x.numpy())


def test_pow_zero_is_one_for_nan_and_infinities(tmp_path):
    mod = _load("""
    @ct.kernel
    def k(X, Y, T: ConstInt):
        ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(T,)) ** 0)
    """, tmp_path, "pow0")
    x = torch.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 3.5, 0.0, 1e38, -2.0])
    y = poison(torch.empty(8))
    mod.launch_k((1,), x, y, 8)
    assert y.tolist() == [1.0] * 8


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_tanh_keeps_relative_precision_near_zero(dtype, tmp_path):
    mod = _load("""
    @ct.kernel
    def k(X, Y, T: ConstInt):
        ct.store(Y, index=(0,), tile=ct.tanh(ct.load(X, index=(0,), shape=(T,))))
    """, tmp_path, "tanh")
    g = torch.Generator().manual_seed(fresh_seed())
    mags = torch.logspace(-12, 1.3, 256, dtype=torch.float64)
    sign = torch.where(torch.rand(256, generator=g) < 0.5, -1.0, 1.0).double()
    x = (mags * sign).to(dtype)
    y = poison(torch.empty(256, dtype=dtype))
    mod.launch_k((1,), x, y, 256)
    ref = torch.tanh(x.double())
    rel = ((y.double() - ref).abs() / ref.abs()).max().item()
    assert rel < (4e-7 if dtype == torch.float32 else 1e-13), rel


@pytest.mark.parametrize("known", [True, False], ids=["dtype_known", "dtype_at_launch"])
def test_float_constant_compared_in_the_tiles_dtype(known, tmp_path):
    """fp16(0.1) >= 0.1 and bf16(0.1) == 0.1 in cuTile (the constant takes the tile's dtype); fp64 compares
    with 0.1 itself. `known`: the dtype is known at conversion (an astype) or only to Triton (a load)."""
    cast = (lambda t, d: f"{t}.astype(ct.{d})") if known else (lambda t, d: t)
    mod = _load(f"""
    @ct.kernel
    def k(H, B, D, O1, O2, O3, T: ConstInt):
        h = {cast("ct.load(H, index=(0,), shape=(T,))", "float16")}
        b = {cast("ct.load(B, index=(0,), shape=(T,))", "bfloat16")}
        d = {cast("ct.load(D, index=(0,), shape=(T,))", "float64")}
        ct.store(O1, index=(0,), tile=(h >= 0.1).astype(ct.int32))
        ct.store(O2, index=(0,), tile=(b == 0.1).astype(ct.int32))
        ct.store(O3, index=(0,), tile=(d < 0.1).astype(ct.int32))
    """, tmp_path, f"cmp_{known}")
    vals = [0.1, 0.2, -1.0, 0.0999, 0.10001, 0.0999755859375, 0.10009765625, 1e-3]
    h, b, d = (torch.tensor(vals, dtype=t) for t in (torch.float16, torch.bfloat16, torch.float64))
    o = [poison(torch.empty(8, dtype=torch.int32)) for _ in range(3)]
    mod.launch_k((1,), h, b, d, *o, 8)
    assert o[0].tolist() == (h >= torch.tensor(0.1, dtype=torch.float16)).int().tolist()
    assert o[1].tolist() == (b == torch.tensor(0.1, dtype=torch.bfloat16)).int().tolist()
    assert o[2].tolist() == (d < 0.1).int().tolist()
    assert o[0].tolist()[0] == 1 and o[1].tolist()[0] == 1  # where Triton's fp32 comparison differed


def test_name_bound_on_one_path_of_a_runtime_if_is_an_error():
    src = HEADER + textwrap.dedent("""
    @ct.kernel
    def k(X, Y, T: ConstInt):
        x = ct.load(X, index=(0,), shape=(T,))
        if ct.bid(0) == 0:
            y = x * 2
        ct.store(Y, index=(0,), tile=y)
    """)
    with pytest.raises(ConversionFailed) as e:
        convert(src, filename="one_path.py")
    msg = str(e.value)
    assert "one_path.py:9:34: error: 'y' is assigned on only one path of the `if` at line 7" in msg
    assert "    ct.store(Y, index=(0,), tile=y)\n" in msg and "^" in msg


@pytest.mark.parametrize("other", ["else:\n            y = x", "else:\n            return", "", "y = x"], ids=[
    "both_paths", "other_path_returns", "constexpr_condition", "bound_before"])
def test_names_bound_on_every_path_that_goes_on_convert(other, tmp_path):
    cond = "T == 8" if other == "" else "ct.bid(0) == 0"
    pre = "y = x" if other == "y = x" else ""
    tail = "" if other in ("", "y = x") else other
    mod = _load(f"""
    @ct.kernel
    def k(X, Y, T: ConstInt):
        x = ct.load(X, index=(0,), shape=(T,))
        {pre}
        if {cond}:
            y = x * 2
        {tail}
        ct.store(Y, index=(0,), tile=y)
    """, tmp_path, "paths")
    x = torch.randn(8, generator=torch.Generator().manual_seed(fresh_seed()))
    y = poison(torch.empty(8))
    mod.launch_k((1,), x, y, 8)
    torch.testing.assert_close(y, x * 2)


def test_a_loop_carried_dtype_change_is_an_error():
    """cuTile: "Variable acc has changed its type inside a loop" (_ir/ir.py); Triton fails the same kernel at
    launch ("Loop-carried variable acc has initial type int32 but is re-assigned to fp32") and the
    interpreter not at all: said at conversion where the dtypes are known."""
    src = HEADER + textwrap.dedent("""
    @ct.kernel
    def k(X, Y, n, T: ConstInt):
        acc = ct.zeros((T,), dtype=ct.int32)
        for i in range(n):
            x = ct.load(X, index=(i,), shape=(T,)).astype(ct.float32)
            acc = acc + x
        ct.store(Y, index=(0,), tile=acc)
    """)
    with pytest.raises(ConversionFailed) as e:
        convert(src, filename="carried.py")
    assert ("carried.py:9:9: error: 'acc' changes its dtype inside this loop (int32 before it, float32 after an "
            "iteration)") in str(e.value)


def test_a_loop_carried_value_of_one_dtype_converts(tmp_path):
    mod = _load("""
    @ct.kernel
    def k(X, Y, n, T: ConstInt):
        acc = ct.zeros((T,), dtype=ct.float32)
        m = ct.full((T,), -1e30, dtype=ct.float32)
        for i in range(n):
            x = ct.load(X, index=(i,), shape=(T,)).astype(ct.float16)
            acc = acc + x
            m = ct.maximum(m, x)
        ct.store(Y, index=(0,), tile=acc + m)
    """, tmp_path, "carried_ok")
    x = torch.randn(5 * 8, generator=torch.Generator().manual_seed(fresh_seed()))
    y = poison(torch.empty(8))
    mod.launch_k((1,), x, y, 5, 8)
    xs = x.to(torch.float16).float().view(5, 8)
    torch.testing.assert_close(y, xs.sum(0) + xs.max(0).values, rtol=1e-5, atol=1e-5)


def test_return_inside_a_while_loop_is_said_as_triton_s_limit():
    src = HEADER + textwrap.dedent("""
    @ct.kernel
    def k(X, n):
        i = 0
        while i < n:
            return
    """)
    with pytest.raises(ConversionFailed) as e:
        convert(src, filename="ret.py")
    assert "Triton rejects it; cuTile allows it in while loops only" in str(e.value)
