"""Spill census for a GPU run: at exit, appends one JSON line per kernel specialization whose warps
the converted modules' spill step decided (the runtime's _c2t_spill_warps: a kernel with tl.dot that
the launcher's rule gave 4 warps, compiled ahead; its spills at 4 and 8 warps and with TMA descriptors at 4, and
the warps and path chosen) to the file
named by C2T_SPILL_CENSUS. Put this folder first on PYTHONPATH (cutile_env.sh: c2t_spill_census);
harness only, never shipped in converted code. Another sitecustomize later on sys.path still runs."""

import atexit
import importlib.util
import json
import os
import sys


def _census():
    path = os.environ.get("C2T_SPILL_CENSUS")
    if not path:
        return
    rows = []
    for name, mod in list(sys.modules.items()):
        try:  # the module's own dict: getattr on a lazy module (transformers) imports, and may fail at exit
            table = vars(mod).get("_c2t_spill_warps")
        except TypeError:
            continue
        if not isinstance(table, dict):
            continue
        for kernel, keys in table.items():
            for key, entry in keys.items():  # warps, words per thread at the rule's warps, twice, descriptors
                warps, spilled, fewer = entry[:3]
                described, tma = (entry[3], entry[4]) if len(entry) >= 5 else (None, False)  # s32's: 3 entries
                rows.append({"module": name, "kernel": getattr(kernel, "__name__", str(kernel)), "warps": warps,
                             "spills": spilled, "spills_twice": fewer, "spills_tma": described, "tma": tma,
                             "key": repr(key)[:400], "argv": " ".join(sys.argv)[:200]})
    if rows:
        with open(path, "a") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


atexit.register(_census)

# Chain to the next sitecustomize on the path after this folder (this one shadows it); "after" keeps two census
# folders on the path from running each other in turn.
_here = os.path.dirname(os.path.abspath(__file__))
_dirs = [os.path.abspath(_d) for _d in sys.path if _d]
for _d in _dirs[_dirs.index(_here) + 1 if _here in _dirs else 0:]:
    if _d != _here and os.path.isfile(os.path.join(_d, "sitecustomize.py")):
        _spec = importlib.util.spec_from_file_location("_c2t_next_sitecustomize", os.path.join(_d, "sitecustomize.py"))
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
