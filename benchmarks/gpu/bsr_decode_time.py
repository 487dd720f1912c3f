"""Times the converted flashinfer paged decode op (TileGym suites/flashinfer fmha_decode_bsr.py,
`decode_attention_kv_paged`) of one converted tree, on test_flashinfer_attention.py's sample data (fp16, 128
query heads in groups of 16, pages of 128), for its three paths (default, persistent, split KV), and checks
each against PyTorch's attention on the same pages. Run once per tree (each in its own process: a tree is
mounted as tilegym.*.c2t_triton) to compare converter versions; s37 compared the kernels before and after
vectors made rows became x[None, :] (BENCHMARKS.md, s37).

  PYTHONPATH=TILEGYM/src:TILEGYM:PLUGIN python3 bsr_decode_time.py TILEGYM CONVERTED [LABEL] [--no-search-tma] [--big]

--no-search-tma: the op's tuning search times no TMA descriptors (the module's _C2T_TMA_MIN_US set out of
reach), so the launches take pointers; --big: only batch 64 at 8192 tokens."""
import os
import sys
from pathlib import Path

os.environ["DISABLE_FALLBACK"] = "1"
import torch  # noqa: E402
import triton.testing  # noqa: E402

from cutile2triton.pytest_tilegym import load_converted  # noqa: E402

TILEGYM, CONVERTED = Path(sys.argv[1]), Path(sys.argv[2])
LABEL = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else CONVERTED.name
sys.path.insert(0, str(TILEGYM))
mounts = load_converted(CONVERTED)
bsr = next(sys.modules[m] for m in mounts.loaded if m.endswith("fmha_decode_bsr"))
if "--no-search-tma" in sys.argv:
    bsr._C2T_TMA_MIN_US = float("inf")
    LABEL += " (no TMA in the search)"
from tests.test_utils import bsr_attention_sample  # noqa: E402

P = lambda *a: print(*a, flush=True)  # noqa: E731


def reference(q, k_cache, v_cache, lens, tables, scale, v_scale, page):
    """Each sequence's attention over its pages, in fp32: q (batch, heads, d), caches (pages, kv heads, page, d)."""
    out = []
    heads, kv_heads = q.shape[1], k_cache.shape[1]
    lens = lens.view(-1)
    for b in range(q.shape[0]):
        n = int(lens[b])
        pages = tables[b, : (n + page - 1) // page].long()
        k = k_cache[pages].permute(1, 0, 2, 3).reshape(kv_heads, -1, k_cache.shape[-1])[:, :n].float()
        v = v_cache[pages].permute(1, 0, 2, 3).reshape(kv_heads, -1, v_cache.shape[-1])[:, :n].float()
        k = k.repeat_interleave(heads // kv_heads, 0)
        v = v.repeat_interleave(heads // kv_heads, 0)
        s = torch.einsum("hd,hnd->hn", q[b].float(), k) * scale
        out.append(torch.einsum("hn,hnd->hd", torch.softmax(s, -1), v) * v_scale)
    return torch.stack(out)


for batch, s_kv in ((64, 8192),) if "--big" in sys.argv else ((4, 1024), (32, 4096), (64, 8192)):
    torch.manual_seed(0)
    (q, k_cache, v_cache, scale, lens, tables, *_rest) = bsr_attention_sample.generate_sample_data(
        batch_size=batch, max_seq_len=s_kv, page_size=128, is_decode=True, device="cuda", dtype=torch.float16)
    ref = None
    for name, split, persistent in (("default", False, False), ("persistent", False, True), ("split_kv", True, False)):
        fn = lambda: bsr.decode_attention_kv_paged(  # noqa: E731
            q, k_cache.transpose(1, 2), v_cache.transpose(1, 2), lens, tables, scale * 3.678, 2.678,
            max_seq_len=int(lens.max().item()), force_split_kv=split, force_persistent=persistent)
        try:
            out = fn()
            torch.cuda.synchronize()
            if ref is None:
                ref = reference(q, k_cache, v_cache, lens, tables, scale * 3.678, 2.678, 128)
            err = (out.float().reshape(ref.shape) - ref).abs().max().item()
            us = [triton.testing.do_bench(fn, rep=100, warmup=20) * 1e3 for _ in range(3)]
            P(f"{LABEL} batch={batch} s_kv={s_kv} {name}: {min(us):8.1f} us (runs {', '.join(f'{u:.1f}' for u in us)}),"
              f" max abs error {err:.2e}")
        except Exception as e:  # noqa: BLE001 -- each path reports on its own
            P(f"{LABEL} batch={batch} s_kv={s_kv} {name}: {type(e).__name__}: {str(e)[:300]}")
