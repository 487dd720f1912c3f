import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(V, Res, TILE: ConstInt):
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    v = ct.gather(V, idx, padding_value=0)
    old = ct.atomic_add(Res, idx % 4, v)
    ct.atomic_max(Res, 0, v, memory_order=ct.MemoryOrder.RELAXED, memory_scope=ct.MemoryScope.BLOCK)
    ct.atomic_xchg(Res, 1, old)
    prev = ct.atomic_cas(Res, idx, 0, 1)
