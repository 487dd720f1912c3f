# ct.load_advanced_indexing + ct.Slice: paged-KV pointer gather (ops_adv_index.cpp); the Out store has a TMA path.
import cuda.tile as ct
ConstInt = ct.Constant[int]
PAD_ZERO = ct.PaddingMode.ZERO

@ct.kernel
def paged(cache, block_tables, Out, tok, head, NUM_PAGES: ConstInt, LOAD_BLOCK_N: ConstInt, BLOCK_D: ConstInt):
    p_idx = ct.arange(NUM_PAGES, dtype=ct.int32)
    page_ids = ct.gather(block_tables, (p_idx,), padding_value=0)
    data = ct.reshape(
        ct.load_advanced_indexing(
            cache,
            (page_ids, ct.Slice(tok, LOAD_BLOCK_N), ct.Slice(head, 1), ct.Slice(0, BLOCK_D)),
            padding_mode=PAD_ZERO,
        ),
        (NUM_PAGES * LOAD_BLOCK_N, BLOCK_D),
    )
    ct.store(Out, index=(0, 0), tile=data)
