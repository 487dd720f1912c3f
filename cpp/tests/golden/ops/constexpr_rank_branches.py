import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Out, W: ConstInt, TN: ConstInt):
    if W == 1:
        acc = ct.zeros((TN,), dtype=ct.float32)
    else:
        acc = ct.zeros((TN, W), dtype=ct.float32)
    acc = acc + 1.0
    s = ct.sum(acc, axis=0)
    ct.store(Out, index=(0,), tile=ct.reshape(s, (W,)))
