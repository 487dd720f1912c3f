import cuda.tile as ct
ConstInt = ct.Constant[int]


from cuda.tile import RoundingMode as RMd


@ct.kernel
def k(A, B, Out, T: ConstInt):
    a = ct.load(A, index=(0,), shape=(T,)).astype(ct.float32)
    b = ct.load(B, index=(0,), shape=(T,)).astype(ct.float32)
    x = a / b
    y = ct.truediv(a, b, rounding_mode=RMd.APPROX, flush_to_zero=True)
    h = a.astype(ct.float16) / b.astype(ct.float16)
    u = ct.load(A, index=(0,), shape=(T,)) / ct.load(B, index=(0,), shape=(T,))
    ct.store(Out, index=(0,), tile=x + y + h + u)
