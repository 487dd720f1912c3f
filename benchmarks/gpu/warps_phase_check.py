"""Traces the converted tuning search's launch-option phases (stages, then warps) on TileGym's matmul
converted, fp8 e5m2 and fp16 at 4096^3, with the search space held to one CTA-cluster config
(256x256x64 over 2 CTAs, whose shares are 256x128x64 and 128x256x64): every timed launch's
num_stages / num_warps (and whether the warps were the launcher's rule), every exception the
search swallowed, and every device time. BENCHMARKS.md, "The warps phase on the GPU".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 warps_phase_check.py TILEGYM CONVERTED [SIZE]"""
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted  # noqa: E402  (mounts the converted tree)
import torch  # noqa: E402

mm = converted("matmul")
jit, device_ms, run_kernel = mm._c2t_run_kernel_jit, mm._c2t_device_ms, mm._c2t_run_kernel


def traced_jit(kernel, grid, args, kwargs, *a, **k):
    w = kwargs.get("num_warps")
    tag = f"warps {w!r} ({type(w).__name__}) stages {kwargs.get('num_stages')!r}"
    try:
        out = jit(kernel, grid, args, kwargs, *a, **k)
    except Exception as e:
        P(f"    launch {tag}: raised {type(e).__name__}: {str(e)[:200]}")
        raise
    P(f"    launch {tag}: ok")
    return out


def traced_run_kernel(kernel, grid, *args, **kwargs):
    probes = mm._c2t_stage_probe
    probe = probes.get(mm._c2t_threading.get_ident()) if probes else None
    if probe is not None:
        P(f"  probe options {probe.options} warps-before {sorted(map(repr, probe.warps))} kwargs-warps "
          f"{kwargs.get('num_warps')!r} rule {mm._c2t_is_rule_warps(kwargs.get('num_warps'))}")
    return run_kernel(kernel, grid, *args, **kwargs)


def traced_ms(fn):
    ms = device_ms(fn)
    P(f"    device {ms * 1000:.1f} us")
    return ms


mm._c2t_run_kernel_jit, mm._c2t_device_ms, mm._c2t_run_kernel = traced_jit, traced_ms, traced_run_kernel
mm._matmul_autotune_configs = lambda: [SimpleNamespace(TILE_SIZE_M=256, TILE_SIZE_N=256, TILE_SIZE_K=64,
                                                       num_ctas=2, occupancy=1)]
S = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
torch.manual_seed(0)
for dtype in (torch.float8_e5m2, torch.float16):
    a = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
    b = torch.randn((S, S), device="cuda", dtype=torch.float16).to(dtype)
    P(f"== {dtype} {S}^3")
    mm.matmul(a, b, use_tma=True, static_persistent=False)
    P(f"  tuned: {[(getattr(k, '__name__', k), list(v.values())) for k, v in mm._c2t_tuned_options.items()]}")
