import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(X, index=(bid,), shape=(TILE,))
    ct.store(Y, index=(bid,), tile=t)
