import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Out, skip: int, TN: ConstInt):
    for row in range(ct.bid(0), X.shape[0], ct.num_blocks(0)):
        if row == skip:
            continue
        t = ct.load(X, index=(row, 0), shape=(1, TN), padding_mode=ct.PaddingMode.ZERO)
        n = 0
        v = row
        while v > 0:
            n += v % 2
            v = v // 2
        if (row > 2) and (row < 100):
            t = t * 2.0
        ct.store(Out, index=(row, 0), tile=t + n)
