"""Census hooks for a GPU run, for every Python process started with this folder first on PYTHONPATH
(cutile_env.sh: c2t_spill_census, c2t_compile_census): with C2T_SPILL_CENSUS set, the spill step's decisions
(c2t_census_spill.py); with C2T_COMPILE_CENSUS set, every converted kernel specialization Triton compiles
(c2t_census_compile.py). Harness only, never shipped in converted code. The next sitecustomize on sys.path
(this one shadows it) still runs."""

import importlib.util
import os
import sys

if os.environ.get("C2T_SPILL_CENSUS"):
    import c2t_census_spill  # noqa: F401  (registers its atexit writer)
if os.environ.get("C2T_COMPILE_CENSUS"):
    import c2t_census_compile  # noqa: F401  (hooks Triton once it is imported)

_here = os.path.dirname(os.path.abspath(__file__))
for _d in sys.path:
    if _d and os.path.abspath(_d) != _here and os.path.isfile(os.path.join(_d, "sitecustomize.py")):
        _spec = importlib.util.spec_from_file_location("_c2t_next_sitecustomize", os.path.join(_d, "sitecustomize.py"))
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
