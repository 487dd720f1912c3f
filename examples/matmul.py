"""Tiled matrix multiplication with a K loop, ct.mma accumulation in fp32 and
grouped (swizzled) block order computed by a helper function."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
GROUP_M = 4


def swizzle(bid, num_m, num_n, group_m):
    """Maps a linear block id to (bid_m, bid_n) in groups of `group_m` rows."""
    per_group = group_m * num_n
    group = bid // per_group
    first_m = group * group_m
    size_m = min(num_m - first_m, group_m)
    bid_m = first_m + (bid % per_group) % size_m
    bid_n = (bid % per_group) // size_m
    return bid_m, bid_n


@ct.kernel
def matmul_kernel(A, B, C, TILE_M: ConstInt, TILE_N: ConstInt, TILE_K: ConstInt):
    M = A.shape[0]
    N = B.shape[1]
    bid_m, bid_n = swizzle(ct.bid(0), ct.cdiv(M, TILE_M), ct.cdiv(N, TILE_N), GROUP_M)
    acc = ct.full((TILE_M, TILE_N), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TILE_M, TILE_K))):
        a = ct.load(A, index=(bid_m, k), shape=(TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bid_n), shape=(TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    tm, tn, tk = 32, 32, 16
    grid = (ct.cdiv(m, tm) * ct.cdiv(n, tn), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, matmul_kernel, (a, b, c, tm, tn, tk))
    return c
