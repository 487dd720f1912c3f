#!/usr/bin/env bash
# A/B of two converter versions on a CUDA machine: TileGym's benchmark files timed on the converted tree of
# .tilegym/tilegym.tar.xz (B, the new converter) and on an older converted tree carried as
# .tilegym/conv-old.tar.xz (A: a tar of conv/, as tilegym_prepare.sh lays it out), through
# benchmarks/gpu/tilegym_bench.py, A then B then A then B (ROUNDS pairs), each in its own processes. cuTile
# is not needed (its points fail and are left out); PyTorch's points show how much the machine moved
# between runs.
# Usage: OUT=DIR BENCH_ARGS="--files bench_rmsnorm.py --max-x 2 ..." bash benchmarks/gpu/conv_ab_on_device.sh
# Writes DIR/A1, DIR/B1, ... (each a tilegym_bench.py output folder) and DIR/ab.md (each point's best value
# over the rounds, A and B side by side, B/A: higher is better in every unit).
set -uo pipefail
OUT=${OUT:-/tmp/c2t-ab}
REPO=$(pwd)
WORK=/tmp/c2t-ab-work
mkdir -p "$OUT" && rm -rf "$WORK" && mkdir -p "$WORK/old"
. "$(dirname "$0")/cutile_env.sh"
c2t_mount_tilegym "$WORK" || exit 1
tar -xJf .tilegym/conv-old.tar.xz -C "$WORK/old" || exit 1
python3 -c "import importlib.util as u; exit(0 if u.find_spec('cuda.tile') else 1)" 2>/dev/null \
  || export CUTILE_TUTORIALS_BACKEND=triton  # TileGym's imports without cuTile
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TRITON_PRINT_AUTOTUNING=0
for r in $(seq 1 "${ROUNDS:-1}"); do
  for side in A B; do
    conv=$WORK/tg/conv; [ "$side" = A ] && conv=$WORK/old/conv
    echo "== $side$r ($conv)"
    python3 "$REPO/benchmarks/gpu/tilegym_bench.py" --tilegym "$WORK/tg/TileGym" --converted "$conv" \
      --out "$OUT/$side$r" ${BENCH_ARGS:-} > "$OUT/$side$r.log" 2>&1
    tail -3 "$OUT/$side$r.log"
  done
done
python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
best = {}  # (side, file, plot, args, x, line) -> best value (tilegym_bench.py: higher is better in every unit)
for run in sorted(out.glob("[AB][0-9]*/points.jsonl")):
    side = run.parent.name[0]
    for text in run.read_text().splitlines():
        p = json.loads(text)
        if p.get("kind") != "point" or not isinstance(p.get("value"), (int, float)):
            continue
        key = (side, p.get("file"), p.get("plot"), json.dumps(p.get("args"), sort_keys=True),
               json.dumps(p.get("x")), p.get("line"))
        best[key] = max(best.get(key, p["value"]), p["value"])
rows = sorted({k[1:] for k in best})
lines = ["| file | plot | args | x | line | A (old) | B (new) | B/A |", "|---|---|---|---|---|---:|---:|---:|"]
for f, plot, args, x, line in rows:
    a, b = best.get(("A", f, plot, args, x, line)), best.get(("B", f, plot, args, x, line))
    ratio = f"{b / a:.3f}" if a and b else ""
    lines.append(f"| {f} | {plot} | {args} | {x} | {line} | {a if a is not None else ''} | {b if b is not None else ''} | {ratio} |")
(out / "ab.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
PY
