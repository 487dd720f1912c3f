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


def cutile_counterpart(mounts: _Mounts, name: str) -> str | None:
    """``tilegym.<rel>.cutile[.x]`` -> ``tilegym.<rel>.c2t_triton[.x]`` for a mounted rel; None for
    any other module name (TileGym's hand-written ``triton`` modules included)."""
    for rel in mounts.rels:
        prefix = ".".join(("tilegym", *rel, "cutile"))
        if name == prefix or name.startswith(prefix + "."):
            return mounts.package(rel) + name[len(prefix):]
    return None


class _CheckedModule(types.ModuleType):
    """A converted module seen through cuTile's name while a Differential checks the calls: its plain
    functions come wrapped, each call checked against cuTile's namesake (tilegym_differential)."""

    def __init__(self, cutile_module, converted_module, differential):
        super().__init__(converted_module.__name__, converted_module.__doc__)
        self._c2t = (cutile_module, converted_module, differential)

    def __getattr__(self, name):
        cutile_module, converted_module, differential = self.__dict__["_c2t"]
        value = getattr(converted_module, name)
        ref = getattr(cutile_module, name, None)
        if isinstance(ref, _CheckedModule):  # cuTile's package attribute, itself swapped meanwhile
            ref = ref.__dict__["_c2t"][0]
        if isinstance(value, types.ModuleType):
            return _CheckedModule(ref, value, differential) if isinstance(ref, types.ModuleType) else value
        if inspect.isfunction(value) and inspect.isfunction(ref) and ref is not value:
            return differential.wrap(_op_name(ref), ref, value)
        return value


def _op_name(fn) -> str:
    """A cuTile function's name in the differential's records: ops.cutile.mla_decoding.mla_decoding."""
    return f"{fn.__module__.removeprefix('tilegym.')}.{fn.__qualname__}"


def _converted_object(mounts: _Mounts, obj):
    """The converted counterpart of a module, function or class of a cuTile module, or None."""
    if isinstance(obj, types.ModuleType):
        conv = cutile_counterpart(mounts, obj.__name__)
        return sys.modules.get(conv) if conv else None
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "." in qualname:
        return None
    conv = cutile_counterpart(mounts, module)
    conv_mod = sys.modules.get(conv) if conv else None
    return getattr(conv_mod, qualname, None) if conv_mod is not None else None


class _Existing(importlib.abc.Loader):
    """Loads a module name as an existing module object (its attributes kept)."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    """A cuTile module imported for the first time while converted_as_cutile is active is its
    converted counterpart (imported if need be): never cuTile's file, nor the converted file loaded a
    second time under cuTile's name (which the swapped package's __path__ would otherwise find)."""

    def __init__(self, mounts: _Mounts):
        self.mounts = mounts

    def find_spec(self, fullname, path=None, target=None):
        conv = cutile_counterpart(self.mounts, fullname)
        if conv is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Existing(importlib.import_module(conv)))


@contextlib.contextmanager
def converted_as_cutile(mounts: _Mounts, namespace: dict | None = None, differential=None):
    """While active, TileGym's ``"cutile"`` means the converted ops: registry entries (as the pytest
    plug-in's swap: an op without a conversion raises NotImplementedError), the imported
    ``tilegym.<rel>.cutile[.x]`` modules in ``sys.modules`` and as attributes of their packages, and
    the names in ``namespace`` (a bench or test module's globals, and the values of its dicts) bound
    to objects of those modules. Everything is restored on exit. A name with no counterpart (a cuTile
    kernel launched by the bench file itself) keeps cuTile's object: LaunchProbe tells.

    With a ``differential`` (tilegym_differential.Differential), registry ops, functions in the
    namespace and functions reached through the modules are checked call by call against cuTile's
    (a module first imported during the call is the converted one, unchecked: cuTile's is not loaded)."""

    def counterpart(old, new):
        if differential is None:
            return new
        if isinstance(old, types.ModuleType):
            return _CheckedModule(old, new, differential)
        if inspect.isfunction(old) and inspect.isfunction(new):
            return differential.wrap(_op_name(old), old, new)
        return new

    plan = []  # (container, key, new value): sys.modules entries, package attributes, namespace names
    for name in list(sys.modules):
        conv = cutile_counterpart(mounts, name)
        new = sys.modules.get(conv) if conv else None
        if new is None:
            continue
        new = counterpart(sys.modules[name], new)
        plan.append((sys.modules, name, new))
        parent, _, child = name.rpartition(".")
        holder = sys.modules.get(parent)  # cuTile's package (nothing is changed while planning)
        if holder is not None and hasattr(holder, child):
            plan.append((holder, child, new))
    for container in [namespace or {}] + [v for v in (namespace or {}).values() if isinstance(v, dict)]:
        for key, value in list(container.items()):
            new = _converted_object(mounts, value)
            if new is not None and new is not value:
                plan.append((container, key, counterpart(value, new)))
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
                undo.append((container, key, getattr(container, key)))
                setattr(container, key, new)
        yield
    finally:
        sys.meta_path.remove(finder)
        for container, key, old in reversed(undo):
            if isinstance(container, dict):
                container[key] = old
            else:
                setattr(container, key, old)
        for name in set(sys.modules) - before:  # cuTile names first imported meanwhile: aliases, dropped
            if cutile_counterpart(mounts, name) is not None:
                del sys.modules[name]
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
