"""num_warps for a row walked in tiles: TileGym's RMSNorm in multi-wave reload mode (one program per
row, the row loaded twice in tiles of 4096 bytes), converted, at 4, 8 and 16 warps for rows of 1024
to 16384 elements, next to cuTile's op. cutile2triton's launcher sizes warps from the tile (2048 fp16
elements: 4 warps) and not from the row. TileGym's profile_with_l2flush (kernel time, L2 flushed) as
bench_rmsnorm.py; GB/s as that file counts them. BENCHMARKS.md, "Warps for a row walked in tiles".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 rmsnorm_warps.py TILEGYM CONVERTED"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(sys.argv[1]) / "tests" / "benchmark"))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch  # noqa: E402
from bench_utils import profile_with_l2flush  # noqa: E402

rn = converted("rms_norm")
torch.manual_seed(0)
for dtype in (torch.float16, torch.bfloat16):
    for M, N in ((4096, 1024), (4096, 2048), (4096, 4096), (4096, 8192), (4096, 16384), (1024, 16384), (16384, 8192)):
        x = torch.rand((M, N), dtype=dtype, device="cuda").mul_(0.5).add_(-2.3)
        w = torch.randn((N,), dtype=dtype, device="cuda")
        ref = torch.nn.functional.rms_norm(x, (N,), weight=w, eps=1e-5)
        gbs = lambda ms: (2 * x.numel() + w.numel()) * x.element_size() * 1e-9 / (ms * 1e-3)
        tile = min(4096 // x.element_size(), 1 << (N - 1).bit_length())  # the op's MAX_FUSED_SIZE rule
        row = []
        try:
            fn = lambda: tilegym.ops.rms_norm(x, (N,), w, 1e-5, mode="multi_wave_reload", backend="cutile")
            torch.testing.assert_close(fn(), ref, atol=5e-2, rtol=0.0)
            row.append(f"cuTile {gbs(profile_with_l2flush(fn)):6.0f}")
        except Exception as e:
            row.append(f"cuTile error {type(e).__name__}")
        for warps in (4, 8, 16, 32):
            y = torch.empty_like(x); rstd = torch.empty((M,), dtype=torch.float32, device="cuda")
            fn = lambda: rn.launch__rms_norm_kernel_gather((M,), x, w, y, rstd, N, 1e-5, 0.0, tile, num_warps=warps)
            try:
                fn(); torch.testing.assert_close(y, ref, atol=5e-2, rtol=0.0)
                row.append(f"w{warps} {gbs(profile_with_l2flush(fn)):6.0f}")
            except Exception as e:
                row.append(f"w{warps} error {type(e).__name__}: {str(e)[:80]}")
        P(f"{str(dtype)[6:]:8s} {M}x{N} tile {tile} ({(N + tile - 1) // tile} tiles): " + " | ".join(row))
