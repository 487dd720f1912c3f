"""Where a converted op's host time goes at the small shapes TileGym's do_bench files time, next to
cuTile's op (BENCHMARKS.md, "Host time per call"). Per op: triton.testing.do_bench's median and mean
(what bench_*.py report; events around each call, so they hold the host's launch time whenever the
host is slower than the kernel), host µs per call (300 calls back to back, no synchronization), with
Python's garbage collector on and off, how many of 200 calls went through Triton's JITFunction.run
instead of the reused compiled kernel, and the 18 functions with the most own time (cProfile) over
2000 calls.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_profile.py TILEGYM CONVERTED [NAME...]
(NAME: only the ops whose name contains one of them, e.g. group_gemm.)"""
import cProfile, gc, io, pstats, sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_bound_ops, host_us, mods  # noqa: E402  (mounts the converted tree)
import torch, triton, triton.testing  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402



def jit_runs(fn, n=200):
    count = [0]
    orig = JITFunction.run

    def run(self, *a, **k):
        count[0] += 1
        return orig(self, *a, **k)

    JITFunction.run = run
    try:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    finally:
        JITFunction.run = orig
    return count[0]


def top(fn, n=2000, rows=18):
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(rows)
    return "\n".join(line for line in s.getvalue().splitlines() if line.strip())


only = sys.argv[3:]
for name, op in host_bound_ops(transpose_b=True, group_gemm=True):
    if only and not any(o in name for o in only):
        continue
    for be in ("c2t_triton", "cutile"):
        try:
            f = lambda: op(be)
            f(); torch.cuda.synchronize()
            med = triton.testing.do_bench(f, return_mode="median") * 1000
            mean = triton.testing.do_bench(f) * 1000
            host = host_us(f)
            gc.disable()
            try:
                host_nogc = host_us(f)
                med_nogc = triton.testing.do_bench(f, return_mode="median") * 1000
            finally:
                gc.enable()
            P(f"{name:26s} {be:10s} do_bench median {med:6.1f} mean {mean:6.1f} (gc off: median {med_nogc:6.1f}) | "
              f"host us/call {host:6.1f} (gc off {host_nogc:6.1f}) | JITFunction.run in 200 calls: {jit_runs(f)}")
            if be == "c2t_triton":
                P(top(f))
        except Exception as e:
            P(f"{name} {be}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
P(f"gc thresholds {gc.get_threshold()}, objects tracked {len(gc.get_objects())}")
