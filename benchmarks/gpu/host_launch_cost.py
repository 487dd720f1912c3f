"""Host-side cost of launching TileGym ops on a GPU machine: the converted op vs cuTile (BENCHMARKS.md,
"Launch options", host launch cost). Per-call wall time of back-to-back calls without synchronization
(the number triton.testing.do_bench reports when the host is slower than the kernel), plus the pieces:
a raw Triton launch of a 1-argument and of the converted 35-argument bmm kernel, torch.empty and
torch.cuda.get_device_properties.

  PYTHONPATH=TILEGYM/src:PLUGIN python3 host_launch_cost.py TILEGYM CONVERTED
(TILEGYM/CONVERTED as in tilegym_bench_on_device.sh; cuTile installed for the cutile column.)
"""

import os
import sys
from pathlib import Path

os.environ["DISABLE_FALLBACK"] = "1"
import tilegym  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
from cutile2triton.pytest_tilegym import load_converted  # noqa: E402
from script_util import host_us  # noqa: E402


@triton.jit
def _one_arg(x):
    pass


def main() -> int:
    mounts = load_converted(Path(sys.argv[2]))
    bm = [sys.modules[m] for m in mounts.loaded if m.endswith(".bmm")][0]
    dev = "cuda"
    a = torch.randn(2, 1024, 1024, dtype=torch.float16, device=dev)
    b, c = torch.randn_like(a), torch.empty_like(a)
    for be in ("c2t_triton", "cutile"):
        print(f"bmm op {be}: {host_us(lambda: tilegym.ops.bmm(a, b, backend=be)):.1f} us/call", flush=True)
    k = bm._static_persistent_bmm_kernel
    args = (a, *a.shape, *a.stride(), 3, b, *b.shape, *b.stride(), 3, c, *c.shape, *c.stride(), 2, 1024, 1024,
            1024, 128, 128, 64, 8, False, False)
    print(f"raw Triton launch, bmm kernel ({len(args)} args): "
          f"{host_us(lambda: k[(132,)](*args, USE_TMA=False, num_warps=4)):.1f} us/call")
    print(f"raw Triton launch, 1 argument: {host_us(lambda: _one_arg[(1,)](a)):.1f} us/call")
    print(f"torch.empty: {host_us(lambda: torch.empty((2, 1024, 1024), device=dev, dtype=torch.float16)):.1f} us/call")
    print(f"get_device_properties: {host_us(lambda: torch.cuda.get_device_properties(dev).multi_processor_count):.1f} us")
    q = torch.randn(2, 8, 512, 256, dtype=torch.bfloat16, device=dev)
    kk = torch.randn(2, 1, 512, 256, dtype=torch.bfloat16, device=dev)
    v = torch.randn_like(kk)
    for be in ("c2t_triton", "cutile"):
        t = host_us(lambda: tilegym.ops.gemma_attention(q, kk, v, scaling=1 / 16, soft_cap=50.0, is_causal=True, backend=be))
        print(f"gemma attention op {be}: {t:.1f} us/call", flush=True)
    x = torch.randn(30000, 256, dtype=torch.bfloat16, device=dev)
    w = torch.randn(256, dtype=torch.bfloat16, device=dev)
    bias = torch.randn_like(w)
    for be in ("c2t_triton", "cutile", "triton"):
        t = host_us(lambda: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(256,), weight=w, bias=bias,
                                                              eps=1e-6, backend=be))
        print(f"persistent layernorm op {be}: {t:.1f} us/call", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
