"""cuTile's CTA-cluster tile configs as per-program tiles in Triton, on TileGym's matmul converted
(_matmul_kernel with TMA, as bench_matrix_multiplication.py calls it), fp16 and fp8 e5m2.

TileGym's sm_90/sm_100 config list holds 128x128x32 and cluster configs: 256x256x64 in 2- and 4-CTA
clusters and 512x256x64 in 2-CTA clusters (num_ctas). A cluster's CTAs share the cluster's tile; Triton
3.6 cannot run clusters (cutile2triton drops num_ctas), so each cluster config's per-CTA share is timed
as a program's tile (2 CTAs: 256x128 or 128x256; 4 CTAs: 128x128; 512x256 over 2: 256x256), at a few
warps and pipeline stages, next to cuTile's op. TFLOPS, do_bench_cudagraph median; fp32 output checked
against torch's product (relative to its mean magnitude).

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 gemm_clusters.py TILEGYM CONVERTED"""
import sys
from math import ceil
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton, triton.testing  # noqa: E402

mm = converted("matmul")
# (tile M, N, K, warps, stages; the cluster config it shares)
VARIANTS = [(128, 128, 32, 4, 3, "list 1-CTA"), (128, 128, 32, 4, 4, "list 1-CTA"), (128, 128, 32, 8, 3, "list 1-CTA"),
            (128, 128, 64, 4, 3, "256x256 /4"), (128, 128, 64, 4, 4, "256x256 /4"), (128, 128, 64, 8, 3, "256x256 /4"),
            (256, 128, 64, 8, 3, "256x256 /2"), (256, 128, 64, 8, 4, "256x256 /2"), (256, 128, 64, 16, 3, "256x256 /2"),
            (256, 128, 64, 16, 4, "256x256 /2"), (128, 256, 64, 8, 3, "256x256 /2"), (128, 256, 64, 16, 3, "256x256 /2"),
            (256, 256, 64, 16, 2, "512x256 /2"), (256, 256, 64, 8, 2, "512x256 /2")]
torch.manual_seed(0)
for dtype in (torch.float16, torch.float8_e5m2):
    for S in (1024, 4096, 16384):
        a = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        b = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        exact = a.float() @ b.float() if S <= 4096 else None
        scale = exact.abs().mean().item() if exact is not None else None
        tf = lambda ms: 2 * S ** 3 * 1e-12 / (ms * 1e-3)
        row = []
        try:
            ms = triton.testing.do_bench_cudagraph(
                lambda: tilegym.ops.matmul(a, b, use_tma=True, static_persistent=False, backend="cutile"), return_mode="median")
            row.append(f"cuTile {tf(ms):4.0f}")
        except Exception as e:
            row.append(f"cuTile error {type(e).__name__}")
        for tm, tn, tk, w, st, share in VARIANTS:
            grid = (ceil(S / tm) * ceil(S / tn), 1, 1)
            name = f"{tm}x{tn}x{tk} w{w} s{st}"
            try:
                err = 0.0
                if exact is not None:
                    c32 = torch.empty((S, S), device="cuda", dtype=torch.float32)
                    mm.launch__matmul_kernel(grid, a, b, c32, tm, tn, tk, use_tma=True, num_warps=w, num_stages=st)
                    err = ((c32 - exact).abs().max() / scale).item()
                c = torch.empty((S, S), device="cuda", dtype=dtype)
                ms = triton.testing.do_bench_cudagraph(
                    lambda: mm.launch__matmul_kernel(grid, a, b, c, tm, tn, tk, use_tma=True, num_warps=w, num_stages=st),
                    return_mode="median")
                row.append(f"{name} {tf(ms):4.0f}" + ("" if err < 1e-2 else f" (err {err:.1e})"))
            except Exception as e:
                row.append(f"{name} error {type(e).__name__}")
        P(f"{str(dtype)[6:]:13s} {S}^3: " + " | ".join(row))
