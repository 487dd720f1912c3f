#!/usr/bin/env bash
# Prepares .cutile-python/ (ignored by git) for benchmarks/gpu/cutile_python_bench_on_device.sh: cuTile's own
# benchmark suite (cutile-python's test/bench_*.py, pytest-benchmark, each checking its result against
# PyTorch before timing) twice, as it is (orig/) and with every file the installed `cutile2triton` converts
# replaced by its conversion (conv/: test/kernels/*.py become Triton, and bench_*.py's host code launches
# them). Files that do not convert stay as they are in conv/ (conftest.py, util.py: host code on cuTile's
# internals); the bench files among them that use cuda.tile are listed in skip.txt and not run on conv/,
# where they would time cuTile again. Also packs the pytest-benchmark and py-cpuinfo wheels (the GPU
# machine has no network). Usage: bash benchmarks/gpu/cutile_python_prepare.sh [CUTILE_PYTHON_CHECKOUT]
# (default $C2T_CORPUS/cutile-python).
set -euo pipefail
cd "$(dirname "$0")/../.."
CP=${1:-${C2T_CORPUS:-/work/corpus}/cutile-python}
grep -qx '/.cutile-python/' .git/info/exclude 2>/dev/null || echo '/.cutile-python/' >> .git/info/exclude
rm -rf .cutile-python && mkdir -p .cutile-python/stage/orig .cutile-python/stage/conv .cutile-python/stage/wheels
(cd "$CP" && tar -cf - --exclude=__pycache__ pytest.ini test/*.py test/*.json test/kernels) \
  | tar -xf - -C .cutile-python/stage/orig
cp -r .cutile-python/stage/orig/. .cutile-python/stage/conv/
# A failed file is a finding (listed in convert.json and, for bench files, skip.txt), so go on.
cutile2triton convert --force --json --out-dir .cutile-python/stage/conv/test .cutile-python/stage/orig/test \
  > .cutile-python/stage/convert.json 2> .cutile-python/stage/convert.log || true
python3 - <<'PY'
import json, pathlib
rep = json.load(open(".cutile-python/stage/convert.json"))
skip = []
for f in rep["files"]:
    name = pathlib.Path(f["source"]).name
    if name.startswith("bench_") and f["status"] == "failed":
        skip.append(name)
pathlib.Path(".cutile-python/stage/skip.txt").write_text("".join(s + "\n" for s in sorted(skip)))
st = {}
for f in rep["files"]:
    st[f["status"]] = st.get(f["status"], 0) + 1
print("conversion:", st, "| bench files not run converted:", skip)
PY
python3 -m pip download -q --no-deps --only-binary=:all: -d .cutile-python/stage/wheels \
  pytest-benchmark==5.1.0 py-cpuinfo==9.0.0
cutile2triton --version > .cutile-python/stage/cutile2triton-version.txt
(cd "$CP" && git rev-parse HEAD 2>/dev/null || echo unknown) > .cutile-python/stage/cutile-python-commit.txt
tar -C .cutile-python/stage -cJf .cutile-python/cutile-python.tar.xz .
rm -rf .cutile-python/stage
ls -la .cutile-python/cutile-python.tar.xz
