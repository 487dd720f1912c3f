#!/usr/bin/env bash
# Runs the GPU benchmark on a CUDA machine that has torch + triton but no
# cuda.tile: installs cuTile from what is carried in .whl/ -- the cuda-tile
# wheel (Python 3.12 manylinux x86_64) and tileiras-kit.tar.xz, the three
# files tileiras needs from the nvidia-cuda-tileiras, nvidia-cuda-nvcc and
# nvidia-nvvm 13.4.92 wheels (bin/tileiras, bin/ptxas, lib/libnvvm.so.4 and
# libdevice; tileiras looks for the last two next to itself), repacked with
# xz to fit one 64 MiB transfer (`tar -cf - nvidia | xz --x86 --lzma2=preset=9e,dict=192MiB -T1`:
# 55.0 MB with the x86 branch filter, 57.8 MB without, which with the repository (8.1 MB) and
# .tilegym/ went past the limit; see BENCHMARKS.md) -- then runs
# benchmarks/gpu/bench.py on the conversion prepared in .gpu/ by
# `bash benchmarks/gpu/prepare.sh`.
set -uo pipefail
OUT=${OUT:-/tmp/c2t-bench}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  # tileiras from the wheel; cuda.tile looks it up on PATH when the full
  # pip toolchain (nvcc + nvvm wheels) is not installed.
  export PATH=/tmp/site/nvidia/cu13/bin:$PATH
fi
if [ -f .whl/tileiras-kit.tar.xz ]; then
  mkdir -p /tmp/site && tar -xJf .whl/tileiras-kit.tar.xz -C /tmp/site
  # tileiras looks for libnvvm at ../nvvm/lib64/libnvvm.so first: make that
  # the 13.4 library it was built with, not the image's CUDA 13.0 one.
  mkdir -p /tmp/site/nvidia/cu13/nvvm/lib64
  ln -sf ../../lib/libnvvm.so.4 /tmp/site/nvidia/cu13/nvvm/lib64/libnvvm.so
  unset CUDA_HOME CUDA_PATH
  echo "CUDA-related environment: $(env | grep -iE '^(LD_LIBRARY_PATH|CUDA|NVVM)' | tr '\n' ' ')"
fi
if command -v tileiras >/dev/null; then  # say which tileiras cuda.tile will use, and that it runs
  tileiras --version | tail -2
  python3 - <<'PY'
import subprocess, tempfile
import cuda.tile._bytecode as bc
probe = bytearray()
with bc.write_bytecode(num_functions=0, buf=probe, version=bc.BytecodeVersion.V_13_1):
    pass
with tempfile.NamedTemporaryFile(suffix=".bc", delete=False) as f:
    f.write(probe)
r = subprocess.run(["tileiras", f.name, "-o", f.name + ".cubin", "--gpu-name", "sm_90"], capture_output=True, text=True)
print("tileiras probe:", r.returncode, r.stdout[-500:], r.stderr[-1500:])
if r.returncode:
    import os
    env = dict(os.environ, LD_DEBUG="libs")
    r = subprocess.run(["tileiras", f.name, "-o", f.name + ".cubin", "--gpu-name", "sm_90"], capture_output=True, text=True, env=env)
    print("\n".join(l for l in r.stderr.splitlines() if "nvvm" in l or "trying" in l.lower() and "nvvm" in l)[-3000:])
PY
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
PYTHONUNBUFFERED=1 python3 benchmarks/gpu/bench.py --original benchmarks/gpu/kernels.py \
  --converted .gpu/kernels_triton.py --out "$OUT" 2>&1 | tee "$OUT/bench.log"
