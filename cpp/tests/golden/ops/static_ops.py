import cuda.tile as ct
ConstInt = ct.Constant[int]


SCALE = 3


@ct.kernel
def k(X, Out, TILE: ConstInt, FLAG: ct.Constant[bool]):
    ct.static_assert(SCALE == 3, "scale")
    ct.static_assert(TILE % 16 == 0)
    t = ct.load(X, index=(ct.bid(0),), shape=(TILE,))
    for i in ct.static_iter(range(2)):
        t = t + i
    for s in ct.static_iter((1, 2)):
        t = t * s
    if FLAG:
        t = t + ct.static_eval(SCALE * 2)
    n = ct.assume_divisible_by(X.shape[0], 16)
    ct.store(Out, index=(ct.bid(0),), tile=t)
