"""float4_e2m1fn conversion and ct.pack_to_bytes (TileGym nvfp4_quantize.py), on our own
small cuTile kernels converted and run under Triton's CPU interpreter.

Triton has no fp4 dtype: cutile2triton keeps an fp4 tile as a uint8 tile of e2m1 codes and
packs two codes per byte for ct.pack_to_bytes. The reference below is an independent NumPy
encoder: the nearest of the eight e2m1 magnitudes (0, 0.5, 1, 1.5, 2, 3, 4, 6), ties to the
even code, saturating at 6 (e2m1 has no inf; PTX converts with cvt.rn.satfinite), the sign in
bit 3, and cuTile's byte order for ct.pack_to_bytes (the tile flattened in row-major order,
element 2i in the low nibble of byte i). NaN has no e2m1 encoding; the converter writes 0x7.
Fresh random inputs every run (seed in failure messages), ragged sizes, outputs poisoned.
"""

from __future__ import annotations

import numpy as np
import pytest

from c2t_interp import ConversionFailed, convert, convert_and_load, dev, fresh_seed, poison

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def e2m1_codes(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even e2m1 codes of float64 values (saturating; NaN -> 0x7)."""
    x = np.asarray(x, dtype=np.float64)
    m = np.abs(x)
    d = np.abs(m[..., None] - E2M1)                      # distance to every magnitude
    best = d.min(axis=-1, keepdims=True)
    ties = d == best
    # among equally near magnitudes the even code wins (codes 0..7 are the indices)
    cand = np.where(ties, np.arange(8), 99)
    even = np.where(cand % 2 == 0, cand, 99).min(axis=-1)
    code = np.where(even < 99, even, cand.min(axis=-1))
    code = np.where(m > 6.0, 7, code)
    code = np.where(np.isnan(x), 7, code)
    sign = np.signbit(x) & ~np.isnan(x)
    return (code | (sign.astype(np.int64) << 3)).astype(np.uint8)


def pack_codes(codes: np.ndarray) -> np.ndarray:
    flat = codes.reshape(-1)
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def test_reference_encoder_known_values():
    vals = np.array([0.0, -0.0, 0.25, 0.26, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 5.1, 7.0, np.inf, -np.inf, -0.1, -3.0])
    assert e2m1_codes(vals).tolist() == [0, 8, 0, 1, 2, 2, 4, 4, 6, 6, 7, 7, 7, 15, 8, 13]
    assert pack_codes(np.array([1, 2, 3, 15], dtype=np.uint8)).tolist() == [0x21, 0xF3]


HEAD = """
import cuda.tile as ct
import numpy as np
from cuda.tile._datatype import float4_e2m1fn

ConstInt = ct.Constant[int]
"""

QUANT = HEAD + """
@ct.kernel
def quant(X, P, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    x = ct.load(X, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    fp4 = ct.astype(x * 1.0, float4_e2m1fn)
    packed = ct.reshape(ct.pack_to_bytes(fp4), (TM, TN // 2))
    ct.store(P, index=(bm, bn), tile=packed)
"""


def _wide(g, shape):
    # magnitudes 0..8 with exact ties (multiples of 0.25), some random, signed zeros, specials
    x = torch.randint(-32, 33, shape, generator=g).double() / 4
    noise = torch.rand(shape, generator=g, dtype=torch.float64) * 8 - 4
    x = torch.where(torch.rand(shape, generator=g) < 0.5, x, noise)
    flat = x.view(-1)
    flat[:6] = torch.tensor([-0.0, 0.0, float("inf"), -float("inf"), 1e-30, -1e-30], dtype=torch.float64)
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_fp4_astype_and_pack(tmp_path, dtype):
    mod = convert_and_load(QUANT, tmp_path, "quant")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    M, N, TM, TN = 37, 100, 16, 32     # N even (whole bytes) but not a multiple of TN
    x = _wide(g, (M, N)).to(dtype)
    p = poison(dev(torch.empty(M, N // 2, dtype=torch.uint8)))
    mod.launch_quant((-(-M // TM), -(-N // TN)), dev(x), p, TM, TN)
    exp = pack_codes(e2m1_codes(x.double().numpy())).reshape(M, N // 2)
    got = p.cpu().numpy()
    bad = np.argwhere(got != exp)
    assert bad.size == 0, f"seed={seed}: {len(bad)} bytes differ, first at {bad[0]}: got {got[tuple(bad[0])]:#x} " \
                          f"expected {exp[tuple(bad[0])]:#x} for x={x[bad[0][0], 2 * bad[0][1]:2 * bad[0][1] + 2]}"


def test_fp4_nan_is_code_7(tmp_path):
    mod = convert_and_load(QUANT, tmp_path, "quant_nan")
    x = torch.full((16, 32), float("nan"))
    x[0, 1] = -float("nan")
    p = poison(dev(torch.empty(16, 16, dtype=torch.uint8)))
    mod.launch_quant((1, 1), dev(x), p, 16, 32)
    assert (p.cpu() == 0x77).all()


PACK8 = HEAD + """
@ct.kernel
def pack8(X, P, TM: ConstInt, TN: ConstInt):
    x = ct.load(X, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    ct.store(P, index=(ct.bid(0),), tile=ct.pack_to_bytes(ct.bitcast(x, np.int8)))
"""


def test_pack_to_bytes_8bit(tmp_path):
    mod = convert_and_load(PACK8, tmp_path, "pack8")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 256, (3 * 4, 8), generator=g, dtype=torch.uint8)
    p = poison(dev(torch.empty(3 * 32, dtype=torch.uint8)))
    mod.launch_pack8((3,), dev(x), p, 4, 8)
    assert torch.equal(p.cpu(), x.reshape(-1)), f"seed={seed}"


@pytest.mark.parametrize("expr,message", [
    ("ct.astype(fp4, ct.float32)", "conversion from float4_e2m1fn"),
    ("fp4 + fp4", "use of a float4_e2m1fn tile"),
    ("ct.bitcast(fp4, np.uint8)", "use of a float4_e2m1fn tile"),
    ("ct.where(x > 0, fp4, fp4)", "use of a float4_e2m1fn tile"),
    ("ct.pack_to_bytes(ct.astype(x, ct.float16))", "8-bit dtypes and float4_e2m1fn only"),
    ("ct.pack_to_bytes(x > 0)", "bool_"),
])
def test_fp4_diagnostics(expr, message):
    src = HEAD + f"""
@ct.kernel
def k(X, P):
    x = ct.load(X, index=(0, 0), shape=(16, 16))
    fp4 = ct.astype(x, float4_e2m1fn)
    y = {expr}
    ct.store(P, index=(0, 0), tile=y)
"""
    with pytest.raises(ConversionFailed, match=message):
        convert(src, "bad.py")


def test_fp4_tile_cannot_be_stored():
    src = HEAD + """
@ct.kernel
def k(X, P):
    x = ct.load(X, index=(0, 0), shape=(16, 16))
    ct.store(P, index=(0, 0), tile=ct.astype(x, float4_e2m1fn))
"""
    with pytest.raises(ConversionFailed, match="use of a float4_e2m1fn tile"):
        convert(src, "bad.py")
