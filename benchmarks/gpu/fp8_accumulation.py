"""fp8 GEMM accumulation on the H200: precision and speed of TileGym's matmul converted with its fp8
products promoted to the fp32 accumulator every 32 products (cutile2triton until its fifteenth session, s21), once per
K tile of at most 128 (CUTLASS's default promotion interval for sm_90 fp8 GEMMs: 4 wgmma K-steps of
32), once per K tile (each ct.mma call: its product added to the accumulator; cutile2triton since s21, as
cuTile measured), or never (Triton's sm_90 default for fp8, max_num_imprecise_acc=2**30), next to cuTile's own
(ct.mma without use_fast_acc). BENCHMARKS.md, "fp8 accumulation".

Precision: fp8 e5m2 inputs as in TileGym's bench_matrix_multiplication.py (torch.randn rounded to
e5m2) and torch.rand (all positive: rounding biases add up), an fp32 output (the kernels store their
fp32 accumulator; the op itself returns e5m2, whose 2-bit mantissa hides the accumulator), against
the exact product in fp64. Speed: the op as the bench file calls it, do_bench_cudagraph median.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 fp8_accumulation.py TILEGYM CONVERTED"""
import importlib.util, os, re, sys, tempfile
from pathlib import Path
os.environ["DISABLE_FALLBACK"] = "1"
import tilegym, torch, triton, triton.testing
from cutile2triton.pytest_tilegym import load_converted

mounts = load_converted(Path(sys.argv[2]))
conv = [sys.modules[m] for m in mounts.loaded if m.endswith(".matmul") and ".ops." in m][0]
P = lambda *a: print(*a, flush=True)
src = Path(conv.__file__).read_text()
# The converter's promotion interval: "32 if TILE_K >= 32 else TILE_K" (until s21) or "TILE_K" (since).
pattern = re.compile(r"max_num_imprecise_acc=(?:\d+ if (\w+) >= \d+ else \w+|(\w+))")
assert pattern.search(src), "no fp8 promotion interval in the converted matmul"
VARIANTS = {"every 32": "32 if {k} >= 32 else {k}", "per K tile (<=128)": "128 if {k} >= 128 else {k}",
            "per K tile": "{k}", "never (Triton default)": "1073741824"}
# Optional: python3 fp8_accumulation.py TILEGYM CONVERTED [VARIANTS] [SPEED SIZES]: VARIANTS "all" or names
# with "_" for spaces, comma-separated (every_32,per_K_tile); SPEED SIZES e.g. 1024,4096.
if len(sys.argv) > 3 and sys.argv[3] != "all":
    VARIANTS = {k: v for k, v in VARIANTS.items() if k.replace(" ", "_") in sys.argv[3].split(",")}
SPEED_SIZES = tuple(int(x) for x in sys.argv[4].split(",")) if len(sys.argv) > 4 else (1024, 4096, 16384)
tmp = Path(tempfile.mkdtemp())
mods = {}
for i, (name, expr) in enumerate(VARIANTS.items()):
    text = pattern.sub(lambda m: "max_num_imprecise_acc=" + expr.format(k=m.group(1) or m.group(2)), src)
    path = tmp / f"c2t_fp8_variant_{i}.py"
    path.write_text(text.replace("from .", "from " + conv.__name__.rsplit(".", 1)[0] + "."))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mods[name] = importlib.util.module_from_spec(spec); spec.loader.exec_module(mods[name])
try:
    import tilegym.ops.cutile.matmul as cutile_mod
    mods["cuTile"] = cutile_mod
except Exception as e:  # no cuTile on this machine
    P(f"cuTile: not available ({type(e).__name__}: {e})")

torch.manual_seed(0)
stream = torch.cuda.current_stream()
P("## precision: fp32 output vs exact (fp64) product; rel = |out - exact| / mean|exact|")
for M, N, K in ((1024, 1024, 1024), (2048, 2048, 4096), (2048, 2048, 16384)):
    for dist in ("randn", "rand"):
        gen = torch.randn if dist == "randn" else torch.rand
        a = gen((M, K), device="cuda", dtype=torch.float16).to(torch.float8_e5m2)
        b = gen((K, N), device="cuda", dtype=torch.float16).to(torch.float8_e5m2)
        exact = a.double() @ b.double()
        scale = exact.abs().mean().item()
        for name, m in mods.items():
            c = torch.empty((M, N), device="cuda", dtype=torch.float32)
            try:
                m._cutile_autotune_matmul(stream, a, b, c); torch.cuda.synchronize()
                d = (c.double() - exact) / scale
                P(f"{M}x{N}x{K} {dist:5s} {name:24s} max rel {d.abs().max().item():.2e}  mean rel "
                  f"{d.abs().mean().item():.2e}  bias {d.mean().item():+.2e}")
            except Exception as e:
                P(f"{M}x{N}x{K} {dist:5s} {name:24s} error {type(e).__name__}: {str(e)[:200]}")

P("## speed: the op (e5m2 output), do_bench_cudagraph median, TFLOPS")
for m in mods.values():
    getattr(m, "_matmul_tune_cache", {}).clear()  # tuned again for the e5m2 output
for M in SPEED_SIZES:
    a = torch.randn((M, M), device="cuda", dtype=torch.float16).to(torch.float8_e5m2)
    b = torch.randn((M, M), device="cuda", dtype=torch.float16).to(torch.float8_e5m2)
    for name, m in mods.items():
        try:
            fn = lambda: m.matmul(a, b, use_tma=True, static_persistent=False)
            fn(); torch.cuda.synchronize()
            ms = triton.testing.do_bench_cudagraph(fn, return_mode="median")
            cache = getattr(m, "_matmul_tune_cache", {})
            cfg = [v[0] for k, v in cache.items() if k[0] == M]
            P(f"{M}^3 {name:24s} {2 * M**3 * 1e-12 / (ms * 1e-3):7.1f} TFLOPS  config {cfg[-1] if cfg else '?'}")
        except Exception as e:
            P(f"{M}^3 {name:24s} error {type(e).__name__}: {str(e)[:200]}")
