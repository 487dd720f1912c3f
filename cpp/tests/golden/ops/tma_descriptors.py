# TMA descriptor paths (lower/tma.cpp): one descriptor per (array, block, padding), created once at the
# top of the kernel under USE_TMA; NaN padding -> padding_option='nan'; NEG_INF padding, order= moving the
# last axis, views (Array.slice) and 1-D accesses stay on the pointer path.
import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, Z, V, TM: ConstInt, TN: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(TM, TN))):
        acc = acc + ct.load(X, index=(ct.bid(0), j), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.load(X, index=(ct.bid(0), j), shape=(TM, TN))
    n = ct.load(X, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.NAN)
    m = ct.load(X, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.NEG_INF)
    t = ct.load(Z, index=(0, ct.bid(0)), shape=(TN, TM), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    w = ct.load(X.slice(0, 1, 9), index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    v = ct.load(V, index=(ct.bid(0),), shape=(TM,))
    ct.store(Y, index=(ct.bid(0), 0), tile=acc + n + m + ct.transpose(t) + w + ct.reshape(v, (TM, 1)))
