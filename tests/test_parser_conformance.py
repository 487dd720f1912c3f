"""The C++ parser against CPython's ``ast`` on real code (issue: Foundation).

For every .py file of this interpreter's standard library: if CPython accepts
the file, our ``ast.dump`` text must equal CPython's byte for byte and the
lossless printer must reproduce the file; if CPython rejects it, we must
reject it too. Files listed in tests/data/parser_known_mismatches.txt are the
honest list of what still fails: the test fails if one of them starts to pass
(remove it from the list) or if any other file fails.
"""

from __future__ import annotations

import os
import pathlib
import sys
import sysconfig

import pytest

# The parser reproduces CPython 3.11's ast.dump byte for byte. Other interpreters dump
# differently (3.12 moved the positions inside f-strings: 1302 of 1740 standard-library
# files matched on 3.12.1; 3.10's dump lacks 3.11's fields), so the comparison with the
# running interpreter is made on 3.11 only.
pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                                reason="parser conformance is checked against CPython 3.11's ast.dump")

from conformance import check_files, corpus_files, mismatches, stdlib_files

KNOWN = pathlib.Path(__file__).parent / "data" / "parser_known_mismatches.txt"


def _known() -> set:
    if not KNOWN.exists():
        return set()
    lines = (l.split("#")[0].strip() for l in KNOWN.read_text().splitlines())
    return {l for l in lines if l}


@pytest.fixture(scope="module")
def stdlib_results():
    files = stdlib_files()
    assert len(files) > 1000, "standard library not found"
    return files, check_files(files)


def test_stdlib_matches_cpython(stdlib_results):
    files, results = stdlib_results
    root = pathlib.Path(sysconfig.get_paths()["stdlib"])
    bad = {str(pathlib.Path(r.path).relative_to(root)): r for r in mismatches(results)}
    known = _known()
    unexpected = {k: v for k, v in bad.items() if k not in known}
    fixed = sorted(known - set(bad))
    report = "\n".join(f"{k}: {v.verdict}: {v.detail}" for k, v in sorted(unexpected.items())[:20])
    print(f"\nstdlib: {len(files) - len(bad)}/{len(files)} files match CPython; {len(known)} known mismatches")
    assert not unexpected, f"{len(unexpected)} files differ from CPython:\n{report}"
    assert not fixed, f"now passing, remove from {KNOWN.name}: {fixed}"


@pytest.mark.corpus
def test_corpus_matches_cpython():
    files = corpus_files()
    if not files:
        pytest.skip("set C2T_CORPUS to the folder holding TileGym and cutile-python checkouts")
    bad = mismatches(check_files(files))
    report = "\n".join(f"{r.path}: {r.verdict}: {r.detail}" for r in bad[:20])
    assert not bad, f"{len(bad)}/{len(files)} corpus files differ from CPython:\n{report}"
