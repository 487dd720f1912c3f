#!/usr/bin/env bash
# Runs TileGym's own tests (tests/ops, tests/suites) on cutile2triton's converted
# ops on a CUDA machine (torch + triton, no internet), through the pytest plug-in
# cutile2triton.pytest_tilegym, and optionally the same tests on cuTile itself.
# Needs, carried from the repo root: .tilegym/tilegym.tar.xz (bash
# benchmarks/gpu/tilegym_prepare.sh) and, for the cuTile run, .whl/ (as in
# run_on_device.sh). Env names avoid TileGym's own (tests/config.py reads MODE, FILE, ...). Writes under $OUT: summary.md, junit.xml (all files merged),
# runs.tar.xz (per-file JUnit + -v logs).
#   C2T_MODE=smoke: one file (SMOKE_FILE), -x, both backends; plus a collection count.
#   C2T_MODE=full : every test file; per-file `timeout` FILE_TIMEOUT s, per-test
#               pytest-timeout TEST_TIMEOUT s when installed; JOBS files at a time.
#   C2T_BACKENDS: "triton cutile" (default) or "triton"; all files of the first
#               backend are queued before the second's.
#   C2T_JOBLIST: "triton tests/a.py;cutile tests/b.py": run just these (C2T_MODE=full);
#               "triton tests/a.py 3/28" runs the third of 28 shards only (--c2t-shard).
#   C2T_SHARDS: "tests/ops/test_bmm.py=8 tests/x.py=4": split these files' converted
#               (triton) cases into N processes each (--c2t-shard K/N); the summary
#               adds the shards up into one row per file.
#   Several GPUs visible: the JOBS processes are spread over them (slot mod count).
#   RUN_BUDGET: seconds for all test runs (default 480); files not started by
#               then are reported "not run".
#   C2T_TEST_TIMEOUTS: "tests/a.py=900 ...": per-test timeouts of these files
#               instead of TEST_TIMEOUT (cutile_env.sh c2t_test_timeout; it gives
#               chunk_gated_delta_rule 900 s: one case compiled for minutes, s29).
#   C2T_DIFFERENTIAL=1: cuTile is installed and allowed, and every op call of a
#               c2t_triton case is also run on cuTile and compared
#               (--c2t-differential, cutile2triton.tilegym_differential); one
#               <file>.diff.jsonl per file, a per-op table in the summary.
#   COMPILE_CENSUS=1: every converted kernel specialization the tests compile is recorded
#               (cutile_env.sh c2t_compile_census) into $OUT/compile-census.tar.xz, for
#               benchmarks/blackwell_compile.py.
#   C2T_TILEGYM_USE_TMA=auto: the converted launchers take TMA descriptors wherever
#               the tensors allow them, instead of pointers unless tuned (--c2t-use-tma),
#               so the tests check every kernel's descriptor path.
# Perf tests (names with "perf") are deselected: they time, not check.
set -uo pipefail
OUT=${OUT:-/tmp/c2t-tilegym}
C2T_MODE=${C2T_MODE:-${1:-smoke}}
C2T_BACKENDS=${C2T_BACKENDS:-triton cutile}
JOBS=${JOBS:-8}
FILE_TIMEOUT=${FILE_TIMEOUT:-300}
TEST_TIMEOUT=${TEST_TIMEOUT:-120}
SMOKE_FILE=${SMOKE_FILE:-tests/ops/test_softmax.py}
REPO=$(pwd)
mkdir -p "$OUT"
T0=$(date +%s)
for s in ${C2T_SHARDS:-}; do  # FILE=N, N a positive count, FILE as listed (tests/...): else say so and stop
  if ! [[ "$s" =~ ^tests/[^=]+\.py=[1-9][0-9]*$ ]]; then
    echo "C2T_SHARDS: '$s' is not tests/FILE.py=N (N >= 1)" >&2; exit 2
  fi
done

# cuTile from the carried wheel + tileiras kit, for the cutile backend.
. "$(dirname "$0")/cutile_env.sh"
[[ " $C2T_BACKENDS " == *" cutile "* || "${C2T_DIFFERENTIAL:-0}" = 1 ]] && c2t_install_cutile
if [ "${C2T_DIFFERENTIAL:-0}" = 1 ] && ! PYTHONPATH=/tmp/site python3 -c "import cuda.tile" 2>/dev/null; then
  echo "C2T_DIFFERENTIAL=1 compares with cuTile, which is not installed here: carry .whl/ (cutile_env.sh)" >&2; exit 2
fi
# TileGym + converted tree; the plug-in as a plug-in-only package (cutile2triton's
# __init__ imports the compiler extension _core, which is not built here and
# which the plug-in does not need).
rm -rf /tmp/tg && mkdir -p /tmp/tg && tar -xJf .tilegym/tilegym.tar.xz -C /tmp/tg || exit 1
c2t_plugin_package /tmp/c2tplug
export PYTHONPATH=/tmp/tg/TileGym/src:/tmp/c2tplug${PYTHONPATH:+:$PYTHONPATH}
[ -d /tmp/site ] && export PYTHONPATH=$PYTHONPATH:/tmp/site
rm -rf /tmp/c2t-census && [ "${COMPILE_CENSUS:-0}" = 1 ] && c2t_compile_census /tmp/c2t-census
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TRITON_PRINT_AUTOTUNING=0

{
  echo "## Environment"; echo
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton, pytest; print('python', sys.version.split()[0], '| torch', torch.__version__, '| triton', triton.__version__, '| pytest', pytest.__version__)"
  echo "cutile2triton: $(cat /tmp/tg/cutile2triton-version.txt) | TileGym commit: $(cat /tmp/tg/tilegym-commit.txt)"
  # TileGym's requirements.txt: which are importable here (nothing is stubbed).
  python3 - <<'PY'
import importlib, re
mods = {"transformers": "transformers", "tokenizers": "tokenizers", "huggingface_hub": "huggingface_hub",
        "matplotlib": "matplotlib", "pandas": "pandas", "numpy": "numpy", "cuda-tile": "cuda.tile",
        "filelock": "filelock", "pillow": "PIL", "cuda-bindings": "cuda.bindings", "cuda-core": "cuda.core",
        "pytest-timeout": "pytest_timeout"}
have, missing = [], []
for req, mod in mods.items():
    try:
        m = importlib.import_module(mod)
        have.append(f"{req} {getattr(m, '__version__', '?')}")
    except Exception as e:
        missing.append(f"{req} ({type(e).__name__})")
print("requirements present:", ", ".join(have))
print("requirements missing:", ", ".join(missing) or "none")
PY
  echo
} > "$OUT/env.md" 2>&1
cat "$OUT/env.md"
TO_OPT=""
python3 -c "import pytest_timeout" 2>/dev/null && TO_OPT="--timeout=$TEST_TIMEOUT"

cd /tmp/tg/TileGym
if [ "$C2T_MODE" = smoke ]; then
  FILES=$SMOKE_FILE; XOPT="-x"
  # How many c2t cases TileGym's suites get, per file (collection only, CPU).
  python3 -m pytest -p cutile2triton.pytest_tilegym --c2t-converted /tmp/tg/conv -p no:cacheprovider \
    --collect-only -q -k "c2t_triton and not perf" tests/ops tests/suites 2>&1 | tail -40 | tee "$OUT/collect.txt"
else
  XOPT=""
  # Heavy files first (shorter makespan), then the rest.
  FILES=$( (ls tests/ops/test_{chunk_gated_delta_rule,attention,matmul,mla,mla_decoding,mla_decoding_split_kv,moe,gemma_attention,gemma_attention_decode,bmm,flash_decode,attention_sink}.py 2>/dev/null
            find tests/ops tests/suites -name 'test_*.py' | sort) | awk '!seen[$0]++')
fi

run_one() {  # backend file [K/N]
  local b=$1 f=$2 shard=${3:-} name left t
  name=$(echo "${f#tests/}" | sed 's/\.py$//; s#/#__#g')
  [ -n "$shard" ] && name="$name.shard${shard%/*}of${shard#*/}"
  mkdir -p "$RUNDIR/$b"
  left=$(( DEADLINE - $(date +%s) )); t=$(( left < FILE_TIMEOUT ? left : FILE_TIMEOUT ))
  if [ "$t" -lt 20 ]; then  # the call's time is spent: say so instead of a truncated run
    echo "not run: out of time" > "$RUNDIR/$b/$name.log"; echo 125 > "$RUNDIR/$b/$name.rc"; return
  fi
  # Several GPUs: job slot i runs on GPU i mod count (xargs --process-slot-var).
  [ "${NGPU:-1}" -gt 1 ] && export CUDA_VISIBLE_DEVICES=$(( ${C2T_SLOT:-0} % NGPU ))
  # pytest-timeout's per-test limit, longer for files known to compile for minutes
  local to_opt=$TO_OPT
  [ -n "$TO_OPT" ] && to_opt="--timeout=$(c2t_test_timeout "$f" "$TEST_TIMEOUT")"
  if [ "$b" = triton ]; then
    local diff=()
    [ "${C2T_DIFFERENTIAL:-0}" = 1 ] && diff=(--c2t-cutile allow --c2t-differential "$RUNDIR/$b/$name.diff.jsonl")
    timeout -k 10 "$t" python3 -m pytest -p cutile2triton.pytest_tilegym --c2t-converted /tmp/tg/conv "${diff[@]}" \
      -p no:cacheprovider -v -rN $XOPT $to_opt ${shard:+--c2t-shard $shard} -k "c2t_triton and not perf" --junitxml "$RUNDIR/$b/$name.xml" "$f" \
      > "$RUNDIR/$b/$name.log" 2>&1
  else
    timeout -k 10 "$t" python3 -m pytest -p no:cacheprovider -v -rN $XOPT $to_opt \
      -k "cutile and not cutile_rs and not perf" --junitxml "$RUNDIR/$b/$name.xml" "$f" > "$RUNDIR/$b/$name.log" 2>&1
  fi
  echo $? > "$RUNDIR/$b/$name.rc"
  echo "$(date +%T) $b $f rc=$(cat "$RUNDIR/$b/$name.rc")"
}
export -f run_one c2t_test_timeout
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
export RUNDIR=/tmp/c2t-runs XOPT TO_OPT TEST_TIMEOUT C2T_TEST_TIMEOUTS=${C2T_TEST_TIMEOUTS:-} C2T_TEST_TIMEOUT_DEFAULTS FILE_TIMEOUT C2T_DIFFERENTIAL=${C2T_DIFFERENTIAL:-0} NGPU=${NGPU:-1} DEADLINE=$(( $(date +%s) + ${RUN_BUDGET:-480} ))
rm -rf "$RUNDIR"; mkdir -p "$RUNDIR"
if [ -n "${C2T_JOBLIST:-}" ]; then  # "backend file;backend file;...": a re-run of chosen files
  echo "$C2T_JOBLIST" | tr ';' '\n' | sed '/^ *$/d'
else
  for b in $C2T_BACKENDS; do for f in $FILES; do echo "$b $f"; done; done
fi | while read -r b f; do  # a file named in C2T_SHARDS becomes N jobs of its converted cases
  n=$(for s in ${C2T_SHARDS:-}; do [ "${s%=*}" = "$f" ] && echo "${s#*=}"; done | head -1)
  if [ "$b" = triton ] && [ -n "$n" ]; then for k in $(seq 1 "$n"); do echo "$b $f $k/$n"; done; else echo "$b $f"; fi
done | xargs -P "$JOBS" --process-slot-var=C2T_SLOT -L 1 bash -c 'run_one "$0" "$1" "${2:-}"'

python3 "$REPO/benchmarks/gpu/tilegym_summary.py" "$RUNDIR" --md "$OUT/tables.md" --xml "$OUT/junit.xml"
{ cat "$OUT/env.md"; echo "mode $C2T_MODE, backends: $C2T_BACKENDS, use_tma ${C2T_TILEGYM_USE_TMA:-tuned}, $JOBS files at a time, per-file timeout ${FILE_TIMEOUT}s, per-test ${TO_OPT:-none}, wall $(( $(date +%s) - T0 ))s"; echo; cat "$OUT/tables.md"; } > "$OUT/summary.md"
tar -C "$RUNDIR" -cJf "$OUT/runs.tar.xz" .
[ -d /tmp/c2t-census ] && tar -C /tmp/c2t-census -cJf "$OUT/compile-census.tar.xz" . \
  && echo "compile census: $(cat /tmp/c2t-census/*.jsonl 2>/dev/null | wc -l) specializations recorded"
rm -f "$OUT/tables.md" "$OUT/env.md"
cat "$OUT/summary.md" | head -150
