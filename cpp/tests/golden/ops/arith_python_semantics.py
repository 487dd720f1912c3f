import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, Out, T: ConstInt):
    a = ct.load(A, index=(ct.bid(0),), shape=(T,))
    b = ct.load(B, index=(ct.bid(0),), shape=(T,))
    q = a // b
    r = a % b
    c = ct.cdiv(a, b)
    i = ct.bid(0)
    j = i // 4 + i % 4 + ct.cdiv(i, 8)
    ct.store(Out, index=(j,), tile=q + r + c)
