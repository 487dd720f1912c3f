"""TileGym's bmm through the op, every transpose combination, 1024^3 and 4096^3 at batch 2 (the shapes of
bench_bmm.py): the converted op's result against torch.bmm (the bench file's check, rtol=atol=1e-2;
output pre-filled with NaN), the config its search chose, and triton.testing.do_bench as the bench file
calls it (mean: what the bench reports) next to its median and 20th/80th percentiles, three times in a
row, for the converted op and cuTile's. BENCHMARKS.md, "bmm after the permute fold".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 bmm_op_check.py TILEGYM CONVERTED [--no-cutile]"""
import itertools, os, sys
from pathlib import Path
os.environ["DISABLE_FALLBACK"] = "1"
import tilegym, torch, triton, triton.testing
from cutile2triton.pytest_tilegym import load_converted

mounts = load_converted(Path(sys.argv[2]))
bm = [sys.modules[m] for m in mounts.loaded if m.endswith(".bmm") and ".ops." in m][0]
backends = ["c2t_triton"] + ([] if "--no-cutile" in sys.argv else ["cutile"])
P = lambda *a: print(*a, flush=True)


def check(out, ref):
    d = (out.float() - ref.float()).abs(); lim = 1e-2 + 1e-2 * ref.float().abs()
    return f"violations {(d > lim).sum().item()} of {d.numel()} (NaN {out.isnan().sum().item()})"


torch.manual_seed(0)
for M in (1024, 4096):
    for ta, tb in itertools.product((False, True), repeat=2):
        a = torch.rand((2, M, M), device="cuda", dtype=torch.float16)
        b = torch.rand((2, M, M), device="cuda", dtype=torch.float16)
        ref = torch.bmm(a.transpose(1, 2) if ta else a, b.transpose(1, 2) if tb else b)
        for backend in backends:
            fn = lambda: tilegym.ops.bmm(a, b, transpose_a=ta, transpose_b=tb, backend=backend)
            try:
                out = fn(); torch.cuda.synchronize()
                res = check(out, ref)
                cfg = bm._bmm_tune_cache.get((2, M, M, M, ta, tb, a.dtype, str(a.device)), ("-",))[0] \
                    if backend == "c2t_triton" else ""
                tf = lambda ms: 2 * 2 * M**3 * 1e-12 / (ms * 1e-3)
                runs = []
                for _ in range(3):
                    mean = triton.testing.do_bench(fn)
                    med, lo, hi = triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
                    runs.append(f"mean {tf(mean):5.0f} median {tf(med):5.0f} (p20-p80 {tf(hi):.0f}-{tf(lo):.0f})")
                P(f"{M}^3 ta={ta:d} tb={tb:d} {backend:10s} {res} | TFLOPS " + " ; ".join(runs) + f" | {cfg}")
            except Exception as e:
                P(f"{M}^3 ta={ta:d} tb={tb:d} {backend:10s} error {type(e).__name__}: {str(e)[:300]}")
