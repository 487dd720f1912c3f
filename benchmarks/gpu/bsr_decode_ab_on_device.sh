#!/usr/bin/env bash
# bsr_decode_time.py on the old converted tree (.tilegym/conv-old.tar.xz, A) and the new one
# (.tilegym/tilegym.tar.xz, B), A B A B, each in its own process, in the environment of scripts_on_device.sh.
# Usage: OUT=DIR [RUNS="A B ..."] [ARGS="--big"] bash benchmarks/gpu/bsr_decode_ab_on_device.sh   (DIR/bsr-decode-ab.txt)
# RUNS: the sides in order (default "A1 B1 A2 B2"); a side "Bx" or "Ax" adds --no-search-tma.
set -uo pipefail
OUT=${OUT:-/tmp/c2t-bsr-ab}
REPO=$(pwd)
WORK=/tmp/c2t-bsr-ab-work
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK/old"
. "$(dirname "$0")/cutile_env.sh"
c2t_mount_tilegym "$WORK" || exit 1
tar -xJf .tilegym/conv-old.tar.xz -C "$WORK/old" || exit 1
export CUTILE_TUTORIALS_BACKEND=triton PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
for side in ${RUNS:-A1 B1 A2 B2}; do
  conv=$WORK/tg/conv; [ "${side:0:1}" = A ] && conv=$WORK/old/conv
  extra=${ARGS:-}; [ "${side:1:1}" = x ] && extra="$extra --no-search-tma"
  timeout "${SCRIPT_TIMEOUT:-200}" python3 "$REPO/benchmarks/gpu/bsr_decode_time.py" "$WORK/tg/TileGym" "$conv" "$side" $extra 2>&1 \
    | grep -v "UserWarning\|warnings.warn\|is_tilecpp_available" | tee -a "$OUT/bsr-decode-ab.txt"
done
