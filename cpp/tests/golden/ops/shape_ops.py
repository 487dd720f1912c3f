import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, Out):
    a = ct.load(A, index=(0,), shape=(16,))
    b = ct.load(B, index=(0,), shape=(16,))
    c = ct.cat((a, b), 0)
    m = ct.reshape(a, (4, 4))
    t = ct.transpose(m)
    p = ct.permute(ct.reshape(c, (2, 4, 4)), (1, 2, 0))
    e = ct.expand_dims(a, axis=0)
    bb = ct.broadcast_to(e, (2, 16))
    x = ct.extract(m, (1, 0), shape=(1, 4))
    one = ct.extract(a, (5,), shape=(1,)).item()
    r = m.reshape((-1,))
    ct.store(Out, index=(0, 0), tile=ct.reshape(t, (1, 16)) + ct.reshape(p, (2, 16)) + one)
