"""num_warps for large tl.dot accumulators, fp16 and fp8 e5m2, on TileGym's matmul converted
(_matmul_kernel with TMA, as bench_matrix_multiplication.py calls it): each tile config cuTile's sm90/sm100
config list holds (128x128x32; 256x256x64, which cuTile runs in 2- or 4-CTA clusters that Triton 3.6
cannot) plus neighbours, at 4, 8 and 16 warps, next to cuTile's op. cutile2triton's launcher picks
num_warps from the accumulator's size (_c2t_num_warps): 8 up to 65536 fp32 elements, i.e. 256
registers per thread at 256x256, which spills. Exactness: fp32 output against torch's fp32 product
(relative to its mean magnitude). Speed: do_bench_cudagraph median, TFLOPS. BENCHMARKS.md, "Warps
for large accumulators".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 gemm_warps.py TILEGYM CONVERTED"""
import sys
from math import ceil
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton, triton.testing  # noqa: E402

mm = converted("matmul")
CONFIGS = [(128, 128, 32, 4), (128, 128, 64, 4), (128, 128, 64, 8), (128, 128, 128, 4), (128, 256, 64, 8),
           (256, 128, 64, 8), (128, 256, 128, 8), (256, 256, 64, 8), (256, 256, 64, 16), (256, 256, 32, 16),
           (256, 128, 64, 16)]
torch.manual_seed(0)
for dtype in (torch.float16, torch.float8_e5m2):
    for S in (1024, 4096, 8192):
        a = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        b = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        exact = a.float() @ b.float()
        scale = exact.abs().mean().item()
        tf = lambda ms: 2 * S ** 3 * 1e-12 / (ms * 1e-3)
        row = []
        try:
            ms = triton.testing.do_bench_cudagraph(lambda: tilegym.ops.matmul(a, b, use_tma=True, static_persistent=False, backend="cutile"), return_mode="median")
            row.append(f"cuTile {tf(ms):5.0f}")
        except Exception as e:
            row.append(f"cuTile error {type(e).__name__}")
        for tm, tn, tk, w in CONFIGS:
            grid = (ceil(S / tm) * ceil(S / tn), 1, 1)
            name = f"{tm}x{tn}x{tk}w{w}"
            try:
                c32 = torch.empty((S, S), device="cuda", dtype=torch.float32)
                mm.launch__matmul_kernel(grid, a, b, c32, tm, tn, tk, use_tma=True, num_warps=w)
                err = ((c32 - exact).abs().max() / scale).item()
                c = torch.empty((S, S), device="cuda", dtype=dtype)
                ms = triton.testing.do_bench_cudagraph(lambda: mm.launch__matmul_kernel(grid, a, b, c, tm, tn, tk, use_tma=True, num_warps=w),
                                                       return_mode="median")
                row.append(f"{name} {tf(ms):5.0f}" + ("" if err < 1e-2 else f" (err {err:.1e})"))
            except Exception as e:
                row.append(f"{name} error {type(e).__name__}: {str(e)[:60]}")
        P(f"{str(dtype)[6:]:13s} {S}^3: " + " | ".join(row))
