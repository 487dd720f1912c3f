import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, TM: ConstInt, TN: ConstInt):
    t = ct.load(X, index=(ct.bid(0), ct.bid(1)), shape=(TN, TM), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(ct.bid(0), ct.bid(1)), tile=t)
