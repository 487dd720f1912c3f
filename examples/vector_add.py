"""Vector addition: 1-D tiles, tile-space ct.load / ct.store with partial tiles."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def vector_add_kernel(a, b, c, TILE: ConstInt):
    """c = a + b for one TILE-sized chunk per block."""
    bid = ct.bid(0)
    a_tile = ct.load(a, index=(bid,), shape=(TILE,))
    b_tile = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=a_tile + b_tile)


def vector_add(a: torch.Tensor, b: torch.Tensor, tile: int = 64) -> torch.Tensor:
    c = torch.empty_like(a)
    grid = (ct.cdiv(a.shape[0], tile), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, tile))
    return c
