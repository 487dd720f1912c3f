import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Y, H, TILE: ConstInt, N: ConstInt):
    bid = ct.bid(0)
    mem = X.get_raw_memory()
    offs = ct.arange(TILE, dtype=ct.int64) + bid * TILE
    inb = offs < N
    t = mem.load_offset(offs, mask=inb, padding_value=-1.0)
    Y.get_raw_memory().store_offset(offs, t * 2, mask=inb)
    old = H.get_raw_memory().atomic_add_offset(offs % 8, 1, mask=inb)
    prev = H.get_raw_memory().atomic_cas_offset(0, 0, 1)
    H.get_raw_memory().atomic_xchg_offset(offs, old + prev, memory_order=ct.MemoryOrder.RELAXED)
