"""The main job on the bundled examples: convert every cuTile example with
cutile2triton, then run the converted Triton code under Triton's CPU
interpreter against independent torch references (tests/test_examples.py:
fresh random inputs, sizes that are not multiples of the tiles, poisoned
outputs), and print one table row per check.

Usage: python3 scripts/demo.py      (scripts/demo.sh sets up a fresh machine first)
"""

from __future__ import annotations

import os
import pathlib
import sys
import time

os.environ.setdefault("TRITON_INTERPRET", "1")
ROOT = pathlib.Path(__file__).resolve().parent.parent


class _Table:
    """pytest plug-in that records each test's outcome and duration."""

    def __init__(self):
        self.rows = []

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            name = report.nodeid.split("::", 1)[1]
            msg = "" if report.passed else str(report.longrepr).strip().splitlines()[-1][:100]
            self.rows.append((name, report.outcome, report.duration, msg))


def main() -> int:
    import pytest

    from cutile2triton import convert_source

    print("1. convert (C++ compiler)")
    total = 0.0
    for path in sorted((ROOT / "examples").glob("*.py")):
        src = path.read_bytes()
        t0 = time.perf_counter()
        res = convert_source(src, f"examples/{path.name}")
        total += time.perf_counter() - t0
        if res.ok:
            # The shared host runtime block (the same few hundred lines in every module that launches
            # kernels) is counted apart from the file's own kernels, launchers and host code.
            lines = res.code.split("\n")
            start = next((i for i, l in enumerate(lines) if l.startswith("# ---- cutile2triton host runtime")), None)
            end = next((i for i, l in enumerate(lines) if l.startswith("# ---- end of the cutile2triton host runtime")),
                       None)
            runtime = end - start + 1 if start is not None and end is not None else 0
            status = f"ok, {len(lines) - 1 - runtime} lines of kernels, launchers and host code (+ {runtime} of runtime)"
        else:
            status = "FAILED\n" + res.rendered
        print(f"   {path.name:<28} {status}")
    print(f"   conversion time, all files: {total * 1e3:.1f} ms")
    print("   (converted in memory; `cutile2triton convert examples --out-dir build/demo` writes the files)\n")

    print("2. run the converted code under TRITON_INTERPRET=1 against torch references")
    table = _Table()
    rc = pytest.main([str(ROOT / "tests" / "test_examples.py"), "-q", "-p", "no:cacheprovider", "--no-header",
                      "--tb=line", "-W", "ignore"], plugins=[table])
    print()
    print(f"{'check':<48}{'result':<10}{'seconds':>8}")
    for name, outcome, dur, msg in table.rows:
        print(f"{name:<48}{outcome:<10}{dur:>8.2f}  {msg}")
    passed = sum(1 for r in table.rows if r[1] == "passed")
    print(f"\n{passed}/{len(table.rows)} checks passed")
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
