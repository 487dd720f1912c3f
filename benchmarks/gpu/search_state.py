"""After each host-bound TileGym op's tuning search (host_layers.ops(): bmm 2x1024^3, matmul 1024^3, gemma
512, layernorms, softmax): per backend the host µs per call and do_bench's median (three times), and for
the converted op whether its kernels launch natively (kernel._c2t_fast set), the launch options (stages, warps) the search kept
(_c2t_tuned_options) and that no search left its probe on (_c2t_stage_probe). BENCHMARKS.md, "Pipeline
stages in the tuning search".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 search_state.py TILEGYM CONVERTED"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_us, mods, ops  # noqa: E402  (mounts the converted tree)
import torch, triton.testing  # noqa: E402


def state():
    out = []
    for m in mods:
        tuned = getattr(m, "_c2t_tuned_options", {})
        if getattr(m, "_c2t_stage_probe", None) is not None:
            out.append(f"{m.__name__.split('.')[-1]}: PROBE LEFT ON")
        for name, obj in vars(m).items():
            if hasattr(obj, "_c2t_launcher") and hasattr(obj, "device_caches") and obj.device_caches:
                st = tuned.get(obj)
                out.append(f"{name}: native={'_c2t_fast' in obj.__dict__}"
                           + (f" tuned={sorted({str(v) for v in st.values()})}" if st else ""))
    return "; ".join(out)


for name, op in ops():
    for be in ("c2t_triton", "cutile"):
        try:
            op(be); torch.cuda.synchronize()
            host = host_us(lambda: op(be))
            med = [triton.testing.do_bench(lambda: op(be), return_mode="median") * 1000 for _ in range(3)]
            P(f"{name:26s} {be:10s} host {host:6.1f} us/call | do_bench median {' '.join(f'{v:6.1f}' for v in med)} us")
        except Exception as e:  # noqa: BLE001
            P(f"{name:26s} {be:10s} error {type(e).__name__}: {str(e)[:100]}")
    P("   converted kernels launched so far: " + state())
