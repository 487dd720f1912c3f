"""Embedding lookup with ct.gather (element indices, per-dimension bounds,
padding for invalid ids) and a permuted write-back with ct.scatter."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def embedding_kernel(ids, table, out, TILE_T: ConstInt, TILE_D: ConstInt):
    bt = ct.bid(0)
    rows = bt * TILE_T + ct.arange(TILE_T, dtype=ct.int32)
    tok = ct.gather(ids, rows, padding_value=-1)
    cols = ct.arange(TILE_D, dtype=ct.int32)
    # Invalid (negative or too large) token ids read 0 thanks to the per-dimension bounds mask.
    vals = ct.gather(table, (tok[:, None], cols[None, :]), padding_value=0.0)
    ct.scatter(out, (rows[:, None], cols[None, :]), vals)


@ct.kernel
def permute_rows_kernel(x, perm, out, TILE: ConstInt):
    bid = ct.bid(0)
    idx = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    dst = ct.gather(perm, idx, padding_value=-1)
    v = ct.gather(x, idx)
    ct.scatter(out, dst, v, mask=dst >= 0)


def embedding(ids: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    d = table.shape[1]
    tile_d = 1 << (d - 1).bit_length()
    out = torch.empty((ids.shape[0], d), dtype=table.dtype, device=table.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(ids.shape[0], 8),), embedding_kernel, (ids, table, out, 8, tile_d))
    return out


def permute_rows(x: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), permute_rows_kernel, (x, perm, out, 16))
    return out
