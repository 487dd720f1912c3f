"""Element-wise ops with broadcasting on 2-D tiles:
out = relu(x * scale[None, :] + shift[:, None]) with a per-element clamp."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
PAD_ZERO = ct.PaddingMode.ZERO


@ct.kernel
def scale_shift_relu_kernel(x, scale, shift, out, lo: float, TILE_M: ConstInt, TILE_N: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    xt = ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=PAD_ZERO)
    s = ct.load(scale, index=(bn,), shape=(TILE_N,), padding_mode=PAD_ZERO)
    b = ct.load(shift, index=(bm,), shape=(TILE_M,), padding_mode=PAD_ZERO)
    y = xt * s[None, :] + ct.expand_dims(b, axis=1)
    y = ct.maximum(y, 0.0)
    y = ct.where(y > lo, y, lo)
    ct.store(out, index=(bm, bn), tile=y.astype(out.dtype))


def scale_shift_relu(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, lo: float) -> torch.Tensor:
    out = torch.empty_like(x)
    tm, tn = 16, 32
    grid = (ct.cdiv(x.shape[0], tm), ct.cdiv(x.shape[1], tn), 1)
    ct.launch(torch.cuda.current_stream(), grid, scale_shift_relu_kernel, (x, scale, shift, out, lo, tm, tn))
    return out
