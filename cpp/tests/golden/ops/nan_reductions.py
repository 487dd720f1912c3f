import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Z, I, TM: ConstInt, TN: ConstInt):
    x = ct.load(X, index=(0, 0), shape=(TM, TN), padding_mode=ct.PaddingMode.NAN)
    h = x.astype(ct.float16)
    m = ct.max(x, axis=1, propagate_nan=True) + ct.min(h, 1, propagate_nan=True).astype(ct.float32)
    ct.store(Z, index=(0,), tile=m + ct.max(x.astype(ct.int32), 1, propagate_nan=True).astype(ct.float32))
    i = ct.argmax(x, axis=1, propagate_nan=True) + ct.argmin(x, axis=1) + ct.argmin(h, 1, propagate_nan=True)
    ct.store(I, index=(0,), tile=i + ct.reshape(ct.argmax(x, keepdims=True), (1,)))
