import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, TM: ConstInt, TN: ConstInt):
    bm = ct.bid(0)
    x = ct.load(X, (bm, 0), (TM, TN)).astype(ct.float32)
    y = ct.insert(x, (1, bm % 2), ct.full((2, 4), 99.0, dtype=ct.float32))
    y = y.insert((0, 3), ct.astile(-1.5, dtype=ct.float32))
    t = ct.astile(((1, 2), (3.5, bm)), dtype=ct.float32)
    ct.store(Y, (bm, 0), ct.insert(y, (1, 1), t))
