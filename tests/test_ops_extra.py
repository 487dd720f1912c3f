"""cuTile operations added after the first registry (issue 3): ct.tan / sinh /
cosh / atan2, propagate_nan=True on max/min reductions and argmax/argmin,
and ct.reduce / ct.scan with lambda or helper-function combine functions.

Each case is converted by the C++ converter and run under Triton's CPU
interpreter against an independent torch reference: fresh random inputs
every run (seed in the failure message), sizes that are not multiples of
the tile, outputs poisoned before the run."""

from __future__ import annotations

import math

import pytest
import torch

from c2t_interp import ConversionFailed, assert_close, convert, convert_and_load, dev, fresh_seed, poison

HEADER = """
import cuda.tile as ct
ConstInt = ct.Constant[int]
"""

N = 100
TILE = 32
F16, F32, F64, I32 = torch.float16, torch.float32, torch.float64, torch.int32


def _gen():
    seed = fresh_seed()
    return seed, torch.Generator().manual_seed(seed)


# ---------------------------------------------------------------------------
# Elementwise math: z = f(x, y) over 1-D tiles, N not a multiple of TILE.

ELEMENTWISE = HEADER + """
@ct.kernel
def k(X, Y, Z, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(X, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    z = {expr}
    ct.store(Z, index=(bid,), tile=z)

def run(x, y, z, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), k, (x, y, z, tile))
"""


def _wide(g, n=N):
    """Values over many magnitudes, both signs (exercises every branch of the helpers)."""
    mag = torch.exp(torch.empty(n, dtype=torch.float64).uniform_(-8.0, 4.4, generator=g))
    return torch.randn(n, generator=g, dtype=torch.float64) * mag


def _hyp_inputs(g, n=N):
    # |x| < 1 (Taylor branch) and 1 <= |x| < 11 (exp branch); fp16 stays finite.
    return (torch.rand(n, generator=g, dtype=torch.float64) * 22 - 11) * torch.where(
        torch.rand(n, generator=g) < 0.4, 0.05, 1.0).double()


MATH_CASES = [
    # (id, expression, x dtype, y dtype, output dtype, reference on float64 inputs, inputs)
    ("tan", "ct.tan(x)", F32, F32, F32, lambda x, y: torch.tan(x), "wide"),
    ("tan_f64", "ct.tan(x)", F64, F64, F64, lambda x, y: torch.tan(x), "wide"),
    ("tan_f16", "ct.tan(x)", F16, F16, F16, lambda x, y: torch.tan(x), "small"),
    ("tan_int", "ct.tan(ct.astype(x * 10.0, ct.int32))", F32, F32, F32,
     lambda x, y: torch.tan(torch.trunc(x.float() * 10).double()), "small"),
    ("sinh", "ct.sinh(x)", F32, F32, F32, lambda x, y: torch.sinh(x), "hyp"),
    ("sinh_f64", "ct.sinh(x)", F64, F64, F64, lambda x, y: torch.sinh(x), "hyp"),
    ("sinh_f16", "ct.sinh(x)", F16, F16, F16, lambda x, y: torch.sinh(x), "hyp"),
    ("cosh", "ct.cosh(x)", F32, F32, F32, lambda x, y: torch.cosh(x), "hyp"),
    ("cosh_f64", "ct.cosh(x)", F64, F64, F64, lambda x, y: torch.cosh(x), "hyp"),
    ("cosh_f16", "ct.cosh(x)", F16, F16, F16, lambda x, y: torch.cosh(x), "hyp"),
    ("atan2", "ct.atan2(x, y)", F32, F32, F32, lambda x, y: torch.atan2(x, y), "wide"),
    ("atan2_f64", "ct.atan2(x, y)", F64, F64, F64, lambda x, y: torch.atan2(x, y), "wide"),
    ("atan2_f16", "ct.atan2(x, y)", F16, F16, F16, lambda x, y: torch.atan2(x, y), "small"),
    ("atan2_mixed", "ct.atan2(x, y)", F16, F32, F32, lambda x, y: torch.atan2(x, y), "small"),
    ("atan2_literal", "ct.atan2(x, -0.5)", F32, F32, F32, lambda x, y: torch.atan2(x, torch.full_like(x, -0.5)), "wide"),
    ("atan2_known_f16", "ct.atan2(x.astype(ct.float16), 1.5)", F32, F32, F16,
     lambda x, y: torch.atan2(x.half().double(), torch.full_like(x, 1.5)), "small"),
    ("atan2_scalar_const", "x * 0.0 + ct.atan2(1.0, -2.0)", F32, F32, F32,
     lambda x, y: torch.full_like(x, math.atan2(1.0, -2.0)), "small"),
]


@pytest.mark.parametrize("case", MATH_CASES, ids=[c[0] for c in MATH_CASES])
def test_math(case, tmp_path):
    name, expr, xdt, ydt, out_dt, ref, kind = case
    mod = convert_and_load(ELEMENTWISE.format(expr=expr), tmp_path, name)
    seed, g = _gen()
    if kind == "wide":
        x, y = _wide(g), _wide(g)
    elif kind == "hyp":
        x, y = _hyp_inputs(g), _hyp_inputs(g)
    else:
        x, y = torch.randn(N, generator=g, dtype=torch.float64) * 2, torch.randn(N, generator=g, dtype=torch.float64) * 2
    x, y = dev(x.to(xdt)), dev(y.to(ydt))
    z = poison(dev(torch.empty(N, dtype=out_dt)))
    mod.run(x, y, z, TILE)
    exp = ref(x.double(), y.double()).to(out_dt)
    assert_close(z, exp, dtype=out_dt if out_dt != F64 else F32, relaxed=True, msg=f"{name} seed={seed}")


def test_atan2_special_values(tmp_path):
    """C99 atan2 special cases: signed zeros, infinities, NaN (cuTile lowers to Tile IR atan2)."""
    mod = convert_and_load(ELEMENTWISE.format(expr="ct.atan2(x, y)"), tmp_path, "atan2_special")
    sp = [0.0, -0.0, math.inf, -math.inf, 1.0, -1.0, 1e-30, -1e-30, math.nan]
    for dt in (F32, F64):
        y, x = torch.meshgrid(torch.tensor(sp, dtype=dt), torch.tensor(sp, dtype=dt), indexing="ij")
        y, x = dev(y.reshape(-1).contiguous()), dev(x.reshape(-1).contiguous())
        z = poison(dev(torch.empty(y.numel(), dtype=dt)))
        mod.run(y, x, z, TILE)
        exp = torch.atan2(y.double(), x.double()).to(dt)
        torch.testing.assert_close(z.cpu(), exp.cpu(), equal_nan=True, rtol=1e-6, atol=0)
        same_sign = (torch.signbit(z) == torch.signbit(exp)) | torch.isnan(exp)
        assert bool(same_sign.all()), list(zip(y[~same_sign].tolist(), x[~same_sign].tolist(), z[~same_sign].tolist()))


def test_hyperbolic_extremes(tmp_path):
    """Near the fp32 overflow point sinh/cosh stay finite exactly where the true value is."""
    mod = convert_and_load(ELEMENTWISE.format(expr="ct.sinh(x) + ct.cosh(y)"), tmp_path, "hyp_extremes")
    x = dev(torch.tensor([88.5, -88.5, 89.0, -89.0, 89.5, 1e-20, -1e-6, 0.999, 1.0, 30.0], dtype=F32))
    y = dev(torch.tensor([0.0] * 10, dtype=F32))
    z = poison(dev(torch.empty(10, dtype=F32)))
    mod.run(x, y, z, TILE)
    exp = (torch.sinh(x.double()) + 1.0).float()
    torch.testing.assert_close(z.cpu(), exp.cpu(), rtol=2e-6, atol=0)


def test_atan2_integer_operands_are_diagnosed():
    with pytest.raises(ConversionFailed, match="ct.atan2 needs floating-point operands"):
        convert(ELEMENTWISE.format(expr="ct.atan2(ct.astype(x, ct.int32), ct.astype(y, ct.int32))"))


# ---------------------------------------------------------------------------
# NaN rules of max/min/argmax/argmin (cuTile test_reduction.py
# test_reduce_maxmin_nan / test_reduce_argmaxmin_nan): propagate_nan=False
# ignores NaNs (argmax/argmin: NaN is the worst value), True lets any NaN win
# (argmax/argmin: the first NaN).

NAN_REDUCE = HEADER + """
@ct.kernel
def k(X, Z, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.{pad})
    ct.store(Z, index={zindex}, tile={expr})

def run(x, z, tm, tn):
    ct.launch(None, (ct.cdiv(x.shape[0], tm),), k, (x, z, tm, tn))
"""

M3, N3, TM3, TN3 = 13, 27, 4, 32


def _nan_matrix(g, dtype):
    x = torch.randn(M3, N3, generator=g, dtype=torch.float64)
    x[torch.rand(M3, N3, generator=g) < 0.15] = math.nan
    x[0] = math.nan                      # an all-NaN row
    x[1] = 1.0                           # all ties
    x[2, 3] = math.inf
    x[3, 5] = -math.inf
    x[4, :] = torch.where(torch.isnan(x[4]), torch.zeros(N3, dtype=torch.float64), x[4])  # no NaN
    return x.to(dtype)


def _ignore_nan_ref(op, x):
    fill = -math.inf if op in ("max", "argmax") else math.inf
    xf = torch.where(torch.isnan(x), torch.full_like(x, fill), x)
    allnan = torch.isnan(x).all(1)
    if op in ("max", "min"):
        r = xf.amax(1) if op == "max" else xf.amin(1)
        return torch.where(allnan, torch.full_like(r, math.nan), r)
    # first index of the extreme value; all-NaN rows -> 0
    best = xf.amax(1, keepdim=True) if op == "argmax" else xf.amin(1, keepdim=True)
    idx = torch.arange(x.shape[1]).expand_as(x)
    hit = (xf == best) & ~torch.isnan(x)
    r = torch.where(hit, idx, torch.full_like(idx, x.shape[1])).amin(1)
    return torch.where(allnan, torch.zeros_like(r), r).int()


def _propagate_nan_ref(op, x):
    anynan = torch.isnan(x).any(1)
    if op in ("max", "min"):
        return x.amax(1) if op == "max" else x.amin(1)  # torch amax/amin propagate NaN
    idx = torch.arange(x.shape[1]).expand_as(x)
    first_nan = torch.where(torch.isnan(x), idx, torch.full_like(idx, x.shape[1])).amin(1)
    return torch.where(anynan, first_nan, _ignore_nan_ref(op, x).long()).int()


NAN_CASES = [(op, pn, dt) for op in ("max", "min", "argmax", "argmin") for pn in (False, True) for dt in (F32, F16)]


@pytest.mark.parametrize("op,pn,dt", NAN_CASES, ids=[f"{o}_{'prop' if p else 'ignore'}_{str(d)[6:]}" for o, p, d in NAN_CASES])
def test_nan_rules(op, pn, dt, tmp_path):
    pad = "NEG_INF" if op in ("max", "argmax") else "POS_INF"
    expr = f"ct.{op}(x, axis=1, propagate_nan={pn})"
    mod = convert_and_load(NAN_REDUCE.format(pad=pad, zindex="(bm,)", expr=expr), tmp_path, f"nan_{op}")
    seed, g = _gen()
    x = dev(_nan_matrix(g, dt))
    out_dt = I32 if op.startswith("arg") else dt
    z = poison(dev(torch.empty(M3, dtype=out_dt)))
    mod.run(x, z, TM3, TN3)
    # the reference sees the padded tile row (padding_mode fills columns N3..TN3-1)
    xd = torch.full((M3, TN3), {"NEG_INF": -math.inf, "POS_INF": math.inf}[pad], dtype=torch.float64)
    xd[:, :N3] = x.cpu().double()
    exp = (_propagate_nan_ref if pn else _ignore_nan_ref)(op, xd).to(out_dt)
    if out_dt == I32:
        assert torch.equal(z.cpu(), exp), f"{op} pn={pn} seed={seed}\n{z}\n{exp}"
    else:
        torch.testing.assert_close(z.cpu(), exp, equal_nan=True, rtol=0, atol=0, msg=lambda m: f"seed={seed} {m}")


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("pn", [False, True])
def test_nan_arg_all_axes_keepdims(op, pn, tmp_path):
    """axis=None indexes the row-major flattening of the tile (one tile per block)."""
    expr = f"ct.reshape(ct.{op}(x, keepdims=True, propagate_nan={pn}), (1,))"
    pad = "NEG_INF" if op == "argmax" else "POS_INF"
    mod = convert_and_load(NAN_REDUCE.format(pad=pad, zindex="(bm,)", expr=expr), tmp_path, f"nan_all_{op}")
    seed, g = _gen()
    x = _nan_matrix(g, F32)
    x[0, 0] = 0.5  # row 0 (first block) is no longer all NaN
    x = dev(x)
    nb = (M3 + TM3 - 1) // TM3
    z = poison(dev(torch.empty(nb, dtype=I32)))
    mod.run(x, z, TM3, TN3)
    exp = []
    for b in range(nb):
        blk = torch.full((TM3, TN3), -math.inf if op == "argmax" else math.inf, dtype=torch.float64)
        part = x.cpu().double()[b * TM3:(b + 1) * TM3]
        blk[:part.shape[0], :N3] = part
        ref = (_propagate_nan_ref if pn else _ignore_nan_ref)(op, blk.reshape(1, -1))
        exp.append(int(ref[0]))
    assert z.cpu().tolist() == exp, f"{op} pn={pn} seed={seed}"


def test_propagate_nan_int_is_plain():
    """Integers have no NaN: the built-in reduction is kept."""
    code = convert(NAN_REDUCE.format(pad="ZERO", zindex="(bm,)",
                                     expr="ct.max(x.astype(ct.int32), axis=1, propagate_nan=True)"))
    assert "tl.max(x.to(tl.int32), axis=1)" in code, code


# ---------------------------------------------------------------------------
# ct.reduce / ct.scan with lambda and helper-function combine functions
# (cutile-python test_reduction.py test_custom_reduction_*, test_scan.py).

CUSTOM = HEADER + """
import operator


def add(a, b):
    return a + b


def minimum_with_index(a_val, a_idx, b_val, b_idx):
    lt = a_val < b_val
    eq = a_val == b_val
    mask = lt | (eq & (a_idx < b_idx))
    return ct.where(mask, a_val, b_val), ct.where(mask, a_idx, b_idx)


@ct.kernel
def k(X, Z, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.{pad})
    lim = ct.astype(bm, ct.float32) * 0.25 + 0.5
    z = {expr}
    ct.store(Z, index={zindex}, tile=z)

def run(x, z, tm, tn):
    ct.launch(None, (ct.cdiv(x.shape[0], tm),), k, (x, z, tm, tn))
"""


def _padded(x, fill):
    xp = torch.full((M3, TN3), fill, dtype=torch.float64)
    xp[:, :N3] = x.cpu().double()
    return xp


def _first_min_index(xp):
    best = xp.amin(1, keepdim=True)
    idx = torch.arange(xp.shape[1]).expand_as(xp)
    return torch.where(xp == best, idx, torch.full_like(idx, xp.shape[1])).amin(1)


CUSTOM_CASES = [
    # (id, expr, padding, pad value, input dtype, output shape, zindex, reference(padded float64 x))
    ("reduce_lambda_sum", "ct.reduce(x, 1, lambda a, b: a + b, 0)", "ZERO", 0.0, F32, (M3,), "(bm,)",
     lambda xp: xp.sum(1)),
    ("reduce_lambda_keepdims", "ct.reduce(x, axis=1, func=lambda a, b: a + b, identity=0, keepdims=True)", "ZERO", 0.0,
     F32, (M3, 1), "(bm, 0)", lambda xp: xp.sum(1, keepdim=True)),
    ("reduce_last_axis_def", "ct.reduce(x, -1, add, 0)", "ZERO", 0.0, F32, (M3,), "(bm,)", lambda xp: xp.sum(1)),
    ("reduce_axis0_max", "ct.reduce(x, 0, lambda a, b: ct.maximum(a, b), -1e30, keepdims=True)",
     "NEG_INF", -math.inf, F32, None, None, None),
    ("reduce_lambda_prod_f16", "ct.reduce(x, 1, lambda a, b: a * b, 1)", "ZERO", 0.0, F16, (M3,), "(bm,)",
     lambda xp: xp.prod(1)),
    ("reduce_int", "ct.reduce(x.astype(ct.int32), 1, lambda a, b: a * 3 + b - 2 * a, 0)", "ZERO", 0.0, F32,
     (M3,), "(bm,)", lambda xp: xp.trunc().sum(1)),
    ("reduce_tuple_argmin", "ct.reduce((x, ct.arange(TN, dtype=ct.int32)), 1, minimum_with_index, (1e30, 0))[1]",
     "POS_INF", math.inf, F32, (M3,), "(bm,)", _first_min_index),
    ("scan_lambda_sum", "ct.scan(x, axis=1, func=lambda a, b: a + b, identity=0)", "ZERO", 0.0, F32, (M3, N3),
     "(bm, 0)", lambda xp: xp.cumsum(1)[:, :N3]),
    ("scan_reverse", "ct.scan(x, 1, add, 0, reverse=True)", "ZERO", 0.0, F32, (M3, N3), "(bm, 0)",
     lambda xp: xp.flip(1).cumsum(1).flip(1)[:, :N3]),
    ("scan_axis0_prod", "ct.scan(x, axis=0, func=lambda a, b: a * b, identity=1)", "ZERO", 0.0, F32, (M3, N3),
     "(bm, 0)", None),
    ("scan_tuple_running_min",
     "ct.scan((x, ct.arange(TN, dtype=ct.int32)), 1, minimum_with_index, (1e30, 0))[1].astype(ct.float32)",
     "ZERO", 0.0, F32, (M3, N3), "(bm, 0)", None),
    ("reduce_capture_int", "ct.reduce(x.astype(ct.int32), 1, lambda a, b: (a + b) % (bm + 5), 0)", "ZERO", 0.0, F32,
     (M3,), "(bm,)", None),
    ("reduce_capture_float", "ct.reduce(x, 1, lambda a, b: ct.minimum(ct.maximum(a, b), lim), -1e30)", "NEG_INF",
     -math.inf, F32, (M3,), "(bm,)", None),
    ("scan_capture_tuple", "ct.scan((x, ct.arange(TN, dtype=ct.int32)), 1, lambda av, ai, bv, bi: (av + bv * lim, "
     "ct.maximum(ai, bi)), (0, 0))[0]", "ZERO", 0.0, F32, (M3, N3), "(bm, 0)", None),
    ("reduce_operator_add", "ct.reduce(x, 1, operator.add, 0)", "ZERO", 0.0, F32, (M3,), "(bm,)", lambda xp: xp.sum(1)),
    ("reduce_ct_maximum", "ct.reduce(x, 1, ct.maximum, -1e30)", "NEG_INF", -math.inf, F32, (M3,), "(bm,)",
     lambda xp: xp.amax(1)),
    ("scan_ct_add", "ct.scan(x, axis=1, func=ct.add, identity=0)", "ZERO", 0.0, F32, (M3, N3), "(bm, 0)",
     lambda xp: xp.cumsum(1)[:, :N3]),
    ("scan_operator_mul", "ct.scan(x, 1, operator.mul, 1)", "ZERO", 0.0, F32, (M3, N3), "(bm, 0)",
     lambda xp: xp.cumprod(1)[:, :N3]),
    ("lambda_called", "(lambda a, b: a * 2.0 + b)(x, 1.0)", "ZERO", 0.0, F32, (M3, N3), "(bm, 0)", lambda xp: (xp * 2 + 1)[:, :N3]),
]


@pytest.mark.parametrize("case", CUSTOM_CASES, ids=[c[0] for c in CUSTOM_CASES])
def test_custom_reduce_scan(case, tmp_path):
    name, expr, pad, fill, in_dt, out_shape, zindex, ref = case
    seed, g = _gen()
    if "prod" in name or "mul" in name:
        x = 1 + 0.05 * torch.randn(M3, N3, generator=g, dtype=torch.float64)
    elif name == "reduce_int":
        x = torch.randint(-50, 50, (M3, N3), generator=g).double()
    else:
        x = torch.randn(M3, N3, generator=g, dtype=torch.float64)
    x = dev(x.to(in_dt))
    if name == "reduce_axis0_max":
        # column max of each (TM, TN) block, stored as row bm of a (blocks, TN) output
        mod = convert_and_load(CUSTOM.format(pad=pad, expr=expr, zindex="(bm, 0)"), tmp_path, name)
        nb = (M3 + TM3 - 1) // TM3
        z = poison(dev(torch.empty(nb, N3)))
        mod.run(x, z, TM3, TN3)
        xp = _padded(x, fill)
        exp = torch.stack([xp[b * TM3:(b + 1) * TM3].amax(0) for b in range(nb)])[:, :N3]
        assert_close(z, exp.float(), msg=f"{name} seed={seed}")
        return
    mod = convert_and_load(CUSTOM.format(pad=pad, expr=expr, zindex=zindex), tmp_path, name)
    out_dt = I32 if name == "reduce_tuple_argmin" or name == "reduce_int" else in_dt
    z = poison(dev(torch.empty(out_shape, dtype=out_dt)))
    mod.run(x, z, TM3, TN3)
    xp = _padded(x, fill)
    if name == "scan_axis0_prod":
        exp = torch.cat([xp[i:i + TM3].cumprod(0) for i in range(0, M3, TM3)])[:, :N3]
    elif name == "reduce_capture_int":
        blk = torch.arange(M3) // TM3
        exp = torch.tensor([int(v) for v in xp.trunc().long().sum(1)]) % (blk + 5)
        # (a + b) % m over a tree: the sum modulo m whatever the order (Python %, non-negative)
    elif name == "reduce_capture_float":
        lim = (torch.arange(M3) // TM3).double() * 0.25 + 0.5
        exp = torch.minimum(xp.amax(1), lim)
    elif name == "scan_capture_tuple":
        # av + bv * lim is associative only for lim == 1: block 2 (rows 8..11) has lim = 1.0
        exp = xp.cumsum(1)[:, :N3]
        rows = slice(2 * TM3, 3 * TM3)
        z, exp = z[rows], exp[rows]
    elif name == "scan_tuple_running_min":
        run = torch.zeros(M3, N3, dtype=torch.float64)
        for j in range(N3):
            run[:, j] = _first_min_index(xp[:, :j + 1]).double()
        exp = run
    else:
        exp = ref(xp)
    assert_close(z, exp.to(out_dt), dtype=in_dt if out_dt.is_floating_point else out_dt, relaxed=True,
                 msg=f"{name} seed={seed}")


def test_custom_reduce_welford(tmp_path):
    """Tuple of three tiles, module-level combine with ct.where and division (test_custom_reduction_welford)."""
    src = HEADER + """
def combine(mean_a, m2_a, weight_a, mean_b, m2_b, weight_b):
    delta = mean_b - mean_a
    new_weight = weight_a + weight_b
    wb_normalized = ct.where(new_weight == 0, 0, weight_b / new_weight)
    new_mean = mean_a + delta * wb_normalized
    new_m2 = m2_a + m2_b + delta * delta * weight_a * wb_normalized
    return new_mean, new_m2, new_weight


@ct.kernel
def k(X, W, Y, T: ConstInt):
    tx = ct.load(X, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)
    tw = ct.load(W, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)
    tm2 = ct.zeros((T,), dtype=ct.float32)
    mean, m2, _ = ct.reduce((tx, tm2, tw), 0, combine, (0, 0, 0))
    ct.scatter(Y, 0, mean)
    ct.scatter(Y, 1, m2)

def run(x, w, y):
    ct.launch(None, (1,), k, (x, w, y, 1024))
"""
    mod = convert_and_load(src, tmp_path, "welford")
    seed, g = _gen()
    x = dev(torch.randn(1000, generator=g) * 3.0 + 1.5)
    w = dev(torch.randint(0, 100, (1000,), generator=g).float())
    y = poison(dev(torch.empty(2)))
    mod.run(x, w, y)
    xd, wd = x.cpu().double(), w.cpu().double()
    mean = (xd * wd).sum() / wd.sum()
    m2 = (wd * (xd - mean) ** 2).sum()
    assert_close(y.cpu(), torch.tensor([mean, m2]).float(), relaxed=True, msg=f"welford seed={seed}")


NESTED_DEFS = HEADER + """
@ct.kernel
def k(X, W, Y, Z, T: ConstInt):
    def combine(mean_a, m2_a, weight_a, mean_b, m2_b, weight_b):
        delta = mean_b - mean_a
        new_weight = weight_a + weight_b
        wb_normalized = ct.where(new_weight == 0, 0, weight_b / new_weight)
        new_mean = mean_a + delta * wb_normalized
        new_m2 = m2_a + m2_b + delta * delta * weight_a * wb_normalized
        return new_mean, new_m2, new_weight

    def scaled(t, s):
        return t * s

    tx = ct.load(X, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)
    tw = ct.load(W, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)
    tm2 = ct.zeros((T,), dtype=ct.float32)
    mean, m2, _ = ct.reduce((tx, tm2, tw), 0, combine, (0, 0, 0))
    ct.scatter(Y, 0, mean)
    ct.scatter(Y, 1, m2)
    ct.store(Z, (0,), scaled(tx, 3.0))

def run(x, w, y, z):
    ct.launch(None, (1,), k, (x, w, y, z, 1024))
"""


def test_nested_def_combine_and_call(tmp_path):
    """cuTile test_custom_reduction_welford with the combine function nested in the
    kernel, plus a nested def called as a helper."""
    mod = convert_and_load(NESTED_DEFS, tmp_path, "nested_defs")
    seed, g = _gen()
    x = dev(torch.randn(1000, generator=g) * 3.0 + 1.5)
    w = dev(torch.randint(0, 100, (1000,), generator=g).float())
    y = poison(dev(torch.empty(2)))
    z = poison(dev(torch.empty(1000)))
    mod.run(x, w, y, z)
    xd, wd = x.cpu().double(), w.cpu().double()
    mean = (xd * wd).sum() / wd.sum()
    m2 = (wd * (xd - mean) ** 2).sum()
    assert_close(y.cpu(), torch.tensor([mean, m2]).float(), relaxed=True, msg=f"nested welford seed={seed}")
    assert_close(z, x * 3.0, msg=f"nested helper seed={seed}")


def test_nested_def_closure_is_diagnosed():
    src = NESTED_DEFS.replace("        return t * s\n", "        return t * s * T\n")
    with pytest.raises(ConversionFailed, match="nested function 'scaled' uses 'T' of the enclosing function"):
        convert(src)
    src = NESTED_DEFS.replace("        new_weight = weight_a + weight_b\n", "        new_weight = weight_a + weight_b + T\n")
    with pytest.raises(ConversionFailed, match="the nested reduce combine function 'combine' reads 'T'"):
        convert(src)


DIAG_CASES = [
    ("capture_tile", "ct.reduce(x, 1, lambda a, b: a + b + x, 0)", "captures 'x' of the enclosing function, which is "
     "not a runtime scalar"),
    ("capture_constexpr", "ct.reduce(x, 1, lambda a, b: a + b * TM, 0)", "captures 'TM' of the enclosing function"),
    ("called_capture", "(lambda a: a * bm)(x)", "uses 'bm' of the enclosing function"),
    ("identity_count", "ct.reduce((x, x), 1, minimum_with_index, 0)[0]", "a tuple of 2 constant numbers"),
    ("identity_runtime", "ct.reduce(x, 1, add, bm)", "identity must be a constant number"),
    ("axis_none", "ct.scan(x, axis=None, func=add, identity=0)", "needs an integer constant axis"),
    ("wrong_arity", "ct.reduce((x, x), 1, add, (0, 0))[0]", "must take 4 parameters"),
    ("wrong_result_count", "ct.reduce(x, 1, lambda a, b: (a, b), 0)", "must return one 0-d value"),
    ("ct_func", "ct.reduce(x, 1, ct.exp, 0)", "ct.exp as a reduce combine function is not supported"),
    ("operator_unary", "ct.reduce(x, 1, operator.neg, 0)", "operator.neg as a reduce combine function is not supported"),
    ("operator_tuple", "ct.reduce((x, x), 1, operator.add, (0, 0))[0]", "not supported for tuples of tiles"),
    ("dtype_change", "ct.reduce(x.astype(ct.int32), 1, lambda a, b: a / b, 1)",
     "returns float32 for a int32 tile"),
]


@pytest.mark.parametrize("case", DIAG_CASES, ids=[c[0] for c in DIAG_CASES])
def test_custom_reduce_diagnostics(case):
    name, expr, message = case
    with pytest.raises(ConversionFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        convert(CUSTOM.format(pad="ZERO", expr=expr, zindex="(bm,)"))


@pytest.mark.parametrize("body,message", [
    ("    s = a\n    for i in range(3):\n        s = s + b\n    return s\n", "loops inside a reduce combine function"),
    ("    if a > b:\n        return a\n    return b\n", "branching inside a reduce combine function"),
    ("    ct.printf('%d', a)\n    return a + b\n", "operations with memory effects"),
])
def test_custom_reduce_body_restrictions(body, message):
    src = CUSTOM.format(pad="ZERO", expr="ct.reduce(x, 1, f, 0)", zindex="(bm,)").replace(
        "@ct.kernel", "def f(a, b):\n" + body + "\n\n@ct.kernel")
    with pytest.raises(ConversionFailed, match=message):
        convert(src)


# ---------------------------------------------------------------------------
# ct.insert / Tile.insert (sub-tile grid index; inverse of ct.extract) and
# ct.astile (scalar or nested tuple of scalars -> tile).

INSERT = HEADER + """
@ct.kernel
def k(X, Y, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, (bm, 0), (TM, TN), padding_mode=ct.PaddingMode.ZERO)
    s = ct.full((2, 8), 99.0, dtype=x.dtype) + ct.astype(bm, x.dtype)
    y = ct.insert(x, (1, bm % 4), s)
    y = y.insert((3, 2), ct.astile(-1.5, dtype=x.dtype))
    t = ct.astile(((1, 2), (3.5, ct.astype(bm, ct.float32))), dtype=ct.float32).astype(x.dtype)
    y = ct.insert(y, (0, 3), t)
    ct.store(Y, (bm, 0), y)

def run(x, y, tm, tn):
    ct.launch(None, (ct.cdiv(x.shape[0], tm),), k, (x, y, tm, tn))
"""


@pytest.mark.parametrize("dt", [F32, F16])
def test_insert_and_astile(dt, tmp_path):
    mod = convert_and_load(INSERT, tmp_path, "insert")
    seed, g = _gen()
    M, N, tm, tn = 22, 30, 8, 32
    x = dev(torch.randn(M, N, generator=g).to(dt))
    y = poison(dev(torch.empty(M, N, dtype=dt)))
    mod.run(x, y, tm, tn)
    exp = torch.zeros((M + tm - 1) // tm * tm, tn, dtype=torch.float64)
    exp[:M, :N] = x.cpu().double()
    for b in range(exp.shape[0] // tm):
        blk = exp[b * tm:(b + 1) * tm]
        c = (b % 4) * 8
        blk[2:4, c:c + 8] = 99.0 + b
        blk[3, 2] = -1.5
        blk[0:2, 6:8] = torch.tensor([[1.0, 2.0], [3.5, float(b)]], dtype=torch.float64)
    assert_close(y, exp[:M, :N].to(dt), msg=f"insert {dt} seed={seed}")


ASTILE = HEADER + """
@ct.kernel
def k(Z, A: ConstInt):
    bm = ct.bid(0)
    t = ct.astile((bm, 1, A, 3, -4, 5, bm * 2, 7), dtype=ct.int32)
    u = ct.astile(((1.9, -2.9), (bm, 0)), dtype=ct.int16).astype(ct.int32)
    ct.store(Z, (bm, 0), ct.reshape(t, (1, 8)) + ct.reshape(ct.broadcast_to(ct.reshape(u, (1, 4)), (2, 4)), (1, 8)))

def run(z, a):
    ct.launch(None, (z.shape[0],), k, (z, a))
"""


def test_astile_integer_tuples(tmp_path):
    mod = convert_and_load(ASTILE, tmp_path, "astile")
    z = poison(dev(torch.empty(3, 8, dtype=I32)))
    mod.run(z, 11)
    exp = torch.tensor([[b, 1, 11, 3, -4, 5, 2 * b, 7] for b in range(3)], dtype=torch.int32)
    u = lambda b: [1, -2, b, 0]  # float -> int16 truncates toward zero (astype)
    exp += torch.tensor([u(b) * 2 for b in range(3)], dtype=torch.int32)
    assert torch.equal(z.cpu(), exp), (z, exp)


@pytest.mark.parametrize("expr,message", [
    ("ct.insert(x, (0, 0), ct.full((2, 8), 1, dtype=ct.int32))", "cannot insert a tile of dtype int32 into a tile of dtype float32"),
    ("ct.insert(x, (0,), ct.full((2, 8), 1.0, dtype=ct.float32))", "one entry per tile axis"),
    ("ct.insert(x, (0, 9), ct.full((2, 8), 1.0, dtype=ct.float32))", "out of range"),
    ("ct.astile(((1, 2), (3,)), dtype=ct.int32)", "same length and nesting"),
    ("ct.astile((1, 2, 3), dtype=ct.int32)", "power of two"),
    ("ct.astile(((1, 2), 3), dtype=ct.int32)", "same length and nesting"),
])
def test_insert_astile_diagnostics(expr, message):
    src = HEADER + f"""
@ct.kernel
def k(X, Y):
    x = ct.load(X, (0, 0), (8, 32)).astype(ct.float32)
    y = {expr}
    ct.store(Y, (0, 0), x)
"""
    with pytest.raises(ConversionFailed, match=message):
        convert(src)


LAMBDA_ARG = HEADER + """
def row_reduce(t, f):
    return ct.reduce(t, 1, f, 0)


@ct.kernel
def k(X, Z, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Z, index=(bm, 0), tile=ct.reshape(row_reduce(x, lambda a, b: a + b), (TM, 1)))
    ct.store(Z, index=(bm, 1), tile=ct.reshape(row_reduce(x, lambda a, b: ct.maximum(a, b)), (TM, 1)))

def run(x, z, tm, tn):
    ct.launch(None, (ct.cdiv(x.shape[0], tm),), k, (x, z, tm, tn))
"""


def test_lambdas_passed_to_a_helper_stay_distinct(tmp_path):
    """Two lambdas given to the same helper specialize it twice (not one lambda for both)."""
    mod = convert_and_load(LAMBDA_ARG, tmp_path, "lambda_arg")
    seed, g = _gen()
    x = dev(torch.rand(M3, N3, generator=g) + 0.1)  # positive: the zero padding does not change the max
    z = poison(dev(torch.empty(M3, 2)))
    mod.run(x, z, TM3, TN3)
    exp = torch.stack([x.cpu().double().sum(1), x.cpu().double().amax(1)], 1).float()
    assert_close(z, exp, relaxed=True, msg=f"seed={seed}")


def test_capture_from_another_function_is_diagnosed():
    src = LAMBDA_ARG.replace("lambda a, b: a + b", "lambda a, b: a + b * bm")
    with pytest.raises(ConversionFailed, match="captures 'bm' of the function that defines it"):
        convert(src)


INSERT_CONST_INDEX = """
import cuda.tile as ct
ConstInt = ct.Constant[int]

@ct.kernel
def k(X, Y, TN: ConstInt):
    x = ct.load(X, index=(0,), shape=(TN,), padding_mode=ct.PaddingMode.ZERO)
    s = ct.full((8,), 99.0, dtype=ct.float32)
    ct.store(Y, index=(0,), tile=ct.insert(x, (7,), s))
"""


def test_insert_constant_index_is_checked_per_specialization(tmp_path):
    # Sub-tile 7 of 8-wide sub-tiles exists only when TN >= 64; cuTile rejects
    # the other specializations when compiling them, and so does the conversion.
    mod = convert_and_load(INSERT_CONST_INDEX, tmp_path, "insert_const")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    x = dev(torch.randn(64, generator=g))
    y = poison(dev(torch.empty(64)))
    mod.launch_k((1,), x, y, 64)
    exp = x.clone()
    exp[56:64] = 99.0
    assert_close(y, exp, msg=f"seed={seed}")
    with pytest.raises(Exception, match="sub-tile index out of range"):
        mod.launch_k((1,), x[:32], poison(dev(torch.empty(32))), 32)
    with pytest.raises(ConversionFailed, match="index entries must be integers"):
        convert(INSERT_CONST_INDEX.replace("(7,), s", "(0.5,), s"), "insert_float.py")


def test_combine_function_signature_diagnostics():
    # cuTile calls the combine function with 2N positional values: a lambda
    # with extra defaulted parameters is valid cuTile that we do not convert
    # (said so); a wrong parameter count is an error of the program.
    src = """
import cuda.tile as ct
ConstInt = ct.Constant[int]

@ct.kernel
def k(X, Z, TN: ConstInt):
    x = ct.load(X, index=(0,), shape=(TN,), padding_mode=ct.PaddingMode.ZERO)
    s = ct.reduce(x, 0, FUNC, 0)
    ct.store(Z, index=(0,), tile=ct.reshape(s, (1,)))
"""
    with pytest.raises(ConversionFailed, match="exactly 2 plain positional parameters"):
        convert(src.replace("FUNC", "lambda a, b, c=1: a + b * c"), "defaults.py")
    with pytest.raises(ConversionFailed, match="must take 2 parameters .* it takes 3"):
        convert(src.replace("FUNC", "lambda a, b, c: a + b + c"), "three.py")


# ---------------------------------------------------------------------------
# ct.divmod, ct.store_advanced_indexing, ct.grid_dependency_control_*

DIVMOD = HEADER + """
@ct.kernel
def k(X, Y, Q, R, TILE: ConstInt):
    bid = ct.bid(0)
    ct.grid_dependency_control_wait()
    x = ct.load(X, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    q, r = ct.divmod(x, ct.where(y == 0, 1, y))
    ct.store(Q, index=(bid,), tile=q)
    ct.store(R, index=(bid,), tile=r)
    ct.grid_dependency_control_launch_dependents()

def run(x, y, q, r, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), k, (x, y, q, r, tile))
"""


def test_divmod_floor_semantics_and_pdl_no_ops(tmp_path):
    mod = convert_and_load(DIVMOD, tmp_path, "divmod")
    seed, g = _gen()
    x = dev(torch.randint(-100, 100, (N,), generator=g, dtype=I32))
    y = dev(torch.randint(-9, 10, (N,), generator=g, dtype=I32))
    q, r = poison(dev(torch.empty(N, dtype=I32))), poison(dev(torch.empty(N, dtype=I32)))
    mod.run(x, y, q, r, TILE)
    yy = torch.where(y == 0, torch.ones_like(y), y)
    assert q.tolist() == [a // b for a, b in zip(x.tolist(), yy.tolist())], f"seed={seed}"
    assert r.tolist() == [a % b for a, b in zip(x.tolist(), yy.tolist())], f"seed={seed}"


def test_divmod_of_floats_is_diagnosed():
    with pytest.raises(ConversionFailed, match="ct.divmod takes integer operands"):
        convert(DIVMOD.replace("ct.divmod(x, ct.where(y == 0, 1, y))", "ct.divmod(x.astype(ct.float32), y)"))


STORE_ADV = HEADER + """
@ct.kernel
def k(Src, Rows, Out, col0, TR: ConstInt, TC: ConstInt):
    bid = ct.bid(0)
    rows = ct.gather(Rows, (ct.arange(TR, dtype=ct.int32) + bid * TR,), padding_value=-1)
    t = ct.load(Src, index=(bid, 0), shape=(TR, TC), padding_mode=ct.PaddingMode.ZERO)
    ct.store_advanced_indexing(Out, (rows, ct.Slice(col0, TC)), t * 2)

def run(src, rows, out, col0, tr, tc):
    ct.launch(None, (ct.cdiv(src.shape[0], tr),), k, (src, rows, out, col0, tr, tc))
"""


def test_store_advanced_indexing_scatters_rows(tmp_path):
    """Row i of Src (times 2) goes to row rows[i], columns col0.. of Out; rows -1 or
    past the end and columns past the end are dropped (bounds mask)."""
    mod = convert_and_load(STORE_ADV, tmp_path, "store_adv")
    seed, g = _gen()
    src = dev(torch.randn(11, 16, generator=g))
    perm = torch.randperm(20, generator=g)[:11].to(I32)
    perm[3], perm[7] = -1, 25  # out of bounds: not written
    rows = dev(perm)
    out0 = torch.randn(20, 12, generator=g)
    out = dev(out0.clone())
    col0 = 3
    mod.run(src, rows, out, col0, 4, 16)
    exp = out0.clone()
    for i, r in enumerate(perm.tolist()):
        if 0 <= r < 20:
            exp[r, col0:] = src.cpu()[i, :12 - col0] * 2
    assert_close(out, exp, msg=f"seed={seed}")


def test_store_advanced_indexing_shape_must_match():
    src = HEADER + """
@ct.kernel
def k(Out, col0):
    rows = ct.arange(4, dtype=ct.int32)
    ct.store_advanced_indexing(Out, (rows, ct.Slice(col0, 16)), ct.zeros((4, 8), dtype=ct.float32))
"""
    with pytest.raises(ConversionFailed, match="must match the shape the indices imply exactly"):
        convert(src)


# ---------------------------------------------------------------------------
# ct.load / ct.store with a memory order (cuTile _memory_model.py): per-element
# atomics on the element bits (tl.atomic_or with 0 / tl.atomic_xchg) with
# Triton's sem= and scope=; values, padding and masks as for weak accesses.

ORDERED = HEADER + """
@ct.kernel
def k(X, Y, F, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(X, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.NEG_ZERO,
                memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(Y, index=(bid,), tile=x * 2, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.SYS)
    flag = ct.load(F, index=(0,), shape=(), memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)
    ct.store(F, index=(bid + 1,), tile=flag + x.shape[0], memory_order=ct.MemoryOrder.RELAXED,
             memory_scope=ct.MemoryScope.DEVICE)

def run(x, y, f, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), k, (x, y, f, tile))
"""


@pytest.mark.parametrize("dtype", [F32, F64])
def test_ordered_load_store(tmp_path, dtype):
    mod = convert_and_load(ORDERED, tmp_path, f"ordered_{dtype}")
    seed, g = _gen()
    x = torch.randn(N, generator=g, dtype=torch.float64).to(dtype)
    x[5] = -0.0  # read through the bits: the sign of zero survives
    x, y = dev(x), poison(dev(torch.empty(N, dtype=dtype)))
    nb = (N + TILE - 1) // TILE
    f = dev(torch.zeros(nb + 1, dtype=I32))
    mod.run(x, y, f, TILE)
    assert torch.equal(y.cpu(), (x * 2).cpu()), f"seed={seed}"
    assert bool(torch.signbit(y[5])), "-0.0 * 2 keeps its sign"
    assert f.tolist() == [0] + [TILE] * nb


@pytest.mark.parametrize("args,message", [
    ("memory_order=ct.MemoryOrder.ACQUIRE", "needs an explicit memory_scope"),
    ("memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE", "takes memory_order WEAK, RELAXED or ACQUIRE"),
    ("memory_scope=ct.MemoryScope.DEVICE", "a WEAK ct.load takes no memory_scope"),
    ("memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.CLUSTER", "MemoryScope.CLUSTER is not supported"),
])
def test_ordered_load_misuse_is_diagnosed(args, message):
    src = ORDERED.replace("memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE", args)
    with pytest.raises(ConversionFailed, match=message):
        convert(src)


def test_ordered_access_compiles_to_ordered_atomics_for_sm90(tmp_path):
    """On the GPU the accesses are atom.global.<scope>.<order> instructions; 16-bit elements
    stop with the helper's static_assert message (no 16-bit atomic OR/exchange in Triton)."""
    from triton_compile_check import compile_launch
    from c2t_interp import load
    mod = load(convert(ORDERED, "ordered_gpu.py"), tmp_path, "ordered_gpu")
    x, y, f = torch.zeros(N), torch.zeros(N), torch.zeros(5, dtype=I32)
    out = compile_launch(mod.launch_k, (4,), x, y, f, TILE)
    ptx = out["ptx"]
    for ins in ("atom.global.gpu.acquire.or.b32", "atom.global.sys.release.exch.b32",
                "atom.global.cta.relaxed.or.b32", "atom.global.gpu.relaxed.exch.b32"):
        assert ins in ptx, ins
    with pytest.raises(Exception, match="needs 32- or 64-bit elements"):
        compile_launch(mod.launch_k, (4,), x.half(), y.half(), f, TILE)


# Hostile-input findings (fixed): Python scoping of nested functions and
# function-valued names chosen by control flow.

SCOPES = HEADER + """
import operator

T = 100


def h(t):
    return t * 2.0


@ct.kernel
def k(X, Y, T: ConstInt):
    {body}
    x = ct.load(X, (0,), (T,))
    ct.store(Y, (0,), {expr})
"""


@pytest.mark.parametrize("body,expr,message", [
    # the kernel's own T / h shadow the module's: captures (diagnosed), not the module values
    ("pass", "(lambda a: a * T)(x)", "uses 'T' of the enclosing function"),
    ("def h(t):\n        return t + 1.0\n    def g(t):\n        return h(t)", "g(x)",
     "nested function 'g' uses 'h' of the enclosing function"),
    ("f = h\n    if T > 100:\n        f = operator.neg", "f(x)", "'f' names different functions depending on control flow"),
    ("pass", "ct.reshape(ct.reduce(x, 0, operator.pow, 1), (1,))", r"x \*\* y is only supported"),
])
def test_nested_scopes_and_function_choices_are_diagnosed(body, expr, message):
    with pytest.raises(ConversionFailed, match=message) as e:
        convert(SCOPES.format(body=body, expr=expr), "scopes.py")
    if "pow" in expr:  # reported at the operator.pow reference, not inside the synthesized helper
        assert str(e.value).startswith("scopes.py:18:50:")


def test_doubly_nested_def_uses_its_own_local(tmp_path):
    src = HEADER + """
@ct.kernel
def k(X, Y, T: ConstInt):
    def outer(t):
        def comb(a, b):
            return ct.maximum(a, b)
        return ct.scan(t, 0, comb, -1000.0)
    ct.store(Y, (0,), outer(ct.load(X, (0,), (T,), padding_mode=ct.PaddingMode.ZERO)))

def run(x, y):
    ct.launch(None, (1,), k, (x, y, 64))
"""
    mod = convert_and_load(src, tmp_path, "nested2")
    seed, g = _gen()
    x = dev(torch.randn(50, generator=g))
    y = poison(dev(torch.empty(50)))
    mod.run(x, y)
    assert_close(y, torch.cummax(x, 0).values, msg=f"seed={seed}")


# ---------------------------------------------------------------------------
# ct.extract: one axis split into a power-of-two count of sub-tiles at a constant index lowers to
# tl.split halves (the FFT kernels' interleaved real/imaginary parts); other counts, runtime indices
# and several split axes keep the select-and-sum lowering. Both must pick the same elements.

EXTRACT = HEADER + """
@ct.kernel
def k(X, Y, TM: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, (bm, 0, 0), (TM, 8, 2), padding_mode=ct.PaddingMode.ZERO)
    whole = ct.extract(x, (0, 0, 0), shape=(TM, 8, 2))           # every axis whole (TM symbolic): x itself
    re = ct.extract(whole, index=(0, 0, 0), shape=(TM, 8, 1))   # last axis, halves
    im = x.extract((0, 0, 1), shape=(TM, 8, 1))
    mid = ct.extract(x, (0, 5, 0), shape=(TM, 1, 2))            # 8 sub-tiles, index 5 (0b101)
    quad = ct.extract(x, (0, 1, 0), shape=(TM, 2, 2))           # 4 sub-tiles of 2 rows, index 1
    four = ct.extract(ct.reshape(x, (TM, 16)), (0, 2), shape=(TM, 4))  # 4 sub-tiles of 4 columns
    run_i = ct.extract(x, (0, bm % 8, 0), shape=(TM, 1, 2))     # a runtime index: select and sum
    row = ct.load(X, (bm * TM + 1, 0, 0), (1, 8, 2), padding_mode=ct.PaddingMode.ZERO)
    one = ct.extract(ct.reshape(row, (16,)), (15,), shape=(1,)).item()  # one element, 16 sub-tiles
    other = ct.extract(x, (1, 7, 1), shape=(1, 1, 1)).item()    # several split axes: select and sum
    ct.store(Y, (bm, 0), ct.reshape(re, (TM, 8)))
    ct.store(Y, (bm, 1), ct.reshape(im, (TM, 8)))
    pairs = ct.cat((ct.reshape(mid, (TM, 2)), ct.reshape(run_i, (TM, 2))), axis=1)
    ct.store(Y, (bm, 2), ct.cat((pairs, ct.reshape(quad, (TM, 4))), axis=1))
    ct.store(Y, (bm, 3), ct.cat((four, ct.full((TM, 4), one + other, dtype=x.dtype)), axis=1))

def run(x, y, tm):
    ct.launch(None, (ct.cdiv(x.shape[0], tm),), k, (x, y, tm))
"""


def test_extract_split_and_select(tmp_path):
    code = convert(EXTRACT, filename="extract_split.py")
    assert code.count("tl.split(") >= 12, code  # 1 + 1 + 3 + 2 + 2 + 4 halvings
    assert "whole = x\n" in code, code
    mod = convert_and_load(EXTRACT, tmp_path, "extract_split")
    for dt in (F32, F16):
        seed, g = _gen()
        M, tm = 13, 4  # 13 rows: the last tile is ragged (zero padding)
        x = dev(torch.randn(M, 8, 2, generator=g).to(dt))
        rows = (M + tm - 1) // tm * tm
        y = poison(dev(torch.empty(rows, 32, dtype=dt)))
        mod.run(x, y, tm)
        xp = torch.zeros(rows, 8, 2, dtype=torch.float64)
        xp[:M] = x.cpu().double()
        exp = torch.empty(rows, 32, dtype=torch.float64)
        exp[:, 0:8], exp[:, 8:16], exp[:, 16:18] = xp[:, :, 0], xp[:, :, 1], xp[:, 5, :]
        exp[:, 20:24], exp[:, 24:28] = xp[:, 2:4, :].reshape(rows, 4), xp.reshape(rows, 16)[:, 8:12]
        for b in range(rows // tm):
            blk = slice(b * tm, (b + 1) * tm)
            exp[blk, 18:20] = xp[blk, b % 8, :]
            one, other = xp[b * tm + 1].to(dt).double()[7, 1], xp[b * tm + 1].to(dt).double()[7, 1]
            exp[blk, 28:32] = (one + other).to(dt).double()  # the sum in the tile's dtype
        assert torch.equal(y.cpu().double(), exp.to(dt).double()), f"extract {dt} seed={seed}"


EXTRACT_BOOL = HEADER + """
@ct.kernel
def k(X, Y, Z, TM: ConstInt):
    x = ct.load(X, (0, 0), (TM, 8), padding_mode=ct.PaddingMode.ZERO)
    b = x > 0.0
    e = ct.extract(b, (0, 3), shape=(TM, 2))          # split path's shape, bool: select and sum
    f = ct.extract(b, (0, ct.bid(0) + 3), shape=(TM, 2))  # runtime index
    one = ct.extract(ct.reshape(x, (TM * 8,)), (0,), shape=())   # shape=(): the element, a scalar
    ct.store(Y, (0,), ct.sum(e, axis=1) + ct.sum(f, axis=1) * 10)
    ct.store(Z, (0, 0), ct.cumsum(e, axis=1) + ct.astype(one > 0.0, ct.int32) * 100)

def run(x, y, z, tm):
    ct.launch(None, (1,), k, (x, y, z, tm))
"""


def test_extract_of_a_comparison_counts_as_bools():
    # A comparison's tile stays a bool tile through ct.extract: ct.sum and ct.cumsum count it in int32
    # (hostile round: the extract dropped bool-ness, so sums came back as int1 0/1).
    import tempfile, pathlib

    mod = convert_and_load(EXTRACT_BOOL, pathlib.Path(tempfile.mkdtemp()), "extract_bool")
    seed, g = _gen()
    M, tm = 3, 4  # 3 rows of a 4-row tile: the padded row compares False
    x = dev(torch.randn(M, 8, generator=g))
    y, z = poison(dev(torch.empty(tm, dtype=torch.int32))), poison(dev(torch.empty(tm, 2, dtype=torch.int32)))
    mod.run(x, y, z, tm)
    b = torch.zeros(tm, 8, dtype=torch.bool)
    b[:M] = x.cpu() > 0
    part = b[:, 6:8].int()
    assert torch.equal(y.cpu(), part.sum(1) * 11), f"seed={seed}"
    assert torch.equal(z.cpu(), part.cumsum(1) + 100 * int(bool(x.cpu()[0, 0] > 0))), f"seed={seed}"


@pytest.mark.parametrize("index, shape, message", [
    ("(4,)", "(2,)", "index 4 along axis 0 is out of range (the tile holds 4 sub-tiles there)"),
    ("(-1,)", "(2,)", "index -1 along axis 0 is out of range"),
    ("(1,)", "(8,)", "index 1 along axis 0 is out of range (the tile holds 1 sub-tile there)"),
    ("(0,)", "(16,)", "the sub-tile extent 16 does not divide the tile's extent 8 along axis 0"),
])
def test_extract_out_of_range_is_a_diagnostic(index, shape, message):
    # cuTile rejects constant out-of-range indices and sub-tiles that do not divide the tile at compile
    # time; the lowering gave zeros, the tile itself, or an arange of 0 at run time.
    src = HEADER + f"""
@ct.kernel
def k(X, Y):
    x = ct.load(X, (0,), (8,))
    ct.store(Y, (0,), ct.extract(x, {index}, shape={shape}))
"""
    with pytest.raises(ConversionFailed, match="ct.extract: " + message.replace("(", r"\(").replace(")", r"\)")):
        convert(src)


CAT_AXIS = HEADER + """
@ct.kernel
def k(X, Y, A: ConstInt):
    x = ct.load(X, (0, 0), (4, 8))
    ct.store(Y, (0, 0), ct.cat((x, x + 100.0), axis=A))

def run(x, y, a):
    ct.launch(None, (1,), k, (x, y, a))
"""


def test_cat_along_a_constant_axis_checks_its_range(tmp_path):
    # The axis is known only when Triton compiles: a static assertion rejects one out of range there
    # (hostile round: A=2 concatenated along axis 0, A=-3 along axis 1).
    mod = convert_and_load(CAT_AXIS, tmp_path, "cat_axis")
    x = dev(torch.arange(32.0).reshape(4, 8))
    for a, shape in ((1, (4, 16)), (-1, (4, 16)), (0, (8, 8)), (-2, (8, 8))):
        y = poison(dev(torch.empty(shape)))
        mod.run(x, y, a)
        assert torch.equal(y.cpu(), torch.cat((x.cpu(), x.cpu() + 100.0), dim=a)), a
    for a in (2, -3):
        with pytest.raises(Exception, match="ct.cat's axis is out of range for tiles of rank 2"):
            mod.run(x, dev(torch.empty(8, 8)), a)


def test_axes_of_tiles_of_constexpr_dependent_rank():
    # A tile whose rank depends on a constexpr branch: transpose and cat say so (they reported "axis 0 is
    # out of range for a tile of rank 0"); a known rank-8 tile takes negative axes (8 marked unknown).
    src = HEADER + """
@ct.kernel
def k(X, Y, F: ConstInt):
    x = ct.load(X, (0, 0), (4, 8))
    if F:
        u = ct.reshape(x, (2, 2, 8))
    else:
        u = x
    v = {expr}
    ct.store(Y, (0, 0), x)
"""
    for expr, op in (("ct.transpose(u, 0, 1)", "ct.transpose needs a tile"), ("ct.cat((u, u), axis=0)", "ct.cat needs tiles")):
        with pytest.raises(ConversionFailed, match=op + " whose rank is known at conversion time"):
            convert(src.format(expr=expr))
    code = convert(HEADER + """
@ct.kernel
def k(X, Y):
    x = ct.load(X, (0, 0), (4, 8))
    s = ct.sum(ct.reshape(x, (1, 1, 1, 1, 1, 1, 4, 8)), axis=-1)
    ct.store(Y, (0,), ct.reshape(s, (4,)))
""")
    assert "axis=7" in code, code


@pytest.mark.parametrize("axes, shown", [("(0, 0)", 0), ("(1, -1)", 1), ("(-2, 0, 1)", 0)])
def test_a_repeated_reduction_axis_is_an_error(axes, shown):
    # cuTile raises TileTypeError("Repeated reduction axis ...") (its ops.py reduce); the duplicate was
    # dropped silently, reducing once where the kernel named an axis twice.
    with pytest.raises(ConversionFailed, match=f"repeated reduction axis {shown}"):
        convert(HEADER + f"""
@ct.kernel
def k(X, Y):
    x = ct.load(X, (0, 0), (4, 8))
    ct.store(Y, (0,), ct.reshape(ct.sum(x, axis={axes}), (1,)))
""")


def test_an_empty_reduction_axis_tuple_is_an_error():
    # cuTile's reduce of axis=() reduces nothing (the tile as it is); it converted as a reduction of
    # every axis (hostile round, s33).
    with pytest.raises(ConversionFailed, match=r"axis=\(\) reduces no axis"):
        convert(HEADER + """
@ct.kernel
def k(X, Y):
    x = ct.load(X, (0, 0), (4, 8))
    ct.store(Y, (0, 0), ct.sum(x, axis=()))
""")
