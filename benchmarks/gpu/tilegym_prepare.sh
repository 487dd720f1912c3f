#!/usr/bin/env bash
# Prepares .tilegym/ (ignored by git) for benchmarks/gpu/tilegym_tests_on_device.sh:
# converts TileGym's cuTile ops (src/tilegym/ops/cutile, src/tilegym/suites/*/cutile)
# with the installed `cutile2triton` into a tree that mirrors the tilegym package
# (conv/ops/triton/..., conv/suites/<suite>/triton/...), which the pytest plug-in
# cutile2triton.pytest_tilegym mounts as tilegym.*.c2t_triton; and packs TileGym's
# src/, tests/ and setup files (no .git) plus that tree into .tilegym/tilegym.tar.xz,
# small enough to travel next to .whl/ (64 MiB per call in all).
# Usage: bash benchmarks/gpu/tilegym_prepare.sh [TILEGYM_CHECKOUT]  (default $C2T_CORPUS/TileGym)
set -euo pipefail
cd "$(dirname "$0")/../.."
TG=${1:-${C2T_CORPUS:-/work/corpus}/TileGym}
grep -qx '/.tilegym/' .git/info/exclude 2>/dev/null || echo '/.tilegym/' >> .git/info/exclude
rm -rf .tilegym && mkdir -p .tilegym/stage/TileGym .tilegym/stage/conv
# Conversion: a failed file is a finding (the plug-in reports its ops as not converted), so go on.
cutile2triton convert --force --json --out-dir .tilegym/stage/conv/ops/triton "$TG/src/tilegym/ops/cutile" \
  > .tilegym/stage/convert-ops.json || true
cutile2triton convert --force --json --out-dir .tilegym/stage/conv/suites "$TG/src/tilegym/suites" \
  > .tilegym/stage/convert-suites.json || true
cutile2triton --version > .tilegym/stage/cutile2triton-version.txt
(cd "$TG" && git rev-parse HEAD 2>/dev/null || echo unknown) > .tilegym/stage/tilegym-commit.txt
(cd "$TG" && tar -cf - --exclude=.git --exclude=__pycache__ src tests setup.py pyproject.toml pytest.ini \
  requirements.txt) | tar -xf - -C .tilegym/stage/TileGym
tar -C .tilegym/stage -cJf .tilegym/tilegym.tar.xz .
rm -rf .tilegym/stage
python3 - <<'PY'
import json, tarfile
t = tarfile.open(".tilegym/tilegym.tar.xz")
for n in ("./convert-ops.json", "./convert-suites.json"):
    rep = json.load(t.extractfile(n))
    files = rep["files"] if isinstance(rep, dict) and "files" in rep else rep
    st = {}
    for f in files:
        st[f.get("status")] = st.get(f.get("status"), 0) + 1
    print(n, st)
PY
ls -la .tilegym/tilegym.tar.xz
