"""Software-pipeline stages for TileGym's matmul converted (_matmul_kernel with TMA, as
bench_matrix_multiplication.py calls it) at the tile configs cuTile's sm90/sm100 list can run
without clusters (128x128x32) and one neighbour (128x128x64), at 4 and 8 warps and num_stages 2-6
(Triton's default: 3), fp16 and fp8 e5m2, next to cuTile's op. Exactness: fp32 output against
torch's fp32 product (relative to its mean magnitude). Speed: do_bench_cudagraph median, TFLOPS.
BENCHMARKS.md, "GEMM stages".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 gemm_stages.py TILEGYM CONVERTED [SIZES...]"""
import sys
from math import ceil
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton, triton.testing  # noqa: E402

mm = converted("matmul")
SIZES = [int(s) for s in sys.argv[3:]] or [1024, 8192]
TILES = [(128, 128, 32), (128, 128, 64), (64, 128, 64)]
torch.manual_seed(0)
for dtype in (torch.float16, torch.float8_e5m2):
    for S in SIZES:
        a = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        b = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        exact = a.float() @ b.float()
        scale = exact.abs().mean().item()
        tf = lambda ms: 2 * S ** 3 * 1e-12 / (ms * 1e-3)
        try:
            ms = triton.testing.do_bench_cudagraph(lambda: tilegym.ops.matmul(a, b, use_tma=True, static_persistent=False, backend="cutile"), return_mode="median")
            P(f"{str(dtype)[6:]:13s} {S}^3 cuTile {tf(ms):5.0f}")
        except Exception as e:  # noqa: BLE001
            P(f"{str(dtype)[6:]:13s} {S}^3 cuTile error {type(e).__name__}")
        for tm, tn, tk in TILES:
            for w in (4, 8):
                row = []
                for stages in (2, 3, 4, 5, 6):
                    grid = (ceil(S / tm) * ceil(S / tn), 1, 1)
                    try:
                        c32 = torch.empty((S, S), device="cuda", dtype=torch.float32)
                        mm.launch__matmul_kernel(grid, a, b, c32, tm, tn, tk, use_tma=True, num_warps=w, num_stages=stages)
                        err = ((c32 - exact).abs().max() / scale).item()
                        c = torch.empty((S, S), device="cuda", dtype=dtype)
                        ms = triton.testing.do_bench_cudagraph(
                            lambda: mm.launch__matmul_kernel(grid, a, b, c, tm, tn, tk, use_tma=True, num_warps=w,
                                                             num_stages=stages), return_mode="median")
                        row.append(f"S{stages} {tf(ms):5.0f}" + ("" if err < 1e-2 else f" (err {err:.1e})"))
                    except Exception as e:  # noqa: BLE001
                        row.append(f"S{stages} error {type(e).__name__}")
                P(f"{str(dtype)[6:]:13s} {S}^3 {tm}x{tn}x{tk}w{w}: " + " | ".join(row))
