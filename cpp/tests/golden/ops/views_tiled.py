import cuda.tile as ct
ConstInt = ct.Constant[int]


def scale(src, dst, j):
    dst.store((0, j), src.load((0, j)) * 2)


@ct.kernel
def k(X, Y, Z, TM: ConstInt, TN: ConstInt):
    bid = ct.bid(0)
    tv = X.tiled_view((TM, TN), padding_mode=ct.PaddingMode.NEG_INF, traversal_steps=(TM // 2, TN))
    out = Y.tiled_view((TM, TN))
    for j in range(tv.num_tiles(1)):
        out.store((bid, j), tv.load((bid, j)))
        scale(tv, out, j)
    Z.tiled_view(()).store((bid, 0), ct.sum(tv.load((bid, 0))))
    Z.tiled_view((1, TN)).atomic_store_add((bid, 1), 1.0)
