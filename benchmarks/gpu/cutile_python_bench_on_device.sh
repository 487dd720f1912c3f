#!/usr/bin/env bash
# Runs cuTile's own benchmark suite (cutile-python's test/bench_*.py) on a CUDA machine twice per file: as
# it is (cuTile and PyTorch backends) and converted (its `cutile` backend then launches the converted Triton
# kernels), from .cutile-python/cutile-python.tar.xz (cutile_python_prepare.sh); cuTile from the carried
# .whl/ (cutile_env.sh). Each bench checks its result against PyTorch before it times (pytest-benchmark's
# pedantic rounds, cuTile's eager runner), so a converted kernel that computes wrongly fails there.
# Usage: OUT=DIR [FILES="bench_moe.py ..."] [K='pytest -k expression'] [BUDGET=s] [FILE_TIMEOUT=s] \
#          bash benchmarks/gpu/cutile_python_bench_on_device.sh
# then: python3 benchmarks/gpu/cutile_python_bench_summary.py DIR   (the table; also run here on the files)
# Per file and side: DIR/{orig,conv}-<bench>.{json,xml,log}. orig and conv alternate per file, so both see
# the machine in the same state. PACK=1 packs them into DIR/results.tar.xz afterwards (beside summary.md and
# gpu.txt), for a machine that returns few files. SWEEP=1 first runs cutile_python_fmha_decode.py (its output:
# DIR/fmha-decode.txt; SWEEP_TIMEOUT seconds each, default 240, counted in BUDGET); SWEEP="fmha_decode fft" runs
# those scripts (cutile_python_<name>.py, output DIR/<name>.txt with - for _). SPILL_CENSUS=1 writes
# DIR/spill-census.jsonl (cutile_env.sh: c2t_spill_census); COMPILE_CENSUS=1 DIR/compile-census.tar.xz
# (c2t_compile_census: every converted kernel specialization compiled, for benchmarks/blackwell_compile.py).
set -uo pipefail
OUT=${OUT:-/tmp/c2t-cpbench}
WORK=/tmp/c2t-cpbench-work
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK"
. "$(dirname "$0")/cutile_env.sh"
c2t_install_cutile
tar -xJf .cutile-python/cutile-python.tar.xz -C "$WORK" || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --target "$WORK/site" "$WORK"/wheels/*.whl || exit 1
c2t_plugin_package "$WORK/plug"  # the native reused launch the converted modules import
export PYTHONPATH=$WORK/plug:$WORK/site:/tmp/site
[ "${SPILL_CENSUS:-0}" = 1 ] && c2t_spill_census "$OUT/spill-census.jsonl"  # the spill step's decisions
rm -rf "$WORK/census" && [ "${COMPILE_CENSUS:-0}" = 1 ] && c2t_compile_census "$WORK/census"  # for blackwell_compile.py
# What cutile-python's pytest.ini sets through pytest-env (not installed here).
export CUDA_TILE_COMPILER_TIMEOUT_SEC=60 XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
cp "$WORK"/convert.json "$WORK"/skip.txt "$WORK"/*-version.txt "$WORK"/*-commit.txt "$OUT/" 2>/dev/null
FILES=${FILES:-"bench_vec_add.py bench_transpose.py bench_layer_norm.py bench_moe.py bench_attention.py bench_matmul.py bench_fft.py"}
FILE_TIMEOUT=${FILE_TIMEOUT:-240}
deadline=$((SECONDS + ${BUDGET:-520}))
[ "${SWEEP:-0}" = 1 ] && SWEEP=fmha_decode
for sweep in ${SWEEP:-}; do
  [ "$sweep" = 0 ] && continue
  timeout "${SWEEP_TIMEOUT:-240}" python3 "$(dirname "$0")/cutile_python_$sweep.py" "$WORK/orig/test" \
    "$WORK/conv/test" 2>&1 | grep -v "UserWarning\|warnings.warn" | tee "$OUT/${sweep//_/-}.txt"
done
for f in $FILES; do
  for side in orig conv; do
    if [ "$side" = conv ] && grep -qx "$f" "$WORK/skip.txt"; then
      echo "conv $f: not converted (skip.txt)"; continue
    fi
    left=$((deadline - SECONDS))
    if [ "$left" -lt 20 ]; then echo "$side $f: budget spent"; continue; fi
    t=$((left < FILE_TIMEOUT ? left : FILE_TIMEOUT))
    if [ "$side" = orig ]; then sel="(cutile or torch)"; else sel="cutile"; fi
    [ -n "${K:-}" ] && sel="$sel and ($K)"
    name=$side-${f%.py}
    (cd "$WORK/$side/test" && timeout "$t" python3 -m pytest -q -p no:cacheprovider -c ../pytest.ini "$f" -k "$sel" \
        -W ignore --benchmark-json="$OUT/$name.json" --junitxml="$OUT/$name.xml") > "$OUT/$name.log" 2>&1
    rc=$?
    echo "$side $f rc=$rc $(grep -E '(passed|failed|error|skipped)' "$OUT/$name.log" | tail -1)"
  done
done
[ -d "$WORK/census" ] && tar -C "$WORK/census" -cJf "$OUT/compile-census.tar.xz" .
python3 "$(dirname "$0")/cutile_python_bench_summary.py" "$OUT" | tee "$OUT/summary.md"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>/dev/null
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$OUT/gpu.txt" 2>&1
if [ "${PACK:-0}" = 1 ]; then
  (cd "$OUT" && tar -cJf "$WORK/results.tar.xz" --exclude=summary.md --exclude=gpu.txt . \
    && find . -maxdepth 1 -type f ! -name summary.md ! -name gpu.txt -delete && mv "$WORK/results.tar.xz" .)
fi
