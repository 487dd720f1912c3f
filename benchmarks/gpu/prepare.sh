#!/usr/bin/env bash
# Converts the GPU benchmark kernels with the installed cutile2triton into
# .gpu/ (ignored by git), ready to carry to a GPU machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu
cutile2triton convert benchmarks/gpu/kernels.py -o .gpu/kernels_triton.py --force
