# A helper that rebinds its tile parameter and then uses the tile's shape.
# Before the fix the helper read `t.shape[k]` after `t = tl.trans(t)`: the
# extents of the new tile, not the argument's -> "Cannot make_shape_compatible:
# incompatible dimensions at index 0: 8 and 4" (TM != TN). Loop-carried
# rebinding (`for ...: t = t * 2.0`) must keep working.
import cuda.tile as ct


def h(out, i, t):
    t = ct.permute(t, (1, 0))
    u = ct.full((t.shape[0], t.shape[1]), 1.0, dtype=ct.float32)
    ct.store(out, index=(i, 0), tile=t + u)


@ct.kernel
def k(x, out, A: ct.Constant[int], B: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(0, i), shape=(A, B))
    h(out, i, t)


def run(x, out, a, b):  # x: (4, 16), out: (16, 4), a=4, b=8; expect out == x.T + 1
    ct.launch(None, (ct.cdiv(x.shape[1], b),), k, (x, out, a, b))
