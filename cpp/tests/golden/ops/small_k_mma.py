import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, C):
    a = ct.load(A, index=(0, 0), shape=(16, 4))
    b = ct.load(B, index=(0, 0), shape=(4, 16))
    acc = ct.mma(a, b, ct.zeros((16, 16), dtype=ct.float32))
    ct.store(C, index=(0, 0), tile=acc)
