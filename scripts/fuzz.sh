#!/usr/bin/env bash
# Builds a libFuzzer harness (clang, ASan + UBSan) in build/fuzz and runs it.
#
#   scripts/fuzz.sh HARNESS SECONDS [LIBFUZZER_ARGS...]
#     HARNESS   fuzz_parse | fuzz_convert
#     SECONDS   time budget; 0 = build only
#   env: JOBS (build parallelism, default 2), FUZZ_BUILD (default build/fuzz)
#
# One fuzzing process (no -jobs/-workers: the dev VMs are shared). New inputs
# accumulate in build/fuzz/corpus/HARNESS; a crash is saved under
# build/fuzz/artifacts/HARNESS/ and libFuzzer stops there. Reproduce one with
#   build/fuzz/HARNESS build/fuzz/artifacts/HARNESS/crash-...
# and shrink it with
#   build/fuzz/HARNESS -minimize_crash=1 -runs=100000 build/fuzz/artifacts/HARNESS/crash-...
set -euo pipefail

harness=${1:?usage: scripts/fuzz.sh fuzz_parse|fuzz_convert SECONDS [libFuzzer args]}
seconds=${2:?usage: scripts/fuzz.sh fuzz_parse|fuzz_convert SECONDS [libFuzzer args]}
shift 2
case $harness in fuzz_parse|fuzz_convert) ;; *) echo "unknown harness: $harness" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build/fuzz}
cd "$root"

if ! command -v clang++ >/dev/null; then
  echo "clang++ not found: apt-get install -y clang libclang-rt-14-dev" >&2
  exit 2
fi
# RelWithDebInfo: optimized enough to fuzz fast, with line numbers in stacks.
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DC2T_BUILD_FUZZERS=ON -DC2T_BUILD_TESTS=OFF -DC2T_BUILD_PYTHON=OFF >/dev/null
mkdir -p "$build/logs"
# Quiet unless the build fails (the libraries' warnings belong to other builds).
if ! cmake --build "$build" -j "${JOBS:-2}" --target "$harness" >"$build/logs/build.log" 2>&1; then
  grep -E 'error|FAILED' "$build/logs/build.log" | head -40
  echo "build failed; full log: $build/logs/build.log" >&2
  exit 2
fi
[ "$seconds" = 0 ] && exit 0

# Seeds: the repository's own Python files (examples, golden op tests, test
# and tool scripts) plus the hand-written edge cases. Rebuilt every run; the
# corpus directory (first argument to libFuzzer) is where new inputs go.
seeds=$build/seeds
corpus=$build/corpus/$harness
artifacts=$build/artifacts/$harness
logs=$build/logs
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$artifacts" "$logs"
find examples tests cpp src benchmarks tools -name '*.py' -type f 2>/dev/null | while read -r f; do
  cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"
done
cp cpp/fuzz/seeds/* "$seeds/"

log=$logs/$harness-$(date +%Y%m%d-%H%M%S).log
cmd=("$build/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192
     -dict=cpp/fuzz/python.dict -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" "$corpus" "$seeds")
echo "command: ${cmd[*]}"
touch "$build/.run-start"  # artifacts newer than this are this run's findings
# UBSan prints no stack by default; reports must name the faulting function.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
start=$(date +%s)
set +e
"${cmd[@]}" >"$log" 2>&1
rc=$?
set -e
end=$(date +%s)

stat() { grep -m1 "^stat::$1:" "$log" | awk '{print $2}'; }
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
# -fork mode prints no stat:: lines; its progress lines carry the totals.
if ! grep -q '^stat::' "$log"; then
  stat() { case $1 in number_of_executed_units) echo "$last" | grep -oE '^#[0-9]+' | tr -d '#' ;;
                      average_exec_per_sec) echo "$last" | grep -oE 'exec/s:? [0-9]+' | grep -oE '[0-9]+' ;; esac; }
fi
echo "log: $log"
echo "exit code: $rc"
echo "duration_s: $((end - start))"
echo "executions: $(stat number_of_executed_units)"
echo "exec/s: $(stat average_exec_per_sec)"
echo "new units: $(stat new_units_added)"
echo "peak rss MB: $(stat peak_rss_mb)"
echo "coverage: $(echo "$last" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+(/[0-9]+[a-zA-Z]*)?')"
# One artifact per crash/leak/timeout/OOM input. libFuzzer stops at the first
# unless given -fork=1 -ignore_crashes=1 (then several may name one bug).
found=$(find "$artifacts" -type f -newer "$build/.run-start" | sort)
echo "crashes: $(echo -n "$found" | grep -c . || true)"
for f in $found; do echo "artifact: $f"; done
[ $rc -eq 0 ] || grep -E -A14 "^==c2t-fuzz==|runtime error|ERROR: (Address|Leak|libFuzzer)" "$log" | head -40
exit $rc
