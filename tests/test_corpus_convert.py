"""Opt-in: convert the whole real corpus (C2T_CORPUS=/path holding TileGym and
cutile-python) and check that every output is a usable Triton module.

    C2T_CORPUS=/work/corpus python3 -m pytest -q -m corpus tests/test_corpus_convert.py -s

For each corpus file (see corpus_tree.corpus_sources):
  * conversion either succeeds or fails with compiler diagnostics;
  * a converted module compiles (py_compile), refers to no cuda.tile name (checked
    on the AST: comments and docstrings may still mention ct.*), imports in a fresh
    interpreter where `cuda` is unimportable and TileGym is the scratch copy with
    the outputs at their /cutile/ -> /triton/ mirror paths (corpus_import_check.py),
    and every op its cuTile source registers for backend "cutile" is registered
    for backend "triton" after the imports.
The files failing either check are exactly those in tests/data/corpus_known_failures.txt
(the test fails when that list is stale in either direction, so progress is recorded).
With -s the test prints the counts and every failure with its first diagnostic.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import py_compile
import subprocess
import sys

import pytest

from corpus_tree import build_tree, corpus_root

HERE = pathlib.Path(__file__).parent
KNOWN = HERE / "data" / "corpus_known_failures.txt"


def _known():
    return {l.strip() for l in KNOWN.read_text().splitlines() if l.strip() and not l.startswith("#")}


def _ct_names(tree: ast.Module):
    """Names bound to cuda.tile anywhere in the module (imports), plus `ct`."""
    names = {"ct"}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name == "cuda" or a.name.startswith("cuda.tile"):
                    names.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, ast.ImportFrom) and (n.module or "").startswith(("cuda.tile", "cuda")):
            names.update(a.asname or a.name for a in n.names)
    return names


def _cutile_refs(code: str):
    tree = ast.parse(code)
    bad = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in n.names] if isinstance(n, ast.Import) else [n.module or ""]
            bad += [f"{n.lineno}: import {m}" for m in mods if m == "cuda" or m.startswith("cuda.")]
        elif isinstance(n, ast.Name) and n.id == "ct":
            bad.append(f"{n.lineno}: name ct")
    return bad


def _registered_cutile_ops(source: bytes):
    """Op names `register_impl("op", backend="cutile")` registers (decorator or call form)."""
    ops = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == "register_impl":
            backend = next((k.value for k in n.keywords if k.arg == "backend"), None)
            if isinstance(backend, ast.Constant) and backend.value == "cutile" and n.args and isinstance(
                    n.args[0], ast.Constant):
                ops.append(n.args[0].value)
    return ops


@pytest.mark.corpus
def test_corpus_converts_to_importable_triton(tmp_path):
    corpus = corpus_root()
    if corpus is None:
        pytest.skip("set C2T_CORPUS to the folder holding the TileGym and cutile-python checkouts")
    tree = build_tree(corpus, tmp_path)
    problems = {}  # rel -> first problem (conversion diagnostics are handled with the known list)
    failed = {f.rel: f.first_error for f in tree.files if not f.ok}
    jobs = []
    for f in tree.files:
        if not f.ok:
            continue
        try:
            py_compile.compile(str(f.output), doraise=True)
        except py_compile.PyCompileError as e:
            problems[f.rel] = f"py_compile: {e.msg.strip().splitlines()[-1]}"
            continue
        refs = _cutile_refs(f.output.read_text())
        if refs:
            problems[f.rel] = f"cuda.tile reference left: {refs[0]}"
            continue
        if f.module:
            jobs.append({"key": f.rel, "module": f.module, "package": f.output.name == "__init__.py"})
        else:
            jobs.append({"key": f.rel, "path": str(f.output)})
    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    env = dict(os.environ, CUTILE_TUTORIALS_BACKEND="triton", TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, str(HERE / "corpus_import_check.py"), str(tmp_path), str(jobs_file)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    imported = json.loads(proc.stdout)
    registry = set(imported.pop("__registry__"))
    assert "__registry_error__" not in imported, imported["__registry_error__"]
    for key, err in imported.items():
        if err:
            problems[key] = f"import: {err}"
    for f in tree.files:
        if f.ok and f.rel not in problems and f.module is not None:
            missing = [op for op in _registered_cutile_ops(f.source.read_bytes()) if op not in registry]
            if missing:
                problems[f.rel] = f"not registered for backend 'triton': {missing}"

    n = len(tree.files)
    converted = sum(f.ok for f in tree.files)
    print(f"\ncorpus: {n} files; {converted} converted ({sum(f.ok and f.is_cutile for f in tree.files)} cuTile "
          f"modules, {sum(f.ok and not f.is_cutile for f in tree.files)} host-only); "
          f"{converted - len(problems)} import cleanly without cuda.tile; {len(failed)} conversion failures")
    for rel, msg in sorted(failed.items()):
        print(f"  CONVERT {rel}: {msg}")
    for rel, msg in sorted(problems.items()):
        print(f"  OUTPUT  {rel}: {msg}")

    # Both kinds are tracked in the known list: a conversion failure, and an output
    # that does not import because a module it imports did not convert (package
    # __init__s, siblings of a shared-helper module). Anything else is a regression.
    bad = {**failed, **problems}
    known = _known()
    unexpected = sorted(set(bad) - known)
    fixed = sorted(known - set(bad))
    assert not unexpected, "new failures:\n" + "\n".join(f"{k}: {bad[k]}" for k in unexpected)
    assert not fixed, f"now passing, remove from {KNOWN.name}: {fixed}"
