import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    acc16 = ct.zeros((TM, TN), dtype=ct.float16)
    dt = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    for kk in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(ct.bid(0), kk), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(kk, ct.bid(1)), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a.astype(dt), b.astype(dt), acc)
        acc16 = ct.mma(a.astype(ct.float16), b.astype(ct.float16), acc=acc16)
        small = ct.mma(a.astype(ct.float32), ct.zeros((TK, 8), dtype=ct.float32), ct.zeros((TM, 8), dtype=ct.float32))
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc + acc16.astype(ct.float32))
