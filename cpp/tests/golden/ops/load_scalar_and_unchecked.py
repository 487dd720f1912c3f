import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, W, Y, TN: ConstInt):
    row = ct.bid(0)
    w = ct.load(W, row, shape=())
    t = ct.load(X, index=(row, 0), shape=(1, TN), check_bounds=False)
    ct.store(Y, index=(row, 0), tile=t * w, check_bounds=False)
