#!/usr/bin/env bash
# Runs benchmarks/gpu/launch_sweep.py on a CUDA machine: TileGym's ops as converted in .tilegym/
# (bash benchmarks/gpu/tilegym_prepare.sh) under several Triton launch options each.
# Usage: SWEEP_ARGS="--cases rms,bmm --budget 400" SWEEP_FILTER="<python expr of c>" bash benchmarks/gpu/launch_sweep_on_device.sh
# Writes $OUT/launch-sweep.jsonl and the log. cuTile is not needed (no --cutile): carry .whl/ too
# and pass --cutile to time it as well.
set -uo pipefail
OUT=${OUT:-/tmp/c2t-sweep}
REPO=$(pwd)
WORK=/tmp/c2t-sweep-work
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK/tg"
. "$(dirname "$0")/cutile_env.sh"
c2t_install_cutile  # cuTile is needed only for --cutile
tar -xJf .tilegym/tilegym.tar.xz -C "$WORK/tg" || exit 1
# as the earlier sweeps ran: Triton's own launch (SWEEP_FAST_LAUNCH=1: the native launch, as users get it)
c2t_plugin_package "$WORK/plug" $([ "${SWEEP_FAST_LAUNCH:-0}" = 1 ] || echo --no-fast-launch)
export PYTHONPATH=$WORK/tg/TileGym/src:$WORK/plug:/tmp/site
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-$REPO/.triton-cache}  # kept while the machine stays warm
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton; print('python', sys.version.split()[0], '| torch', torch.__version__, '| triton', triton.__version__)"
  echo "cutile2triton: $(cat $WORK/tg/cutile2triton-version.txt) | TileGym commit: $(cat $WORK/tg/tilegym-commit.txt)"
} 2>&1 | tee "$OUT/env.txt"
python3 "$REPO/benchmarks/gpu/launch_sweep.py" --tilegym "$WORK/tg/TileGym" --converted "$WORK/tg/conv" \
  --out "$OUT/launch-sweep.jsonl" --search-filter "${SWEEP_FILTER:-}" ${SWEEP_ARGS:-} 2>&1 | tee "$OUT/launch-sweep.log" | grep -v "^\s*$"
