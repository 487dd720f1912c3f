import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, Out, T: ConstInt):
    a = ct.load(A, index=(0,), shape=(T,)).astype(ct.float32)
    b = ct.load(B, index=(0,), shape=(T,))
    h = a.astype(ct.float16)
    r = ct.tan(a) + ct.sinh(a) + ct.cosh(a) + ct.atan2(a, a * 2.0)
    r = r + ct.tan(h).astype(ct.float32) + ct.atan2(h, 0.5).astype(ct.float32) + ct.atan2(1.0, -2.0)
    ct.store(Out, index=(0,), tile=r + ct.sinh(b) + ct.atan2(b, a) + ct.atan2(b, 1.0))
