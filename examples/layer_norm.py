"""Layer norm over the last axis, one row per block, looping over column tiles
(two passes: statistics, then normalisation)."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
PAD_ZERO = ct.PaddingMode.ZERO


@ct.kernel
def layer_norm_kernel(x, weight, bias, out, mean_out, rstd_out, eps: float, TILE_N: ConstInt):
    row = ct.bid(0)
    n = x.shape[1]
    num_col_tiles = ct.num_tiles(x, axis=1, shape=(1, TILE_N))
    acc = ct.zeros((1, TILE_N), dtype=ct.float32)
    acc_sq = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=PAD_ZERO).astype(ct.float32)
        acc += t
        acc_sq += t * t
    mean = ct.sum(acc) / n
    var = ct.sum(acc_sq) / n - mean * mean
    rstd = ct.rsqrt(var + eps)
    ct.store(mean_out, index=(row,), tile=mean)
    ct.store(rstd_out, index=(row,), tile=rstd)
    for j in range(num_col_tiles):
        t = ct.load(x, index=(row, j), shape=(1, TILE_N), padding_mode=PAD_ZERO).astype(ct.float32)
        w = ct.load(weight, index=(j,), shape=(TILE_N,), padding_mode=PAD_ZERO).astype(ct.float32)
        b = ct.load(bias, index=(j,), shape=(TILE_N,), padding_mode=PAD_ZERO).astype(ct.float32)
        y = (t - mean) * rstd * w.reshape((1, TILE_N)) + b.reshape((1, TILE_N))
        ct.store(out, index=(row, j), tile=y.astype(out.dtype))


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5):
    m = x.shape[0]
    out = torch.empty_like(x)
    mean = torch.empty((m,), dtype=torch.float32, device=x.device)
    rstd = torch.empty((m,), dtype=torch.float32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (m,), layer_norm_kernel, (x, weight, bias, out, mean, rstd, eps, 32))
    return out, mean, rstd
