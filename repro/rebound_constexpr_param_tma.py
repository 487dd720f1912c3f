# A constexpr parameter rebound in the kernel (`B = B * 2`). Before the fix the
# TMA descriptor (hoisted to the kernel's top) was built with the argument B,
# so use_tma=True loaded (2, C) tiles where the pointer path loads (4, C):
# wrong result; the launcher's num_warps footprint also used B * C.
import cuda.tile as ct


@ct.kernel
def k(x, out, B: ct.Constant[int], C: ct.Constant[int]):
    i = ct.bid(0)
    B = B * 2
    t = ct.load(x, index=(i, 0), shape=(B, C))
    ct.store(out, index=(i, 0), tile=t + 1)


def run(x, out, b, c):  # x: (16, 8), b=2, c=8; launch_k(..., use_tma=True) must give x + 1
    ct.launch(None, (ct.cdiv(x.shape[0], 2 * b),), k, (x, out, b, c))
