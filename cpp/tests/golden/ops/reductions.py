import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Out, TM: ConstInt, TN: ConstInt):
    x = ct.load(X, index=(ct.bid(0), 0), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    h = x.astype(ct.float16)
    s = ct.sum(x, axis=1, keepdims=True)
    mx = ct.max(h, axis=1)
    mn = ct.min(x, axis=-1)
    p = ct.prod(x, axis=1)
    am = ct.argmax(x, axis=1)
    tot = ct.sum(x)
    two = ct.sum(x, axis=(0, 1))
    cs = ct.cumsum(x, axis=1, reverse=True)
    i8 = ct.sum(x.astype(ct.int8), axis=1)
    ct.store(Out, index=(ct.bid(0), 0), tile=cs + s + (mx.astype(ct.float32) + mn + p + am + i8)[:, None] + tot + two)
