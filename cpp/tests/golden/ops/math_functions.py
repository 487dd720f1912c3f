import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, Out, T: ConstInt):
    a = ct.load(A, index=(0,), shape=(T,)).astype(ct.float32)
    h = a.astype(ct.float16)
    r = ct.exp(a) + ct.exp2(a, flush_to_zero=True) + ct.log(a) + ct.log2(a) + ct.sqrt(a) + ct.rsqrt(a)
    r = r + ct.sin(a) + ct.cos(a) + ct.tanh(a) + ct.floor(a) + ct.ceil(a)
    r = r + ct.sqrt(a, rounding_mode=ct.RoundingMode.APPROX) + ct.exp(h).astype(ct.float32)
    ct.store(Out, index=(0,), tile=r + ct.exp(ct.load(A, index=(0,), shape=(T,))))
