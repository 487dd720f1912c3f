"""Two H200 diagnostics behind BENCHMARKS.md ("Grid-stride loops", fifth session), run as one device call:

  1. where the converted ops' host time goes, next to cuTile's: triton.testing.do_bench, per-call host time
     of back-to-back calls, where in the op the kernel launch (cuLaunchKernelEx) happens (torch.profiler),
     and a cProfile listing of 200 converted calls (bmm, matmul, gemma attention, persistent layernorm,
     softmax at small shapes);
  2. grid-stride loops with prefetching: every converted softmax / rms_norm / layer_norm_legacy kernel with a
     grid-stride loop is re-specialized with S pipeline stages (S = None: a plain `range`, as the converter
     emitted before; 2, 3, 4: `tl.range(..., num_stages=S)`), checked against PyTorch and timed with
     TileGym's profile_with_l2flush (warmup 5, rep 30), next to cuTile.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_and_stages.py TILEGYM CONVERTED [12]
(TILEGYM/CONVERTED/PLUGIN as in tilegym_bench_on_device.sh; the last argument picks the parts.)
Part 2 edits the kernels' source in memory: loops written `for v in range(a, b, c):` (the converter before
the change) or `tl.range(a, b, c, num_stages=C2T_PREFETCH_STAGES)` (after it) get S stages.
Results of the run of 2026-11-29: benchmarks/results/host-and-stages-h200-2026-11-29-s11.txt."""
import cProfile, io, os, pstats, re, sys, time
from pathlib import Path
os.environ["DISABLE_FALLBACK"] = "1"
import tilegym, torch, triton
from cutile2triton.pytest_tilegym import load_converted
sys.path.insert(0, str(Path(tilegym.__file__).parents[2] / "tests" / "benchmark"))
from bench_utils import profile_with_l2flush

mounts = load_converted(Path(sys.argv[2]))
dev = "cuda"
P = lambda *a: print(*a, flush=True)

def host_us(fn, n=200):
    for _ in range(10): fn()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): fn()
    dt = (time.perf_counter() - t) / n * 1e6; torch.cuda.synchronize(); return dt

def launch_offset(fn, n=20):
    from torch.profiler import profile, ProfilerActivity, record_function
    for _ in range(5): fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            with record_function("OP"): fn()
        torch.cuda.synchronize()
    ev = prof.events()
    ops = [e for e in ev if e.name == "OP"]
    launches = [e for e in ev if "aunch" in e.name and e.device_type.name == "CPU"]
    offs, durs, names = [], [], set()
    for o in ops:
        s, e = o.time_range.start, o.time_range.end
        inl = [l for l in launches if s <= l.time_range.start <= e]
        durs.append(e - s)
        if inl:
            offs.append(inl[0].time_range.start - s); names.update(l.name for l in inl)
    med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
    return med(offs), med(durs), sorted(names)

def hostprof(fn, n=200):
    for _ in range(10): fn()
    pr = cProfile.Profile(); pr.enable()
    for _ in range(n): fn()
    pr.disable(); torch.cuda.synchronize()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
    P("\n".join(l for l in s.getvalue().splitlines()[6:] if l.strip()))

def ops():
    a = torch.randn(2, 1024, 1024, dtype=torch.float16, device=dev); b = torch.randn_like(a)
    yield "bmm 2x1024^3", lambda be: (lambda: tilegym.ops.bmm(a, b, backend=be))
    m1 = torch.randn(1024, 1024, dtype=torch.float16, device=dev); m2 = torch.randn_like(m1)
    yield "matmul 1024^3", lambda be: (lambda: tilegym.ops.matmul(m1, m2, backend=be))
    q = torch.randn(2, 8, 512, 256, dtype=torch.bfloat16, device=dev)
    kk = torch.randn(2, 1, 512, 256, dtype=torch.bfloat16, device=dev); v = torch.randn_like(kk)
    yield "gemma 512", lambda be: (lambda: tilegym.ops.gemma_attention(q, kk, v, scaling=1 / 16, soft_cap=50.0, is_causal=True, backend=be))
    x = torch.randn(30000, 256, dtype=torch.bfloat16, device=dev); w = torch.randn(256, dtype=torch.bfloat16, device=dev); bi = torch.randn_like(w)
    yield "layernorm 30000x256", lambda be: (lambda: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(256,), weight=w, bias=bi, eps=1e-6, backend=be))
    s = torch.randn(4096, 1024, dtype=torch.bfloat16, device=dev)
    yield "softmax 4096x1024", lambda be: (lambda: tilegym.ops.softmax(s, use_tma=False, use_chunked=False, use_multi_wave=False, backend=be))

def part1():
    for name, mk in ops():
        for be in ("c2t_triton", "cutile"):
            try:
                fn = mk(be); fn(); torch.cuda.synchronize()
                db = triton.testing.do_bench(fn) * 1000
                h = host_us(fn)
                off, dur, names = launch_offset(fn)
                P(f"{name:22s} {be:10s} do_bench {db:7.1f} us | host/call {h:6.1f} us | launch at {off:6.1f} of {dur:6.1f} us {names}")
            except Exception as e:
                P(f"{name} {be}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
        try:
            P(f"--- cProfile {name} c2t_triton (200 calls, tottime)"); hostprof(mk("c2t_triton"))
        except Exception as e:
            P(f"cprofile failed: {e}")

_ARG = r"((?:[^,()]|\([^()]*\))+)"  # a range argument, with at most one level of parentheses
GRID_STRIDE = re.compile(rf"for (\w+) in (?:tl\.)?range\({_ARG}, {_ARG}, {_ARG}"
                         r"(?:, num_stages=C2T_PREFETCH_STAGES)?\):")

def set_stages(mods, S):
    n = 0
    for m in mods:
        for k in vars(m).values():
            if isinstance(k, triton.runtime.jit.JITFunction):
                if not hasattr(k, "_c2t_orig_src"):
                    k._c2t_orig_src = k.src
                src = k._c2t_orig_src
                if S is not None:
                    # (loops from 0 are column loops, not grid-stride; the 2026-11-29 run patched those of
                    # the legacy layer norm too, whose kernel it did not time)
                    src, c = GRID_STRIDE.subn(lambda mm: mm[0] if mm[2].strip() == "0" else
                                              f"for {mm[1]} in tl.range({mm[2]}, {mm[3]}, {mm[4]}, num_stages={S}):", src)
                    n += c
                else:  # a plain range, as before the converter marked these loops
                    src = GRID_STRIDE.sub(lambda mm: f"for {mm[1]} in range({mm[2]}, {mm[3]}, {mm[4]}):", src)
                k._unsafe_update_src(src); k.device_caches.clear()
    return n

def part2():
    mods = [sys.modules[m] for m in mounts.loaded if m.rsplit(".", 1)[-1] in ("softmax", "rms_norm", "layer_norm_legacy") and ".ops." in m]
    P("modules", [m.__name__ for m in mods])
    cases = []
    for dt in (torch.bfloat16, torch.float32):
        for N in (1024, 16384):
            x = torch.randn(4096, N, dtype=dt, device=dev)
            for tma, ch in ((False, False), (True, False), (False, True)):
                cases.append((f"softmax {str(dt)[6:]} N={N} tma={tma} chunked={ch}",
                              lambda be, x=x, tma=tma, ch=ch: tilegym.ops.softmax(x, use_tma=tma, use_chunked=ch, use_multi_wave=False, backend=be),
                              lambda x=x: torch.softmax(x.float(), -1).to(x.dtype), 1e-2))
    for dt in (torch.float16, torch.bfloat16):
        for N in (1024, 16384):
            x = torch.rand(4096, N, dtype=dt, device=dev).mul_(0.5).add_(-2.3); w = torch.randn(N, dtype=dt, device=dev)
            cases.append((f"rmsnorm static_persistent {str(dt)[6:]} N={N}",
                          lambda be, x=x, w=w, N=N: tilegym.ops.rms_norm(x, (N,), w, 1e-5, mode="static_persistent", backend=be),
                          lambda x=x, w=w, N=N: torch.nn.functional.rms_norm(x.float(), (N,), w.float(), 1e-5).to(x.dtype), 5e-2))
    for M, N in ((30000, 256), (128000, 256), (30000, 16384)):
        x = torch.randn(M, N, dtype=torch.bfloat16, device=dev); w = torch.randn(N, dtype=torch.bfloat16, device=dev); bi = torch.randn_like(w)
        cases.append((f"layernorm persistent {M}x{N}",
                      lambda be, x=x, w=w, bi=bi, N=N: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(N,), weight=w, bias=bi, eps=1e-6, backend=be)[0],
                      lambda x=x, w=w, bi=bi, N=N: torch.nn.functional.layer_norm(x.float(), (N,), w.float(), bi.float(), 1e-6).to(x.dtype), 5e-2))
    res = {}
    for S in (None, 2, 3, 4):
        n = set_stages(mods, S)
        P(f"== num_stages={S}: {n} grid-stride loops patched")
        for name, f, ref, tol in cases:
            try:
                out = f("c2t_triton"); torch.testing.assert_close(out, ref(), atol=tol, rtol=tol)
                us = profile_with_l2flush(lambda: f("c2t_triton"), warmup=5, rep=30) * 1000
                res.setdefault(name, {})[S] = us
            except Exception as e:
                res.setdefault(name, {})[S] = f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
    set_stages(mods, None)
    for name, f, ref, tol in cases:
        try:
            res[name]["cutile"] = profile_with_l2flush(lambda: f("cutile"), warmup=5, rep=30) * 1000
        except Exception as e:
            res[name]["cutile"] = type(e).__name__
    fmt = lambda v: f"{v:8.1f}" if isinstance(v, float) else f"{str(v)[:40]:>8s}"
    P(f"{'case (kernel us, profile_with_l2flush)':45s} {'range':>8s} {'S=2':>8s} {'S=3':>8s} {'S=4':>8s} {'cutile':>8s}")
    for name, r in res.items():
        P(f"{name:45s} " + " ".join(fmt(r.get(k, '-')) for k in (None, 2, 3, 4, "cutile")))

if __name__ == "__main__":
    which = sys.argv[3] if len(sys.argv) > 3 else "12"
    if "1" in which: part1()
    if "2" in which: part2()
