"""Where converted files go (TileGym's ``/cutile/`` → ``/triton/`` mirror convention)."""

from __future__ import annotations

import os
import threading
import pathlib
from typing import Iterable, Iterator, List, Optional


def mirror_path(src: pathlib.Path) -> Optional[pathlib.Path]:
    """The Triton twin of a cuTile file: the LAST path component named
    ``cutile`` becomes ``triton`` (``ops/cutile/softmax.py`` →
    ``ops/triton/softmax.py``). None if the path has no such component."""
    parts = list(src.parts)
    for i in range(len(parts) - 2, -1, -1):  # folders only, not the file name
        if parts[i] == "cutile":
            parts[i] = "triton"
            return pathlib.Path(*parts)
    return None


def iter_sources(paths: Iterable[str]) -> Iterator[pathlib.Path]:
    """Files named on the command line, and the ``*.py`` files under named
    folders that mention ``cuda.tile`` or sit in a ``cutile`` package folder
    (others are not cuTile code). Folders
    named ``triton`` are skipped: they hold our output. Raises ValueError for an empty path, which
    pathlib would read as "." (a whole tree, from an unset shell variable): before yielding any file."""
    paths = list(paths)
    if any(str(p) == "" for p in paths):
        raise ValueError("an empty PATH argument (an unset shell variable?); use . for the current folder")
    for p in paths:
        path = pathlib.Path(p)
        if path.is_dir():
            for f in sorted(path.rglob("*.py")):
                rel = f.relative_to(path).parts
                if any(part in ("triton", "__pycache__") or part.startswith(".") for part in rel[:-1]):
                    continue
                if may_be_cutile(f):
                    yield f
        else:
            yield path


def may_be_cutile(path: pathlib.Path) -> bool:
    """Whether a file is (or may be) cuTile code the converter writes out: it mentions ``cuda.tile``,
    or sits in a ``cutile`` package folder (inside one every module belongs to the mirror). An
    unreadable file counts (the caller reports its I/O error)."""
    try:
        return b"cuda.tile" in path.read_bytes() or "cutile" in path.resolve().parent.parts
    except OSError:
        return True


def atomic_write(path: pathlib.Path, text: str) -> None:
    """Write ``text`` so that readers see the old file or the whole new one,
    never a partial file (temporary file in the same folder + os.replace)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # (a short name: the output's own may be near the file system's 255-byte limit)
    tmp = path.with_name(f".c2t-tmp-{os.getpid()}-{threading.get_ident() % 100000}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
