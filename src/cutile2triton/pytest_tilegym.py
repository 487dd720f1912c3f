"""pytest plug-in: run TileGym's own tests on cutile2triton's converted ops.

Usage, from a TileGym checkout (its ``src`` importable, e.g. ``PYTHONPATH=src``)::

    cutile2triton convert --out-dir CONV/ops/triton src/tilegym/ops/cutile
    cutile2triton convert --out-dir CONV/suites     src/tilegym/suites
    python -m pytest -p cutile2triton.pytest_tilegym --c2t-converted CONV \\
        tests/ops/test_softmax.py -k c2t_triton

``CONV`` mirrors the ``tilegym`` package with ``cutile`` folders renamed
``triton`` (what ``convert --out-dir`` writes). Nothing in TileGym is edited.

How it works (decisions, and why):

* Separate location. The converted files import ``tilegym.ops.triton.*`` and
  register ``backend="triton"``, which would collide with TileGym's hand-written
  ``ops/triton`` (dropout, layer_norm_legacy, rms_norm, rope). So each converted
  folder ``CONV/<rel>/triton`` is mounted as the package ``tilegym.<rel>.c2t_triton``
  by an import hook, which rewrites (in the AST, line numbers kept) absolute
  imports of ``tilegym.<rel>.triton``/``.cutile`` to that package. A module
  the converter did not write (it uses no cuda.tile) is served from the original
  ``cutile`` folder; one that uses cuda.tile but has no converted file fails to
  import (it is never served from cuTile's source).
* Separate backend name. ``register_impl`` calls made by mounted modules with
  backend ``triton`` (or ``cutile``) are recorded under ``c2t_triton``, so
  TileGym's own ``triton`` and ``cutile`` entries are untouched.
* Parametrization. Every ``@pytest.mark.parametrize`` on a test function whose
  argnames include ``backend`` or ``framework`` (``--c2t-argnames``; TileGym's
  suites use the latter) and which has a ``"cutile"``
  value gets one more case per such value, id ``c2t_triton`` (ids lists are
  extended, e.g. ``cutile-use_tma=True-...`` -> ``c2t_triton-use_tma=True-...``)
  and mark ``c2t_triton``. Its value stays ``"cutile"``: our ops are conversions
  of the cuTile ops and keep their contracts, and TileGym's tests branch on
  ``backend == "cutile"`` (skips of shapes cuTile does not support, ``_impl_fw``
  lists), which must take the cuTile branch for a like-for-like run.
* Swap. Every registry entry ``[op]["cutile"]`` is replaced by our
  ``[op]["c2t_triton"]``; an op that cuTile implements (``register_impl(...,
  backend="cutile")`` found in the original sources) but we do not gets a stub
  raising NotImplementedError with the reason (conversion failed, import error),
  so a test can never pass on a PyTorch fallback; "cutile" is marked available.
* ``--c2t-cutile block`` (default): cuTile is replaced by its conversion for the
  whole session. ``import cuda.tile`` fails, so no cuTile code can run; the swap
  holds from configure on (module-level ``is_backend_available("cutile")`` gates
  in test files then pass); ``tilegym.<rel>.cutile[.x]`` are aliased to the
  converted modules (some tests import them directly or call
  ``tilegym.ops.cutile.x.f``); TileGym's own ``"cutile"`` cases skip, since
  their ``c2t_triton`` twins run the same thing. ``allow``: cuTile stays, its
  cases run on cuTile; from setup to teardown of each ``c2t_triton`` case the
  swap holds and the imported ``tilegym.<rel>.cutile[.x]`` modules, with the
  names the test module took from them, are the converted ones
  (``tilegym_as_cutile.converted_as_cutile``); module-level gates see cuTile.
  Blocking sets ``CUTILE_TUTORIALS_BACKEND=triton`` if unset: TileGym refuses
  to import when its default backend is unavailable.
* ``--c2t-differential FILE`` (with ``allow``): each op call of a ``c2t_triton``
  case (registry ops, and functions of cuTile's modules that the test calls
  directly) runs cuTile's on copies of the arguments first and compares the two
  results at the workflow's tolerances, doubled (``tilegym_differential``); a mismatch
  fails the case, and every call is a JSON line in FILE.
* ``--c2t-use-tma auto``: every launcher of the converted modules
  (``launch_<kernel>``) whose caller gives no ``use_tma`` takes TMA descriptors
  wherever the launch's tensors allow them (``use_tma=None``) instead of the
  default ``"tuned"`` (pointers unless a tuning search or the spill step chose
  descriptors), so that TileGym's tests check the descriptor path of every
  converted kernel on the GPU, however a kernel is launched (by name,
  re-hinted, through a tuning search). Launchers defined inside functions
  (kernel factories) keep their default; a launch whose fp8 operand the
  runtime copies K-major on sm_90 takes pointers (the copy fails the
  descriptor checks: docs/RUNTIME.md).
* ``--c2t-shard K/N``: keeps the K-th of every N selected cases, so that N
  processes share a file whose cases each run a tuning search (TileGym's
  test_bmm: 128 cases of ~20 s on an H200) and the file finishes in 1/N the time.

Needs no compiler extension: the conversion is done beforehand.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.abc
import importlib.util
import inspect
import os
import re
import sys
import traceback
from pathlib import Path

import pytest

C2T = "c2t_triton"  # test id, mark, registry backend name and mounted package name
_REGISTER_RE = re.compile(r"register_impl\(\s*[\"']([^\"']+)[\"']\s*,\s*backend\s*=\s*[\"']cutile[\"']")


class _BlockCuTile(importlib.abc.MetaPathFinder):
    """Makes ``import cuda.tile`` (and its submodules) fail."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "cuda.tile" or fullname.startswith("cuda.tile."):
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked by cutile2triton.pytest_tilegym)",
                                      name=fullname)
        return None


class _Mounts:
    """The converted tree and what was loaded from it (one per session)."""

    def __init__(self, converted: Path, tilegym_root: Path):
        self.converted = converted
        self.tilegym_root = tilegym_root
        # rel parts of each mounted folder: ("ops",), ("suites", "liger"), ...
        self.rels: list[tuple[str, ...]] = []
        for d in sorted(converted.rglob("triton")):
            rel = d.parent.relative_to(converted).parts
            if d.is_dir() and (tilegym_root.joinpath(*rel, "cutile")).is_dir():
                self.rels.append(rel)
        self.loaded: list[str] = []
        self.import_errors: dict[str, str] = {}  # module -> first error line
        self.op_module: dict[str, str] = {}  # converted op -> module that registered it
        self.cutile_ops: dict[str, Path] = {}  # op cuTile registers -> original file
        self.impls: dict[str, object] = {}  # op -> our implementation
        self.cutile_imported = False  # tilegym_as_cutile imported every cuTile module of the mounts

    def package(self, rel: tuple[str, ...]) -> str:
        return ".".join(("tilegym", *rel, C2T))

    def is_ours(self, modname: str) -> bool:
        return any(modname == self.package(r) or modname.startswith(self.package(r) + ".") for r in self.rels)

    def rewrite_module_name(self, name: str | None) -> str | None:
        """``tilegym.<rel>.triton[.x]`` / ``.cutile[.x]`` -> ``tilegym.<rel>.c2t_triton[.x]``."""
        if not name:
            return name
        for rel in self.rels:
            for old in ("triton", "cutile"):
                prefix = ".".join(("tilegym", *rel, old))
                if name == prefix or name.startswith(prefix + "."):
                    return self.package(rel) + name[len(prefix):]
        return name


class _Loader(importlib.abc.Loader):
    def __init__(self, mounts: _Mounts, path: Path | None):
        self.mounts, self.path = mounts, path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if self.path is None:  # a synthetic package: its __init__ is not run (it imports every module eagerly)
            return
        src = self.path.read_text(encoding="utf-8")
        tree = ast.parse(src, filename=str(self.path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                node.module = self.mounts.rewrite_module_name(node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:  # `import a.b.c` without `as` binds `a`; left alone
                        alias.name = self.mounts.rewrite_module_name(alias.name)
        exec(compile(tree, str(self.path), "exec"), module.__dict__)


class _ConvertedFinder(importlib.abc.MetaPathFinder):
    """Serves ``tilegym.<rel>.c2t_triton[.sub...]`` from the converted tree."""

    def __init__(self, mounts: _Mounts):
        self.mounts = mounts

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if parts[0] != "tilegym" or C2T not in parts:
            return None
        i = parts.index(C2T)
        rel, sub = tuple(parts[1:i]), parts[i + 1:]
        if rel not in self.mounts.rels:
            return None
        conv = self.mounts.converted.joinpath(*rel, "triton", *sub)
        orig = self.mounts.tilegym_root.joinpath(*rel, "cutile", *sub)
        if conv.is_dir() or orig.is_dir():
            spec = importlib.util.spec_from_loader(fullname, _Loader(self.mounts, None), is_package=True)
            spec.submodule_search_locations = [str(conv)]
            return spec
        file = conv.with_suffix(".py")
        if not file.is_file():
            file = orig.with_suffix(".py")
            if not file.is_file():
                return None
            if _imports_cuda_tile(file):
                raise ModuleNotFoundError(
                    f"{fullname}: {file} uses cuda.tile and has no converted file in {self.mounts.converted}"
                    " (its conversion failed?)",
                    name=fullname,
                )
        return importlib.util.spec_from_file_location(fullname, file, loader=_Loader(self.mounts, file))


def _imports_cuda_tile(file: Path) -> bool:
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), filename=str(file))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        if any(n == "cuda.tile" or n.startswith("cuda.tile.") for n in names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "cuda" and any(a.name == "tile" for a in node.names):
            return True
    return False


def _first_line(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[0]


def _patch_register_impl(mounts: _Mounts) -> None:
    """Record registrations made by mounted modules under ``c2t_triton``."""
    import tilegym.backend as tb
    import tilegym.backend.dispatcher as td

    real = td.register_impl

    def register_impl(name, backend):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if mounts.is_ours(caller) and backend in ("triton", "cutile"):
            mounts.op_module.setdefault(name, caller)
            return real(name, C2T)
        return real(name, backend)

    register_impl.__doc__ = real.__doc__
    for mod in (td, tb, sys.modules.get("tilegym")):
        if mod is not None and getattr(mod, "register_impl", None) is real:
            mod.register_impl = register_impl


def _alias_cutile(mounts: _Mounts) -> None:
    """With cuda.tile blocked, make ``tilegym.<rel>.cutile[.x]`` our converted modules.

    Some tests bypass the registry (``from tilegym.ops.cutile.attention import ...``,
    ``tilegym.ops.cutile.mla_decoding.mla_decoding(...)``); with cuTile blocked those
    names are dead, so they are pointed at the converted modules (sys.modules entries,
    made before any test module is imported, so no import machinery re-runs them).
    """
    for rel in mounts.rels:
        pkg_name = mounts.package(rel)
        for name, mod in list(sys.modules.items()):
            if mod is not None and (name == pkg_name or name.startswith(pkg_name + ".")):
                sys.modules[".".join(("tilegym", *rel, "cutile")) + name[len(pkg_name):]] = mod
        setattr(importlib.import_module(".".join(("tilegym", *rel))), "cutile", sys.modules[pkg_name])


def load_converted(converted: Path, alias_cutile: bool = False) -> _Mounts:
    """Mount the converted tree, import every converted module, collect the ops."""
    import tilegym
    import tilegym.backend.selector as sel
    from tilegym.backend.dispatcher import _REGISTRY

    mounts = _Mounts(converted.resolve(), Path(tilegym.__file__).resolve().parent)
    sys.meta_path.insert(0, _ConvertedFinder(mounts))
    _patch_register_impl(mounts)
    for rel in mounts.rels:
        for orig in sorted(mounts.tilegym_root.joinpath(*rel, "cutile").rglob("*.py")):
            for op in _REGISTER_RE.findall(orig.read_text(encoding="utf-8")):
                mounts.cutile_ops.setdefault(op, orig)
        base = converted.joinpath(*rel, "triton")
        for f in sorted(base.rglob("*.py")):
            if f.name == "__init__.py":
                continue
            mod = ".".join((mounts.package(rel), *f.relative_to(base).with_suffix("").parts))
            try:
                importlib.import_module(mod)
                mounts.loaded.append(mod)
            except BaseException as e:  # noqa: BLE001 -- a module's failure is a finding, reported per op
                if isinstance(e, KeyboardInterrupt):
                    raise
                mounts.import_errors[mod] = _first_line(e)
    mounts.impls = {op: be[C2T] for op, be in _REGISTRY.items() if C2T in be}
    for rel in mounts.rels:
        importlib.import_module(mounts.package(rel))  # a mount with no loadable module still gets its package
    if alias_cutile:
        _alias_cutile(mounts)
    sel._AVAILABLE_BACKENDS.add(C2T)  # so tilegym.set_backend("c2t_triton") also works by hand
    return mounts


def _missing_reason(mounts: _Mounts, op: str) -> str:
    orig = mounts.cutile_ops.get(op)
    if orig is None:
        return "no converted implementation"
    rel = orig.relative_to(mounts.tilegym_root)
    parts = rel.parts
    k = parts.index("cutile")
    conv_rel = Path(*parts[:k], "triton", *parts[k + 1:])
    mod = ".".join(("tilegym", *parts[:k], C2T, *Path(*parts[k + 1:]).with_suffix("").parts))
    if mod in mounts.import_errors:
        return f"converted module {mod} failed to import: {mounts.import_errors[mod]}"
    if not mounts.converted.joinpath(conv_rel).is_file():
        return f"{rel} has no converted file (conversion failed)"
    return f"the converted {conv_rel} did not register it"


def _stub(op: str, reason: str):
    def not_converted(*args, **kwargs):
        raise NotImplementedError(f"cutile2triton: op {op!r} has no converted implementation: {reason}")

    return not_converted


# ---------------------------------------------------------------- pytest hooks

_MOUNTS = pytest.StashKey[_Mounts]()
_SAVED = pytest.StashKey[contextlib.ExitStack]()
_DIFFERENTIAL = pytest.StashKey[object]()  # a tilegym_differential.Differential with --c2t-differential


def pytest_addoption(parser):
    g = parser.getgroup("cutile2triton", "run TileGym's tests on cutile2triton's converted ops")
    g.addoption("--c2t-converted", default=os.environ.get("C2T_TILEGYM_CONVERTED"),
                help="converted tree mirroring the tilegym package (CONV/ops/triton/..., CONV/suites/<s>/triton/...); "
                "env C2T_TILEGYM_CONVERTED")
    g.addoption("--c2t-cutile", choices=("block", "allow"), default=os.environ.get("C2T_TILEGYM_CUTILE", "block"),
                help="block (default): cuda.tile cannot be imported, TileGym's cutile cases skip; "
                "allow: run them too (each c2t_triton case still gets the converted ops and modules)")
    g.addoption("--c2t-argnames", default="backend,framework",
                help="comma-separated names of the parametrized arguments that carry the backend (default "
                "backend,framework: TileGym's ops tests name it backend, its suites framework)")
    g.addoption("--c2t-differential", default=os.environ.get("C2T_TILEGYM_DIFFERENTIAL"), metavar="FILE",
                help="with --c2t-cutile allow: each op call of a c2t_triton case also runs cuTile's op on copies "
                "of its arguments and compares the results at the workflow's tolerances, doubled (a mismatch fails the "
                "case); one JSON line per call in FILE (cutile2triton.tilegym_differential); "
                "env C2T_TILEGYM_DIFFERENTIAL")
    g.addoption("--c2t-use-tma", choices=("tuned", "auto"), default=os.environ.get("C2T_TILEGYM_USE_TMA", "tuned"),
                help="tuned (default): the launchers' own choice; auto: a launcher called without use_tma takes "
                "TMA descriptors wherever the tensors allow them (tests the descriptor paths on the GPU); "
                "env C2T_TILEGYM_USE_TMA")
    g.addoption("--c2t-shard", default=os.environ.get("C2T_TILEGYM_SHARD"), metavar="K/N",
                help="run only shard K of N (1 <= K <= N) of the selected cases, dealt round-robin in "
                "collection order, so that N processes share one slow file; env C2T_TILEGYM_SHARD")


def pytest_configure(config):
    config.addinivalue_line("markers", f"{C2T}: TileGym test case run on cutile2triton's converted ops")
    conv = config.getoption("--c2t-converted")
    if config.getoption("help", False) or config.getoption("version", False):
        return  # `pytest -p cutile2triton.pytest_tilegym --help` lists the options
    if config.getoption("--c2t-shard"):
        parse_shard(config.getoption("--c2t-shard"))  # a bad K/N is a usage error before collection
    if not conv:
        raise pytest.UsageError("cutile2triton.pytest_tilegym: give --c2t-converted DIR (or C2T_TILEGYM_CONVERTED)")
    if not Path(conv).is_dir():
        raise pytest.UsageError(f"cutile2triton.pytest_tilegym: --c2t-converted {conv}: no such folder")
    if config.getoption("--c2t-cutile") == "block":
        if "cuda.tile" in sys.modules or "tilegym" in sys.modules:
            raise pytest.UsageError("cutile2triton.pytest_tilegym: cuda.tile or tilegym was imported before the "
                                    "plug-in could block cuda.tile; use -p early or --c2t-cutile allow")
        sys.meta_path.insert(0, _BlockCuTile())
        os.environ.setdefault("CUTILE_TUTORIALS_BACKEND", "triton")
    block = config.getoption("--c2t-cutile") == "block"
    if config.getoption("--c2t-differential"):
        if block:
            raise pytest.UsageError("cutile2triton.pytest_tilegym: --c2t-differential compares with cuTile, which "
                                    "must run: add --c2t-cutile allow")
        from .tilegym_differential import Differential

        config.stash[_DIFFERENTIAL] = Differential(config.getoption("--c2t-differential"))
    mounts = config.stash[_MOUNTS] = load_converted(Path(conv), alias_cutile=block)
    if config.getoption("--c2t-use-tma") == "auto":
        describe_by_default(sys.modules[m] for m in mounts.loaded)
    if block:  # for the whole session, "cutile" means the converted ops (see the module docstring)
        _swap_in(mounts)


def describe_by_default(modules) -> int:
    """Makes each module-level ``launch_<kernel>`` of `modules` default to ``use_tma=None`` (TMA descriptors
    wherever the launch's tensors pass the launcher's checks) instead of ``"tuned"``. The default is changed on
    the function itself, so that every way to it sees it: the host code's calls through the module's globals,
    ``_c2t_launch`` through the kernel's ``_c2t_launcher`` (re-hinted kernels, kernels in dicts) and the tuning
    search, which also reads the launcher's module. The flag is ``use_tma`` or, where a kernel parameter
    takes that name, ``use_tma_`` (host/launcher.cpp). Returns how many launchers changed."""
    count = 0
    for mod in modules:
        for name, fn in list(vars(mod).items()):
            if not (name.startswith("launch_") and inspect.isfunction(fn) and fn.__module__ == mod.__name__):
                continue
            # The function's own parameters (not a wrapped one's): their defaults are the ones changed.
            params = inspect.signature(fn, follow_wrapped=False).parameters.values()
            flags = [p for p in params if re.fullmatch(r"use_tma_*", p.name) and p.default == "tuned"]
            if not flags:
                continue
            flag = flags[-1]  # the launcher's own comes after the kernel's parameters
            if flag.kind is flag.KEYWORD_ONLY:
                fn.__kwdefaults__ = {**fn.__kwdefaults__, flag.name: None}
            else:
                positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                defaults = list(fn.__defaults__)
                defaults[positional.index(flag.name) - (len(positional) - len(defaults))] = None
                fn.__defaults__ = tuple(defaults)
            count += 1
    return count


def parse_shard(text: str) -> tuple[int, int]:
    """"K/N" -> (K, N) with 1 <= K <= N; raises pytest.UsageError otherwise."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise pytest.UsageError(f"cutile2triton.pytest_tilegym: --c2t-shard {text!r}: expected K/N with 1 <= K <= N")
    return k, n


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """--c2t-shard K/N: keeps every N-th case from the K-th on, after -k/-m have deselected (trylast),
    so the N shards of a file run disjoint cases that together are the whole selection."""
    text = config.getoption("--c2t-shard")
    if not text:
        return
    k, n = parse_shard(text)
    kept = [it for i, it in enumerate(items) if i % n == k - 1]
    dropped = [it for i, it in enumerate(items) if i % n != k - 1]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def _summary(config) -> list[str]:
    m = config.stash.get(_MOUNTS, None)
    if m is None:
        return []
    missing = sorted(set(m.cutile_ops) - set(m.impls))
    lines = [f"cutile2triton: {m.converted} mounted as {', '.join(m.package(r) for r in m.rels)}; "
             f"cuda.tile {config.getoption('--c2t-cutile')}ed",
             f"cutile2triton: {len(m.loaded)} modules imported, {len(m.import_errors)} failed; "
             f"{len(m.impls)} ops converted, {len(missing)} cuTile ops without one"]
    lines += [f"  import failed: {mod}: {err}" for mod, err in sorted(m.import_errors.items())]
    lines += [f"  not converted: {op}: {_missing_reason(m, op)}" for op in missing]
    return lines


def pytest_report_header(config):
    return _summary(config) or None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = _summary(config)
    differential = config.stash.get(_DIFFERENTIAL, None)
    if differential is not None:
        lines.append(differential.summary())
    if lines:
        terminalreporter.section("cutile2triton")
        for line in lines:
            terminalreporter.write_line(line)


def _param_id(config, argnames, values, ids, j, bi):
    """Id of the added case made from argvalues[j] (backend at position bi)."""
    if isinstance(ids, (list, tuple)) and j < len(ids) and isinstance(ids[j], str):
        return ids[j].replace("cutile", C2T, 1) if "cutile" in ids[j] else f"{C2T}-{ids[j]}"
    if len(argnames) == 1:
        return C2T
    out = []
    for k, (name, val) in enumerate(zip(argnames, values)):
        if k == bi:
            out.append(C2T)
            continue
        got = config.hook.pytest_make_parametrize_id(config=config, val=val, argname=name)
        if got is None:
            got = str(val) if isinstance(val, (int, float, str, bool, type(None))) else f"{name}{j}"
        out.append(got)
    return "-".join(out)


def add_c2t_cases(config, mark, backend_argnames):
    """A copy of a parametrize mark with one c2t case per ``"cutile"`` case, or None if it has none."""
    argnames = mark.args[0] if mark.args else mark.kwargs["argnames"]
    names = [a.strip() for a in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
    bi = next((i for i, n in enumerate(names) if n in backend_argnames), None)
    if bi is None:
        return None
    argvalues = list(mark.args[1] if len(mark.args) > 1 else mark.kwargs["argvalues"])
    ids = mark.kwargs.get("ids")
    added, added_ids = [], []
    for j, av in enumerate(argvalues):
        if isinstance(av, type(pytest.param(None))):
            values, marks = tuple(av.values), list(av.marks)
        else:
            values, marks = ((av,) if len(names) == 1 else tuple(av)), []
        if len(values) != len(names) or not (isinstance(values[bi], str) and values[bi] == "cutile"):
            continue
        pid = _param_id(config, names, values, ids, j, bi)
        added.append(pytest.param(*values, id=pid, marks=[*marks, getattr(pytest.mark, C2T)]))
        added_ids.append(pid)
    if not added:
        return None
    kwargs = dict(mark.kwargs)
    kwargs.pop("argnames", None)
    kwargs.pop("argvalues", None)
    if isinstance(ids, (list, tuple)):
        kwargs["ids"] = [*ids, *added_ids]
    return pytest.mark.parametrize(argnames, argvalues + added, **kwargs).mark


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    """Extend the function's own parametrize marks before pytest's hook applies them."""
    argnames = {a.strip() for a in metafunc.config.getoption("--c2t-argnames").split(",")}
    own = metafunc.definition.own_markers
    for i, mark in enumerate(own):
        if mark.name == "parametrize":
            new = add_c2t_cases(metafunc.config, mark, argnames)
            if new is not None:
                own[i] = new


def _swap_in(mounts: _Mounts, differential=None):
    """Registers our ops as "cutile" (each checked against cuTile's own with a Differential)."""
    import tilegym.backend.selector as sel
    from tilegym.backend.dispatcher import _REGISTRY

    saved_reg = {op: be.get("cutile") for op, be in _REGISTRY.items()}
    for op in set(mounts.cutile_ops) | set(mounts.impls):
        impl = mounts.impls.get(op) or _stub(op, _missing_reason(mounts, op))
        if differential is not None:  # also the stubs: cuTile's reference keeps cuTile's own op
            impl = differential.wrap(op, saved_reg.get(op), impl)
        _REGISTRY.setdefault(op, {})["cutile"] = impl
    had = "cutile" in sel._AVAILABLE_BACKENDS
    sel._AVAILABLE_BACKENDS.add("cutile")
    return saved_reg, had


def _swap_out(saved):
    import tilegym.backend.selector as sel
    from tilegym.backend.dispatcher import _REGISTRY

    saved_reg, had = saved
    for op, be in _REGISTRY.items():
        if saved_reg.get(op) is None:
            be.pop("cutile", None)
        else:
            be["cutile"] = saved_reg[op]
    if not had:
        sel._AVAILABLE_BACKENDS.discard("cutile")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    mounts = item.config.stash.get(_MOUNTS, None)
    if mounts is not None and item.config.getoption("--c2t-cutile") == "block":
        if item.get_closest_marker(C2T) is None and _is_cutile_case(item):
            pytest.skip(f"cuda.tile blocked by cutile2triton (--c2t-cutile block): the {C2T} case of these "
                        "parameters runs the converted op")
    elif mounts is not None and item.get_closest_marker(C2T) is not None:
        differential = item.config.stash.get(_DIFFERENTIAL, None)
        if differential is not None:
            differential.test = item.nodeid
        # "cutile" means the converted ops for this case: the registry, and (cuTile being importable)
        # the cuTile modules and the names the test module took from them (tilegym_as_cutile).
        from .tilegym_as_cutile import converted_as_cutile

        stack = contextlib.ExitStack()
        stack.enter_context(converted_as_cutile(mounts, getattr(getattr(item, "module", None), "__dict__", None),
                                                differential))
        item.stash[_SAVED] = stack
    return (yield)


def _is_cutile_case(item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    names = {a.strip() for a in item.config.getoption("--c2t-argnames").split(",")}
    return any(params.get(n) == "cutile" for n in names)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    try:
        return (yield)
    finally:
        saved = item.stash.get(_SAVED, None)
        if saved is not None:
            del item.stash[_SAVED]
            saved.close()
