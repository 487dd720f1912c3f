"""cutile2triton: compile NVIDIA cuTile Python kernels into Triton kernels.

The compiler is C++ (``cutile2triton._core``); this package is the thin layer
users touch: the ``cutile2triton`` command (see :mod:`cutile2triton.cli`) and
the functions below.
"""

from ._version import __version__
from .api import ConversionError, ConversionResult, Diagnostic, analyze_source, convert_source, operations, parse_dump
from .convert import FileReport, UsageError, convert_path

__all__ = [
    "__version__",
    "ConversionError",
    "ConversionResult",
    "Diagnostic",
    "FileReport",
    "UsageError",
    "analyze_source",
    "convert_path",
    "convert_source",
    "operations",
    "parse_dump",
]
