"""Device time of TileGym's persistent layernorm kernel over 256-wide rows, converted, per launch
variant: rows per tile (BLOCK_N), warps, prefetch stages of its grid-stride loop
(C2T_PREFETCH_STAGES; the converter's default is 3) and TMA loads, next to cuTile's op at the same
shapes. Every variant's output is checked against torch's layer_norm first (bf16 tolerance).
do_bench_cudagraph median (graph replays: no host time), µs. BENCHMARKS.md, "Persistent layernorm".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 layernorm_stages.py TILEGYM CONVERTED"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

lm = converted("layer_norm_legacy")
sms = torch.cuda.get_device_properties(0).multi_processor_count
torch.manual_seed(0)
for M in (30000, 128000):
    D = 256
    x = torch.randn((M, D), dtype=torch.bfloat16, device="cuda")
    w = torch.randn((D,), dtype=torch.bfloat16, device="cuda")
    b = torch.randn((D,), dtype=torch.bfloat16, device="cuda")
    ref = torch.nn.functional.layer_norm(x.float(), (D,), w.float(), b.float(), 1e-6).to(torch.bfloat16)
    op = lambda: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(D,), weight=w, bias=b, eps=1e-6,
                                                   backend="cutile")
    try:
        op()
        P(f"{M}x{D} cuTile op: {triton.testing.do_bench_cudagraph(op, return_mode='median') * 1000:6.1f} us (graph)")
    except Exception as e:  # noqa: BLE001
        P(f"{M}x{D} cuTile error {type(e).__name__}: {str(e)[:100]}")
    y, mean, rstd = torch.empty_like(x), torch.empty(M, device="cuda"), torch.empty(M, device="cuda")
    rows = []
    for block_n in (8, 16, 32):
        for warps in (4, 8):
            for tma in (False, True):
                line = []
                for stages in (1, 2, 3, 4, 5, 6):
                    grid = (min(sms, (M + block_n - 1) // block_n), 1, 1)
                    f = lambda: lm.launch__persistent_layer_norm_fwd_kernel(
                        grid, x, y, w, b, mean, rstd, M, D, 1e-6, D, D, 0, 1, block_n, D, 1, grid[0],
                        use_tma=tma, num_warps=warps, C2T_PREFETCH_STAGES=stages)
                    try:
                        y.zero_()
                        f()
                        torch.cuda.synchronize()
                        err = (y.float() - ref.float()).abs().max().item()
                        us = triton.testing.do_bench_cudagraph(f, return_mode="median") * 1000
                        line.append(f"S{stages} {us:6.1f}" + ("" if err < 0.1 else f" (err {err:.2f})"))
                    except Exception as e:  # noqa: BLE001
                        line.append(f"S{stages} error {type(e).__name__}")
                P(f"{M}x{D} BLOCK_N={block_n:2d} w{warps} {'tma' if tma else 'ptr'}: " + " | ".join(line))
