"""What the converted tuning search chooses for TileGym's matmul (ops/cutile/matmul.py converted, as
bench_matrix_multiplication.py calls it: use_tma=True, static_persistent=False), fp16 and fp8 e5m2:
the search's own line (best config, stages, warps), the options it kept per specialization
(_c2t_tuned_options), and the op's speed afterwards next to cuTile's (do_bench_cudagraph median,
TFLOPS). BENCHMARKS.md, "CTA clusters as per-program tiles".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 matmul_search.py TILEGYM CONVERTED [SIZES...]"""
import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

mm = converted("matmul")
search = mm._c2t_exhaustive_search


def reporting_search(*a, **k):  # every timed config, not only the winner
    result = search(*a, **k)
    for m in sorted(result.successes, key=lambda m: m.mean_us):
        c = vars(m.config)
        print(f"  {c.get('TILE_SIZE_M')}x{c.get('TILE_SIZE_N')}x{c.get('TILE_SIZE_K')} ctas {c.get('num_ctas')}: "
              f"{m.mean_us:8.1f} us stages {m.num_stages} warps {m.num_warps} tma {getattr(m, 'tma', None)}")
    print(f"  failed: {len(result.failures)} " + "; ".join(f"{vars(c)}: {t.__name__}" for c, t, _ in result.failures)[:300])
    return result


mm._c2t_exhaustive_search = reporting_search
sizes = [int(s) for s in sys.argv[3:]] or [1024, 16384]
torch.manual_seed(0)
for dtype in (torch.float16, torch.float8_e5m2):
    for S in sizes:
        a = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        b = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
        tf = lambda ms: 2 * S ** 3 * 1e-12 / (ms * 1e-3)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            c = mm.matmul(a, b, use_tma=True, static_persistent=False)
        torch.cuda.synchronize()
        ref = (a.float() @ b.float()) if S <= 4096 else None
        err = "" if ref is None else f" max rel err {((c.float() - ref).abs().max() / ref.abs().mean()).item():.1e}"
        conv = tf(triton.testing.do_bench_cudagraph(lambda: mm.matmul(a, b, use_tma=True, static_persistent=False),
                                                    return_mode="median"))
        try:
            cut = tf(triton.testing.do_bench_cudagraph(
                lambda: tilegym.ops.matmul(a, b, use_tma=True, static_persistent=False, backend="cutile"),
                return_mode="median"))
        except Exception as e:  # noqa: BLE001
            cut = float("nan")
        P(f"{str(dtype)[6:]:13s} {S}^3: converted {conv:5.0f} TFLOPS, cuTile {cut:5.0f} ({conv / cut:.2f}x){err}")
        for line in out.getvalue().splitlines():
            P("    " + line)
        tuned = {k.__name__ if hasattr(k, "__name__") else str(k): list(v.values())
                 for k, v in getattr(mm, "_c2t_tuned_options", {}).items()}
        P(f"    tuned: {tuned}")
