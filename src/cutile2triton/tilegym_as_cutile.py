"""TileGym's "cutile" meaning the converted ops for one call, while cuTile stays loaded: a bench
file's cuTile line run on the conversion in the same process as cuTile's own line (the benchmark
harness), a converted test case with cuTile allowed (the pytest plug-in, also under its differential
check), and a check of which kernels a call launched.

TileGym's bench files reach cuTile three ways: the op registry (``tilegym.set_backend("cutile")``,
``backend="cutile"``), names imported from ``tilegym.<rel>.cutile[.x]`` at the top of the file
(``from tilegym.ops.cutile.attention import tile_fmha_with_backward``, also as values of a
module-level dict), and imports inside the timed function. Many time PyTorch for any backend but
``"cutile"`` (``if backend == "cutile": ... else: reference``), so a line with backend
``c2t_triton`` would time PyTorch there (TileGym 75a14307: the experimental silu_and_mul, swiglu
and fused MLP backward benchmarks). ``converted_as_cutile`` makes all three ways lead to the
conversion for the duration of a call; ``LaunchProbe`` counts the kernels a call launched, the
converted ones (Triton launches of kernels defined in the mounted packages) and cuTile's
(``cuda.tile.launch``), so that a point that did not run the converted kernels is reported as
such instead of as a number.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import inspect
import sys
import types

from .pytest_tilegym import _Mounts, _swap_in, _swap_out
from .tilegym_differential import _side


def cutile_counterpart(mounts: _Mounts, name: str) -> str | None:
    """``tilegym.<rel>.cutile[.x]`` -> ``tilegym.<rel>.c2t_triton[.x]`` for a mounted rel; None for
    any other module name (TileGym's hand-written ``triton`` modules included)."""
    for rel in mounts.rels:
        prefix = ".".join(("tilegym", *rel, "cutile"))
        if name == prefix or name.startswith(prefix + "."):
            return mounts.package(rel) + name[len(prefix):]
    return None


_MISSING = object()


class _View(types.ModuleType):
    """A cuTile module as the converted ops' side sees it while converted_as_cutile is active: each
    attribute is the converted counterpart of cuTile's (a submodule's view, a function or class of
    the converted module that defined it, so also what a package re-exports: TileGym's
    ``ops/cutile/__init__.py`` re-exports ``softmax`` beside the submodule ``softmax``); an object of
    a cuTile module without a conversion raises NotImplementedError when called; anything else
    (torch, dunders such as ``__path__``) is cuTile's. With a Differential, functions come wrapped:
    each call is checked against cuTile's (tilegym_differential), and cuTile's reference, which may
    reach the same names, gets cuTile's. Setting an attribute (a test's monkeypatch) sets it on the
    converted module."""

    def __init__(self, mounts, cutile_module, converted_module, differential):
        super().__init__(cutile_module.__name__, cutile_module.__doc__)
        object.__setattr__(self, "_c2t", (mounts, cutile_module, converted_module, differential))

    def __getattr__(self, name):
        mounts, cutile_module, converted_module, differential = self.__dict__["_c2t"]
        ref = getattr(cutile_module, name, _MISSING)
        if isinstance(ref, _View):  # cuTile's package attribute, itself swapped meanwhile
            ref = ref.__dict__["_c2t"][1]
        if ref is _MISSING:
            if converted_module is None:
                raise AttributeError(name)
            return getattr(converted_module, name)
        if name.startswith("__"):
            return ref
        return _counterpart(mounts, ref, differential)

    def __setattr__(self, name, value):
        converted_module = self.__dict__["_c2t"][2]
        setattr(converted_module if converted_module is not None else self.__dict__["_c2t"][1], name, value)

    def __delattr__(self, name):
        converted_module = self.__dict__["_c2t"][2]
        delattr(converted_module if converted_module is not None else self.__dict__["_c2t"][1], name)


def _op_name(fn) -> str:
    """A cuTile function's name in the differential's records: ops.cutile.mla_decoding.mla_decoding."""
    return f"{fn.__module__.removeprefix('tilegym.')}.{fn.__qualname__}"


def _not_converted(mounts: _Mounts, obj):
    """A stand-in for an object of a cuTile module that has no converted counterpart (its module did
    not convert or failed to import): calling it raises, so a converted case never runs cuTile."""
    where = obj.__name__ if isinstance(obj, types.ModuleType) else f"{obj.__module__}.{getattr(obj, '__qualname__', obj)}"
    conv = cutile_counterpart(mounts, obj.__name__ if isinstance(obj, types.ModuleType) else obj.__module__)
    reason = mounts.import_errors.get(conv, "no converted module") if conv else "no converted module"

    def not_converted(*args, **kwargs):
        raise NotImplementedError(f"cutile2triton: {where} has no converted counterpart: {reason}")

    return not_converted


def _counterpart(mounts: _Mounts, obj, differential):
    """What the converted side gets for cuTile's obj: a view of a cuTile module, the converted function or
    class (wrapped for the differential), a stand-in that raises for a cuTile object without one, or obj
    itself when it is not cuTile's."""
    if isinstance(obj, types.ModuleType):
        conv = cutile_counterpart(mounts, obj.__name__)
        if conv is None:
            return obj
        return _View(mounts, obj, sys.modules.get(conv), differential)
    module = getattr(obj, "__module__", None)
    conv = cutile_counterpart(mounts, module) if isinstance(module, str) else None
    if conv is None:
        return obj
    # The converted module's object of the same top-level name (a nested one has none to map to).
    qualname, conv_mod = getattr(obj, "__qualname__", None), sys.modules.get(conv)
    top_level = conv_mod is not None and isinstance(qualname, str) and "." not in qualname
    new = getattr(conv_mod, qualname, None) if top_level else None
    if new is None:
        return _not_converted(mounts, obj) if callable(obj) else obj
    if differential is not None and inspect.isfunction(obj) and inspect.isfunction(new) and new is not obj:
        return differential.wrap(_op_name(obj), obj, new)
    return new


class _Existing(importlib.abc.Loader):
    """Loads a module name as an existing module object, whose own spec it keeps (the import system
    sets the new name's spec on it first)."""

    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        if self.spec is not None:
            module.__spec__ = self.spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """A cuTile module imported for the first time while converted_as_cutile is active is its
    converted counterpart (imported if need be): never cuTile's file, nor the converted file loaded a
    second time under cuTile's name (which the swapped package's __path__ would otherwise find).
    cuTile's reference in a differential check imports cuTile's own."""

    def __init__(self, mounts: _Mounts):
        self.mounts = mounts

    def find_spec(self, fullname, path=None, target=None):
        conv = cutile_counterpart(self.mounts, fullname)
        if conv is None or _side[0] == "cutile":
            return None
        return importlib.util.spec_from_loader(fullname, _Existing(importlib.import_module(conv)))


def _import_cutile_modules(mounts: _Mounts) -> None:
    """Imports every module of the mounted cuTile folders once (cuTile allowed), so that the names a
    call reaches are already in sys.modules and get their views: a module imported first during the
    call would be cuTile's own on the reference's side and the converted one on ours, unchecked."""
    if mounts.cutile_imported:
        return
    mounts.cutile_imported = True
    for rel in mounts.rels:
        base = mounts.tilegym_root.joinpath(*rel, "cutile")
        for f in sorted(base.rglob("*.py")):
            parts = f.relative_to(base).with_suffix("").parts
            name = ".".join(("tilegym", *rel, "cutile", *(parts[:-1] if parts[-1] == "__init__" else parts)))
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 -- cuTile's own import problem: its names stay unreached
                pass


@contextlib.contextmanager
def converted_as_cutile(mounts: _Mounts, namespace: dict | None = None, differential=None):
    """While active, TileGym's ``"cutile"`` means the converted ops: registry entries (as the pytest
    plug-in's swap: an op without a conversion raises NotImplementedError), the ``tilegym.<rel>.cutile[.x]``
    modules (all imported first) as views of their converted counterparts (``_View``) in ``sys.modules``
    and as attributes of their packages, and the names in ``namespace`` (a bench or test module's
    globals, and the values of its dicts) bound to objects of those modules. Everything is restored on
    exit. An object without a counterpart raises when called; a cuTile kernel the caller launches
    itself stays cuTile's: LaunchProbe tells.

    With a ``differential`` (tilegym_differential.Differential), registry ops, functions in the
    namespace and functions reached through the modules are checked call by call against cuTile's.
    Not reached: objects held elsewhere (a list, a class attribute, a fixture built before the call)."""
    _import_cutile_modules(mounts)
    plan = []  # (container, key, new value): sys.modules entries, package attributes, namespace names
    for name in list(sys.modules):
        module = sys.modules[name]
        if cutile_counterpart(mounts, name) is None or not isinstance(module, types.ModuleType):
            continue
        view = _counterpart(mounts, module, differential)
        plan.append((sys.modules, name, view))
        parent, _, child = name.rpartition(".")
        holder = sys.modules.get(parent)  # cuTile's package (nothing is changed while planning)
        if holder is not None and getattr(holder, child, None) is module:  # not a re-exported function
            plan.append((holder, child, view))
    for container in [namespace or {}] + [v for v in (namespace or {}).values() if isinstance(v, dict)]:
        for key, value in list(container.items()):
            new = _counterpart(mounts, value, differential)
            if new is not value:
                plan.append((container, key, new))
    saved_registry = _swap_in(mounts, differential)
    undo: list = []  # (container, key, old value), restored in reverse
    before = set(sys.modules)
    finder = _AliasFinder(mounts)
    sys.meta_path.insert(0, finder)
    try:
        for container, key, new in plan:
            if isinstance(container, dict):
                undo.append((container, key, container[key]))
                container[key] = new
            else:
                undo.append((container, key, container.__dict__[key]))
                object.__setattr__(container, key, new)
        yield
    finally:
        sys.meta_path.remove(finder)
        for container, key, old in reversed(undo):
            if isinstance(container, dict):
                container[key] = old
            else:
                object.__setattr__(container, key, old)
        for name in set(sys.modules) - before:  # cuTile names first imported meanwhile: dropped, with
            if cutile_counterpart(mounts, name) is not None:  # the package attribute the import set
                alias = sys.modules.pop(name)
                parent, _, child = name.rpartition(".")
                holder = sys.modules.get(parent)
                if holder is not None and holder.__dict__.get(child) is alias:
                    delattr(holder, child)
        _swap_out(saved_registry)


class LaunchProbe:
    """Counts the kernels launched during one call: ``converted`` (Triton launches, compiled or
    interpreted, of kernels defined in the mounted packages) and ``cutile`` (``cuda.tile.launch``
    calls; cuTile's ops call it as ``ct.launch``). A Triton launch-enter hook is set for the call,
    which also sends the converted runtime's reused launches through Triton (its native launch
    stands aside while launch hooks are set), so every launch is seen; the call is not timed."""

    def __init__(self, mounts: _Mounts):
        self.mounts = mounts

    def __call__(self, fn) -> dict:
        """Calls fn() once; returns {"converted": n, "cutile": n}. fn's exception propagates."""
        import triton
        from triton.runtime.jit import JITFunction

        counts = {"converted": 0, "cutile": 0}
        classes = [JITFunction]
        try:
            from triton.runtime.interpreter import InterpretedFunction

            classes.append(InterpretedFunction)
        except ImportError:
            pass
        mounts = self.mounts

        def counting_run(real):
            def run(kernel, *args, **kwargs):
                if not kwargs.get("warmup") and mounts.is_ours(getattr(kernel.fn, "__module__", "") or ""):
                    counts["converted"] += 1
                return real(kernel, *args, **kwargs)

            return run

        def enter_hook(metadata):  # only its presence matters (see the class comment)
            return None

        ct = sys.modules.get("cuda.tile")
        real_launch = getattr(ct, "launch", None) if ct is not None else None

        def launch(*args, **kwargs):
            counts["cutile"] += 1
            return real_launch(*args, **kwargs)

        saved = [(cls, cls.run) for cls in classes]
        hooks = triton.knobs.runtime.launch_enter_hook
        try:
            for cls, real in saved:
                cls.run = counting_run(real)
            hooks.add(enter_hook)
            if real_launch is not None:
                ct.launch = launch
            fn()
        finally:
            if real_launch is not None:
                ct.launch = real_launch
            if enter_hook in hooks.calls:
                hooks.remove(enter_hook)
            for cls, real in saved:
                cls.run = real
        return counts
