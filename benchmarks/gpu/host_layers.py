"""Where a converted op's host time goes, layer by layer, next to cuTile's (BENCHMARKS.md, "Host launch path").

For each op (small shapes, where triton.testing.do_bench measures the host): one call records the arguments each
layer received, then every layer is replayed alone, back-to-back without synchronization, and its host time per
call printed:

  op           the TileGym op (TileGym's host code + ours + Triton)
  launcher     the converted module's launch__<kernel>(grid, *ct.launch args)
  run_kernel   _c2t_run_kernel(kernel, grid, *Triton args)  (shared-memory retry layer)
  jit.run      kernel[grid](*Triton args)                   (Triton's JITFunction.run)
  binder       Triton's argument binder/specializer alone
  c-launch     the compiled kernel's launcher alone (CompiledKernel.run)
  ct.launch    cuTile's launch of the same kernel (cuTile column)

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_layers.py TILEGYM CONVERTED
(TILEGYM/CONVERTED/PLUGIN as in tilegym_bench_on_device.sh.)"""
import os, sys, time
from pathlib import Path
os.environ["DISABLE_FALLBACK"] = "1"
import tilegym, torch, triton
from triton.runtime.jit import JITFunction
from cutile2triton.pytest_tilegym import load_converted

mounts = load_converted(Path(sys.argv[2]))
mods = [sys.modules[m] for m in mounts.loaded]
P = lambda *a: print(*a, flush=True)


def converted(name):
    """The mounted converted module of TileGym's ops/cutile/<name>.py (e.g. "rms_norm")."""
    return next(m for m in mods if m.__name__.endswith("." + name) and ".ops." in m.__name__)

dev = "cuda"


def profile_text(fn, calls, top):
    """cProfile of `calls` back-to-back fn() calls (synchronized at the end): the `top` functions by
    own time, as pstats prints them, blank lines dropped."""
    import cProfile, io, pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls): fn()
    prof.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return "\n".join(l for l in out.getvalue().splitlines() if l.strip())


def host_us(fn, n=300):
    for _ in range(20): fn()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): fn()
    dt = (time.perf_counter() - t) / n * 1e6; torch.cuda.synchronize(); return dt


rec = {}


def record(name, f):
    def w(*a, **k):
        rec.setdefault(name, (f, a, dict(k)))
        return f(*a, **k)
    return w


orig_run = JITFunction.run


def run_rec(self, *a, grid, warmup, **k):
    rec.setdefault("jit.run", (self, a, dict(k), grid))
    return orig_run(self, *a, grid=grid, warmup=warmup, **k)


def patch(on):
    for m in mods:
        for n, v in list(vars(m).items()):
            if on and callable(v) and (n.startswith("launch__") or n == "_c2t_run_kernel"):
                setattr(m, "_c2t_orig_" + n, v); setattr(m, n, record("launcher" if n.startswith("launch__") else "run_kernel", v))
            elif not on and n.startswith("_c2t_orig_"):
                setattr(m, n[len("_c2t_orig_"):], v)
    JITFunction.run = run_rec if on else orig_run
    try:
        import cuda.tile as ct
        if on:
            ct._c2t_orig_launch = ct.launch
            ct.launch = record("ct.launch", ct.launch)
        elif hasattr(ct, "_c2t_orig_launch"):
            ct.launch = ct._c2t_orig_launch
    except ImportError:
        pass


def layers(op):
    rec.clear(); patch(True)
    try:
        op(); torch.cuda.synchronize()
    finally:
        patch(False)
    out = {}
    if "launcher" in rec:
        f, a, k = rec["launcher"]; out["launcher"] = host_us(lambda: f(*a, **k))
    if "run_kernel" in rec:
        f, a, k = rec["run_kernel"]; out["run_kernel"] = host_us(lambda: f(*a, **k))
    if "jit.run" in rec:
        fn, a, k, grid = rec["jit.run"]
        out["jit.run"] = host_us(lambda: fn[grid](*a, **k))
        device = triton.runtime.driver.active.get_current_device()
        _, _, _, _, binder = fn.device_caches[device]
        out["binder"] = host_us(lambda: binder(*a, **k))
        ck = fn[grid](*a, **k)
        ba, _, _ = binder(*a, **k)
        vals = tuple(ba.values())
        g = grid(ba) if callable(grid) else grid
        g = tuple(g) + (1,) * (3 - len(g))
        stream = triton.runtime.driver.active.get_current_stream(device)
        out["c-launch"] = host_us(lambda: ck.run(g[0], g[1], g[2], stream, ck.function, ck.packed_metadata,
                                               ck.launch_metadata(g, stream, *vals), None, None, *vals))
        out["nargs"] = len(a)
    return out


def ops():
    a = torch.randn(2, 1024, 1024, dtype=torch.float16, device=dev); b = torch.randn_like(a)
    yield "bmm 2x1024^3", lambda be: tilegym.ops.bmm(a, b, backend=be)
    m1 = torch.randn(1024, 1024, dtype=torch.float16, device=dev); m2 = torch.randn_like(m1)
    yield "matmul 1024^3", lambda be: tilegym.ops.matmul(m1, m2, backend=be)
    q = torch.randn(2, 8, 512, 256, dtype=torch.bfloat16, device=dev)
    kk = torch.randn(2, 1, 512, 256, dtype=torch.bfloat16, device=dev); v = torch.randn_like(kk)
    yield "gemma 512", lambda be: tilegym.ops.gemma_attention(q, kk, v, scaling=1 / 16, soft_cap=50.0, is_causal=True, backend=be)
    x = torch.randn(30000, 256, dtype=torch.bfloat16, device=dev); w = torch.randn(256, dtype=torch.bfloat16, device=dev); bi = torch.randn_like(w)
    yield "layernorm 30000x256", lambda be: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(256,), weight=w, bias=bi, eps=1e-6, backend=be)
    xl = torch.randn(4096, 256, dtype=torch.bfloat16, device=dev)
    yield "layernorm legacy 4096x256", lambda be: tilegym.ops.layer_norm_legacy(xl, (256,), w, bi, 1e-6, backend=be)
    s = torch.randn(4096, 1024, dtype=torch.bfloat16, device=dev)
    yield "softmax 4096x1024", lambda be: tilegym.ops.softmax(s, use_tma=False, use_chunked=False, use_multi_wave=False, backend=be)


def host_bound_ops(transpose_b=False, gemma=False, group_gemm=False):
    """(name, op(backend)) of the TileGym ops whose small benchmark shapes do_bench times on the host
    (host_profile.py, host_stack.py): bmm 2x1024^3 (and with transpose_b), persistent layernorm
    30000x256, legacy layernorm 4096x256 (and gemma attention at 512; group_gemm, 4 groups of
    1024^3 fp16, lists of arrays)."""
    if group_gemm:
        ga = [torch.randn(1024, 1024, dtype=torch.float16, device=dev) for _ in range(4)]
        gb = [torch.randn(1024, 1024, dtype=torch.float16, device=dev) for _ in range(4)]
        yield "group_gemm 4x1024^3", lambda be: tilegym.ops.group_gemm(ga, gb, transpose_b=True, backend=be)
        fa, fb = [a.to(torch.float8_e5m2) for a in ga], [b.to(torch.float8_e5m2) for b in gb]
        for t in (True, False):  # B given N x K (K contiguous) or K x N (copied K-major on sm_90)
            yield f"group_gemm fp8 4x1024^3 transpose_b={t}", (
                lambda be, t=t: tilegym.ops.group_gemm(fa, fb, transpose_b=t, backend=be))
    a = torch.rand(2, 1024, 1024, dtype=torch.float16, device=dev); b = torch.rand_like(a)
    yield "bmm 2x1024^3", lambda be: tilegym.ops.bmm(a, b, backend=be)
    if transpose_b:
        yield "bmm 2x1024^3 transpose_b", lambda be: tilegym.ops.bmm(a, b, transpose_b=True, backend=be)
    x = torch.randn(30000, 256, dtype=torch.bfloat16, device=dev); w = torch.randn(256, dtype=torch.bfloat16, device=dev)
    bi = torch.randn_like(w)
    yield "layernorm 30000x256", lambda be: tilegym.ops.persistent_layer_norm(
        input=x, normalized_shape=(256,), weight=w, bias=bi, eps=1e-6, backend=be)
    xl = torch.randn(4096, 256, dtype=torch.bfloat16, device=dev)
    yield "layernorm legacy 4096x256", lambda be: tilegym.ops.layer_norm_legacy(xl, (256,), w, bi, 1e-6, backend=be)
    if gemma:
        q = torch.randn(2, 8, 512, 256, dtype=torch.bfloat16, device=dev)
        kk = torch.randn(2, 1, 512, 256, dtype=torch.bfloat16, device=dev); v = torch.randn_like(kk)
        yield "gemma 512", lambda be: tilegym.ops.gemma_attention(q, kk, v, scaling=1 / 16, soft_cap=50.0,
                                                                  is_causal=True, backend=be)


@triton.jit
def _one_arg(x):
    pass


if __name__ == "__main__":
    t = torch.empty(16, device=dev)
    P(f"floor: raw Triton launch of a 1-argument kernel {host_us(lambda: _one_arg[(1,)](t)):.1f} us; "
      f"torch.cuda.current_device {host_us(lambda: torch.cuda.current_device()):.2f} us; "
      f"get_device_properties {host_us(lambda: torch.cuda.get_device_properties(t.device).multi_processor_count):.2f} us")
    for name, op in ops():
        for be in ("c2t_triton", "cutile"):
            try:
                op(be); torch.cuda.synchronize()
                total = host_us(lambda: op(be))
                db = triton.testing.do_bench(lambda: op(be)) * 1000
                lay = layers(lambda: op(be))
                P(f"{name:26s} {be:10s} do_bench {db:6.1f} | op {total:6.1f} | " +
                  " | ".join(f"{k} {v:6.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in lay.items()))
            except Exception as e:
                P(f"{name} {be}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
