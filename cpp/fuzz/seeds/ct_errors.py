import cuda.tile as ct

@ct.kernel
def k(a):
    t = ct.no_such_op(a)
    while t: yield t
    ct.load(a, index=(0,), shape=(3,))
