import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Out, TM: ConstInt, TN: ConstInt):
    n = ct.num_tiles(X, axis=1, shape=(TM, TN))
    m = ct.num_tiles(X, 0, (TM, TN), order="F")
    g = ct.num_blocks(0) + ct.bid(axis=1)
    ct.store(Out, index=(ct.bid(0),), tile=n + m + g + ct.cdiv(X.shape[0], TM))
