"""Compile converted TileGym kernels for sm_90 on a machine without a GPU and print what decides their
speed: registers and spills (ptxas -v), cp.async loads and wgmma ops in Triton's TTGIR. The leads of
BENCHMARKS.md's s24 section come from it (RMSNorm backward's stages at 16 warps; group GEMM's fp8 B
operand not loaded by cp.async when B is not transposed) and s29's chunk_gated_delta_rule compile times.

    PATH=/tmp/c2tbin:$PATH bash benchmarks/gpu/tilegym_prepare.sh     # .tilegym/tilegym.tar.xz
    mkdir -p /tmp/tg && tar -xJf .tilegym/tilegym.tar.xz -C /tmp/tg
    python3 benchmarks/sm90_compile_probe.py --converted /tmp/tg/conv [--cases rms_backward,group_gemm]

Needs Triton with its CUDA backend (ptxas comes with it) and torch (CPU); tests/triton_compile_check.py
does the compiling.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402

from triton_compile_check import compile_launch, load_for_compile  # noqa: E402


def load(converted: pathlib.Path, rel: str, name: str):
    """The converted module `rel` without its TileGym imports (registry, logger, relative imports)."""
    code = (converted / rel).read_text()
    code = re.sub(r"^from (tilegym|\.).*$", "", code, flags=re.M)
    code = re.sub(r"^@(register_impl\(.*\)|experimental_kernel)\n", "", code, flags=re.M)
    return load_for_compile("get_logger = lambda name: None\n" + code, pathlib.Path(tempfile.mkdtemp()), name)


def report(label: str, stages: dict) -> None:
    from triton import knobs

    ptx = pathlib.Path(tempfile.mkdtemp()) / "k.ptx"
    ptx.write_text(stages["ptx"])
    r = subprocess.run([knobs.nvidia.ptxas.path, "-v", "--gpu-name", "sm_90a", str(ptx), "-o", str(ptx) + ".o"],
                       capture_output=True, text=True)
    regs = " | ".join(line.split("info    : ")[-1].strip() for line in r.stderr.splitlines()
                      if "spill" in line or "registers" in line)
    t = stages["ttgir"]
    print(f"{label}: cp.async {t.count('async_copy_global_to_local')}, wgmma {t.count('warp_group_dot')}; {regs}")


def rms_backward(converted: pathlib.Path) -> None:
    """TileGym's RMSNorm backward kernel, rows of 16384 (TILE_M=1), at the warps and stages swept in s24."""
    mod = load(converted, "ops/triton/rms_norm.py", "rms_norm_probe")
    M, N = 4096, 16384
    for dt, warps, stages in [(torch.float32, 16, 3), (torch.float32, 16, 2), (torch.float32, 16, 1),
                              (torch.float32, 32, 1), (torch.float32, 8, 2), (torch.bfloat16, 16, 2)]:
        x, dy = torch.randn(M, N).to(dt), torch.randn(M, N).to(dt)
        w, rstd, dx, dwp = torch.randn(N).to(dt), torch.randn(M), torch.empty(M, N).to(dt), torch.empty(132, N)
        label = f"rms_backward {str(dt).split('.')[-1]} N={N} warps={warps} stages={stages}"
        try:
            st = compile_launch(mod.launch__rms_bwd_kernel, (132,), dx, dy, x, w, rstd, dwp, 1, N,
                                num_warps=warps, num_stages=stages, C2T_PREFETCH_STAGES=stages)
        except Exception as e:  # noqa: BLE001 -- e.g. shared memory overflow, reported
            print(f"{label}: {str(e).splitlines()[0][:200]}")
            continue
        report(label, st)


def group_gemm(converted: pathlib.Path) -> None:
    """TileGym's group GEMM (lists of arrays), fp16 and fp8 e5m2, B transposed or not, 128x128x128 tiles."""
    mod = load(converted, "ops/triton/group_gemm.py", "group_gemm_probe")
    for dt in (torch.float16, torch.float8_e5m2):
        for transpose_b in (False, True):
            a, b, c = ([torch.randn(1024, 1024).to(dt) for _ in range(2)] for _ in range(3))
            st = compile_launch(mod.launch__group_gemm_kernel, (132,), a, b, c, 128, 128, 128, 132, transpose_b,
                                num_warps=8)
            report(f"group_gemm {str(dt).split('.')[-1]} transpose_b={transpose_b}", st)


def cgdr(converted: pathlib.Path) -> None:
    """TileGym's chunk_gated_delta_rule inter-chunk kernel at its test's K256_V128 case (one chunk of 64): the
    whole compile's seconds and the PTX's fp32 FMA count (s29: 18432 and 685 s on the dev VM while its products
    were fp32 on FMA units, none and ~8 s as TF32 wgmma)."""
    import time

    mod = load(converted, "ops/triton/chunk_gated_delta_rule.py", "cgdr_probe")
    B, H, K, V, CS = 2, 8, 256, 128, 64
    q, k, kc = (torch.empty(B, H, 1, CS, K, dtype=torch.bfloat16) for _ in range(3))
    v, g, out = torch.empty(B, H, 1, CS, V, dtype=torch.bfloat16), torch.empty(B, H, 1, CS), torch.empty(B, H, 1, CS, V)
    s0, s1 = torch.empty(B, H, K, V), torch.empty(B, H, K, V)
    t = time.time()
    st = compile_launch(mod.launch__chunk_inter_recurrence_kernel, (B * H, 1, 1), q, k, v, kc, g, out, s0, s1,
                        1, K, V, H, True, True, CS, K, V)
    fma = len(re.findall(r"fma[.]rn[.]f32", st["ptx"]))
    report(f"chunk_gated_delta_rule K={K} V={V}: compiled in {time.time() - t:.1f} s, "
           f"{st['ptx'].count(chr(10))} PTX lines, {fma} fma.rn.f32", st)


CASES = {"rms_backward": rms_backward, "group_gemm": group_gemm, "cgdr": cgdr}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--converted", type=pathlib.Path, required=True, help="the converted tree (tilegym_prepare.sh)")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    a = ap.parse_args()
    for name in a.cases.split(","):
        CASES[name](a.converted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
