import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, C):
    a = ct.load(A, index=(0, 0), shape=(32, 32)).astype(ct.float16)
    b = ct.load(B, index=(0, 0), shape=(32, 32)).astype(ct.float16)
    c = a @ b
    d = ct.matmul(a.astype(ct.float32), b.astype(ct.float32))
    ct.store(C, index=(0, 0), tile=c.astype(ct.float32) + d)
