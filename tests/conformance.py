"""Helpers for comparing the C++ parser with CPython's ``ast`` (the oracle).

Used by the conformance tests and by ``benchmarks/parse_throughput.py``.
"""

from __future__ import annotations

import ast
import os
import pathlib
import sys
import sysconfig
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple

from cutile2triton import _core

PY_MINOR = sys.version_info.minor


def stdlib_files() -> List[pathlib.Path]:
    """Every .py file of the running interpreter's standard library (site-packages excluded)."""
    root = pathlib.Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts and "dist-packages" not in p.parts)


def corpus_files() -> List[pathlib.Path]:
    """Every .py file under $C2T_CORPUS (the fetched TileGym and cutile-python checkouts)."""
    root = os.environ.get("C2T_CORPUS")
    if not root:
        return []
    return sorted(p for p in pathlib.Path(root).rglob("*.py") if ".git" not in p.parts)


def cpython_dump(data: bytes) -> Optional[str]:
    """ast.dump of the file with positions, or None when CPython rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return ast.dump(tree, include_attributes=True)


@dataclass
class FileResult:
    path: str
    verdict: str  # "match", "dump-differs", "should-reject", "should-accept", "roundtrip"
    detail: str = ""


def check_file(path: str) -> FileResult:
    data = pathlib.Path(path).read_bytes()
    expected = cpython_dump(data)
    ok, got, diags = _core.parse_dump(data, path, PY_MINOR, True)
    if expected is None:
        return FileResult(path, "match" if not ok else "should-reject")
    if not ok:
        return FileResult(path, "should-accept", diags.splitlines()[0] if diags else "")
    if got != expected:
        i = next((k for k, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        return FileResult(path, "dump-differs", f"ours: ...{got[max(0, i - 80):i + 80]}\ncpython: ...{expected[max(0, i - 80):i + 80]}")
    rt_ok, text, problems, _ = _core.roundtrip(data, path)
    try:
        decoded = data.decode("utf-8-sig").encode("utf-8")
    except UnicodeDecodeError:
        decoded = None  # non-UTF-8 source (coding cookie): only span checks apply
    if problems or (decoded is not None and text != decoded):
        return FileResult(path, "roundtrip", problems.splitlines()[0] if problems else "text differs")
    return FileResult(path, "match")


def check_files(paths: Iterable[pathlib.Path], jobs: int = 0) -> List[FileResult]:
    paths = [str(p) for p in paths]
    jobs = jobs or min(4, os.cpu_count() or 1)
    with ProcessPoolExecutor(jobs) as ex:
        return list(ex.map(check_file, paths, chunksize=16))


def mismatches(results: List[FileResult]) -> List[FileResult]:
    return [r for r in results if r.verdict != "match"]
