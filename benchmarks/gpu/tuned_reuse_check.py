"""Host time of a launch whose kernel a tuning search gave non-default options (TileGym's bmm; the
search's timing is biased so that it keeps num_stages=4: left alone it keeps 4 stages at 8 x 1024^3
in some runs and the defaults in others), where it goes, and the same launches under an older converter's
runtime: per call, how often each runtime function ran (counted over 100 calls), a cProfile of 300
calls (top functions by own time), and host time per call (300 back-to-back calls) under this
converter's runtime (B) and OLD's (A, a module file an older converter generated from
ops/cutile/bmm.py), interleaved A B A B A B; then the op's do_bench median next to cuTile's. BENCHMARKS.md, "Tuned launches reused".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 tuned_reuse_check.py TILEGYM CONVERTED OLD [BxS ...]"""
import ast
import contextlib
import io
import statistics
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted, host_us, profile_text  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

bmm = converted("bmm")
device_ms = bmm._c2t_device_ms


def biased(fn):  # a config timed at num_stages=4 (the probe's options) reads as twice as fast
    probe = (bmm._c2t_stage_probe or {}).get(threading.get_ident())
    return device_ms(fn) * (0.5 if (getattr(probe, "options", None) or {}).get("num_stages") == 4 else 1.0)


bmm._c2t_device_ms = biased
RUNTIME = ("_c2t_compiled_slot", "_c2t_run_compiled", "_c2t_tuned_kwargs", "_c2t_launch_entry", "_c2t_run_kernel",
           "_c2t_run_native", "_c2t_run_kernel_jit", "_c2t_launch", "_c2t_on_stream", "_c2t_launch_options")


def functions(path):
    """The runtime's launch functions and the kernels' launchers (launch_<kernel>) of a module file
    (as host_ab.py, which runs its comparison on import)."""
    src = Path(path).read_text()
    return {n.name: ast.get_source_segment(src, n) for n in ast.parse(src).body
            if isinstance(n, ast.FunctionDef) and (n.name in RUNTIME or n.name.startswith("launch_"))}


COUNTED = ("_c2t_run_kernel", "_c2t_run_native", "_c2t_run_compiled", "_c2t_compiled_slot", "_c2t_tuned_kwargs",
           "_c2t_run_kernel_jit", "_c2t_launch_entry", "_c2t_stages_key")
new = functions(bmm.__file__)
old = functions(sys.argv[3])
shapes = [tuple(int(v) for v in s.split("x")) for s in sys.argv[4:]] or [(8, 1024), (2, 1024)]


def use(funcs):
    for v in list(vars(bmm).values()):
        for memo in ("_c2t_compiled", "_c2t_fast", "_c2t_fast_shapes"):
            if memo in getattr(v, "__dict__", {}):
                delattr(v, memo)
    for name, text in funcs.items():
        exec(text, vars(bmm))
        kernel = vars(bmm).get(name[len("launch_"):]) if name.startswith("launch_") else None
        if kernel is not None and hasattr(kernel, "_c2t_launcher"):
            kernel._c2t_launcher = vars(bmm)[name]


for batch, S in shapes:
    a = torch.randn((batch, S, S), device="cuda", dtype=torch.float16)
    b = torch.randn((batch, S, S), device="cuda", dtype=torch.float16)
    op = lambda: bmm.bmm(a, b)
    with contextlib.redirect_stdout(io.StringIO()):
        op()
    torch.cuda.synchronize()
    tuned = {getattr(k, "__name__", str(k)): list(v.values()) for k, v in bmm._c2t_tuned_options.items()}
    P(f"== {batch}x{S}^3 fp16; tuned: {tuned}")
    counts = dict.fromkeys(COUNTED, 0)
    real = {n: vars(bmm)[n] for n in COUNTED if n in vars(bmm)}

    def counting(n, f):
        def w(*a, **k):
            counts[n] += 1
            return f(*a, **k)
        return w

    for _ in range(3):
        op()
    vars(bmm).update({n: counting(n, f) for n, f in real.items()})
    for _ in range(100):
        op()
    vars(bmm).update(real)
    P("  calls per op call: " + ", ".join(f"{n} {c / 100:g}" for n, c in counts.items() if n in real))
    P("\n".join("  " + l for l in profile_text(op, 300, 14).splitlines())[:3500])
    host = {"A": [], "B": []}
    for _ in range(3):
        for version, funcs in (("A", old), ("B", new)):
            use(funcs)
            op()
            torch.cuda.synchronize()
            host[version].append(host_us(op))
    use(new)
    P(f"  host us/call: A (old) {statistics.median(host['A']):.1f} {['%.1f' % x for x in host['A']]}, "
      f"B (this) {statistics.median(host['B']):.1f} {['%.1f' % x for x in host['B']]}")
    tf = lambda ms: 2 * batch * S ** 3 * 1e-12 / (ms * 1e-3)
    conv = tf(triton.testing.do_bench(op, return_mode="median"))
    try:
        cut = tf(triton.testing.do_bench(lambda: tilegym.ops.bmm(a, b, backend="cutile"), return_mode="median"))
    except Exception:  # noqa: BLE001  (no cuTile on this machine)
        cut = float("nan")
    P(f"  do_bench median (host time included, as bench_bmm.py): B {conv:.0f} TFLOPS, cuTile {cut:.0f} ({conv / cut:.2f}x)")
