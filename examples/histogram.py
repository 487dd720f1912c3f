"""Histogram with ct.atomic_add on element indices: values outside
[0, num_bins) and the lanes past the end of `x` (padded with -1 by ct.gather)
are dropped by the atomic's bounds mask."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def histogram_kernel(x, hist, TILE: ConstInt):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    v = ct.gather(x, idx, padding_value=-1)
    ct.atomic_add(hist, v, ct.ones((TILE,), dtype=ct.int32))


def histogram(x: torch.Tensor, num_bins: int) -> torch.Tensor:
    hist = torch.zeros((num_bins,), dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 64),), histogram_kernel, (x, hist, 64))
    return hist
