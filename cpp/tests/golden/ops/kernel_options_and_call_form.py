import cuda.tile as ct
ConstInt = ct.Constant[int]


def body(X, Y, T: ConstInt):
    ct.store(Y, index=(ct.bid(0),), tile=ct.load(X, index=(ct.bid(0),), shape=(T,)) * 2)


k = ct.kernel(body, occupancy=2)


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2))
def k2(X, Y, T: ConstInt):
    ct.store(Y, index=(ct.bid(0),), tile=ct.negative(ct.load(X, index=(ct.bid(0),), shape=(T,))))
