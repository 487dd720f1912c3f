import cuda.tile as ct
ConstInt = ct.Constant[int]


def add(a, b):
    return a + b


def minimum_with_index(a_val, a_idx, b_val, b_idx):
    mask = (a_val < b_val) | ((a_val == b_val) & (a_idx < b_idx))
    return ct.where(mask, a_val, b_val), ct.where(mask, a_idx, b_idx)


@ct.kernel
def k(X, Y, YI, S, TM: ConstInt, TN: ConstInt):
    xt = ct.load(X, (0, 0), (TM, TN)).astype(ct.float32)
    yt, yit = ct.reduce((xt, ct.arange(TN, dtype=ct.int32)), 1, minimum_with_index, (1e30, 0))
    ct.store(Y, (0,), yt + ct.reduce(xt, 1, lambda a, b: a * b, 1) + ct.reshape(ct.reduce(xt, -1, add, 0, keepdims=True), (TM,)))
    lim = ct.astype(ct.bid(0), ct.float32) * 0.5
    ct.store(YI, (0,), yit + ct.reduce(xt, 1, lambda a, b: ct.minimum(ct.maximum(a, b), lim), -1e30).astype(ct.int32))
    f = lambda a, b: ct.maximum(a, b)
    ct.store(S, (0, 0), ct.scan(xt, axis=1, func=f, identity=0, reverse=True) + f(xt, 1.0) + ct.scan(xt, 0, add, 0))
