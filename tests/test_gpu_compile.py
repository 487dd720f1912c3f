"""Converted kernels that Triton's CPU interpreter accepts but its GPU compiler
rejected (or that computed differently on the GPU), from TileGym's tests on an
H200 (benchmarks/results/tilegym-h200-2026-11-29.md). Each case converts a
small cuTile kernel with the pattern, compiles it for sm_90 on this CPU-only
machine (triton_compile_check.compile_launch: Triton's real front end and
NVIDIA passes, ptxas when present), and runs it under TRITON_INTERPRET=1
against a torch reference on fresh random inputs, sizes not multiples of the
tile, outputs poisoned first.
"""

from __future__ import annotations

import math
import struct

import pytest
import torch

from c2t_interp import assert_close, convert, dev, fresh_seed, load, poison
from triton_compile_check import compile_launch


def _modules(src: str, tmp_path, name: str):
    """(module run by the interpreter, the same module for compile_launch, code)."""
    code = convert(src, filename=f"{name}.py")
    mod = load(code, tmp_path, name)
    return mod, mod, code


@pytest.fixture
def gen():
    seed = fresh_seed()
    return seed, torch.Generator().manual_seed(seed)


# --- 1. A return under a compile-time `if`, then a loop that re-types a name --------------------
# liger fused_add_rms_norm: `if num_chunks == 1: ... S_tile = astype(S_tile, f32) ... return`,
# later `for ...: S_tile = gather(...) (fp16); if mode == 0: S_tile = astype(S_tile, f32)`.
# Triton kept visiting the code after the constexpr branch's return with S_tile (fp16) bound and
# rejected the loop ("Loop-carried variable S_tile has initial type fp16 but is re-assigned to
# fp32"). cuTile never types code after a taken return.

STATIC_RETURN = '''
import cuda.tile as ct

@ct.kernel
def rownorm(X, Y, n_cols: ct.Constant[int], BLOCK: ct.Constant[int], mode: ct.Constant[int]):
    row = ct.bid(0)
    num_chunks = (n_cols + BLOCK - 1) // BLOCK
    if num_chunks == 1:
        col = ct.arange(BLOCK, dtype=ct.int32)
        S_tile = ct.gather(X, (row, col), check_bounds=True, padding_value=0.0)
        if mode == 0:
            S_tile = ct.astype(S_tile, ct.float32)
        total = ct.sum(ct.astype(ct.mul(S_tile, S_tile), ct.float32), 0, keepdims=False)
        ct.scatter(Y, (row, col), ct.astype(ct.mul(ct.astype(S_tile, ct.float32), total), Y.dtype), check_bounds=True)
        return
    acc = ct.full((BLOCK,), 0.0, dtype=ct.float32)
    for ci in range(num_chunks):
        col = ct.add(ct.arange(BLOCK, dtype=ct.int32), ci * BLOCK)
        S_tile = ct.gather(X, (row, col), check_bounds=True, padding_value=0.0)
        acc = ct.add(acc, ct.astype(ct.mul(S_tile, S_tile), ct.float32))
    total = ct.sum(acc, 0, keepdims=False)
    for ci in range(num_chunks):
        col = ct.add(ct.arange(BLOCK, dtype=ct.int32), ci * BLOCK)
        S_tile = ct.gather(X, (row, col), check_bounds=True, padding_value=0.0)
        if mode == 0:
            S_tile = ct.astype(S_tile, ct.float32)
        ct.scatter(Y, (row, col), ct.astype(ct.mul(ct.astype(S_tile, ct.float32), total), Y.dtype), check_bounds=True)

def run(x, y, block, mode):
    ct.launch(None, (x.shape[0], 1, 1), rownorm, (x, y, x.shape[1], block, mode))
'''


@pytest.mark.parametrize("n_cols,block", [(50, 64), (150, 64)])  # one chunk / three chunks
@pytest.mark.parametrize("mode", [0, 1])
def test_return_under_constexpr_if_then_retyped_loop(tmp_path, gen, n_cols, block, mode):
    seed, g = gen
    interp, gpu, code = _modules(STATIC_RETURN, tmp_path, "static_return")
    x = torch.randn(3, n_cols, generator=g).to(torch.float16)
    y = dev(poison(torch.empty_like(x)))
    compile_launch(gpu.launch_rownorm, (3, 1, 1), x, y, n_cols, block, mode)
    interp.run(dev(x), y, block, mode)
    xf = x.float()
    if mode == 0 or n_cols > block:
        ref = xf * (xf * xf).sum(1, keepdim=True)
    else:  # fp16 square, as cuTile computes it on the fp16 tile
        ref = xf * (x * x).float().sum(1, keepdim=True)
    assert_close(y, ref.to(torch.float16), relaxed=True, msg=f"seed={seed}")


# --- 2. int -> fp8: load padding, gather padding and astype ----------------------------------------
# unsloth fp8 weight_dequant, flashinfer gemm_alpha_beta, ops attention fp8_e5m2: masked fp8 loads
# were emitted with other=0, and tl.load casts `other` to fp8: "cannot cast int32 to fp8e4nv".

FP8 = '''
import cuda.tile as ct

@ct.kernel
def dequant(X, S, Y, TILE: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(TILE, TILE), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(S, index=(bm, bn), shape=(1, 1))
    ct.store(Y, index=(bm, bn), tile=ct.astype(ct.astype(x, ct.float32) * s, Y.dtype))

@ct.kernel
def gather_fp8(X, Y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    idx = ct.add(ct.arange(TILE, dtype=ct.int32), b * TILE)
    x = ct.gather(X, idx, padding_value=0)
    ct.scatter(Y, idx, ct.astype(x, ct.float32))

@ct.kernel
def int_to_fp8(I, Y8, Y5, TILE: ct.Constant[int]):
    b = ct.bid(0)
    i = ct.load(I, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    q = ct.astype(i, ct.float8_e4m3fn)
    ct.store(Y8, index=(b,), tile=q)
    ct.store(Y5, index=(b,), tile=ct.astype(ct.astype(i, ct.float8_e5m2), ct.float8_e4m3fn))

def run_dequant(x, s, y, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile), ct.cdiv(x.shape[1], tile), 1), dequant, (x, s, y, tile))

def run_gather(x, y, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile), 1, 1), gather_fp8, (x, y, tile))

def run_int(i, y8, y5, tile):
    ct.launch(None, (ct.cdiv(i.shape[0], tile), 1, 1), int_to_fp8, (i, y8, y5, tile))
'''


@pytest.mark.parametrize("fp8", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_load_padding_compiles_and_matches(tmp_path, gen, fp8):
    seed, g = gen
    interp, gpu, code = _modules(FP8, tmp_path, "fp8")
    assert "other=0)" not in code and "other=0," not in code  # float zero: castable to fp8
    M, N, T = 50, 70, 32
    x = torch.randn(M, N, generator=g).to(fp8)
    s = torch.rand(math.ceil(M / T), math.ceil(N / T), generator=g) + 0.5
    y = dev(poison(torch.empty(M, N, dtype=torch.float16)))
    compile_launch(gpu.launch_dequant, (2, 3, 1), x, s, y, T)
    interp.run_dequant(dev(x), dev(s), y, T)
    ref = x.float() * s.repeat_interleave(T, 0).repeat_interleave(T, 1)[:M, :N]
    assert_close(y, ref.to(torch.float16), msg=f"seed={seed}")

    n = 45
    xg = torch.randn(n, generator=g).to(fp8)
    yg = dev(poison(torch.empty(n, dtype=torch.float32)))
    compile_launch(gpu.launch_gather_fp8, (2, 1, 1), xg, yg, 32)
    interp.run_gather(dev(xg), yg, 32)
    assert_close(yg, xg.float(), msg=f"seed={seed}")


def test_int_to_fp8_astype(tmp_path, gen):
    seed, g = gen
    interp, gpu, code = _modules(FP8, tmp_path, "fp8i")
    n = 77
    # Integers exact in e5m2 (so in e4m3fn too, up to 448): the 3.6 interpreter's fp32 -> fp8
    # rounding is wrong on ties and binade edges (31 -> 16), so values that need rounding are
    # checked on the GPU only (the compile above is the sm_90 check of the cast itself).
    exact = torch.tensor(sorted({v for v in range(449) if float(torch.tensor(float(v)).to(torch.float8_e5m2)) == v}))
    pick = torch.randint(0, len(exact), (n,), generator=g)
    sign = torch.randint(0, 2, (n,), generator=g) * 2 - 1
    i = (exact[pick] * sign).to(torch.int32)
    y8 = dev(poison(torch.empty(n, dtype=torch.float8_e4m3fn)))
    y5 = dev(poison(torch.empty(n, dtype=torch.float8_e4m3fn)))
    compile_launch(gpu.launch_int_to_fp8, (3, 1, 1), i, y8, y5, 32)
    interp.run_int(dev(i), y8, y5, 32)
    y8, y5 = y8.cpu(), y5.cpu()
    ref8 = i.double().to(torch.float8_e4m3fn)
    ref5 = i.double().to(torch.float8_e5m2).to(torch.float8_e4m3fn)
    assert torch.equal(y8.view(torch.uint8), ref8.view(torch.uint8)), f"seed={seed}"
    assert torch.equal(y5.view(torch.uint8), ref5.view(torch.uint8)), f"seed={seed}"


# --- 3. astype(fp32, tfloat32) rounds to nearest (mhc bf16 x fp32 GEMM) ----------------------------
# tl.dot(input_precision="tf32") truncates fp32 operands on the tensor cores; cuTile rounds them
# (RN) in astype. TileGym's mhc test (K=1024) saw 0.035 absolute error against a 0.01 tolerance.

TF32 = '''
import cuda.tile as ct

@ct.kernel
def tf32_round(X, Y, TILE: ct.Constant[int]):
    b = ct.bid(0)
    x = ct.load(X, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(b,), tile=ct.astype(ct.astype(x, ct.tfloat32), ct.float32))

@ct.kernel
def mm(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    mma_dtype = ct.tfloat32 if (A.dtype == ct.float32 or B.dtype == ct.float32) else A.dtype
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.astype(a, mma_dtype), ct.astype(b, mma_dtype), acc=acc)
    ct.store(C, index=(bm, bn), tile=acc)

def run_round(x, y, tile):
    ct.launch(None, (ct.cdiv(x.shape[0], tile), 1, 1), tf32_round, (x, y, tile))

def run_mm(a, b, c, tm, tn, tk):
    ct.launch(None, (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn), 1), mm, (a, b, c, tm, tn, tk))
'''


def _tf32_rn(v: float) -> float:
    """Round to 11 significant bits, ties to even (independent of the bit trick)."""
    if v == 0 or not math.isfinite(v):
        return v
    m, e = math.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1
    return math.ldexp(round(m * 2**11), e - 11)  # Python round: half to even


def test_astype_tfloat32_rounds_to_nearest_even(tmp_path, gen):
    seed, g = gen
    interp, gpu, code = _modules(TF32, tmp_path, "tf32")
    ulp = 2.0**-10
    special = [1 + ulp / 2, 1 + 3 * ulp / 2, 1 + ulp / 2 + 2**-20, -(1 + 3 * ulp / 2), 1 + ulp / 4, 0.0, -0.0]
    x = torch.cat([torch.tensor(special), torch.randn(60, generator=g) * 100]).float()
    y = dev(poison(torch.empty_like(x)))
    compile_launch(gpu.launch_tf32_round, (3, 1, 1), x, y, 32)
    interp.run_round(dev(x), y, 32)
    y = y.cpu()
    ref = torch.tensor([_tf32_rn(v) for v in x.double().tolist()], dtype=torch.float32)
    assert torch.equal(y, ref), f"seed={seed}\n{y}\n{ref}"


@pytest.mark.parametrize("a_dtype", [torch.float32, torch.float16])
def test_tf32_mma_operands_rounded(tmp_path, gen, a_dtype):
    seed, g = gen
    interp, gpu, code = _modules(TF32, tmp_path, "tf32mm")
    M, N, K = 40, 24, 70
    # a = 1 + 3/2 ulp(tf32) rounds up to 1 + 2 ulp, truncation would give 1: the sum over K shows it
    a = torch.full((M, K), 1 + 3 * 2.0**-11).to(a_dtype)
    a[:, ::3] = torch.randn(M, len(range(0, K, 3)), generator=g).to(a_dtype)
    b = torch.randn(K, N, generator=g)
    c = dev(poison(torch.empty(M, N)))
    compile_launch(gpu.launch_mm, (3, 2, 1), a, b, c, 16, 16, 16)
    interp.run_mm(dev(a), dev(b), c, 16, 16, 16)
    c = c.cpu()
    rn = lambda t: torch.tensor([_tf32_rn(v) for v in t.double().flatten().tolist()], dtype=torch.float64).view(t.shape)
    ref = rn(a.float()) @ rn(b)  # tf32-rounded operands, exact products, fp64 sum
    torch.testing.assert_close(c.double(), ref, rtol=1e-5, atol=1e-5, msg=lambda m: f"seed={seed}\n{m}")


# --- 4. fp8 ct.mma adds each call's product to the fp32 accumulator (as cuTile; gemm_alpha_beta fp8,
# K=4096, was 7% low on the H200 without it). Triton's sm_90 default keeps fp8 products in the tensor
# cores' reduced-precision accumulator for the whole K loop; the converter asks for one flush per dot
# (max_num_imprecise_acc = the tile's K), which gave cuTile's own errors on the H200 (BENCHMARKS.md).


@pytest.mark.parametrize("fp8", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_mma_flushes_to_fp32(tmp_path, gen, fp8):
    seed, g = gen
    interp, gpu, code = _modules(TF32, tmp_path, "fp8mm")
    assert "max_num_imprecise_acc=TK," in code
    M, N, K = 70, 40, 100
    a = torch.rand(M, K, generator=g).to(fp8)
    b = torch.rand(K, N, generator=g).to(fp8)
    c = dev(poison(torch.empty(M, N)))
    stages = compile_launch(gpu.launch_mm, (2, 1, 1), a, b, c, 64, 64, 64)
    if "ttgir" in stages and isinstance(stages["ttgir"], str):
        assert "maxNumImpreciseAcc = 64" in stages["ttgir"]  # on wgmma: flushed once per dot (K tile 64)
    interp.run_mm(dev(a), dev(b), c, 64, 64, 64)
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.cpu().double(), ref, rtol=1e-5, atol=1e-4, msg=lambda m: f"seed={seed}\n{m}")


# --- 4b. A tfloat32 cast under a compile-time `if` on a dtype known only at run time -------------
# TileGym's chunk_gated_delta_rule: `if a.dtype == ct.float32: a = ct.astype(a, ct.tfloat32)` in a
# helper, then ct.matmul(a, b). cuTile multiplies on the tensor cores in TF32 where `a` is fp32; the
# converter made it an fp32 product (input_precision='ieee'), which Triton lowers to FMA
# instructions: 18432 per thread in the inter-chunk kernel at K=256, and ptxas took 639-650 s on the
# dev VM (s29). Both dtypes of `a` run in the interpreter; both compile for sm_90.

TF32_UNDER_IF = '''
import cuda.tile as ct

def _mm(a, b):
    if a.dtype == ct.float32:
        a = ct.astype(a, ct.tfloat32)
    if b.dtype == ct.float32:
        b = ct.astype(b, ct.tfloat32)
    return ct.astype(ct.matmul(a, b), ct.float32)

@ct.kernel
def mm_if(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + _mm(a, b)
    ct.store(C, index=(bm, bn), tile=acc)

def run(a, b, c, tm, tn, tk):
    ct.launch(None, (ct.cdiv(a.shape[0], tm), ct.cdiv(b.shape[1], tn), 1), mm_if, (a, b, c, tm, tn, tk))
'''


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])  # (bf16: the interpreter's tl.dot is wrong)
def test_tf32_cast_under_dtype_if_is_a_tf32_product(tmp_path, gen, dtype):
    seed, g = gen
    interp, gpu, code = _modules(TF32_UNDER_IF, tmp_path, "tf32if")
    assert "cond: tl.constexpr = a.dtype == tl.float32" in code and "input_precision='tf32' if cond else 'ieee'" in code
    M, N, K = 70, 40, 100  # ragged in every dimension
    a = torch.randn(M, K, generator=g).to(dtype)
    b = torch.randn(K, N, generator=g).to(dtype)
    c = dev(poison(torch.empty(M, N)))
    stages = compile_launch(gpu.launch_mm_if, (2, 1, 1), a, b, c, 64, 64, 32)
    if "ptx" in stages and isinstance(stages["ptx"], str):
        ptx = stages["ptx"]
        if dtype == torch.float32:  # a TF32 product on the tensor cores, no FMA expansion
            assert "wgmma" in ptx and ".tf32" in ptx, "no TF32 wgmma"
            assert ptx.count("fma.rn.f32") < 64, ptx.count("fma.rn.f32")
    interp.run(dev(a), dev(b), c, 64, 64, 32)
    rn = lambda t: torch.tensor([_tf32_rn(v) for v in t.double().flatten().tolist()], dtype=torch.float64).view(t.shape)
    if dtype == torch.float32:  # tf32-rounded operands: exact products, fp64 sum
        torch.testing.assert_close(c.cpu().double(), rn(a) @ rn(b), rtol=1e-5, atol=1e-4, msg=lambda m: f"seed={seed}\n{m}")
    else:  # each K tile's product comes back in fp16 (ct.matmul keeps the operands' dtype)
        torch.testing.assert_close(c.cpu().double(), a.double() @ b.double(), rtol=1e-2, atol=2e-2,
                                   msg=lambda m: f"seed={seed}\n{m}")


# --- 4c. Scalar arguments are tensors in the kernel, as in cuTile --------------------------------
# Triton makes an int argument equal to 1 a Python constant on the GPU (its launcher specializes it):
# `n // 2`, `ct.cdiv(n, 4)`, `-n`, `max(n, 0)` failed to compile ("'int' object has no attribute
# 'dtype'"), and `int8_tile + n` stayed int8 (127 + 1 stored -128; cuTile widens to int32). The CPU
# interpreter passes floats as Python floats: `-s`, `ct.exp(s)`, `s / 3.0` failed there (hostile
# round and newcomer trial, s29).

SCALAR_ARGS = '''
import cuda.tile as ct

@ct.kernel
def scal(X8, Y, F, n, s, T: ct.Constant[int]):
    x8 = ct.load(X8, index=(0,), shape=(T,))
    ct.store(Y, index=(0,), tile=x8 + n)
    r = ct.full((T,), 0, dtype=ct.int32) + n // 2 + ct.cdiv(n, 4) * 10 + (-n) * 100 + max(n, 0) * 1000
    ct.store(Y, index=(1,), tile=r)
    f = ct.full((T,), 1.0, dtype=ct.float32)
    ct.store(F, index=(0,), tile=f * -s + ct.exp(s) * 10.0 + s / 4.0 + ct.maximum(s, 0.0) * 100.0)

def run(x8, y, f, n, s):
    ct.launch(None, (1, 1, 1), scal, (x8, y, f, n, s, 8))
'''


@pytest.mark.parametrize("n", [1, 5])
def test_scalar_arguments_are_tensors(tmp_path, n):
    interp, gpu, code = _modules(SCALAR_ARGS, tmp_path, "scalars")
    assert "n = _c2t_scalar_arg(n)" in code and "s = _c2t_scalar_arg(s)" in code
    x8 = torch.full((8,), 127, dtype=torch.int8)
    y = torch.empty(16, dtype=torch.int32)
    f = torch.empty(8)
    stages = compile_launch(gpu.launch_scal, (1, 1, 1), x8, y, f, n, 2.0, 8)  # n == 1: a constexpr there
    if "ttir" in stages and isinstance(stages["ttir"], str):
        assert "tensor<8xi8>" not in "".join(l for l in stages["ttir"].splitlines() if "arith.addi" in l)
    y, f = dev(poison(y)), dev(poison(f))
    interp.run(dev(x8), y, f, n, 2.0)  # s a Python float, as the interpreter passes it
    want = [127 + n] * 8 + [n // 2 + -(-n // 4) * 10 - n * 100 + max(n, 0) * 1000] * 8
    assert y.cpu().tolist() == want
    assert_close(f.cpu(), torch.full((8,), -2.0 + math.exp(2.0) * 10 + 0.5 + 200.0))


# --- 5. An array view chosen in the branches of a compile-time `if` (flashinfer ragged_bmm) -------
# `if TRANS == 1: Ai = a.slice(axis=1, ...) else: Ai = a.slice(axis=0, ...)`: the converter used to
# name the view's shape after the then-branch only, so the specialization taking the else-branch
# failed with "NameError: Ai_shape_1 is not defined" (every autotune config: "no working
# configuration"). Fixed elsewhere (branch-array unification in lowerer.cpp); kept here as an
# sm_90 compile check of both specializations.

VIEW_BRANCH = '''
import cuda.tile as ct

@ct.kernel
def seg_rowsum(a, out, starts, TRANS: ct.Constant[int], TM: ct.Constant[int], TK: ct.Constant[int]):
    s = ct.bid(0)
    m = ct.bid(1)
    m_start = ct.load(starts, index=(s,), shape=(1,)).item()
    m_end = ct.load(starts, index=(s + 1,), shape=(1,)).item()
    if TRANS == 1:
        Ai = a.slice(axis=1, start=m_start, stop=m_end)
    else:
        Ai = a.slice(axis=0, start=m_start, stop=m_end)
    Oi = out.slice(axis=0, start=m_start, stop=m_end)
    if TRANS == 1:
        nk = ct.num_tiles(a, axis=0, shape=(TK, TM))
    else:
        nk = ct.num_tiles(a, axis=1, shape=(TM, TK))
    acc = ct.full((TM,), 0.0, dtype=ct.float32)
    for k in range(nk):
        if TRANS == 1:
            t = ct.transpose(ct.load(Ai, index=(k, m), shape=(TK, TM), padding_mode=ct.PaddingMode.ZERO))
        else:
            t = ct.load(Ai, index=(m, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(ct.astype(t, ct.float32), 1, keepdims=False)
    ct.store(Oi, index=(m,), tile=acc)

def run(a, out, starts, trans, tm, tk):
    q = starts.shape[0] - 1
    ct.launch(None, (q, ct.cdiv(out.shape[0], tm), 1), seg_rowsum, (a, out, starts, trans, tm, tk))
'''


@pytest.mark.parametrize("trans", [0, 1])
def test_view_chosen_in_constexpr_branches(tmp_path, gen, trans):
    seed, g = gen
    interp, gpu, code = _modules(VIEW_BRANCH, tmp_path, "view_branch")
    K = 37
    starts = torch.tensor([0, 13, 13, 50], dtype=torch.int32)
    rows = torch.randn(50, K, generator=g)
    a = rows.t().contiguous() if trans else rows
    out = dev(poison(torch.empty(50)))
    compile_launch(gpu.launch_seg_rowsum, (3, 4, 1), a, out, starts, trans, 16, 16)
    interp.run(dev(a), out, dev(starts), trans, 16, 16)
    assert_close(out, rows.sum(1), relaxed=True, msg=f"seed={seed}")


DECODE_SOFTMAX = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def scores(K, Q, P, BLOCK_N: ConstInt, BLOCK_H: ConstInt, D: ConstInt):
    # flashinfer's paged decode (TileGym fmha_decode_bsr.py): K x Q^T, the max over the keys, and
    # the scores less that max, broadcast back as a row
    k = ct.load(K, index=(ct.bid(0), 0), shape=(BLOCK_N, D), padding_mode=ct.PaddingMode.ZERO)
    q = ct.load(Q, index=(0, 0), shape=(BLOCK_H, D), padding_mode=ct.PaddingMode.ZERO)
    qk = ct.mma(k, ct.transpose(q), ct.zeros((BLOCK_N, BLOCK_H), dtype=ct.float32))
    m = ct.max(qk, axis=0)
    ct.store(P, index=(ct.bid(0), 0), tile=ct.exp2(qk - ct.reshape(m, (1, BLOCK_H))))


def run(k, q, p, block_n, block_h):
    ct.launch(None, (ct.cdiv(k.shape[0], block_n), 1, 1), scores, (k, q, p, block_n, block_h, k.shape[1]))
'''


def test_a_vector_made_a_row_is_an_expand_dims(tmp_path, gen):
    # tl.reshape(m, [1, N]) of a column reduction of a tcgen05 accumulator took, on sm_100a, a layout with
    # all N x BLOCK_N scores in every thread (Triton 3.6): flashinfer's paged decode kernel, whose online
    # softmax carries that layout through its loop, sat in LLVM for minutes (this small kernel does not,
    # so its compiles check only the dot each target takes). m[None, :] keeps m's layout (BENCHMARKS.md, s37).
    seed, g = gen
    interp, gpu, code = _modules(DECODE_SOFTMAX, tmp_path, "decode_scores")
    assert "m[None, :]" in code and "tl.reshape(m" not in code, code
    n, h, d = 300, 16, 64  # 300 keys: not a multiple of the 128-key tile
    k = (torch.randn(n, d, generator=g) / 4).half()
    q = (torch.randn(h, d, generator=g) / 4).half()
    p = dev(poison(torch.empty(n, h, dtype=torch.float32)))
    for arch in (90, 100):  # tcgen05 on sm_100a, wgmma on sm_90a
        ttgir = compile_launch(gpu.launch_scores, (3, 1, 1), k, q, p, 128, 16, d, arch=arch, last_stage="ttgir")["ttgir"]
        assert ("tc_gen5_mma" if arch == 100 else "warp_group_dot") in ttgir
    interp.run(dev(k), dev(q), p, 128, 16)
    qk = k.float() @ q.float().T
    ref = torch.cat([torch.exp2(b - b.max(dim=0, keepdim=True).values) for b in qk.split(128)])
    assert_close(p, ref, msg=f"seed={seed}")
