import cuda.tile as ct

@ct.kernel
def k(a, b, T: ct.Constant[int]):
    t = ct.load(a, index=(ct.bid(0),), shape=(T,))
    ct.store(b, index=(ct.bid(0),), tile=t * 2)
