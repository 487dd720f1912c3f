"""The real cuTile corpus as a conversion workload (opt-in: C2T_CORPUS).

Which files: TileGym's src/tilegym/ops/cutile/**, src/tilegym/suites/*/cutile/**,
the converting skill's examples/*/cutile_kernel.py, and cutile-python's
samples/*.py and test/kernels/*.py. `build_tree` converts them all into a scratch
copy of TileGym's package, each output at its /cutile/ -> /triton/ mirror path (so
that converted modules import each other exactly as they would inside TileGym), the
samples into a samples/ folder next to it, and cutile-python's test kernels into
cutile-python-test/kernels/ (they import each other as `kernels.x`, with
cutile-python's test/ folder on sys.path).
"""

from __future__ import annotations

import os
import pathlib
import shutil
from dataclasses import dataclass, field
from typing import List, Optional


def corpus_root() -> Optional[pathlib.Path]:
    root = os.environ.get("C2T_CORPUS")
    if not root:
        return None
    p = pathlib.Path(root)
    return p if (p / "TileGym").is_dir() and (p / "cutile-python").is_dir() else None


def corpus_sources(root: pathlib.Path) -> List[pathlib.Path]:
    tg = root / "TileGym"
    files = list((tg / "src/tilegym/ops/cutile").rglob("*.py"))
    for suite in sorted((tg / "src/tilegym/suites").iterdir()):
        if (suite / "cutile").is_dir():
            files += (suite / "cutile").rglob("*.py")
    files += (tg / "skills/tilegym-converting-cutile-to-triton/examples").glob("*/cutile_kernel.py")
    files += (root / "cutile-python/samples").glob("*.py")
    files += (root / "cutile-python/test/kernels").glob("*.py")
    return sorted(files)


@dataclass
class Converted:
    source: pathlib.Path          # corpus file
    rel: str                      # path relative to the corpus root (reports, known-failure list)
    ok: bool
    is_cutile: bool
    first_error: str = ""
    output: Optional[pathlib.Path] = None   # where the converted module was written
    module: Optional[str] = None            # its dotted name in the scratch tree ("" for samples: by path)


@dataclass
class Tree:
    root: pathlib.Path            # scratch folder: src/ (TileGym package), samples/, skills/, cutile-python-test/
    files: List[Converted] = field(default_factory=list)


def _mirror(rel_parts):
    return ["triton" if p == "cutile" else p for p in rel_parts]


def build_tree(corpus: pathlib.Path, scratch: pathlib.Path) -> Tree:
    import cutile2triton

    tree = Tree(scratch)
    # TileGym's own package (backend registry, autotune flag, existing Triton ops)
    # so that converted modules import what they import inside TileGym.
    shutil.copytree(corpus / "TileGym/src/tilegym", scratch / "src/tilegym")
    # The samples' local helper package (samples/utils/benchmark.py).
    samples = corpus / "cutile-python/samples"
    (scratch / "samples").mkdir()
    if (samples / "utils").is_dir():
        shutil.copytree(samples / "utils", scratch / "samples/utils")
    for src in corpus_sources(corpus):
        rel = src.relative_to(corpus)
        # The file's real path as the filename: relative imports of tile helpers
        # are read from its folder (driver/splice.h).
        r = cutile2triton.convert_source(src.read_bytes(), str(src))
        first = next((f"{d.line}:{d.col}: {d.message}" for d in r.diagnostics if d.severity == "error"), "")
        item = Converted(src, str(rel), r.ok, r.is_cutile, first)
        tree.files.append(item)
        if not r.ok:
            continue
        parts = rel.parts
        if parts[0] == "TileGym" and parts[1] == "src":
            out_rel = pathlib.Path(*_mirror(parts[2:]))
            item.output = scratch / "src" / out_rel
            item.module = ".".join(out_rel.with_suffix("").parts).removesuffix(".__init__")
        elif parts[0] == "TileGym":  # skill examples: examples/NN_x/cutile_kernel.py -> NN_x/triton_kernel.py
            item.output = scratch / "skills" / parts[-2] / "triton_kernel.py"
        elif parts[1] == "test":  # cutile-python/test/kernels/x.py -> the module kernels.x
            item.output = scratch / "cutile-python-test" / pathlib.Path(*parts[2:])
            item.module = ".".join(parts[2:])[:-3].removesuffix(".__init__")
        else:
            item.output = scratch / "samples" / parts[-1]
        item.output.parent.mkdir(parents=True, exist_ok=True)
        item.output.write_text(r.code, encoding="utf-8")
    return tree
