"""Where the host time of TileGym's group_gemm goes when its fp8 B (K x N) is copied K-major at 4 x 1024^3
(BENCHMARKS.md, "fp8 operands made K-major by the runtime's own copy"): host µs per call (300 calls back to
back, then one synchronization) of the op with the copies forced (_C2T_K_MAJOR_MIN_ELEMENTS = 0), of the
runtime's _c2t_k_major and _c2t_k_major_copies alone and of their parts (the buffer, the views, the two list
tables, the per-array test), of the op without copies, and of the op given copies made beforehand; and how
many of the op's list lookups the native path answered.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 k_major_host.py TILEGYM CONVERTED
(as scripts_on_device.sh runs it)"""
import functools
import sys
import tempfile
from pathlib import Path

import torch

from script_util import host_us, load_module

P = functools.partial(print, flush=True)
FP8 = torch.float8_e5m2
host_us = functools.partial(host_us, warmup=10)  # the probe warmed up 10 calls


def load(converted):
    text = (Path(converted) / "ops/triton/group_gemm.py").read_text()
    return load_module("gg_host", text.replace('@register_impl("group_gemm", backend="triton")\n', ""),
                       tempfile.mkdtemp())


def main():
    mod = load(sys.argv[2])
    mod._C2T_K_MAJOR_MIN_ELEMENTS = 0  # the copies at 1024^2 too
    mk = lambda *s: torch.randn(s, device="cuda", dtype=torch.float16).mul(0.3).to(FP8)  # noqa: E731
    a = [mk(1024, 1024) for _ in range(4)]
    b = [mk(1024, 1024) for _ in range(4)]
    op = lambda: mod.group_gemm(a, b, transpose_b=False)  # noqa: E731
    op()
    native = mod._c2t_list_native
    hit = native[0]
    if hit is not None:
        answered = [0, 0]

        def counted(*args):
            r = hit(*args)
            answered[r is None] += 1
            return r

        native[0] = counted
        for _ in range(50):
            op()
        torch.cuda.synchronize()
        native[0] = hit
        P(f"native list lookups in 50 calls: {answered[0]} answered, {answered[1]} left to the Python path")
    dst = mod._c2t_k_major_copies(b, 0, 1)
    P(f"host us/call: op with the copies {host_us(op):.1f}")
    P(f"  _c2t_k_major(b) {host_us(lambda: mod._c2t_k_major(b, (0, 1, a, 0))):.1f}")
    P(f"  _c2t_k_major_copies(b) {host_us(lambda: mod._c2t_k_major_copies(b, 0, 1)):.1f}")
    P(f"    torch.empty 4 MB {host_us(lambda: torch.empty(4 << 20, dtype=FP8, device='cuda')):.1f}")
    P(f"    4 as_strided {host_us(lambda: [dst[0].as_strided((1024, 1024), (1, 1024), 0) for _ in range(4)]):.1f}")
    P(f"    _c2t_array_list(copies) {host_us(lambda: mod._c2t_array_list('x', dst, 2, False)):.1f}")
    P(f"    _c2t_array_list(b) {host_us(lambda: mod._c2t_array_list('x', b, 2, False)):.1f}")
    P(f"    _c2t_k_major_wanted x4 {host_us(lambda: [mod._c2t_k_major_wanted(t, 0, 1) for t in b]):.1f}")
    mod._C2T_K_MAJOR_MIN_ELEMENTS = 1 << 62
    P(f"op without copies {host_us(op):.1f}")
    k_major = mod._c2t_k_major
    mod._c2t_k_major = lambda x, *layouts: dst if x is b else x
    P(f"op given the copies (none made) {host_us(op):.1f}")
    mod._c2t_k_major = k_major


if __name__ == "__main__":
    main()
