import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, T: ConstInt):
    x = ct.load(X, index=(0,), shape=(T,)).astype(ct.float32)
    h = ct.astype(x, ct.float16)
    i = ct.bitcast(x, ct.int32)
    b = ct.astype(x, ct.bool_)
    ct.store(Y, index=(0,), tile=h.astype(ct.float32) + i + ct.astype(b, ct.int32) + ct.int64(1))
