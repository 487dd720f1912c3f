"""Integer arithmetic with Python semantics: floor division, modulo with the
divisor's sign and ceiling division on negative operands (Triton truncates)."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def int_ops_kernel(a, b, q, r, c, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(a, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.where(y == 0, 1, y)
    ct.store(q, index=(bid,), tile=x // y)
    ct.store(r, index=(bid,), tile=x % y)
    ct.store(c, index=(bid,), tile=ct.cdiv(x, y))


def int_ops(a: torch.Tensor, b: torch.Tensor):
    q, r, c = torch.empty_like(a), torch.empty_like(a), torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 32),), int_ops_kernel, (a, b, q, r, c, 32))
    return q, r, c
