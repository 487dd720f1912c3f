#!/usr/bin/env bash
# Times TileGym's own ops with TileGym's own benchmark scripts (tests/benchmark/bench_*.py) on a
# CUDA machine: cuTile vs the converted ops vs TileGym's Triton (where it has one) vs PyTorch,
# through benchmarks/gpu/tilegym_bench.py. Needs, carried from the repo root: .tilegym/ (bash
# benchmarks/gpu/tilegym_prepare.sh) and .whl/ (cuTile wheel + tileiras kit, as in run_on_device.sh).
# Usage: bash benchmarks/gpu/tilegym_bench_on_device.sh [smoke|full]
#   smoke: bench_softmax.py only, one shape per Benchmark, rep 3 (checks the plumbing, no numbers)
#   full : the op benchmarks; BENCH_ARGS replaces the tilegym_bench.py options (default below), BENCH_BUDGET
#          seconds for all files (default 500).
# Writes under $OUT/bench-<mode>/: tilegym-bench.md (environment first), points.jsonl, bench.tar.xz
# (charts, summary.json, per-file logs); with SPILL_CENSUS=1 also spill-census.jsonl (cutile_env.sh).
set -uo pipefail
MODE=${1:-full}
OUT=${OUT:-/tmp/c2t-bench}
REPO=$(pwd)
RES=$OUT/bench-$MODE
mkdir -p "$RES"
WORK=/tmp/c2t-bench-work
rm -rf "$WORK" && mkdir -p "$WORK"

# cuTile from the carried wheel + tileiras kit.
. "$(dirname "$0")/cutile_env.sh"
c2t_install_cutile
# TileGym + converted tree in a folder of its own; the plug-in as a plug-in-only package.
c2t_mount_tilegym "$WORK" || exit 1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TRITON_PRINT_AUTOTUNING=0
[ "${SPILL_CENSUS:-0}" = 1 ] && c2t_spill_census "$RES/spill-census.jsonl"  # the spill step's decisions
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton; import cuda.tile as ct; print('python', sys.version.split()[0], '| torch', torch.__version__, '| triton', triton.__version__, '| cuda.tile', getattr(ct, '__version__', '?'))"
  echo "cutile2triton: $(cat $WORK/tg/cutile2triton-version.txt) | TileGym commit: $(cat $WORK/tg/tilegym-commit.txt)"
} 2>&1 | tee "$WORK/env.txt"

if [ "$MODE" = smoke ]; then
  ARGS="--files bench_softmax.py --max-x 1 --rep 3 --warmup 1 --budget 90"
else
  ARGS=${BENCH_ARGS:---max-x 2 --rep 20 --warmup 5 --file-timeout 90 --budget ${BENCH_BUDGET:-500}}
fi
echo "python3 benchmarks/gpu/tilegym_bench.py --tilegym TILEGYM --converted CONV --out OUT $ARGS" >> "$WORK/env.txt"
python3 "$REPO/benchmarks/gpu/tilegym_bench.py" --tilegym "$WORK/tg/TileGym" --converted "$WORK/tg/conv" \
  --out "$WORK/out" $ARGS 2>&1 | tee "$WORK/out-driver.log"
{ sed 's/^/    /' "$WORK/env.txt"; echo; cat "$WORK/out/tilegym-bench.md"; } > "$RES/tilegym-bench.md"
cp "$WORK/out/points.jsonl" "$RES/" 2>/dev/null
cp "$WORK/out-driver.log" "$WORK/env.txt" "$WORK/out/" 2>/dev/null
tar -C "$WORK/out" -cJf "$RES/bench.tar.xz" .
head -60 "$RES/tilegym-bench.md"
