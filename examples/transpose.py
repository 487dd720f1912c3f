"""Transpose two ways: load a tile and ct.transpose it, or load through an
axis permutation (order=(1, 0)) and store as is."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def transpose_kernel(x, out, TILE_M: ConstInt, TILE_N: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(bn, bm), tile=ct.transpose(t))


@ct.kernel
def transpose_order_kernel(x, out, TILE_M: ConstInt, TILE_N: ConstInt):
    # Tile (i, j) of x.permute(1, 0) is tile (i, j) of the output.
    bi = ct.bid(0)
    bj = ct.bid(1)
    t = ct.load(x, index=(bi, bj), shape=(TILE_N, TILE_M), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(bi, bj), tile=t)


def transpose(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((n, m), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, 16), ct.cdiv(n, 32)), transpose_kernel, (x, out, 16, 32))
    return out


def transpose_order(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((n, m), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, 32), ct.cdiv(m, 16)), transpose_order_kernel, (x, out, 16, 32))
    return out
