# Sourced by the TileGym scripts of this folder on the GPU machine. c2t_install_cutile installs cuTile
# from what is carried in .whl/ (the cuda-tile wheel and tileiras-kit.tar.xz; run_on_device.sh says why
# each step) into /tmp/site, once per machine, and puts its tileiras first on PATH. Without .whl/ it
# installs nothing.
c2t_install_cutile() {
  if [ ! -d /tmp/site/cuda/tile ] && ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
    if [ -f .whl/tileiras-kit.tar.xz ]; then
      tar -xJf .whl/tileiras-kit.tar.xz -C /tmp/site
      mkdir -p /tmp/site/nvidia/cu13/nvvm/lib64
      ln -sf ../../lib/libnvvm.so.4 /tmp/site/nvidia/cu13/nvvm/lib64/libnvvm.so
    fi
  fi
  export PATH=/tmp/site/nvidia/cu13/bin:$PATH
  unset CUDA_HOME CUDA_PATH
}

# c2t_plugin_package DIR [--no-fast-launch]: cutile2triton as a plug-in-only package in DIR/cutile2triton
# (the GPU machine has no compiler extension): the TileGym pytest plug-in and its differential check, and
# the native launch of reused kernels (fast_launch), which the converted modules import when cutile2triton
# is installed (C2T_FAST_LAUNCH=0 turns it off at run time; --no-fast-launch leaves it out).
c2t_plugin_package() {
  local dir=$1/cutile2triton
  mkdir -p "$dir"
  echo '"""cutile2triton, plug-in only (no compiler extension on this machine)."""' > "$dir/__init__.py"
  cp src/cutile2triton/pytest_tilegym.py src/cutile2triton/tilegym_differential.py \
    src/cutile2triton/differential_compare.py src/cutile2triton/tilegym_as_cutile.py "$dir/"
  [ "${2:-}" = --no-fast-launch ] || cp src/cutile2triton/fast_launch.py src/cutile2triton/_fast_launch.c "$dir/"
}

# c2t_mount_tilegym WORK: TileGym and the converted tree from .tilegym/tilegym.tar.xz
# (tilegym_prepare.sh) into WORK/tg, the plug-in as a plug-in-only package in WORK/plug (no
# compiler extension on the GPU machine; with the native launch of reused kernels, which the
# converted modules import when cutile2triton is installed; C2T_FAST_LAUNCH=0 turns it off), both
# on PYTHONPATH with the cuTile site.
c2t_mount_tilegym() {
  local work=$1
  mkdir -p "$work/tg" && tar -xJf .tilegym/tilegym.tar.xz -C "$work/tg" || return 1
  c2t_plugin_package "$work/plug"
  export PYTHONPATH=$work/tg/TileGym/src:$work/plug:/tmp/site
}

# c2t_test_timeout FILE DEFAULT: the per-test timeout (seconds) for TileGym test FILE (tests/...): the
# entry for FILE in C2T_TEST_TIMEOUTS ("tests/a.py=900 tests/b.py=600"), else in the defaults below, else
# DEFAULT. Why the defaults: chunk_gated_delta_rule's K=256 case took 272 s in s22 and over 300 s in s29,
# compiling products lowered to FMA (18432 per thread); since bc2931f they are TF32 and that kernel compiles in
# seconds (BENCHMARKS.md, s29), so the margin is kept only until a GPU run confirms it.
C2T_TEST_TIMEOUT_DEFAULTS="tests/ops/test_chunk_gated_delta_rule.py=900"
c2t_test_timeout() {
  local file=$1 def=$2 s
  for s in ${C2T_TEST_TIMEOUTS:-} $C2T_TEST_TIMEOUT_DEFAULTS; do
    if [ "${s%=*}" = "$file" ] && [[ "${s#*=}" =~ ^[1-9][0-9]*$ ]]; then echo "${s#*=}"; return; fi
  done
  echo "$def"
}

# Census hooks (benchmarks/gpu/census/sitecustomize.py), for every Python process started after these; run
# from the repo root. c2t_spill_census FILE: each appends, at exit, the spill step's decisions to FILE.
# c2t_compile_census DIR: each records every specialization of a converted kernel that Triton compiles in
# DIR/<pid>.jsonl, which benchmarks/blackwell_compile.py compiles again for sm_100a on a machine without a GPU.
c2t_census_path() {
  case ":${PYTHONPATH:-}:" in *":$(pwd)/benchmarks/gpu/census:"*) ;;
    *) export PYTHONPATH=$(pwd)/benchmarks/gpu/census${PYTHONPATH:+:$PYTHONPATH} ;; esac
}
c2t_spill_census() { export C2T_SPILL_CENSUS=$1; c2t_census_path; }
c2t_compile_census() { mkdir -p "$1" && export C2T_COMPILE_CENSUS=$1 && c2t_census_path; }
