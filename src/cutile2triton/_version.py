"""Single source of the package version (kept equal to pyproject.toml)."""

__version__ = "0.1.0"
