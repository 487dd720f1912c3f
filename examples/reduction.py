"""Reductions along both axes of a 2-D tile: row sums (keepdims), column
maxima, and the argmax of each row; integer sums keep the input dtype."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_stats_kernel(x, row_sum, row_argmax, TILE_M: ConstInt, TILE_N: ConstInt):
    bm = ct.bid(0)
    t = ct.load(x, index=(bm, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    finite = ct.where(t == -float("inf"), 0.0, t)
    s = ct.sum(finite, axis=1, keepdims=True)
    ct.store(row_sum, index=(bm, 0), tile=s)
    am = ct.argmax(t, axis=1)
    ct.store(row_argmax, index=(bm,), tile=am)


@ct.kernel
def col_max_kernel(x, col_max, TILE_M: ConstInt, TILE_N: ConstInt):
    bn = ct.bid(0)
    best = ct.full((TILE_N,), -float("inf"), dtype=ct.float32)
    for i in range(ct.num_tiles(x, axis=0, shape=(TILE_M, TILE_N))):
        t = ct.load(x, index=(i, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
        best = ct.maximum(best, ct.max(t, axis=0))
    ct.store(col_max, index=(bn,), tile=best)


@ct.kernel
def int_sum_kernel(x, total, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.atomic_add(total, (0,), ct.sum(t))


def row_stats(x: torch.Tensor):
    m, n = x.shape
    tile_n = 1 << (n - 1).bit_length()
    row_sum = torch.empty((m, 1), dtype=torch.float32, device=x.device)
    row_argmax = torch.empty((m,), dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 8),), row_stats_kernel, (x, row_sum, row_argmax, 8, tile_n))
    return row_sum, row_argmax


def col_max(x: torch.Tensor):
    out = torch.empty((x.shape[1],), dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[1], 16),), col_max_kernel, (x, out, 16, 16))
    return out


def int_sum(x: torch.Tensor):
    total = torch.zeros((1,), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 32),), int_sum_kernel, (x, total, 32))
    return total
