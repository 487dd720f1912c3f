#!/usr/bin/env bash
# Installs everything cutile2triton's build and tests need on a fresh Debian
# machine (Python 3.10+ with pip), then builds and installs the package.
# Pinned: Triton 3.6.0 (the target), PyTorch 2.13.0 (the tests need only its CPU
# side; pip installs whichever build the machine's index gives, a local CPU wheel here), and
# numpy < 2.4 (Triton 3.6's interpreter breaks on runtime loop bounds with
# numpy >= 2.4, seen in our interpreter tests).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
if ! [ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] && ! [ -d /usr/src/googletest ]; then
  echo "setup: apt-get install googletest libgtest-dev (the C++ tests' GoogleTest)" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq googletest libgtest-dev >/dev/null
fi

# pyproject's build-dir keeps the C++ build under build/<wheel tag>: later runs rebuild what changed only.
if compgen -G "build/cp*" >/dev/null; then when="an existing build: incremental"; else when="first run: a few minutes"; fi
echo "setup: installing pinned packages and building the C++ core ($when)..." >&2
PIP="python3 -m pip"
export PIP_ROOT_USER_ACTION=ignore  # CI and containers run as root: no warning per install
echo "setup: pip install torch==2.13.0 triton==3.6.0 numpy<2.4 pytest scikit-build-core nanobind cmake ninja rich" >&2
$PIP install -q --disable-pip-version-check "torch==2.13.0"
$PIP install -q --disable-pip-version-check "triton==3.6.0" "numpy<2.4" "pytest>=7" \
    "scikit-build-core>=0.10" "nanobind>=2.0" "cmake>=3.20" ninja rich
# Build and install the package itself (C++ core + nanobind extension).
echo "setup: pip install . (compiles the C++ core and its Python extension)" >&2
$PIP install -q --disable-pip-version-check --no-build-isolation .
