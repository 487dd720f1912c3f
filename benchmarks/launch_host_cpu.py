"""Host time of a converted kernel's reused launch, measured on the CPU (no GPU needed).

The launch stack of examples/layer_norm.py (6 arrays, a float, a constexpr) as converted, with
Triton's driver and JITFunction faked as in tests/test_fast_launch.py; the native launch runs in
its capture mode (checks and packs every argument, does not call the driver). Prints µs per call
for each layer, outermost first, best of 5 rounds of 20,000 calls:
  launcher     launch_layer_norm_kernel(grid, x, ...): extents and strides, options, run_kernel
  c2t_launch   the same through a re-hinted kernel object (ct.launch of kernel.replace_hints(...))
  run_kernel   _c2t_run_kernel(kernel, grid, *expanded arguments, **options): the reuse checks
  native       the native check and packing alone
Where the GPU machine's numbers are (BENCHMARKS.md, "Host time per call"), this gives the same
layers' relative cost without one, to compare two versions of the runtime.

  PYTHONPATH=src:tests python3 benchmarks/launch_host_cpu.py   (cutile2triton importable, with _core)
"""
from __future__ import annotations

import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from c2t_interp import convert, load  # noqa: E402  (sets TRITON_INTERPRET=1 before torch/triton)

import torch  # noqa: E402
import triton  # noqa: E402
import types  # noqa: E402

from test_fast_launch import NativeCompiled, TritonSpecJIT, fast_launch  # noqa: E402
from test_launch_reuse import STREAM  # noqa: E402


def best_us(fn, calls=20000, rounds=5):
    """Host µs per fn() call: the best of `rounds` timings of `calls` calls (timeit)."""
    return min(timeit.repeat(fn, number=calls, repeat=rounds)) / calls * 1e6


def main():
    code = convert((ROOT / "examples" / "layer_norm.py").read_text(), filename="layer_norm.py")
    triton.runtime.driver = types.SimpleNamespace(active=types.SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: STREAM))
    m = load(code, Path(tempfile.mkdtemp()), "ln_host")
    k = m.layer_norm_kernel = TritonSpecJIT(m.layer_norm_kernel)
    k.compiled_type = NativeCompiled
    captured = []

    def plan(compiled, specialization, bound, nargs):
        made = fast_launch.plan(compiled, specialization, bound, nargs)
        if made is None:
            return None
        launch = made[0]

        def capture(p, gx, gy, gz, stream, args, _capture=None, expand=None):
            if len(captured) > 1000:
                captured.clear()
            return launch(p, gx, gy, gz, stream, args, captured, expand)

        return capture, made[1]

    m._c2t_fast_plan = plan
    rows, n = 4, 96
    x, w, b = torch.randn(rows, n), torch.randn(n), torch.randn(n)
    out, mean, rstd = torch.empty(rows, n), torch.empty(rows), torch.empty(rows)
    args = (x, w, b, out, mean, rstd, 1e-5, 32)
    for _ in range(3):  # Triton (interpreted kernel), reused, then native
        m.launch_layer_norm_kernel((rows,), *args)
    assert k._c2t_fast is not None and captured, "the third launch should be native"
    torch.testing.assert_close(out, torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5), atol=1e-4, rtol=1e-4)

    k._c2t_launcher = m.launch_layer_norm_kernel  # what the converted module sets on the real kernel
    grid = (rows,)
    layers = {"launcher": lambda: m.launch_layer_norm_kernel(grid, *args)}
    if hasattr(m, "_c2t_kernel"):  # the runtime has what a module uses: kernel objects only if it re-hints
        hinted = m._c2t_kernel(k).replace_hints(num_worker_warps=k._c2t_fast[2]["num_warps"])  # same options
        layers["c2t_launch"] = lambda: m._c2t_launch(grid, hinted, *args)
    expanded = (x, *x.shape, *x.stride(), w, *w.shape, *w.stride(), b, *b.shape, *b.stride(),
                out, *out.shape, *out.stride(), mean, *mean.shape, *mean.stride(), rstd, *rstd.shape,
                *rstd.stride(), 1e-5, 32)
    opts = dict(k._c2t_fast[2])
    layers["run_kernel"] = lambda: m._c2t_run_kernel(k, grid, *expanded, **opts)
    native, plan_ = k._c2t_fast[7], k._c2t_fast[8]
    layers["native"] = lambda: native(plan_, rows, 1, 1, STREAM, expanded)
    before = len(k.jit_launches), len(k.reused)
    for name, fn in layers.items():
        print(f"{name:12s} {best_us(fn):7.2f} us/call", flush=True)
    assert (len(k.jit_launches), len(k.reused)) == before, "every timed launch should have been native"


if __name__ == "__main__":
    main()
