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

import os
import pathlib
import sys
import types

import numpy as np
import pytest

from c2t_interp import ConversionFailed, convert, convert_and_load, dev, fresh_seed, load, poison

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


def test_fp4_tile_merged_with_another_value_is_diagnosed():
    src = HEAD + """
@ct.kernel
def k(X, P, C: ConstInt):
    x = ct.load(X, index=(0, 0), shape=(16, 16))
    if C == 1:
        t = ct.astype(x, float4_e2m1fn)
    else:
        t = x
    ct.store(P, index=(0, 0), tile=t)
"""
    with pytest.raises(ConversionFailed, match="float4_e2m1fn tile on one path"):
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


# --------------------------------------------------------------------------
# Kernels defined inside a function (a kernel factory, TileGym nvfp4_quantize.py): converted in
# place when the kernel reads only module-level names; hints may use the factory's parameters.

FACTORY = HEAD + """
import functools

SCALE = 3.0


@functools.lru_cache(maxsize=None)
def make_kernel(occupancy: int):
    @ct.kernel(occupancy=occupancy)
    def scale_kernel(X, Y, TILE: ConstInt):
        x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(Y, index=(ct.bid(0),), tile=x * SCALE)

    return scale_kernel


def run(x, occupancy=2):
    y = x.new_empty(x.shape)
    ct.launch(None, (ct.cdiv(x.shape[0], 32),), make_kernel(occupancy), (x, y, 32))
    return y
"""


def test_kernel_factory(tmp_path):
    code = convert(FACTORY, "factory.py")
    assert "    @triton.jit\n    def scale_kernel(" in code
    assert "    scale_kernel._c2t_launcher = launch_scale_kernel\n" in code and "    return scale_kernel\n" in code
    assert "\ndef launch_scale_kernel" not in code  # the launcher stays in the factory
    mod = load(code, tmp_path, "factory")
    seed = fresh_seed()
    x = dev(torch.randn(70, generator=torch.Generator().manual_seed(seed)))
    for occ in (1, 2):
        assert torch.equal(mod.run(x, occ).cpu(), (x * 3.0).cpu()), f"seed={seed}"
    assert mod.make_kernel(1) is mod.make_kernel(1)


def test_kernel_factory_reading_factory_names(tmp_path):
    # The factory's parameter read in the kernel's body is a constant at launch (test_launch_constants.py).
    code = convert(FACTORY.replace("x * SCALE", "x * occupancy"), "factory_param.py")
    assert "        occupancy: tl.constexpr,\n    ):" in code
    mod = load(code, tmp_path, "factory_param")
    seed = fresh_seed()
    x = dev(torch.randn(70, generator=torch.Generator().manual_seed(seed)))
    for occ in (1, 2):
        assert torch.equal(mod.run(x, occ).cpu(), (x * occ).cpu()), f"seed={seed}"


# --------------------------------------------------------------------------
# TileGym's nvfp4_quantize (C2T_CORPUS): the whole converted module (kernel factory, host
# launcher, registration) run on CPU tensors against a torch/NumPy reference of the algorithm:
# per 16-column group, scale = max(amax / 6 * s_enc, E4M3_EPS) rounded to float8_e4m3fn (zero
# for groups and rows outside the input), stored in the 512-byte swizzled layout
# (byte (r % 32) * 16 + (r // 32) * 4 + c of tile blk_m * n_blocks + blk_n), and the values
# x * (s_enc / scale) encoded as e2m1 and packed two per byte.

NVFP4 = pathlib.Path(os.environ.get("C2T_CORPUS") or "/nonexistent") / \
    "TileGym/src/tilegym/ops/cutile/experimental/nvfp4_quantize.py"


def _nvfp4_reference(x: torch.Tensor, s_enc: float):
    rows, cols = x.shape
    nm, nn = -(-rows // 128), -(-cols // 64)
    xp = torch.zeros(nm * 128, nn * 64, dtype=torch.float32)
    xp[:rows, :cols] = x.float()
    g = xp.reshape(nm * 128, nn * 4, 16)
    amax = g.abs().amax(dim=2)
    scale = torch.maximum((amax / 6.0) * s_enc, torch.tensor(1.5258789e-05))
    valid = torch.zeros_like(scale, dtype=torch.bool)
    valid[:rows, : cols // 16] = True
    scale = torch.where(valid, scale, torch.zeros_like(scale))
    s8 = scale.to(torch.float8_e4m3fn)
    sbytes = s8.view(torch.uint8)
    scales = torch.zeros(nm * nn * 512, dtype=torch.uint8)
    r = torch.arange(128)
    for bm in range(nm):
        for bn in range(nn):
            t = bm * nn + bn
            for c in range(4):
                scales[t * 512 + (r % 32) * 16 + (r // 32) * 4 + c] = sbytes[bm * 128 + r, bn * 4 + c]
    enc = torch.tensor(s_enc, dtype=torch.float32) / s8.float()
    vals = g * enc[:, :, None]
    codes = e2m1_codes(vals.reshape(nm * 128, nn * 64).double().numpy())
    packed = pack_codes(codes).reshape(nm * 128, nn * 32)[:rows, : cols // 2]
    return torch.from_numpy(packed.copy()), scales


@pytest.mark.corpus
@pytest.mark.skipif(not NVFP4.is_file(), reason="C2T_CORPUS with TileGym not set")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("rows,cols", [(200, 80), (128, 64), (1, 16)])
def test_corpus_nvfp4_quantize(tmp_path, monkeypatch, dtype, rows, cols):
    backend = types.ModuleType("tilegym.backend")
    backend.register_impl = lambda *a, **k: (lambda f: f)
    pkg = types.ModuleType("tilegym")
    pkg.backend = backend
    monkeypatch.setitem(sys.modules, "tilegym", pkg)
    monkeypatch.setitem(sys.modules, "tilegym.backend", backend)
    mod = load(convert(NVFP4.read_text(), "nvfp4_quantize.py"), tmp_path, "nvfp4_quantize")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    # Each 16-column group's amax is 6 * v for a float8_e4m3fn value v >= 2^-6 and s_enc = 1, so
    # every scale is exact in fp8: Triton's CPU interpreter rounds fp32 -> fp8 wrongly when the
    # mantissa carries (triton_target.md §2.3, 31.6 -> 16), which the GPU does not; the scale
    # rounding itself is the fp8 conversion the rest of the converter already uses.
    ng = -(-cols // 16)
    v = (torch.rand(rows, ng, generator=g) * 60 + 2.0 ** -6).to(torch.float8_e4m3fn).float()
    u = (torch.rand(rows, ng * 16, generator=g) * 2 - 1) * 6 * v.repeat_interleave(16, dim=1)
    at = torch.randint(0, 16, (rows, ng), generator=g) + torch.arange(ng) * 16
    u.scatter_(1, at, 6 * v * torch.where(torch.rand(rows, ng, generator=g) < 0.5, -1.0, 1.0))
    x = u[:, :cols].to(dtype)  # 6 * v is exact in fp16 too; the others stay at most 6 * v when rounded
    assert torch.equal(x.float().reshape(rows, ng, 16).abs().amax(2), 6 * v)
    s_enc = 1.0
    packed, scales = mod.tile_nvfp4_quantize(dev(x), s_enc=s_enc)
    exp_packed, exp_scales = _nvfp4_reference(x, s_enc)
    assert torch.equal(scales.cpu(), exp_scales), f"scales differ, seed={seed}"
    diff = (packed.cpu() != exp_packed).nonzero()
    assert diff.numel() == 0, f"seed={seed}: {len(diff)} packed bytes differ, first at {diff[0].tolist()}"


# --------------------------------------------------------------------------
# Triton's real sm_90 pipeline (tests/triton_compile_check.py): the fp4 helpers, a kernel
# defined inside a factory, and TileGym's nvfp4 kernel (bf16 included, which the interpreter
# cannot run) compile for the GPU.

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_fp4_compiles_for_sm90(tmp_path, dtype):
    from triton_compile_check import compile_launch

    mod = load(convert(QUANT, "quant_gpu.py"), tmp_path, "quant_gpu")
    stages = compile_launch(mod.launch_quant, (1, 1), torch.zeros(16, 32, dtype=dtype),
                            torch.zeros(16, 16, dtype=torch.uint8), 16, 32)
    assert "ttgir" in stages


def test_kernel_factory_compiles_for_sm90(tmp_path):
    from triton_compile_check import compile_launch

    mod = load(convert(FACTORY, "factory_gpu.py"), tmp_path, "factory_gpu")
    k = mod.make_kernel(2)
    k._c2t_factory_args = (2,)  # how the compile child re-creates the kernel
    assert "ttgir" in compile_launch(k._c2t_launcher, (3,), torch.zeros(70), torch.zeros(70), 32)


@pytest.mark.corpus
@pytest.mark.skipif(not NVFP4.is_file(), reason="C2T_CORPUS with TileGym not set")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_corpus_nvfp4_compiles_for_sm90(tmp_path, monkeypatch, dtype):
    from triton_compile_check import compile_launch

    backend = types.ModuleType("tilegym.backend")
    backend.register_impl = lambda *a, **k: (lambda f: f)
    pkg = types.ModuleType("tilegym")
    pkg.backend = backend
    monkeypatch.setitem(sys.modules, "tilegym", pkg)
    monkeypatch.setitem(sys.modules, "tilegym.backend", backend)
    code = convert(NVFP4.read_text(), "nvfp4_quantize.py")
    # (the compile child imports the file without our sys.modules stub)
    code = code.replace("from tilegym.backend import register_impl", "register_impl = lambda *a, **k: (lambda f: f)")
    mod = load(code, tmp_path, "nvfp4_gpu")
    k = mod._make_nvfp4_kernel(6)
    k._c2t_factory_args = (6,)
    x = torch.zeros(200, 80, dtype=dtype)
    stages = compile_launch(k._c2t_launcher, (2, 2, 1), x, torch.zeros(4 * 512, dtype=torch.uint8),
                            torch.zeros(200, 40, dtype=torch.uint8), torch.ones(1), 2, 2, 80, 200, True, True)
    assert "ttgir" in stages
