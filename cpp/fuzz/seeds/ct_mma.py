import cuda.tile as ct
C = ct.Constant[int]

@ct.kernel
def mm(A, B, Out, BM: C, BN: C, BK: C):
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(BM, BK))):
        a = ct.load(A, index=(ct.bid(0), k), shape=(BM, BK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(BK, BN))
        acc = ct.mma(a, b, acc)
    ct.store(Out, index=(ct.bid(0), ct.bid(1)), tile=ct.astype(acc, Out.dtype))
