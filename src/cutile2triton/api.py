"""Python API over the C++ core.

Every function takes source text as ``str`` or raw file ``bytes`` (bytes are
decoded by the core as CPython does: UTF-8, BOM, PEP 263 coding cookie).
Diagnostics are rendered in compiler form::

    FILE:LINE:COL: error: MESSAGE
    <source line>
        ^
"""

from __future__ import annotations

import os
import sys
from typing import Dict, List, Mapping, Optional, Union

from . import _core

Source = Union[str, bytes]


class ConversionError(Exception):
    """Raised when the core rejects the input.

    Attributes:
        diagnostics: the rendered diagnostics (``file:line:col: error: ...``
            lines with source line and caret), one or more.
    """

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics.rstrip("\n"))
        self.diagnostics = diagnostics


def _as_bytes(source: Source) -> bytes:
    return source.encode("utf-8") if isinstance(source, str) else bytes(source)


def core_filename(filename: str) -> str:
    """The file name as the core gets it (diagnostics, the generated header): `filename` itself
    when it is valid UTF-8, else with the bytes that are not (a POSIX name Python decoded with
    surrogateescape, e.g. ``bad\\xff.py``) written as ``\\xNN``. The core's strings are UTF-8."""
    try:
        filename.encode("utf-8")
        return filename
    except UnicodeEncodeError:
        try:
            return os.fsencode(filename).decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a surrogate no file system decoding gave
            return filename.encode("utf-8", "backslashreplace").decode("utf-8")


def parse_dump(
    source: Source,
    filename: str = "<unknown>",
    python_version: Optional[str] = None,
    include_attributes: bool = True,
) -> str:
    """Parse Python source with the C++ parser and dump its AST.

    Args:
        source: module source (str, or bytes as read from a file).
        filename: used in diagnostics only.
        python_version: "3.11" or "3.12": whose ``ast`` field set to print;
            default: the running interpreter's (only 3.11 and 3.12 known).
        include_attributes: print positions, as ``ast.dump(include_attributes=True)``.

    Returns:
        Text identical to ``ast.dump(ast.parse(source), include_attributes=...)``
        of that Python version.

    Raises:
        ConversionError: the source is not valid Python (CPython would raise
            SyntaxError); the message is the rendered diagnostic.
        ValueError: unknown python_version.
    """
    minor = _python_minor(python_version)
    ok, text, diags = _core.parse_dump(_as_bytes(source), core_filename(filename), minor, include_attributes)
    if not ok:
        raise ConversionError(diags)
    if text.startswith("error: "):  # a node or value Python 3.<minor> cannot represent
        raise ConversionError(f"{filename}: {text}\n")
    return text


def check_syntax(source: Source, filename: str = "<unknown>") -> None:
    """Parse ``source`` with the C++ parser and build nothing else.

    Raises:
        ConversionError: the source is not valid Python (CPython would raise
            SyntaxError); the message is the rendered diagnostic.
    """
    ok, diags = _core.check(_as_bytes(source), core_filename(filename))
    if not ok:
        raise ConversionError(diags)


def _python_minor(python_version: Optional[str]) -> int:
    if python_version is None:
        return min(max(sys.version_info.minor, 11), 12)
    major, _, minor = python_version.partition(".")
    if major != "3" or minor not in ("11", "12"):
        raise ValueError(f"unsupported --python-version {python_version!r} (use 3.11 or 3.12)")
    return int(minor)


class Diagnostic:
    """One compiler diagnostic.

    Attributes:
        severity: "error", "warning" or "note".
        line: 1-based line (0 = whole file).
        col: 1-based column in characters.
        message: one line of text.
    """

    __slots__ = ("severity", "line", "col", "message")

    def __init__(self, severity: str, line: int, col: int, message: str):
        self.severity, self.line, self.col, self.message = severity, line, col, message

    def as_dict(self) -> dict:
        return {"severity": self.severity, "line": self.line, "col": self.col, "message": self.message}

    def __repr__(self) -> str:
        return f"Diagnostic({self.severity}, {self.line}:{self.col}, {self.message!r})"


class ConversionResult:
    """What :func:`convert_source` returns.

    Attributes:
        ok: True when ``code`` holds the converted module.
        code: the Triton module text ("" when not ok: no partial output ever).
        diagnostics: list of :class:`Diagnostic` (warnings may accompany ok=True).
        rendered: the diagnostics rendered in compiler form (with source line and caret).
        is_cutile: False when the file does not use cuda.tile; ``code`` is then the host-only
            rewrite (register_impl/is_backend_available "cutile" -> "triton", imports through
            the /cutile/ -> /triton/ mirror), the text unchanged when nothing applies.
    """

    def __init__(self, ok: bool, code: str, diagnostics: List[Diagnostic], rendered: str, is_cutile: bool = True,
                 kernel_params: Optional[Mapping[str, List[str]]] = None):
        self.ok, self.code, self.diagnostics, self.rendered, self.is_cutile = ok, code, diagnostics, rendered, is_cutile
        # {kernel: [parameter names]} of every kernel lowered (array_ranks entries name these).
        self.kernel_params = {k: list(v) for k, v in (kernel_params or {}).items()}

    def __repr__(self) -> str:
        return f"ConversionResult(ok={self.ok}, {len(self.code)} chars, {len(self.diagnostics)} diagnostics)"


def convert_source(source: Source, filename: str = "<unknown>", *, int64_indexing: bool = False,
                   array_ranks: Optional[Mapping[str, int]] = None) -> ConversionResult:
    """Convert one cuTile module to a Triton module.

    Args:
        source: the module text (str) or the file's raw bytes.
        filename: the file's path, used in diagnostics and in the generated header; when it
            names an existing file, tile helpers that the module imports relatively
            (``from .gelu import gelu_ct``) are read from its folder and converted here.
        int64_indexing: compute every array's memory offsets in int64, as cuTile does only
            for ``ct.IndexedWithInt64`` arrays (cuTile's default index type is int32, and its
            launch refuses extents of 2**31 or more); needed for arrays with more than 2**31
            elements that the kernel does not annotate.
        array_ranks: ranks of array parameters whose uses do not show them, as
            ``{"kernel.param": rank}`` (or ``{"param": rank}`` for every kernel); the
            diagnostic for such a parameter names this option.

    Returns:
        A :class:`ConversionResult`; unsupported constructs give ``ok=False``
        with error diagnostics naming the construct and location. Never raises
        for bad input.
    """
    ok, code, diags, rendered, is_cutile, params = _core.convert_source(
        _as_bytes(source), core_filename(filename), int64_indexing, _ranks(array_ranks))
    return ConversionResult(ok, code, [Diagnostic(*d) for d in diags], rendered, is_cutile, dict(params))


def analyze_source(source: Source, filename: str = "<unknown>", *, int64_indexing: bool = False,
                   array_ranks: Optional[Mapping[str, int]] = None) -> dict:
    """The pre-flight report (workflow phase c2t-1) of one module, as a dict:
    kernels with their parameters, 1D vs 2D+ loads/stores, gathers/scatters,
    TMA candidates, layout flags, split-dimension patterns, autotune use,
    helpers, and unsupported constructs with locations (``diagnostics``; ``rendered``: the same in
    compiler form, with source lines and carets). Options as for :func:`convert_source`. Never raises for bad input (syntax
    errors appear under ``diagnostics``)."""
    import json

    return json.loads(_core.analyze_source(_as_bytes(source), core_filename(filename), int64_indexing, _ranks(array_ranks)))


def operations() -> List[dict]:
    """The cuTile operations the converter supports, read from its registry (C++ ``lower/op_registry.h``, one
    entry per operation), sorted by family, then name. One dict each: ``name`` (as written after ``ct.``;
    ``Tile.astype``, ``Array.tiled_view``, ... for methods), ``family`` (``memory``, ``arith``, ...),
    ``signature`` (its parameters as a Python def lists them; ``=`` marks optional ones, methods start with
    their object), ``call`` (as written in cuTile code: ``ct.load(array, index, shape, *, order=, ...)``,
    ``tile.astype(dtype, *, rounding_mode=)``) and ``triton`` (one line: what the converted code does)."""
    return [dict(zip(("name", "family", "signature", "call", "triton"), op)) for op in _core.operations()]


MAX_ARRAY_RANK = 64  # far above any array a kernel indexes; each dimension becomes two kernel parameters


def _ranks(array_ranks: Optional[Mapping[str, int]]) -> Dict[str, int]:
    """Checks the array_ranks option: names to ranks from 0 to MAX_ARRAY_RANK. Raises ValueError."""
    out: Dict[str, int] = {}
    for name, rank in (array_ranks or {}).items():
        if (not isinstance(name, str) or not name or isinstance(rank, bool) or not isinstance(rank, int) or rank < 0
                or rank > MAX_ARRAY_RANK):
            raise ValueError(f"array_ranks: expected 'kernel.param' or 'param' -> rank from 0 to {MAX_ARRAY_RANK}, "
                             f"got {name!r}: {rank!r}")
        out[name] = rank
    return out
