"""`ct.mma(ct.transpose(a), b, acc)` (2-D, b not itself transposed) is converted as
`tl.trans(tl.dot(tl.trans(b), a, tl.trans(acc)))`: the same sums of the same products, without a
transposed A operand, which Triton 3.6 compiled into an illegal shared-memory access on the H200
(flashinfer's MLA decode, TileGym fmha_decode_bsr.py with TRANS_QK; lower/ops_mma.cpp,
transposed_a_dot). Each case runs in Triton's interpreter against torch, on sizes that are not
multiples of the tile, with the K extent both at least 16 (tl.dot) and below it (the exact
broadcast product).
"""

from __future__ import annotations

import pytest

from c2t_interp import assert_close, convert, dev, fresh_seed, load

import torch  # noqa: E402

# One program per column block of the output: out[:, j-block] = sum over N-tiles of V^T @ P,
# P computed from S (exp, as attention's probabilities are), V and S loaded with zero padding.
PV = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def pv_kernel(V, S, Out, BN: ConstInt, BD: ConstInt, BH: ConstInt):
    d, h = ct.bid(0), ct.bid(1)
    acc = ct.full((BD, BH), 0.0, dtype=ct.float32)
    for n in range(ct.cdiv(V.shape[0], BN)):
        v = ct.load(V, index=(n, d), shape=(BN, BD), padding_mode=ct.PaddingMode.ZERO)
        s = ct.load(S, index=(n, h), shape=(BN, BH), padding_mode=ct.PaddingMode.ZERO)
        p = ct.exp(s)
        acc = ct.mma(MMA_A, ct.astype(p, V.dtype), acc=acc)
    ct.store(Out, index=(d, h), tile=acc)


def pv(v, s, bn, bd, bh):
    out = torch.empty((v.shape[1], s.shape[1]), dtype=torch.float32, device=v.device)
    grid = (ct.cdiv(v.shape[1], bd), ct.cdiv(s.shape[1], bh), 1)
    ct.launch(torch.cuda.current_stream(), grid, pv_kernel, (v, s, out, bn, bd, bh))
    return out
'''


def _inputs(N, D, H, dtype):
    g = torch.Generator().manual_seed(fresh_seed())
    v = torch.randn((N, D), generator=g).to(dtype)
    s = (torch.randn((N, H), generator=g) * 0.5).to(dtype)
    return v, s


def _reference(v, s):
    # Rows of S past N are padding: exp(0) = 1 there, but V's padded rows are 0, so they add nothing.
    return v.double().T @ torch.exp(s.double()).to(v.dtype).double()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("bn", [16, 8])  # K >= 16: tl.dot; K < 16: the broadcast product
def test_transposed_a_operand_is_swapped_and_exact(tmp_path, dtype, bn):
    code = convert(PV.replace("MMA_A", "ct.transpose(v)"), filename="pv_t.py")
    kernel = code.split("def pv_kernel")[1].split("def launch_")[0]
    flat = "".join(kernel.split())
    assert "tl.dot(tl.trans(p" in flat and "tl.trans(acc)" in flat, kernel  # whatever BN (a constexpr)
    assert "tl.dot(tl.trans(v)" not in flat, kernel
    mod = load(code, tmp_path, f"pv_t_{bn}_{str(dtype)[6:]}")
    v, s = _inputs(N=45, D=37, H=21, dtype=dtype)
    out = mod.pv(dev(v), dev(s), bn, 16, 16)
    assert_close(out, _reference(v, s).float(), dtype=dtype)


def test_both_operands_transposed_stay_as_written(tmp_path):
    # b^T a^T would transpose `a` again: not swapped (and still right).
    src = PV.replace("MMA_A, ct.astype(p, V.dtype)", "ct.transpose(v), ct.transpose(ct.astype(ct.transpose(p), V.dtype))")
    code = convert(src, filename="pv_tt.py")
    flat = "".join(code.split("def pv_kernel")[1].split("def launch_")[0].split())
    assert "tl.dot(tl.trans(v)" in flat, flat
    mod = load(code, tmp_path, "pv_tt")
    v, s = _inputs(N=33, D=19, H=17, dtype=torch.float32)
    assert_close(mod.pv(dev(v), dev(s), 16, 16, 16), _reference(v, s).float(), dtype=torch.float32)


def test_untransposed_a_is_a_plain_dot(tmp_path):
    src = PV.replace("MMA_A", "ct.transpose(v)").replace(
        "v = ct.load(V, index=(n, d), shape=(BN, BD), padding_mode=ct.PaddingMode.ZERO)",
        "v = ct.transpose(ct.load(V, index=(n, d), shape=(BN, BD), padding_mode=ct.PaddingMode.ZERO))").replace(
        "ct.mma(ct.transpose(v)", "ct.mma(vt")
    src = src.replace("        p = ct.exp(s)\n", "        p = ct.exp(s)\n        vt = v\n")
    code = convert(src, filename="pv_plain.py")
    flat = "".join(code.split("def pv_kernel")[1].split("def launch_")[0].split())
    assert "tl.dot(vt," in flat, flat  # a transposed tile bound to a name is an ordinary operand
    mod = load(code, tmp_path, "pv_plain")
    v, s = _inputs(N=40, D=24, H=20, dtype=torch.float32)
    assert_close(mod.pv(dev(v), dev(s), 16, 16, 16), _reference(v, s).float(), dtype=torch.float32)
