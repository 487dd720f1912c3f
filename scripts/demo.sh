#!/usr/bin/env bash
# Sets up a fresh machine, then runs the main job on the bundled examples:
# convert examples/*.py (cuTile) to Triton and run the results under Triton's
# CPU interpreter against torch references, printing a table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 scripts/demo.py
