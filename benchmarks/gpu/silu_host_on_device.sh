#!/usr/bin/env bash
# Runs benchmarks/gpu/silu_host_probe.py on a CUDA machine: TileGym's silu_and_mul at M=1024, host time per
# call, cuTile against the converted op. Carry .tilegym/ (bash benchmarks/gpu/tilegym_prepare.sh) and .whl/
# (cutile_env.sh). PROBE_ARGS="--count-native" for the native-launch count. Prints to stdout.
set -uo pipefail
. "$(dirname "$0")/cutile_env.sh"
c2t_install_cutile
W=/tmp/c2t-silu-host
rm -rf "$W" && mkdir -p "$W/tg" && tar -xJf .tilegym/tilegym.tar.xz -C "$W/tg" || exit 1
c2t_plugin_package "$W/plug"  # with the native launch, as users get it
export PYTHONPATH=$W/tg/TileGym/src:$W/plug:/tmp/site PYTHONUNBUFFERED=1
python3 "$(dirname "$0")/silu_host_probe.py" "$W/tg/TileGym" "$W/tg/conv" ${PROBE_ARGS:-} 2>&1 | grep -v Warning
