"""ct.broadcast_to from a lower-rank tile (NumPy rank extension) must work.

cuTile: `broadcast_to(x, shape)` accepts any shape x broadcasts to under NumPy
rules, including a smaller rank (cutile-python `_ir/arithmetic_ops.py`
`broadcast_to`: `is_shape_broadcastable_to` + a reshape adding leading 1s).
The converter emits `tl.broadcast_to(v, [8, 8])` for an (8,) tile, which
Triton rejects ("Cannot broadcast, rank mismatch: ['8'], [8, 8]"): the
converted kernel crashes at run time (found by the differential tester,
seed 5000, minimized).
"""

import numpy as np

NAME = "broadcast_to_rank_extension"
STATUS = "crash"
FIXED = True  # lower/ops_shape.cpp: leading size-1 axes are added before tl.broadcast_to
REASON = ("converter emits tl.broadcast_to on a lower-rank tile (cuTile allows NumPy rank extension); "
          "Triton raises 'Cannot broadcast, rank mismatch'")
SIGNATURE = "Cannot broadcast, rank mismatch"

SOURCE = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def kernel(A, Out, T0: ConstInt, T1: ConstInt):
    b = ct.bid(0)
    v = ct.load(A, index=(b,), shape=(8,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Out, index=(b, 0), tile=ct.broadcast_to(v, (8, 8)))


def launch(A, Out):
    ct.launch(None, (4,), kernel, (A, Out, 8, 8))
'''


def case(rng):
    """(args, index of each output in args, expected outputs)."""
    a = rng.uniform(-4, 4, size=(29,)).astype(np.float32)
    out = np.full((29, 6), np.nan, dtype=np.float32)
    exp = np.zeros((29, 6), dtype=np.float32)
    for b in range(4):
        tile = np.zeros(8, dtype=np.float32)
        part = a[b * 8:(b + 1) * 8]
        tile[:len(part)] = part
        full = np.broadcast_to(tile, (8, 8))  # row-major: every row of the tile is v
        rows = min(8, 29 - b * 8)
        exp[b * 8:b * 8 + rows, :] = full[:rows, :6]
    return [a, out], [1], [exp]
