import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(Ids, Table, Out, TT: ConstInt, TD: ConstInt):
    rows = ct.bid(0) * TT + ct.arange(TT, dtype=ct.int32)
    tok = ct.gather(Ids, rows, padding_value=-1)
    cols = ct.arange(TD, dtype=ct.int32)
    vals = ct.gather(Table, (tok[:, None], cols[None, :]), padding_value=0.0)
    ct.scatter(Out, (rows[:, None], cols[None, :]), vals, mask=tok[:, None] >= 0)
