"""Launch options for TileGym's gemma attention (d=256, causal, soft cap 50, bf16, batch 2, 8 query heads
over 1 KV head) at bench_gemma_attention.py's largest shape, N_CTX=8192, where the converted op ran at
0.79x of cuTile's device time (BENCHMARKS.md, "Host time per call"): the converted _gemma_fmha_kernel
launched directly at block shapes (BLOCK_M x BLOCK_N; 64x32 is what the op launches, bench_gemma_attention.py
asking for no autotuning) x num_warps x num_stages (None: the launcher's
rule and Triton's default stages, stepped down on a shared-memory overflow), next to cuTile's and the
converted op. Device time: do_bench_cudagraph median, µs; each variant's output against the converted
op's (max abs difference).

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 gemma_warps.py TILEGYM CONVERTED [N_CTX]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

S = int(sys.argv[3]) if len(sys.argv) > 3 else 8192
m = converted("gemma_attention")
torch.manual_seed(0)
q = torch.randn(2, 8, S, 256, dtype=torch.bfloat16, device="cuda")
k = torch.randn(2, 1, S, 256, dtype=torch.bfloat16, device="cuda")
v = torch.randn_like(k)
ops = {be: (lambda be=be: tilegym.ops.gemma_attention(q, k, v, scaling=1 / 16, soft_cap=50.0, is_causal=True, backend=be))
       for be in ("cutile", "c2t_triton")}
ref = ops["c2t_triton"]().clone()
for be, op in ops.items():
    op(); torch.cuda.synchronize()
    P(f"N_CTX={S} op {be:11s} {triton.testing.do_bench_cudagraph(op, return_mode='median') * 1000:8.1f} us")
out = torch.empty_like(q)
for bm, bn in ((64, 32), (64, 64), (128, 32), (128, 64), (64, 128)):  # 64x32: the op's default (no autotune)
    for warps in (4, 8):
        for stages in (None, 1, 2):
            opts = {"num_warps": warps, **({"num_stages": stages} if stages else {})}
            grid = ((S + bm - 1) // bm, 16, 1)
            f = lambda: m.launch__gemma_fmha_kernel(grid, q, k, v, out, 1 / 16, 2, 8, S, S, 256, bm, bn, 8, 3, 0, 50.0,
                                                    True, S % bn == 0, **opts)
            name = f"{bm}x{bn} w{warps} s{stages or '-'}"
            try:
                f(); torch.cuda.synchronize()
                err = (out.float() - ref.float()).abs().max().item()
                us = triton.testing.do_bench_cudagraph(f, return_mode="median") * 1000
                P(f"N_CTX={S} {name:16s} {us:8.1f} us  max|diff| {err:.3g}")
            except Exception as ex:  # noqa: BLE001
                P(f"N_CTX={S} {name:16s} error {type(ex).__name__}: {str(ex).splitlines()[0][:100] if str(ex) else ''}")
