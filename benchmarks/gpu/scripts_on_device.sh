#!/usr/bin/env bash
# Runs this folder's diagnostic scripts (fp8_accumulation.py, bmm_op_check.py, prefetch_ab.py,
# host_insitu.py, ...) on a CUDA machine, each as `python3 SCRIPT TILEGYM CONVERTED [ARGS]`, in the
# environment tilegym_bench_on_device.sh sets up: cuTile from the carried .whl/ (if any), TileGym and
# the converted tree from .tilegym/tilegym.tar.xz, the plug-in without the compiler extension.
# Usage: OUT=DIR bash benchmarks/gpu/scripts_on_device.sh "SCRIPT [ARGS]" ...   (each script's output
# goes to DIR/<script>.txt, a second run of it to DIR/<script>-1.txt, and the terminal; a script over SCRIPT_TIMEOUT seconds, default 300, is stopped)
set -uo pipefail
OUT=${OUT:-/tmp/c2t-scripts}
REPO=$(pwd)
WORK=/tmp/c2t-scripts-work
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK"
. "$(dirname "$0")/cutile_env.sh"
c2t_install_cutile
# TileGym + converted tree in a folder of its own; the plug-in as a plug-in-only package.
c2t_mount_tilegym "$WORK" || exit 1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -c "import importlib.util as u; exit(0 if u.find_spec('cuda.tile') else 1)" 2>/dev/null \
  || export CUTILE_TUTORIALS_BACKEND=triton  # TileGym's imports without cuTile
for job in "$@"; do
  read -r script args <<< "$job"
  name=$(basename "$script" .py)
  [ -e "$OUT/$name.txt" ] && name="$name-$(ls "$OUT" | grep -c "^$name\(-[0-9]*\)\?\.txt$")"  # a script run again: NAME-1.txt, ...
  echo "== $job" | tee "$OUT/$name.txt"
  timeout "${SCRIPT_TIMEOUT:-300}" python3 "$REPO/benchmarks/gpu/$script" "$WORK/tg/TileGym" "$WORK/tg/conv" $args 2>&1 \
    | grep -v "UserWarning\|warnings.warn" | tee -a "$OUT/$name.txt"
  echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/$name.txt"
done
