"""Imports converted corpus modules in a fresh interpreter (run as a script by
test_corpus_convert.py, so that nothing leaks into the pytest process).

    python corpus_import_check.py SCRATCH_ROOT JOBS.json  ->  JSON on stdout

JOBS is a list of {"key", "module"} (a dotted name under SCRATCH_ROOT/src, or
SCRATCH_ROOT/cutile-python-test for cutile-python's test kernels) or
{"key", "path"} (a standalone file). `cuda` is made unimportable first, so an
output that still needs cuda.tile fails here even on a machine that has it.
TileGym itself is not installed: its package is the scratch copy under
SCRATCH_ROOT/src, imported with CUTILE_TUTORIALS_BACKEND=triton (TileGym's
selector raises at import when its default backend, cutile, is unavailable).
The output also lists, after all imports, every op registered for backend
"triton" (under the key "__registry__").
"""

import importlib
import importlib.abc
import importlib.util
import json
import os
import sys
import traceback
import types


class _NoCudaTile(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "cuda" or name.startswith("cuda."):
            raise ImportError(f"cuda.tile is blocked in this check (import of {name!r})")
        return None


_STUBS = set()


def _stub_converted_packages(root, module):
    parts = module.split(".")
    if "triton" not in parts:
        return
    for i in range(parts.index("triton") + 1, len(parts)):
        name = ".".join(parts[:i])
        if name not in sys.modules:
            stub = types.ModuleType(name)
            stub.__path__ = [os.path.join(root, "src", *parts[:i])]
            sys.modules[name] = stub
            _STUBS.add(name)


def _drop_stubs():
    for name in list(_STUBS):
        sys.modules.pop(name, None)
    _STUBS.clear()


def main():
    root, jobs_file = sys.argv[1], sys.argv[2]
    jobs = json.load(open(jobs_file))
    sys.meta_path.insert(0, _NoCudaTile())
    os.environ.setdefault("CUTILE_TUTORIALS_BACKEND", "triton")
    sys.path.insert(0, os.path.join(root, "src"))
    sys.path.insert(0, os.path.join(root, "samples"))  # samples import their local utils package
    sys.path.insert(0, os.path.join(root, "cutile-python-test"))  # cutile-python's test kernels: `kernels.x`
    # Pass 1 (modules): the converted packages (at and below a `triton` folder)
    # are bare namespaces, so one module that did not convert does not fail its
    # siblings through their package's __init__. Pass 2 (package __init__s, after
    # the modules): the real package imports, which need all their members.
    modules = [j for j in jobs if "module" not in j or not j.get("package")]
    packages = [j for j in jobs if j.get("package")]
    for job in modules:
        if "module" in job:
            _stub_converted_packages(root, job["module"])
    results = {}
    for job in modules + packages:
        if job.get("package"):
            _drop_stubs()
        try:
            if "module" in job:
                importlib.import_module(job["module"])
            else:
                spec = importlib.util.spec_from_file_location("c2t_sample_" + job["key"].replace("/", "_")[:-3],
                                                              job["path"])
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
            error = ""
        except BaseException as e:  # SystemExit from a sample's argparse counts as a failure too
            tb = traceback.extract_tb(e.__traceback__)
            where = f" ({tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}{where}"
        results[job["key"]] = error
    registered = []
    try:
        from tilegym.backend import dispatcher

        registered = sorted(op for op, impls in dispatcher._REGISTRY.items() if "triton" in impls)
    except Exception as e:
        results["__registry_error__"] = f"{type(e).__name__}: {e}"
    results["__registry__"] = registered
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
