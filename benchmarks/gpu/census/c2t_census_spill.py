"""Spill census for a GPU run: at exit, appends one JSON line per kernel specialization whose warps
the converted modules' spill step decided (the runtime's _c2t_spill_warps: a kernel with tl.dot that
the launcher's rule gave 4 warps, compiled ahead; its spills at 4 and 8 warps and with TMA descriptors at 4, and
the warps and path chosen) to the file
named by C2T_SPILL_CENSUS. Imported by this folder's sitecustomize.py when that variable is set (cutile_env.sh:
c2t_spill_census); harness only, never shipped in converted code."""

import atexit
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
