"""Converting files and trees: output paths, --check/--diff, atomic writes, reports.

All compilation happens in the C++ core (:func:`cutile2triton.convert_source`);
this module only moves files around it.
"""

from __future__ import annotations

import difflib
import pathlib
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Mapping, Optional

from .api import ConversionResult, convert_source
from .paths import atomic_write, iter_sources, may_be_cutile, mirror_path

# Outcomes of one file.
CONVERTED, UNCHANGED, WOULD_CHANGE, FAILED, SKIPPED, EXISTS = (
    "converted", "unchanged", "would-change", "failed", "skipped", "exists")


@dataclass
class FileReport:
    """What happened to one input file.

    ``status`` is one of converted, unchanged (output already identical),
    would-change (--check/--diff), failed (diagnostics), skipped (no cuda.tile),
    exists (output exists and differs; use force=True).
    """

    source: str
    output: Optional[str]
    status: str
    diagnostics: List[dict] = field(default_factory=list)
    rendered: str = ""
    diff: str = ""
    code: str = ""  # the converted module, kept when it was not written (write=False)
    io_error: bool = False  # failed on its output path (no destination, unreadable, unwritable): exit code 2
    kernel_params: Dict[str, List[str]] = field(default_factory=dict)  # kernel -> its parameters (ConversionResult's)

    def as_dict(self) -> dict:
        d = {"source": self.source, "output": self.output, "status": self.status, "diagnostics": self.diagnostics}
        if self.diff:
            d["diff"] = self.diff
        return d


class UsageError(Exception):
    """Bad options or paths (exit code 2)."""


def output_for(src: pathlib.Path, out: Optional[str], out_dir: Optional[str], root: Optional[pathlib.Path]) -> pathlib.Path:
    """Destination of ``src``: ``out`` (-o), else ``out_dir`` (keeping the path
    relative to the folder given on the command line), else the
    ``/cutile/``→``/triton/`` mirror. Raises UsageError when none applies."""
    if out:
        return pathlib.Path(out)
    if out_dir:
        if root and root in src.parents:
            rel = src.relative_to(root)
        else:  # a file named on the command line: keep its path below the working directory
            try:
                rel = src.resolve().relative_to(pathlib.Path.cwd().resolve())
            except ValueError:
                rel = pathlib.Path(src.name)
        mirrored = mirror_path(rel)
        return pathlib.Path(out_dir) / (mirrored or rel)
    mirrored = mirror_path(src)
    if mirrored is None:
        raise UsageError(f"{src}: no 'cutile' folder in the path to mirror to 'triton'; use -o FILE, --out-dir DIR or --stdout")
    return mirrored


def convert_path(
    paths: Iterable[str],
    *,
    out: Optional[str] = None,
    out_dir: Optional[str] = None,
    check: bool = False,
    diff: bool = False,
    force: bool = False,
    write: bool = True,
    on_file: Optional[Callable[[FileReport], None]] = None,
    int64_indexing: bool = False,
    array_ranks: Optional[Mapping[str, int]] = None,
) -> List[FileReport]:
    """Convert files and folders (folders: every ``*.py`` under them that uses
    cuda.tile). Writes each result atomically to its destination (see
    :func:`output_for`) unless ``check``/``diff``/``write=False``.
    ``int64_indexing`` and ``array_ranks`` are passed to :func:`convert_source`.

    Returns one FileReport per input file. Raises UsageError for bad
    options (``out`` with several inputs) or missing paths.
    """
    paths = [paths] if isinstance(paths, (str, pathlib.PurePath)) else list(paths)
    for p in paths:
        if not pathlib.Path(p).exists():
            raise UsageError(f"{p}: no such file or directory")
    sources = []
    for p in paths:
        root = pathlib.Path(p) if pathlib.Path(p).is_dir() else None
        sources.extend((s, root) for s in iter_sources([p]))
    if out and len(sources) != 1:
        raise UsageError("-o FILE needs exactly one input file")
    cutile = [src for src, _ in sources if may_be_cutile(src)]  # the others are skipped: written nowhere
    if (write or check or diff) and not out and not out_dir and cutile and all(
            mirror_path(src) is None for src in cutile):
        # No file could be written: one usage error for the run, not the same one per file (nor a
        # "1 failed" summary for a single file that was never converted).
        raise UsageError(f"{' '.join(str(p) for p in paths)}: no 'cutile' folder in the path to mirror to 'triton'; "
                         "use -o FILE, --out-dir DIR or --stdout")
    if write or check or diff:
        seen = {}
        for src, root in sources:
            try:
                dest = output_for(src, out, out_dir, root).resolve()
            except UsageError:
                continue  # reported per file below
            if dest in seen and seen[dest] != src:
                raise UsageError(f"{seen[dest]} and {src} would both be written to {dest}")
            seen[dest] = src
    reports = []
    for src, root in sources:
        rep = _convert_one(src, root, out, out_dir, check, diff, force, write,
                           {"int64_indexing": int64_indexing, "array_ranks": array_ranks})
        reports.append(rep)
        if on_file:
            on_file(rep)
    return reports


def unused_rank_options(array_ranks: Mapping[str, int], kernel_params: Iterable[Mapping[str, List[str]]]) -> List[str]:
    """The ``array_ranks`` entries that name no parameter of any kernel in ``kernel_params`` (one
    {kernel: [parameter names]} per file, e.g. FileReport.kernel_params): a bare ``PARAM`` that no
    kernel has, or ``KERNEL.PARAM`` whose kernel is in none of the files (a kernel that exists but
    lacks the parameter gets its module's own warning). Typos, otherwise silent."""
    files = list(kernel_params)
    kernels = {k for f in files for k in f}
    names = {p for f in files for params in f.values() for p in params}
    return [key for key in array_ranks
            if (key not in names if "." not in key else key.split(".", 1)[0] not in kernels)]


def _convert_one(src, root, out, out_dir, check, diff, force, write, options) -> FileReport:
    try:
        data = src.read_bytes()
    except OSError as e:
        msg = f"{src}: error: cannot read file: {e.strerror}"
        return FileReport(str(src), None, FAILED, [{"severity": "error", "line": 0, "col": 0, "message": msg}], msg + "\n")
    result: ConversionResult = convert_source(data, str(src), **options)
    rep = _place(src, root, out, out_dir, check, diff, force, write, result)
    rep.kernel_params = result.kernel_params
    return rep


def _place(src, root, out, out_dir, check, diff, force, write, result: ConversionResult) -> FileReport:
    """Where `src`'s conversion goes (written, compared, refused) and its report."""
    # A module without cuda.tile is skipped, except inside a `cutile` package
    # folder: its mirror needs it too (package __init__, host utilities), with
    # registration and import paths rewritten (result.code).
    if not result.is_cutile and "cutile" not in src.resolve().parent.parts:
        return FileReport(str(src), None, SKIPPED)
    diags = [d.as_dict() for d in result.diagnostics]

    def io_failure(dest, msg):  # the file converted (or not), but its output path is unusable
        return FileReport(str(src), str(dest) if dest else None, FAILED,
                          diags + [{"severity": "error", "line": 0, "col": 0, "message": msg}],
                          result.rendered + msg + "\n", io_error=True)

    try:
        dest = output_for(src, out, out_dir, root) if write or check or diff else None
    except UsageError as e:  # reported with the other files (was raised after earlier files were written)
        text = str(e)
        return io_failure(None, f"{src}: error: {text[len(str(src)) + 2:] if text.startswith(f'{src}: ') else text}")
    if not result.ok:
        return FileReport(str(src), str(dest) if dest else None, FAILED, diags, result.rendered)
    if dest is None:
        return FileReport(str(src), None, CONVERTED, diags, result.rendered, code=result.code)
    try:
        old = dest.read_text(encoding="utf-8") if dest.exists() else None
    except (OSError, UnicodeDecodeError) as e:
        return io_failure(dest, f"{dest}: error: cannot read the existing output: {getattr(e, 'strerror', None) or e}")
    if old == result.code:
        return FileReport(str(src), str(dest), UNCHANGED, diags, result.rendered)
    if check or diff:
        text = ""
        if diff:
            # git's headers for relative paths (a/..., b/...), the paths themselves for absolute ones
            # (GNU diff); a new output is compared with /dev/null, so `patch -p1` / `patch -p0` create it.
            name = dest.as_posix()
            before, after = (name, name) if dest.is_absolute() else (f"a/{name}", f"b/{name}")
            text = "".join(difflib.unified_diff((old or "").splitlines(True), result.code.splitlines(True),
                                                "/dev/null" if old is None else before, after))
        return FileReport(str(src), str(dest), WOULD_CHANGE, diags, result.rendered, text)
    if old is not None and not force:  # the error is in the report too (--json), not only on stderr
        return FileReport(str(src), str(dest), EXISTS, diags + [{
            "severity": "error", "line": 0, "col": 0,
            "message": f"{dest}: output exists and differs; use --force to overwrite"}], result.rendered)
    try:
        atomic_write(dest, result.code)
    except OSError as e:
        return io_failure(dest, f"{dest}: error: cannot write file: {e.strerror}")
    return FileReport(str(src), str(dest), CONVERTED, diags, result.rendered)
