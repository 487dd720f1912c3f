"""Launch options the converted launchers choose (BENCHMARKS.md, "Launch options").

cuTile sizes each kernel's thread blocks itself; Triton launches 4 warps unless told otherwise,
which on the H200 spilled registers and starved large tiles. The launchers therefore default
num_warps from the kernel's tile footprints (the runtime's _c2t_num_warps), and tiles with
extent-1 axes around a matrix are loaded without them. Checked here: the rule itself, that
launchers apply it (from sizes only known at launch, through helper calls) without overriding a
caller's or a cuTile hint's choice, that the squeezed loads and stores compute the same values
on ragged sizes (interpreter), and, compiled for sm_90 on this CPU, that the warps chosen leave
no register spills and the K loop's loads stay software-pipelined (cp.async).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from c2t_interp import assert_close, convert, dev, fresh_seed, load

import torch  # noqa: E402
import triton  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

SRC = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_scale(x, out, TILE: ConstInt):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i, 0), tile=t * 2.0)


def acc_tile(a, b, acc):
    return ct.mma(a, b, acc)


@ct.kernel
def bmm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    bm, bn, bq = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, TM, TK))):
        a = ct.load(A, index=(bq, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO).reshape((TM, TK))
        b = ct.load(B, index=(bq, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO).reshape((TK, TN))
        acc = acc_tile(a, b, acc)
    ct.store(C, index=(bq, bm, bn), tile=acc.astype(C.dtype).reshape((1, TM, TN)))


def run_bmm(a, b, tm, tn, tk):
    c = torch.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=a.dtype, device=a.device)
    grid = (ct.cdiv(a.shape[1], tm), ct.cdiv(b.shape[2], tn), a.shape[0])
    ct.launch(torch.cuda.current_stream(), grid, bmm, (a, b, c, tm, tn, tk))
    return c
'''


@pytest.fixture(scope="module")
def code():
    return convert(SRC, filename="launch_options.py")


@pytest.fixture
def mod(code, tmp_path):
    return load(code, tmp_path, "launch_options")


class Recorder:
    """Stands in for a @triton.jit kernel and records each launch's options."""

    params = ()

    def __init__(self):
        self.options = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.options.append(kwargs)


def test_num_warps_rule(mod):
    w = mod._c2t_num_warps
    # Without tl.dot: one warp per 1024 elements of the largest tile, from 4 to 16.
    assert [w(lambda: (), lambda: (n,)) for n in (64, 1024, 8191, 8192, 12288, 16384, 1 << 20)] == [4, 4, 4, 8, 8, 16, 16]
    assert w(lambda: (), lambda: (512, 16 * 1024)) == 16  # the largest tile counts
    # With tl.dot: 8 warps for accumulators of more than 16384 elements with 128+ rows.
    assert w(lambda: ((128, 128 * 128, 64),), lambda: (256 * 128,)) == 4  # a 128x128 GEMM tile, loads of 256x128
    # ... unless it is 128 deep or more (group_gemm's 128x128x128: 8 warps 1.2-1.6x faster on the H200)
    assert w(lambda: ((128, 128 * 128, 128),), lambda: (128 * 128,)) == 8
    assert w(lambda: ((128, 128 * 128, 0),), lambda: (128 * 128,)) == 4  # depth unknown to the launcher
    assert w(lambda: ((64, 64 * 256, 256),), lambda: ()) == 4  # 64 rows: one warp group's
    # ... unless a loaded tile has 65536+ elements: MLA decoding at head dim 512 (128x512 K tiles, 16 heads)
    assert w(lambda: ((128, 128 * 16, 64), (512, 512 * 16, 64)), lambda: (512 * 16, 128 * 512, 16)) == 8
    assert w(lambda: ((128, 128 * 16, 64), (128, 128 * 16, 64)), lambda: (128 * 16, 128 * 128, 16)) == 4  # head dim 128
    assert w(lambda: ((256, 256 * 256, 64), (256, 256 * 256, 64)), lambda: (1 << 17,)) == 4  # accumulators beyond 65536
    assert w(lambda: ((128, 128 * 256, 64),), lambda: ()) == 8
    assert w(lambda: ((128, 128 * 64, 64), (128, 128 * 128, 64)), lambda: ()) == 8  # attention: QK^T and PV
    assert w(lambda: ((64, 64 * 64, 64), (64, 64 * 256, 64)), lambda: ()) == 4  # 64-row tiles: one warp group each
    # gemma attention, 256x128 tiles over a 256-wide head: spills either way, 4 warps measured faster
    assert w(lambda: ((256, 256 * 128, 64), (256, 256 * 256, 64)), lambda: ()) == 4
    assert w(lambda: ((128, 128 * 128, 64), (128, 128 * 256, 64)), lambda: ()) == 8  # its 128x128 tiles
    assert w(lambda: (), lambda: (None * 2,)) == 4  # noqa -- an extent that is no int: Triton's default
    # A row walked in 0-wide tiles (a loop the kernel compiles out): Triton's default, not a ZeroDivisionError.
    assert w(lambda: (), lambda: (0 * triton.cdiv(64, 0), 0)) == 4


@pytest.mark.parametrize("tiles", [(64, 32, 96), (48, 32, 16), (64, 32, 0)])
def test_a_tile_dimension_that_is_not_a_power_of_two_is_named(code, mod, tiles):
    # cuTile requires powers of two, and so do Triton's block shapes, whose error comes from deep
    # inside compilation without naming the parameter: the launcher checks its tile parameters.
    assert '_c2t_check_tile_dims("bmm", ("TM", TM), ("TN", TN), ("TK", TK))' in code
    a, b = dev(torch.randn(2, 40, 24)), dev(torch.randn(2, 24, 30))
    bad = next(n for n, v in zip(("TM", "TN", "TK"), tiles) if v <= 0 or v & (v - 1))
    with pytest.raises(ValueError, match=rf"kernel bmm: tile dimension {bad}=\d+ is not a power of two"):
        mod.run_bmm(a, b, *tiles)
    assert_close(mod.run_bmm(a, b, 64, 32, 16), a @ b, relaxed=True)  # powers of two: as before


BRANCH_TILES = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def scale(x, out, WIDE: ConstInt, TILE: ConstInt, NARROW: ConstInt):
    i = ct.bid(0)
    if WIDE == 1:
        t = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i,), tile=t * 2.0)
    else:
        t = ct.load(x, index=(i,), shape=(NARROW,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(i,), tile=t * 2.0)
'''


def test_tiles_in_a_branch_a_constant_selects_are_not_checked(tmp_path):
    # cuTile compiles only the branch a specialization takes: NARROW=12 is no tile of the WIDE=1 one.
    code = convert(BRANCH_TILES, filename="branch_tiles.py")
    assert "_c2t_check_tile_dims" not in code.split("def launch_scale", 1)[1].split("\n\n", 1)[0]
    m = load(code, tmp_path, "branch_tiles")
    x = dev(torch.randn(100))
    out = dev(torch.empty(100))
    m.launch_scale((4, 1, 1), x, out, 1, 32, 12)
    assert_close(out, x * 2.0)


def test_launchers_choose_warps_from_launch_time_tile_sizes(code, mod):
    assert 'if "num_warps" not in options:' in code
    rec = Recorder()
    mod.row_scale = rec
    x = dev(torch.randn(3, 100))
    for tile in (128, 16384):
        mod.launch_row_scale((3,), x, torch.empty_like(x), tile)
    mod.launch_row_scale((3,), x, torch.empty_like(x), 16384, num_warps=2)  # the caller's choice stays
    assert [o["num_warps"] for o in rec.options] == [4, 16, 2]


def test_dot_footprint_crosses_helper_calls(code, mod):
    # The accumulator lives in a helper whose tile parameters have no sizes of their own: the
    # launcher still sees TM x TN from the call site.
    assert "lambda: ((TM, TM * TN, TK),)" in code, code
    rec = Recorder()
    mod.bmm = rec
    a = dev(torch.randn(1, 8, 8))
    for tm, tn, tk in ((128, 128, 64), (128, 256, 64), (64, 256, 64), (128, 128, 128)):
        mod.launch_bmm((1, 1, 1), a, a, a, tm, tn, tk)
    assert [o["num_warps"] for o in rec.options] == [4, 8, 4, 8]  # 128 deep: 8 (the rule above)


def test_cutile_hint_num_worker_warps_is_kept(tmp_path):
    src = SRC.replace("@ct.kernel\ndef row_scale", "@ct.kernel(num_worker_warps=2)\ndef row_scale")
    src += '''

def scale(x, tile):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), row_scale, (x, out, tile))
    return out
'''
    m = load(convert(src, filename="hinted.py"), tmp_path, "hinted")
    rec = Recorder()
    m.row_scale = rec
    m.scale(dev(torch.randn(2, 8)), 16384)
    assert rec.options[-1]["num_warps"] == 2
    # A count Triton cannot launch (not a power of two) becomes the next power of two.
    m3 = load(convert(src.replace("num_worker_warps=2", "num_worker_warps=3"), filename="hinted3.py"), tmp_path, "hinted3")
    rec3 = Recorder()
    m3.row_scale = rec3
    m3.scale(dev(torch.randn(2, 8)), 16384)
    assert rec3.options[-1]["num_warps"] == 4


def test_squeezed_loads_and_stores(code):
    # A (1, TM, TK) tile is loaded as (TM, TK) and reshaped; the store drops the unit axis again.
    assert re.search(r"tl\.reshape\(\s*tl\.load\(\s*\(?\s*A_ptr\s+\+ bq \* A_stride_0\s+\+ a_offs_1\[:, None\]", code), code
    assert "[1, TM, TK]" in code
    assert re.search(r"tl\.reshape\([^\n]*, \[TM, TN\]\)", code), code


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_squeezed_bmm_matches_torch_on_ragged_sizes(mod, dtype):
    g = torch.Generator().manual_seed(fresh_seed())
    q, m, k, n = 2, 37, 45, 29  # none a multiple of the tiles
    a = torch.randn(q, m, k, generator=g).to(dtype)
    b = torch.randn(q, k, n, generator=g).to(dtype)
    got = mod.run_bmm(dev(a), dev(b), 16, 16, 16)
    want = torch.bmm(a.double(), b.double()).to(dtype)
    assert_close(got, want, relaxed=True)


INTERIOR = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def heads_copy(x, out, TH: ConstInt, TD: ConstInt):
    # (1, TH, 1, TD): unit axes in front of and between the others (TileGym's MLA decoding store).
    b, s = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(b, 0, s, 0), shape=(1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(b, 0, s, 0), tile=t * 2.0)


@ct.kernel
def heads_in_place(x, TH: ConstInt, TD: ConstInt):
    # The same tiles loaded from and stored back to one array (TileGym's RoPE).
    b, s = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(b, 0, s, 0), shape=(1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    ct.store(x, index=(b, 0, s, 0), tile=t + 1.0)


@ct.kernel
def heads_in_place_alias(x, TH: ConstInt, TD: ConstInt):
    # In place through another name of the same array.
    y = x
    b, s = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(b, 0, s, 0), shape=(1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(b, 0, s, 0), tile=t + 1.0)


@ct.kernel
def heads_in_place_tuple(xs, TH: ConstInt, TD: ConstInt):
    b, s = ct.bid(0), ct.bid(1)
    t = ct.load(xs[0], index=(b, 0, s, 0), shape=(1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    ct.store(xs[0], index=(b, 0, s, 0), tile=t + 1.0)


@ct.kernel
def heads_in_place_view(x, TH: ConstInt, TD: ConstInt):
    v = x.tiled_view((1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    b, s = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(b, 0, s, 0), shape=(1, TH, 1, TD), padding_mode=ct.PaddingMode.ZERO)
    v.store((b, 0, s, 0), t + 1.0)


def run_in_place_other_names(x, th, td):
    for k, args in ((heads_in_place_alias, (x, th, td)), (heads_in_place_tuple, ((x,), th, td)),
                    (heads_in_place_view, (x, th, td))):
        ct.launch(torch.cuda.current_stream(), (x.shape[0], x.shape[2]), k, args)


def run(x, th, td):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0], x.shape[2]), heads_copy, (x, out, th, td))
    ct.launch(torch.cuda.current_stream(), (x.shape[0], x.shape[2]), heads_in_place, (x, th, td))
    return out
'''


def test_interior_unit_axes_squeezed_except_in_place(tmp_path):
    # access_plan.h says why: on the H200 the MLA form crashed full-rank, the in-place RoPE form
    # gave wrong values squeezed.
    code = convert(INTERIOR, filename="interior.py")
    copy = code[code.index("def heads_copy("):code.index("def heads_in_place(")]
    in_place = code[code.index("def heads_in_place("):]
    assert "x_ptr + b * x_stride_0 + t_offs_1[:, None] * x_stride_1" in " ".join(copy.split()), copy  # 2-D pointers
    assert "[1, TH, 1, TD]" in copy
    assert "t_offs_1[None, :, None, None]" in in_place, in_place  # full-rank pointers
    m = load(code, tmp_path, "interior")
    g = torch.Generator().manual_seed(fresh_seed())
    x = torch.randn(2, 5, 3, 7, generator=g)  # heads and head dim not multiples of the tile
    xd = dev(x.clone())
    out = m.run(xd, 8, 8)
    assert_close(out, dev(x * 2.0))
    assert_close(xd, dev(x + 1.0))


@pytest.mark.parametrize("name", ["heads_in_place_alias", "heads_in_place_tuple", "heads_in_place_view"])
def test_in_place_through_other_names_keeps_full_rank_pointers(name):
    # An array loaded and stored back under another name (an alias, a tuple element, a tiled
    # view's store) is as much an in-place update as heads_in_place: full-rank pointers, no reshape.
    code = convert(INTERIOR, filename="interior.py")
    start = code.index(f"def {name}(")
    k = code[start:code.index("\n\n\n", start)]
    assert "t_offs_1[None, :, None, None]" in k and "tl.reshape" not in k, k


def test_in_place_through_other_names_on_ragged_sizes(tmp_path):
    m = load(convert(INTERIOR, filename="interior.py"), tmp_path, "interior")
    g = torch.Generator().manual_seed(fresh_seed())
    x = torch.randn(2, 5, 3, 7, generator=g)
    xd = dev(x.clone())
    m.run_in_place_other_names(xd, 8, 8)
    assert_close(xd, dev(x + 3.0))


def _ptxas_spills(ptx: str) -> int:
    from triton import knobs

    with tempfile.TemporaryDirectory() as d:
        src = Path(d, "k.ptx")
        src.write_text(ptx)
        r = subprocess.run([knobs.nvidia.ptxas.path, "-v", "--gpu-name=sm_90a", str(src), "-o", str(Path(d, "k.o"))],
                           capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    spills = re.findall(r"(\d+) bytes spill stores", r.stderr + r.stdout)
    assert spills, r.stderr
    return int(spills[-1])


@pytest.mark.parametrize("tm,tn", [(128, 128), (128, 256)])
def test_sm90_no_spills_and_pipelined_k_loop(code, tmp_path, tm, tn):
    from triton_compile_check import compile_launch, load_for_compile

    try:
        from triton import knobs

        if not knobs.nvidia.ptxas.path:
            pytest.skip("no ptxas")
    except Exception as e:  # pragma: no cover
        pytest.skip(f"installed Triton has no CUDA backend: {e}")
    gm = load_for_compile(code, tmp_path, "launch_options_gpu")
    a = torch.empty(2, 1024, 1024, dtype=torch.float16)
    stages = compile_launch(gm.launch_bmm, (8, 8, 2), a, a, a, tm, tn, 64, last_stage="ptx")
    ttgir = stages["ttgir"]
    assert "ttng.warp_group_dot" in ttgir  # Hopper's wgmma
    assert "ttg.async_copy_global_to_local" in ttgir  # the K loop's loads are pipelined
    assert _ptxas_spills(stages["ptx"]) == 0


REBOUND = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


def add_one_transposed(out, i, t):
    t = ct.permute(t, (1, 0))  # the parameter rebound: its extents are the argument's, swapped
    ones = ct.full((t.shape[0], t.shape[1]), 1.0, dtype=ct.float32)
    ct.store(out, index=(i, 0), tile=t + ones)


def times_eight(out, i, t, n: ConstInt):
    for _ in range(n):
        t = t * 2.0  # carried by the loop
    ct.store(out, index=(0, i), tile=t)


@ct.kernel
def transpose_plus_one(x, out, out8, TM: ConstInt, TN: ConstInt):
    i = ct.bid(0)
    t = ct.load(x, index=(0, i), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    add_one_transposed(out, i, t)
    times_eight(out8, i, t, 3)


@ct.kernel
def doubled_rows(x, out, ROWS: ConstInt, COLS: ConstInt):
    top = ct.load(x, index=(0, 0), shape=(2, COLS))  # a descriptor path for the kernel
    ROWS = ROWS * 2  # a constexpr parameter rebound: tiles of 2 * ROWS rows
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(ROWS, COLS))
    ct.store(out, index=(i, 0), tile=t + ct.sum(top, axis=0, keepdims=True) * 0.0 + 1.0)


@ct.kernel
def wide(x, out, grid: ConstInt, options: ConstInt):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(grid, options)))
'''


@pytest.fixture(scope="module")
def rebound_code():
    return convert(REBOUND, filename="rebound.py")


def test_helper_rebinding_its_tile_parameter_keeps_the_argument_extents(rebound_code, tmp_path):
    m = load(rebound_code, tmp_path, "rebound")
    g = torch.Generator().manual_seed(fresh_seed())
    x = torch.randn(4, 19, generator=g)  # TM=4, TN=8: not square, and ragged along TN
    out, out8 = torch.full((24, 4), float("nan")), torch.full_like(x, float("nan"))
    m.launch_transpose_plus_one((3,), dev(x), dev(out), dev(out8), 4, 8)
    assert_close(out[:19], x.T + 1)
    assert_close(out8, x * 8)


@pytest.mark.parametrize("use_tma", [False, True])
def test_rebound_constexpr_parameter_sizes_tiles_and_descriptors(rebound_code, tmp_path, use_tma):
    # The descriptors are made at the kernel's top, before ROWS = ROWS * 2: none for that tile.
    assert "[ROWS, COLS]" not in rebound_code.split("def doubled_rows", 1)[1].split("def launch_", 1)[0]
    # The launcher's ROWS is the argument, not the tile's 2 * ROWS rows: no footprint from it.
    assert "ROWS * COLS" not in rebound_code
    m = load(rebound_code, tmp_path, "rebound_tma")
    x = torch.randn(16, 8)
    out = torch.zeros_like(x)
    m.launch_doubled_rows((4,), dev(x), dev(out), 2, 8, use_tma=use_tma)
    assert_close(out, x + 1)


def test_tma_check_uses_renamed_block_extents(rebound_code):
    # `options` (a constexpr) is `options_` in the launcher, whose `options` are Triton's.
    assert "(x, options_, False)" in rebound_code and "(x, options, False)" not in rebound_code, rebound_code
    assert "lambda: (grid_ * options_,)" in rebound_code


def test_kernels_named_like_the_launchers_parameters(tmp_path):
    src = '''
import cuda.tile as ct


@ct.kernel
def grid(x, out, N: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(2, N)) + 1.0)


@ct.kernel
def options(x, out, grid_: ct.Constant[int], options: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(grid_, options)) * 2.0)


def run(x, out, out2):
    ct.launch(None, (x.shape[0] // 2,), grid, (x, out, x.shape[1]))
    ct.launch(None, (x.shape[0] // 2,), options, (x, out2, 2, x.shape[1]))
'''
    m = load(convert(src, filename="named.py"), tmp_path, "named")
    x = torch.randn(4, 8)
    out, out2 = torch.zeros_like(x), torch.zeros_like(x)
    m.run(dev(x), dev(out), dev(out2))
    assert_close(out, x + 1)
    assert_close(out2, x * 2)


def test_constexpr_parameters_named_like_the_launchers_builtins(tmp_path):
    src = '''
import cuda.tile as ct


@ct.kernel
def k(x, out, all: ct.Constant[int], str: ct.Constant[int], isinstance: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(all, str))
    ct.store(out, index=(i, 0), tile=t * isinstance)


@ct.kernel
def k3(xs, out, len: ct.Constant[int], list: ct.Constant[int], _allocation: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((len, list), dtype=ct.float32)
    for j in range(2):
        acc = acc + ct.load(xs[j], index=(i, 0), shape=(len, list))
    ct.store(out, index=(i, 0), tile=acc * _allocation)


def run3(x, out):
    ct.launch(None, (2,), k3, ([x, x], out, 2, 8, 1))
'''
    m = load(convert(src, filename="builtins.py"), tmp_path, "builtins_named")
    x = torch.randn(4, 8)
    for use_tma in (False, None):  # None: the descriptor check runs (all(...), str(...))
        out = torch.zeros_like(x)
        m.launch_k((2,), dev(x), dev(out), 2, 8, 3, use_tma=use_tma)
        assert_close(out, x * 3)
    out = torch.zeros_like(x)
    m.run3(dev(x), dev(out))  # list(xs), len(...), all(...) of the list-of-arrays table
    assert_close(out, x * 2)


def test_sm90_compiles_a_rebound_constexpr_parameter(rebound_code, tmp_path):
    # `ROWS = ROWS * 2` of a constexpr parameter: Triton's compiler refuses to declare a
    # parameter tl.constexpr again (the interpreter does not mind), so the value is renamed.
    from triton_compile_check import compile_launch, load_for_compile

    gm = load_for_compile(rebound_code, tmp_path, "rebound_gpu")
    x = torch.empty(64, 64, dtype=torch.float16)
    for use_tma in (False, True):
        compile_launch(gm.launch_doubled_rows, (4,), x, x, 8, 64, use_tma=use_tma, last_stage="ttgir")
    compile_launch(gm.launch_transpose_plus_one, (2,), x, x, x, 16, 32, last_stage="ttgir")
