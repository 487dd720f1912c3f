import operator

import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Rows, Out, Q, col0, TR: ConstInt, TC: ConstInt):
    def plus(a, b):
        return a + b

    bid = ct.bid(0)
    ct.grid_dependency_control_wait()
    rows = ct.gather(Rows, (ct.arange(TR, dtype=ct.int32) + bid * TR,), padding_value=-1)
    t = ct.load(X, index=(bid, 0), shape=(TR, TC), padding_mode=ct.PaddingMode.ZERO)
    ct.store_advanced_indexing(Out, (rows, ct.Slice(col0, TC)), ct.scan(t, 1, plus, 0))
    q, r = ct.divmod(rows, 3)
    ct.store(Q, index=(bid,), tile=q * 3 + r + ct.reduce(t, 1, operator.add, 0).astype(ct.int32))
    ct.grid_dependency_control_launch_dependents()
