"""`X = ct.load(...)` directly followed by `X = ct.permute(X, axes)` is converted to one load in the
permuted order (pointer arithmetic over the permuted axes), not tl.load + tl.permute
(lower/lowerer.h, Lowerer::take_load_permutation says why: on the H200, Triton 3.6 pipelined
TileGym's bmm with transpose_a, 128x256 tiles at 8 warps and 3 stages, into wrong results; the
folded load was right). Every case runs in Triton's interpreter against torch, on sizes that are
not multiples of the tile; the cases that must not fold keep their tl.permute and stay right.
"""

from __future__ import annotations

import pytest

from c2t_interp import ConversionFailed, assert_close, convert, dev, fresh_seed, load

import torch  # noqa: E402

BMM = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]


@ct.kernel
def bmm_kernel(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt, TRANSPOSE_A: ConstBool):
    q, bm, bn = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(B.shape[1], TK)):
        if TRANSPOSE_A:
            a = ct.load(A, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)
            a = ct.permute(a, (0, 2, 1))
        else:
            a = ct.load(A, index=(q, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(q, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.reshape(a, (TM, TK)), ct.reshape(b, (TK, TN)), acc)
    ct.store(C, index=(q, bm, bn), tile=ct.reshape(acc, (1, TM, TN)).astype(C.dtype))


def bmm(a, b, transpose_a):
    Q, K, N = b.shape
    M = a.shape[2] if transpose_a else a.shape[1]
    c = torch.empty((Q, M, N), dtype=torch.float32, device=a.device)
    grid = (Q, ct.cdiv(M, 16), ct.cdiv(N, 16))
    ct.launch(torch.cuda.current_stream(), grid, bmm_kernel, (a, b, c, 16, 16, 16, transpose_a))
    return c
'''


def _inputs(Q=2, M=37, N=21, K=45, transpose_a=True):
    g = torch.Generator().manual_seed(fresh_seed())
    a = torch.randn((Q, K, M) if transpose_a else (Q, M, K), generator=g)
    b = torch.randn((Q, K, N), generator=g)
    return a, b


@pytest.mark.parametrize("transpose_a", [True, False])
def test_load_then_permute_is_one_ordered_load(tmp_path, transpose_a):
    code = convert(BMM, filename="bmm_perm.py")
    assert "tl.permute" not in code, code
    # The transposed load walks A's axis 2 along the tile's rows and axis 1 along its columns.
    assert "[:, None] * A_stride_2 + a_offs_2[None, :] * A_stride_1" in " ".join(code.split()), code  # any layout
    mod = load(code, tmp_path, "bmm_perm")
    a, b = _inputs(transpose_a=transpose_a)
    ref = torch.bmm(a.transpose(1, 2) if transpose_a else a, b)
    assert_close(mod.bmm(dev(a), dev(b), transpose_a), ref, dtype=torch.float32)


# Not folded: the loaded tile is used before the permute, the permute binds another name, or
# its axes are not a literal tuple. Each keeps tl.permute and must still be right.
NOT_FOLDED = {
    "used before": ("a = ct.load(A, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)\n"
                    "            s = ct.sum(a)\n"
                    "            a = ct.permute(a, (0, 2, 1)) + s * 0.0"),
    "other name": ("t = ct.load(A, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)\n"
                   "            a = ct.permute(t, (0, 2, 1))"),
    "axes not literal": ("a = ct.load(A, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)\n"
                         "            a = ct.permute(a, AXES)"),
}


@pytest.mark.parametrize("case", sorted(NOT_FOLDED))
def test_other_permutes_stay_permutes(tmp_path, case):
    src = BMM.replace(
        "a = ct.load(A, index=(q, k, bm), shape=(1, TK, TM), padding_mode=ct.PaddingMode.ZERO)\n"
        "            a = ct.permute(a, (0, 2, 1))", NOT_FOLDED[case])
    src = src.replace("import torch\n", "import torch\n\nAXES = (0, 2, 1)\n", 1)
    code = convert(src, filename="bmm_keep.py")
    assert "tl.permute(" in code, code
    mod = load(code, tmp_path, "bmm_keep")
    a, b = _inputs()
    assert_close(mod.bmm(dev(a), dev(b), True), torch.bmm(a.transpose(1, 2), b), dtype=torch.float32)


def test_method_permute_folds_too(tmp_path):
    src = BMM.replace("a = ct.permute(a, (0, 2, 1))", "a = a.permute((0, 2, 1))")
    code = convert(src, filename="bmm_method.py")
    assert "permute" not in code.split("def bmm_kernel")[1].split("def launch_")[0], code
    mod = load(code, tmp_path, "bmm_method")
    a, b = _inputs(M=19, N=33, K=17)
    assert_close(mod.bmm(dev(a), dev(b), True), torch.bmm(a.transpose(1, 2), b), dtype=torch.float32)



BAD_AXES = """
import cuda.tile as ct


@ct.kernel
def tr(A, Y, T: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(A, index=(i, 0), shape=(T, 8))
    a = ct.permute(a, AXES)
    ct.store(Y, index=(0, i), tile=a)
"""


@pytest.mark.parametrize("axes", ["(2, 0, 1)", "(0,)"])
def test_permute_of_another_rank_is_diagnosed_not_dropped(axes):
    # The fold took any literal permutation and, when its length was not the tile's rank, loaded
    # the tile unpermuted and skipped the permute: an invalid program converted without an error.
    with pytest.raises(ConversionFailed, match="axes must be a constant permutation"):
        convert(BAD_AXES.replace("AXES", axes), filename="bad_axes.py")
