import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(Out, fill: float, T: ConstInt):
    a = ct.arange(T, dtype=ct.float32)
    b = ct.arange(T, dtype=ct.int32, start=5, step=3)
    c = ct.full((T,), fill, dtype=ct.float32)
    d = ct.zeros((T,), dtype=ct.float16)
    e = ct.ones((T,), ct.int32)
    ct.store(Out, index=(0,), tile=a + b + c + d + e)
