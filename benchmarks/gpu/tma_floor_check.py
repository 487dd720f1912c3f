"""Whether TMA descriptors should be searched for short kernels now that tuned launches reuse their
compiled kernel (cpp/host/runtime_launch.cpp, _c2t_run_compiled): TileGym's bmm (ops/cutile/bmm.py
converted, as bench_bmm.py calls it) searched with the descriptor floor _C2T_TMA_MIN_US at FLOOR
microseconds (the runtime's default 100; 0 times descriptors for every config that allows them).
Per shape: the options the search kept, the op's do_bench median (host time included, as TileGym's
bench files time it), its device time (do_bench_cudagraph), host time per call (300 back-to-back
calls), and cuTile's op for scale. Run once per floor, each in its own process (a search's choices
last for the process). BENCHMARKS.md, "Tuned launches reused".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 tma_floor_check.py TILEGYM CONVERTED FLOOR [BxS ...]"""
import contextlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted, host_us  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

bmm = converted("bmm")
bmm._C2T_TMA_MIN_US = float(sys.argv[3])
shapes = [tuple(int(v) for v in s.split("x")) for s in sys.argv[4:]] or [(2, 1024), (8, 1024), (2, 2048), (2, 4096)]
torch.manual_seed(0)
P(f"descriptor floor {bmm._C2T_TMA_MIN_US:g} us")
for batch, S in shapes:
    a = torch.randn((batch, S, S), device="cuda", dtype=torch.float16)
    b = torch.randn((batch, S, S), device="cuda", dtype=torch.float16)
    tf = lambda ms: 2 * batch * S ** 3 * 1e-12 / (ms * 1e-3)
    with contextlib.redirect_stdout(io.StringIO()):
        c = bmm.bmm(a, b)
    torch.cuda.synchronize()
    err = ((c.float() - torch.bmm(a.float(), b.float())).abs().max()).item()
    row = {}
    for name, op in (("converted", lambda: bmm.bmm(a, b)),
                     ("cuTile", lambda: tilegym.ops.bmm(a, b, backend="cutile"))):
        try:
            row[name] = (tf(triton.testing.do_bench(op, return_mode="median")),
                         tf(triton.testing.do_bench_cudagraph(op, return_mode="median")), host_us(op))
        except Exception:  # noqa: BLE001  (no cuTile on this machine)
            row[name] = (float("nan"),) * 3
    (cd, cg, ch), (ud, ug, uh) = row["converted"], row["cuTile"]
    P(f"{batch}x{S}^3 fp16: do_bench {cd:5.0f} vs cuTile {ud:5.0f} TFLOPS ({cd / ud:.2f}x); device {cg:5.0f} vs "
      f"{ug:5.0f}; host {ch:5.1f} vs {uh:5.1f} us/call; max abs err {err:.2e}")
    tuned = {getattr(k, "__name__", str(k)): list(v.values()) for k, v in getattr(bmm, "_c2t_tuned_options", {}).items()}
    P(f"    tuned: {tuned}")
