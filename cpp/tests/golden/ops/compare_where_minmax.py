import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, Out, T: ConstInt):
    a = ct.load(A, index=(0,), shape=(T,)).astype(ct.float16)
    b = ct.load(B, index=(0,), shape=(T,)).astype(ct.float16)
    m = ct.maximum(a, 0.0)
    n = ct.minimum(a, b, propagate_nan=True)
    w = ct.where((a > b) & (a != 0.0), m, n)
    inside = (a > -1.0) & (a < 1.0)
    ct.store(Out, index=(0,), tile=ct.where(inside, w, max(a, b)))
