import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, SA, B, SB, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(ct.bid(0), kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(kk, ct.bid(1)), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        if len(SA.shape) == 2:
            sa = ct.load(SA, index=(ct.bid(0), kk), shape=(TM, TK // 32))
        else:
            sa = ct.reshape(ct.load(SA, index=(ct.bid(0), kk, 0), shape=(TM, TK // 32, 1)), (TM, TK // 32))
        sb = ct.load(SB, index=(kk, ct.bid(1)), shape=(TK // 32, TN))
        acc = ct.mma_scaled(a, sa, b, sb, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)
