#!/usr/bin/env bash
# Runs the GPU benchmark on a CUDA machine that has torch + triton but no
# cuda.tile: installs cuTile from wheels carried in .whl/ (cuda-tile and
# nvidia-cuda-tileiras, Python 3.12 manylinux x86_64; see BENCHMARKS.md for
# the exact versions), then runs benchmarks/gpu/bench.py on the conversion
# prepared in .gpu/ by `bash benchmarks/gpu/prepare.sh`.
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
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
PYTHONUNBUFFERED=1 python3 benchmarks/gpu/bench.py --original benchmarks/gpu/kernels.py \
  --converted .gpu/kernels_triton.py --out "$OUT" 2>&1 | tee "$OUT/bench.log"
