"""Where a converted op's host time goes, measured in place (BENCHMARKS.md, "Host launch path").

Every layer of the launch path (and cuTile's ct.launch, torch.cuda.current_stream and
get_device_properties, which TileGym's host code calls) is wrapped with a timer; 300 back-to-back calls
of each op (small shapes, where triton.testing.do_bench measures the host) give each layer's inclusive
host time per call (each wrapper adds about 1 us). Also prints do_bench and the op's unwrapped host time.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_insitu.py TILEGYM CONVERTED
(TILEGYM/CONVERTED/PLUGIN as in tilegym_bench_on_device.sh; run it in cutile_env.sh's environment for
the cuTile rows.) Results of 2026-11-29: benchmarks/results/host-layers-h200-2026-11-29-s12.txt."""
import collections, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The converted tree mounted, the ops and the host timer: host_layers.py's (same arguments).
from host_layers import P, host_us, mods, ops  # noqa: E402
import torch, triton  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402
from triton.backends.nvidia.driver import CudaLauncher  # noqa: E402

acc = collections.Counter()
def timed(name, f):
    def w(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            acc[name] += time.perf_counter() - t
    w._c2t_timed = f
    return w

saved = []
def setattr_s(obj, name, val):
    saved.append((obj, name, getattr(obj, name))); setattr(obj, name, val)
def restore():
    while saved:
        o, n, v = saved.pop(); setattr(o, n, v)

def instrument():
    setattr_s(JITFunction, "run", timed("4 jit.run", JITFunction.run))
    setattr_s(CudaLauncher, "__call__", timed("5 c-launch", CudaLauncher.__call__))
    for m in mods:
        for n, v in list(vars(m).items()):
            if n.startswith("launch__") and callable(v):
                setattr_s(m, n, timed("2 launcher", v))
            elif n == "_c2t_run_kernel":
                setattr_s(m, n, timed("3 run_kernel", v))
            elif isinstance(v, JITFunction) and hasattr(v, "_c2t_launcher"):
                setattr_s(v, "_c2t_launcher", timed("2 launcher", v._c2t_launcher))
            elif n in ("_c2t_launch", "_c2t_on_stream"):
                setattr_s(m, n, timed("1 " + n, v))
            elif n == "_c2t_compiled_slot":
                setattr_s(m, n, timed("3 " + n, v))
    try:
        import cuda.tile as ct
        setattr_s(ct, "launch", timed("2 ct.launch", ct.launch))
    except ImportError:
        pass
    setattr_s(torch.cuda, "get_device_properties", timed("x get_device_properties", torch.cuda.get_device_properties))
    setattr_s(torch.cuda, "current_stream", timed("x current_stream", torch.cuda.current_stream))

def breakdown(op, be, n=300):
    for _ in range(10): op(be)
    torch.cuda.synchronize()
    acc.clear()
    t = time.perf_counter()
    for _ in range(n): op(be)
    total = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return total, {k: v / n * 1e6 for k, v in sorted(acc.items())}

if __name__ == "__main__":
    for name, op in ops():
        res = {}
        for be in ("c2t_triton", "cutile"):
            try:
                out0 = op(be); torch.cuda.synchronize()
                h = host_us(lambda: op(be)); db = triton.testing.do_bench(lambda: op(be)) * 1000
                instrument()
                try:
                    tot, br = breakdown(op, be)
                finally:
                    restore()
                P(f"{name:26s} {be:10s} do_bench {db:6.1f} | op {h:6.1f} | instrumented {tot:6.1f} | " +
                  " | ".join(f"{k} {v:5.1f}" for k, v in br.items()))
            except Exception as e:
                import traceback; traceback.print_exc()
                P(f"{name} {be}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
