"""What a K-major copy of a list of fp8 operands costs, per element or in one call (BENCHMARKS.md, s27).

group_gemm fp8 with B not transposed (K x N, N contiguous) runs its kernel ~2.5x longer than with B
K-major at 4 x 1024^3 (s26: 54 vs 22 us), and the runtime's copy (`_c2t_k_major`, one
`movedim().contiguous()` per element) is held to 2^22 elements per operand because at 1024^2 the copies'
launches cost more host time than the kernel saves (s25). This times, for G groups of K x N fp8 e5m2
arrays, host microseconds per call (back to back, no synchronization) and device microseconds (CUDA graph
replays, triton.testing.do_bench_cudagraph) of:
  per-element   [b.movedim(0, -1).contiguous().movedim(-1, 0) for b in Bs]   (the runtime's copy)
  stacked       torch.stack([b.movedim(0, -1) for b in Bs]) then its G views   (one launch for the list)

  python3 k_major_list_copy.py TILEGYM CONVERTED   (as scripts_on_device.sh runs it; the arguments are unused)
"""
import torch
import triton.testing

from script_util import host_us


def main():
    for groups in (4, 16):
        for k, n in ((1024, 1024), (4096, 4096)):
            bs = [torch.randn(k, n, device="cuda").to(torch.float8_e5m2) for _ in range(groups)]
            per = lambda: [b.movedim(0, -1).contiguous().movedim(-1, 0) for b in bs]
            stacked = lambda: list(torch.stack([b.movedim(0, -1) for b in bs]).movedim(-1, 1).unbind(0))
            a, s = per(), stacked()
            assert all(torch.equal(x.float(), y.float()) and x.stride() == y.stride() for x, y in zip(a, s))
            assert all(x.stride(0) == 1 for x in s)
            for name, fn in (("per-element", per), ("stacked", stacked)):
                dev = triton.testing.do_bench_cudagraph(fn) * 1e3
                print(f"G={groups:2d} K x N={k}x{n}  {name:12s} host {host_us(fn):7.1f} us/call  device {dev:7.1f} us",
                      flush=True)


if __name__ == "__main__":
    main()
