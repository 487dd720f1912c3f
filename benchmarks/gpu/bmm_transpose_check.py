"""TileGym's bmm at 2x4096^3 fp16 on the converted ops: the op (transpose_a, its config search), then
every H200 tile config of the search with A transposed, not transposed, and both transposed, each
launched twice (the second launch reuses the compiled kernel); an output pre-filled with NaN and the
count of elements outside rtol=atol=1e-2 of torch.bmm (the bench file's check). BENCHMARKS.md, "A
permuted load": before the permute fold, 128x256x64 with transpose_a gave wrong tiles.

  CUTILE_TUTORIALS_BACKEND=triton PYTHONPATH=TILEGYM/src:PLUGIN python3 bmm_transpose_check.py TILEGYM CONVERTED"""
import os, sys, time
from pathlib import Path
os.environ["DISABLE_FALLBACK"] = "1"
import tilegym, torch, triton
from types import SimpleNamespace
from cutile2triton.pytest_tilegym import load_converted
mounts = load_converted(Path(sys.argv[2]))
bm = [sys.modules[m] for m in mounts.loaded if m.endswith(".bmm") and ".ops." in m][0]
P = lambda *a: print(*a, flush=True)
def bad(out, ref):
    d = (out.float() - ref.float()).abs(); lim = 1e-2 + 1e-2 * ref.float().abs()
    return f"max|d| {d.max().item():.3g}, violations {(d > lim).sum().item()} of {d.numel()}"
torch.manual_seed(0)
for M in (4096,):
    a = torch.rand(2, M, M, device="cuda", dtype=torch.float16); b = torch.rand(2, M, M, device="cuda", dtype=torch.float16)
    ref = torch.bmm(a.transpose(1, 2), b)
    out = tilegym.ops.bmm(a, b, transpose_a=True, transpose_b=False, backend="c2t_triton"); torch.cuda.synchronize()
    P(f"op M={M} transpose_a: {bad(out, ref)}; best {list(bm._bmm_tune_cache.values())[-1][0]}")
    out2 = tilegym.ops.bmm(a, b, transpose_a=True, transpose_b=False, backend="c2t_triton"); torch.cuda.synchronize()
    P(f"op M={M} 2nd call: {bad(out2, ref)}")
a = torch.rand(2, 4096, 4096, device="cuda", dtype=torch.float16); b = torch.rand(2, 4096, 4096, device="cuda", dtype=torch.float16)
refs = {True: torch.bmm(a.transpose(1, 2), b), False: torch.bmm(a, b)}
orig_slot = bm._c2t_compiled_slot
refs[(True, True)] = torch.bmm(a.transpose(1, 2), b.transpose(1, 2))
for tm in (64, 128, 256):
    for tn in (64, 128, 256):
        for ta in (True, False, (True, True)):
            cfg = SimpleNamespace(TILE_M=tm, TILE_N=tn, TILE_K=64)
            grid = (min(66, (4096 // tm) * (4096 // tn) * 2) * 2,)
            res = []
            for fast in (True, True):
                bm._c2t_compiled_slot = orig_slot if fast else (lambda *x: None)
                c = torch.full((2, 4096, 4096), float("nan"), device="cuda", dtype=torch.float16)
                try:
                    tA, tB = ta if isinstance(ta, tuple) else (ta, False)
                    bm.launch__static_persistent_bmm_kernel(grid, a, b, c, 2, 4096, 4096, 4096, tm, tn, 64, 8, tA, tB)
                    torch.cuda.synchronize(); res.append(bad(c, refs[ta]))
                except Exception as e:
                    res.append(f"{type(e).__name__}: {str(e)[:80]}")
            bm._c2t_compiled_slot = orig_slot
            fits = {k[0][-6:]: v for k, v in bm._c2t_fitting_stages.get(bm._static_persistent_bmm_kernel, {}).items()}
            P(f"tiles {tm}x{tn}x64 transpose={ta}: first {res[0]} | again (reused) {res[1]} | stages {fits}")
