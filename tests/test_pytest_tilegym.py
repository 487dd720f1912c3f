"""CPU test of cutile2triton.pytest_tilegym on a tiny TileGym-like tree.

The fake tree has TileGym's moving parts: a registry with register_impl and
dispatch (with a PyTorch fallback), a selector that imports cuda.tile, cuTile
ops, a hand-written ``ops/triton`` registering backend "triton", and tests
parametrized over ``backend``. A converted tree sits beside it. pytest runs in a
subprocess with the plug-in; each fake test records which implementation it
got, and we check outcomes, ids and those records.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import cutile2triton
import pytest

PKG_PARENT = str(Path(cutile2triton.__file__).resolve().parent.parent)
ROOT = Path(__file__).resolve().parent.parent

FILES = {
    # A stand-in cuda.tile, importable: the plug-in must block it.
    "src/cuda/__init__.py": "",
    "src/cuda/tile/__init__.py": "",
    "src/tilegym/__init__.py": """
        from . import backend
        from .backend import is_backend_available, set_backend
        from . import ops
    """,
    "src/tilegym/backend/__init__.py": """
        from .dispatcher import dispatch, register_impl
        from .selector import get_current_backend, is_backend_available, set_backend
    """,
    "src/tilegym/backend/dispatcher.py": """
        from .selector import get_current_backend
        _REGISTRY = {}
        def register_impl(name, backend):
            def deco(f):
                _REGISTRY.setdefault(name, {})[backend] = f
                return f
            return deco
        def dispatch(name, fallback_backend="pytorch"):
            def deco(default):
                def wrapper(*a, **k):
                    be = _REGISTRY.get(name, {})
                    cur = get_current_backend()
                    if cur in be:
                        return be[cur](*a, **k)
                    if fallback_backend in be:
                        return be[fallback_backend](*a, **k)
                    return default(*a, **k)
                _REGISTRY.setdefault(name, {})["default"] = default
                return wrapper
            return deco
    """,
    "src/tilegym/backend/selector.py": """
        import os
        try:
            import cuda.tile  # noqa: F401
            CUTILE = True
        except ImportError:
            CUTILE = False
        _AVAILABLE_BACKENDS = {"triton"} | ({"cutile"} if CUTILE else set())
        _CURRENT = os.environ.get("CUTILE_TUTORIALS_BACKEND", "cutile")
        if _CURRENT not in _AVAILABLE_BACKENDS:  # like TileGym: refuses to import
            raise ValueError(f"Unknown backend: {_CURRENT}")
        def get_current_backend():
            return _CURRENT
        def set_backend(b):
            global _CURRENT
            if b not in _AVAILABLE_BACKENDS:
                raise ValueError(b)
            _CURRENT = b
        def is_backend_available(b):
            return b in _AVAILABLE_BACKENDS
    """,
    "src/tilegym/ops/__init__.py": """
        from tilegym.backend import is_backend_available
        from .ops import double, neg
        if is_backend_available("cutile"):
            from . import cutile
        from . import triton
    """,
    "src/tilegym/ops/ops.py": """
        from tilegym.backend import dispatch, register_impl
        @dispatch("double")
        def double(x):
            raise NotImplementedError
        @dispatch("neg")
        def neg(x):
            raise NotImplementedError
        register_impl("neg", backend="pytorch")(lambda x: ("pytorch", -x))
    """,
    "src/tilegym/ops/cutile/__init__.py": "from . import double, neg\n",
    "src/tilegym/ops/cutile/double.py": """
        import cuda.tile as ct
        from tilegym.backend import register_impl
        @register_impl("double", backend="cutile")
        def double(x):
            return ("cutile", 2 * x)
    """,
    "src/tilegym/ops/cutile/neg.py": """
        import cuda.tile as ct
        from tilegym.backend import register_impl
        @register_impl("neg", backend="cutile")
        def neg(x):
            return ("cutile", -x)
    """,
    "src/tilegym/ops/cutile/helpers.py": "FACTOR = 2  # no cuda.tile here, so the converter writes no copy\n",
    "src/tilegym/ops/triton/__init__.py": """
        from tilegym.backend import register_impl
        @register_impl("double", backend="triton")
        def double(x):
            return ("handwritten", 2 * x)
    """,
    # The converted tree, as `cutile2triton convert --out-dir conv/ops/triton src/tilegym/ops/cutile` lays it out
    # (neg.py is missing: its conversion "failed").
    "conv/ops/triton/double.py": """
        from tilegym.backend import register_impl
        from tilegym.ops.triton.helpers import FACTOR
        from .helpers import FACTOR as F2
        @register_impl("double", backend="triton")
        def double(x):
            return ("c2t", FACTOR * x, __name__, F2)
    """,
    "conv/ops/triton/broken.py": "import cuda.tile\n",
    "tests/__init__.py": "",
    "tests/test_fake.py": """
        import json, os
        import pytest
        import tilegym
        from tilegym.backend.dispatcher import _REGISTRY

        if tilegym.is_backend_available("cutile"):  # a module-level gate, as in TileGym's attention tests
            from tilegym.ops.cutile.double import double as DIRECT
        else:
            DIRECT = None

        def record(request, value):
            path = os.environ["FAKE_RESULTS"]
            data = json.load(open(path)) if os.path.exists(path) else {}
            data[request.node.name] = value
            json.dump(data, open(path, "w"))

        @pytest.mark.parametrize("backend", ["cutile", "triton"])
        def test_double(backend, request):
            if not tilegym.is_backend_available(backend):
                pytest.skip(f"Backend {backend} is not available")
            tilegym.set_backend(backend)
            record(request, tilegym.ops.double(3))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_neg(backend, request):
            if not tilegym.is_backend_available(backend):
                pytest.skip(f"Backend {backend} is not available")
            tilegym.set_backend(backend)
            record(request, tilegym.ops.neg(3))

        @pytest.mark.parametrize("backend, n", [("cutile", 1), ("cutile", 2), ("pytorch", 3)],
                                 ids=["cutile-1", "cutile-2", "pytorch-3"])
        def test_branch(backend, n, request):
            if not tilegym.is_backend_available(backend) and backend != "pytorch":
                pytest.skip(f"Backend {backend} is not available")
            record(request, [backend == "cutile", n])

        @pytest.mark.parametrize("framework", ["cutile"])
        def test_direct(framework, request):  # bypasses the registry, as some TileGym tests do
            if not tilegym.is_backend_available(framework):
                pytest.skip(f"Backend {framework} is not available")
            import tilegym.ops.cutile.double as m
            record(request, [m.double(3)[0], tilegym.ops.cutile.double.double(4)[0], DIRECT(5)[0]])

        def test_zz_direct_restored(request):  # after the c2t cases: cuTile's own, unless blocked
            if DIRECT is not None:
                import tilegym.ops.cutile.double as m
                record(request, [DIRECT(1)[0], m.double(1)[0], tilegym.ops.cutile.double.double(1)[0]])

        def test_zz_registry_restored(request):
            be = _REGISTRY["double"]
            record(request, [sorted(be), be.get("cutile") is be.get("c2t_triton")])
    """,
}


def _make_tree(root: Path):
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _run(root: Path, *extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "src"), PKG_PARENT]),
               FAKE_RESULTS=str(root / "results.json"))
    env.pop("CUTILE_TUTORIALS_BACKEND", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "cutile2triton.pytest_tilegym", "-p", "no:cacheprovider",
                        "--c2t-converted", str(root / "conv"), "--junitxml", str(root / "out.xml"),
                        "-q", "-rA", "tests/test_fake.py", *extra],
                       cwd=root, env=env, capture_output=True, text=True, timeout=300)
    return r


def _outcomes(xml_path: Path):
    out = {}
    for tc in ET.parse(xml_path).getroot().iter("testcase"):
        kind = "passed"
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                kind = child.tag
                out[tc.get("name")] = (kind, child.get("message", ""))
                break
        else:
            out[tc.get("name")] = (kind, "")
    return out


def test_plugin_runs_fake_tilegym_on_converted_ops(tmp_path):
    _make_tree(tmp_path)
    r = _run(tmp_path)
    log = r.stdout + r.stderr
    outcomes = _outcomes(tmp_path / "out.xml")
    results = json.loads((tmp_path / "results.json").read_text())

    # Added cases, ids derived from the originals; cuTile's own cases skip (cuda.tile blocked).
    assert set(outcomes) == {
        "test_double[cutile]", "test_double[triton]", "test_double[c2t_triton]",
        "test_neg[cutile]", "test_neg[c2t_triton]",
        "test_branch[cutile-1]", "test_branch[cutile-2]", "test_branch[pytorch-3]",
        "test_branch[c2t_triton-1]", "test_branch[c2t_triton-2]",
        "test_direct[cutile]", "test_direct[c2t_triton]",
        "test_zz_direct_restored", "test_zz_registry_restored",
    }, log
    for name in ("test_double[cutile]", "test_branch[cutile-1]", "test_neg[cutile]", "test_direct[cutile]"):
        assert outcomes[name][0] == "skipped" and "cuda.tile blocked" in outcomes[name][1], (name, log)

    # The c2t case ran our converted op (served from the converted tree, helpers from the
    # original folder through both the rewritten absolute import and the relative one) ...
    assert outcomes["test_double[c2t_triton]"][0] == "passed", log
    assert results["test_double[c2t_triton]"] == ["c2t", 6, "tilegym.ops.c2t_triton.double", 2]
    # ... and the hand-written triton op is untouched.
    assert results["test_double[triton]"] == ["handwritten", 6]

    # An op cuTile has but we could not convert fails loudly instead of using the PyTorch fallback.
    kind, msg = outcomes["test_neg[c2t_triton]"]
    assert kind == "failure", log
    assert "op 'neg' has no converted implementation" in msg and "no converted file" in msg, msg
    assert "test_neg[c2t_triton]" not in results

    # The c2t case keeps the value "cutile", so TileGym's `backend == "cutile"` branches are taken.
    assert results["test_branch[c2t_triton-1]"] == [True, 1]
    assert results["test_branch[c2t_triton-2]"] == [True, 2]
    assert results["test_branch[pytorch-3]"] == [False, 3]

    # `framework` is a backend argname too; direct imports of cuTile modules (also behind a
    # module-level availability gate) get ours.
    assert results["test_direct[c2t_triton]"] == ["c2t", "c2t", "c2t"], log
    assert results["test_zz_direct_restored"] == ["c2t", "c2t", "c2t"], log  # blocked: for the whole session

    # With cuTile blocked, "cutile" is our converted op for the whole session.
    assert results["test_zz_registry_restored"] == [["c2t_triton", "cutile", "default", "triton"], True]

    # Import failures are reported, and cuda.tile really is blocked.
    assert "import failed: tilegym.ops.c2t_triton.broken" in log and "blocked by cutile2triton" in log, log
    assert "1 ops converted, 1 cuTile ops without one" in log, log
    assert r.returncode == 1, log  # one failure: test_neg[c2t_triton]


def test_plugin_allow_cutile_runs_both(tmp_path):
    _make_tree(tmp_path)
    r = _run(tmp_path, "--c2t-cutile", "allow")
    log = r.stdout + r.stderr
    outcomes = _outcomes(tmp_path / "out.xml")
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["test_double[cutile]"] == ["cutile", 6], log
    assert results["test_double[c2t_triton]"] == ["c2t", 6, "tilegym.ops.c2t_triton.double", 2], log
    assert results["test_neg[cutile]"] == ["cutile", -3], log
    assert results["test_direct[cutile]"] == ["cutile", "cutile", "cutile"], log
    # The c2t case's direct uses of cuTile's modules (imported inside the test, attribute chains, a name
    # the module took at import) reach the conversion; cuTile's are back afterwards (test_zz_).
    assert results["test_direct[c2t_triton]"] == ["c2t", "c2t", "c2t"], log
    assert results["test_zz_direct_restored"] == ["cutile", "cutile", "cutile"], log
    assert outcomes["test_neg[c2t_triton]"][0] == "failure", log
    # cuTile's entries are back after each c2t case.
    assert results["test_zz_registry_restored"] == [["c2t_triton", "cutile", "default", "triton"], False], log


LAUNCHING_DOUBLE = """
from tilegym.backend import register_impl

def launch_k(grid, x, use_tma="tuned", **options):  # a converted launcher's signature
    return use_tma

def launch_plain(grid, x, **options):  # no descriptor path: no use_tma
    return "plain"

class Kernel:  # a converted kernel: _c2t_launch reaches its launcher through _c2t_launcher
    pass

k = Kernel()
k._c2t_launcher = launch_k

@register_impl("double", backend="triton")
def double(x):
    return ("c2t", launch_k(None, x), k._c2t_launcher(None, x), launch_k(None, x, use_tma=False),
            launch_plain(None, x))
"""


@pytest.mark.parametrize("mode, want", [(None, "tuned"), ("tuned", "tuned"), ("auto", None)])
def test_plugin_use_tma_auto_makes_launchers_describe(tmp_path, mode, want):
    """--c2t-use-tma auto: launches without use_tma get None (descriptors where the tensors allow them),
    also through a reference taken at import (a kernel's _c2t_launcher, which _c2t_launch and the tuning
    search use); a caller's own use_tma and launchers without one are left as they are."""
    _make_tree(tmp_path)
    (tmp_path / "conv/ops/triton/double.py").write_text(LAUNCHING_DOUBLE)
    r = _run(tmp_path, "-k", "test_double", *(("--c2t-use-tma", mode) if mode else ()))
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["test_double[c2t_triton]"] == ["c2t", want, want, False, "plain"], r.stdout + r.stderr


def test_plugin_selects_with_k(tmp_path):
    _make_tree(tmp_path)
    r = _run(tmp_path, "-k", "c2t_triton")
    outcomes = _outcomes(tmp_path / "out.xml")
    assert sorted(outcomes) == ["test_branch[c2t_triton-1]", "test_branch[c2t_triton-2]", "test_direct[c2t_triton]",
                                "test_double[c2t_triton]", "test_neg[c2t_triton]"], r.stdout + r.stderr


def test_plugin_shards_partition_the_selection(tmp_path):
    """--c2t-shard K/N after -k: the shards are disjoint and together are the whole selection."""
    _make_tree(tmp_path)
    r = _run(tmp_path, "-k", "c2t_triton")
    whole = set(_outcomes(tmp_path / "out.xml"))
    shards = []
    for k in (1, 2, 3):
        r = _run(tmp_path, "-k", "c2t_triton", "--c2t-shard", f"{k}/3")
        shards.append(set(_outcomes(tmp_path / "out.xml")))
        assert shards[-1], r.stdout + r.stderr
    assert set().union(*shards) == whole and sum(map(len, shards)) == len(whole) == 5, shards
    assert [len(s) for s in shards] == [2, 2, 1], shards


def test_plugin_rejects_a_bad_shard(tmp_path):
    _make_tree(tmp_path)
    for bad in ("0/3", "4/3", "x", "1/0"):
        r = _run(tmp_path, "--c2t-shard", bad)
        assert r.returncode == 4 and "expected K/N" in r.stderr, (bad, r.stdout + r.stderr)


def test_plugin_requires_converted_dir(tmp_path):
    _make_tree(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "src"), PKG_PARENT]))
    env.pop("C2T_TILEGYM_CONVERTED", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "cutile2triton.pytest_tilegym", "-q", "tests"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 4 and "--c2t-converted" in r.stderr, r.stdout + r.stderr


# Ops for --c2t-differential: cuTile's and the converted implementations, in plain torch.
DIFF_OPS = ("scale", "scale_bad", "fill_out", "outer", "outer_threaded", "noisy", "two_out", "two_out_bad",
            "rand_add", "refused", "boom", "kv_append", "add_into", "get_scaler", "get_scaler_bad", "outer_neg",
            "unwritten", "unwritten_bad")
# Implementations both sides share (cuTile's and the converted tree's are the same code).
_SAME_IMPLS = {
    "outer": "(x):\n    return tilegym.ops.scale(x) + 1, {'n': x.shape[0]}",
    "rand_add": "(x, g):\n    return x + torch.rand(x.shape) + torch.rand(x.shape, generator=g)",
    "kv_append": "(cache, v):\n    cache.k[cache.n] = v\n    cache.n += 1",
    "add_into": "(x, out):\n    out += x",
    "get_scaler": "(k):\n    return lambda x: x * k",
    "outer_neg": "(x):\n    return tilegym.ops.neg(x)[1]  # neg: cuTile has it, the converted tree does not",
}


def _impls(backend: str, bodies: dict) -> str:
    """One `@register_impl(op, backend=...)` function per op, from its signature-and-body text, indented as
    the fake tree's other file texts (dedented when written)."""
    return "".join(textwrap.indent(f'@register_impl("{op}", backend="{backend}")\ndef {op}{body}\n', " " * 8)
                   for op, body in bodies.items())


DIFF_FILES = {
    **FILES,
    "src/tilegym/ops/__init__.py": f"""
        from tilegym.backend import is_backend_available
        from .ops import double, neg, {", ".join(DIFF_OPS)}
        if is_backend_available("cutile"):
            from . import cutile
        from . import triton
    """,
    "src/tilegym/ops/ops.py": FILES["src/tilegym/ops/ops.py"] + "".join(f"""
        @dispatch("{op}")
        def {op}(*a, **k):
            raise NotImplementedError
    """ for op in DIFF_OPS),
    "src/tilegym/ops/cutile/__init__.py": "from . import double, neg, diffops\n",
    "src/tilegym/trace.py": "NESTED = []  # which scale ran (outside ops/cutile: one module for both sides)\n",
    "src/tilegym/ops/cutile/diffops.py": """
        import os
        from concurrent.futures import ThreadPoolExecutor
        import torch
        import cuda.tile as ct
        import tilegym
        from tilegym.backend import register_impl
        from tilegym.trace import NESTED
        def urandom():  # not repeatable, unlike random numbers from a seeded state
            return int.from_bytes(os.urandom(2), "little") / 65536 + 1
    """.rstrip(" ") + _impls("cutile", {
        **_SAME_IMPLS,
        "scale": "(x):\n    NESTED.append('cutile')\n    return x * 2",
        "scale_bad": "(x):\n    return x * 2",
        "fill_out": "(x, out):\n    out.copy_(x + 1)",
        "outer_threaded": "(x):\n    with ThreadPoolExecutor(1) as pool:\n"
                          "        return pool.submit(tilegym.ops.scale, x).result() + 1",
        "noisy": "(x):\n    return x + urandom()",
        "two_out": "(x):\n    return x * 2, x + urandom()",
        "two_out_bad": "(x):\n    return x * 2, x + urandom()",
        # The last element of a torch.empty output is never written (as moe_align_block_size's expert_ids).
        "unwritten": "(x):\n    out = torch.empty(x.shape[0] + 1, dtype=x.dtype)\n    out[:-1] = x\n    return out",
        "unwritten_bad": "(x):\n    out = torch.empty(x.shape[0] + 1, dtype=x.dtype)\n    out[:-1] = x\n    return out",
        "refused": "(x):\n    raise ValueError('cuTile does not take this shape')",
        "boom": "(x):\n    return x",
        "get_scaler_bad": "(k):\n    return lambda x: x * k",
    }),
    "conv/ops/triton/diffops.py": """
        import os
        import torch
        import tilegym
        from tilegym.backend import register_impl
        from tilegym.trace import NESTED
        RAN = []
    """.rstrip(" ") + _impls("triton", {
        **_SAME_IMPLS,
        "scale": "(x):\n    NESTED.append('c2t')\n    return x * 2",
        "scale_bad": "(x):\n    y = x * 2\n    y[1, 2] += 0.5  # one element wrong\n    return y",
        "fill_out": "(x, out):\n    out.copy_(x + 1)\n    out[0, 0] = float(os.environ.get('FAKE_FILL', out[0, 0]))",
        "outer_threaded": "(x):\n    return tilegym.ops.scale(x) + 1",
        "noisy": "(x):\n    return x + 0.25",
        "two_out": "(x):\n    return x * 2, x",
        "two_out_bad": "(x):\n    return x * 3, x  # the varying second output must not hide the first's error",
        "unwritten": "(x):\n    out = torch.empty(x.shape[0] + 1, dtype=x.dtype)\n    out[:-1] = x\n"
                     "    out[-1] = 123456  # what another run's memory held there\n    return out",
        "unwritten_bad": "(x):\n    out = torch.full((x.shape[0] + 1,), 123456, dtype=x.dtype)\n"
                         "    out[:-1] = x\n    out[0] += 1  # wrong, beside the unwritten element\n    return out",
        "refused": "(x):\n    RAN.append('refused')\n    return x",
        "boom": "(x):\n    raise ValueError('converted op failed')",
        "get_scaler_bad": "(k):\n    return lambda x: x * k + 1",
    }),
    "tests/test_diff.py": """
        import pytest
        import torch
        import tilegym
        from tilegym.trace import NESTED
        from tilegym.ops.cutile.diffops import scale as DIRECT_SCALE, scale_bad as DIRECT_BAD

        @pytest.fixture(autouse=True)
        def _backend(backend):
            tilegym.set_backend(backend)

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_scale(backend):
            x = torch.randn(4, 6)
            assert torch.equal(tilegym.ops.scale(x), x * 2)

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_scale_bad(backend):
            tilegym.ops.scale_bad(torch.randn(4, 6))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_fill_out(backend):
            x = torch.randn(5, 3).t()  # a strided view: the copy keeps the strides
            out = torch.empty(3, 5)
            tilegym.ops.fill_out(x, out)
            assert torch.equal(out[1:], (x + 1)[1:])

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_outer(backend):
            del NESTED[:]
            y, info = tilegym.ops.outer(torch.ones(3, 3))
            assert info == {"n": 3} and torch.equal(y, torch.full((3, 3), 3.0))
            assert NESTED == ["cutile", "c2t"], NESTED  # the reference's inner call is cuTile's, ours is ours

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_outer_threaded(backend):
            del NESTED[:]
            tilegym.ops.outer_threaded(torch.ones(2))
            assert NESTED == ["cutile", "c2t"], NESTED  # also from a thread the op starts

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_noisy(backend):
            tilegym.ops.noisy(torch.zeros(2, 2))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_two_out(backend):
            tilegym.ops.two_out(torch.ones(2))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_two_out_bad(backend):
            tilegym.ops.two_out_bad(torch.ones(2))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_unwritten(backend):
            tilegym.ops.unwritten(torch.arange(4, dtype=torch.int32))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_unwritten_bad(backend):
            tilegym.ops.unwritten_bad(torch.arange(4, dtype=torch.int32))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_rand_add(backend):
            torch.manual_seed(0)
            g = torch.Generator().manual_seed(1)
            y = tilegym.ops.rand_add(torch.zeros(3), g)
            torch.manual_seed(0)
            ref = torch.rand(3) + torch.rand(3, generator=torch.Generator().manual_seed(1))
            assert torch.equal(y, ref)  # the check leaves the random states as the test expects

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_refused(backend):
            x = torch.ones(2)
            assert tilegym.ops.refused(x) is x

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_boom(backend):
            with pytest.raises(ValueError, match="converted op failed"):
                tilegym.ops.boom(torch.ones(2))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_kv_append(backend):
            class Cache:
                def __init__(self):
                    self.k, self.n = torch.zeros(4), 0
            cache = Cache()
            tilegym.ops.kv_append(cache, 7.0)
            assert cache.n == 1 and cache.k.tolist() == [7, 0, 0, 0]  # updated once: cuTile got a copy

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_add_into(backend):
            x = torch.ones(4)
            tilegym.ops.add_into(x, x)  # aliased arguments: the copies alias too
            assert x.tolist() == [2, 2, 2, 2]

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_get_scaler(backend):
            f = tilegym.ops.get_scaler(3)
            assert torch.equal(f(torch.ones(2)), torch.full((2,), 3.0))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_get_scaler_bad(backend):
            tilegym.ops.get_scaler_bad(3)(torch.ones(2))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_direct_calls(backend):  # cuTile's functions called without the registry, as some TileGym tests do
            import tilegym.ops.cutile.diffops as m
            x = torch.randn(4, 6)
            del NESTED[:]
            for f in (DIRECT_SCALE, m.scale, tilegym.ops.cutile.diffops.scale):
                assert torch.equal(f(x), x * 2)
            assert NESTED == ["cutile", "c2t"] * 3, NESTED

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_direct_bad(backend):
            DIRECT_BAD(torch.randn(4, 6))

        @pytest.mark.parametrize("backend", ["cutile"])
        def test_outer_neg(backend):
            with pytest.raises(NotImplementedError, match="no converted implementation"):
                tilegym.ops.outer_neg(torch.ones(2))
    """,
}


def _run_diff(root: Path, *extra, env_extra=None):
    for rel, text in DIFF_FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root / "src"), PKG_PARENT]), **(env_extra or {}))
    env.pop("CUTILE_TUTORIALS_BACKEND", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "cutile2triton.pytest_tilegym", "-p", "no:cacheprovider",
                           "--c2t-converted", str(root / "conv"), "--junitxml", str(root / "out.xml"), "-q", "-rA",
                           "tests/test_diff.py", "-k", "c2t_triton", *extra],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_plugin_differential_compares_each_call_with_cutile(tmp_path):
    r = _run_diff(tmp_path, "--c2t-cutile", "allow", "--c2t-differential", str(tmp_path / "diff.jsonl"))
    log = r.stdout + r.stderr
    outcomes = _outcomes(tmp_path / "out.xml")
    calls = [json.loads(line) for line in (tmp_path / "diff.jsonl").read_text().splitlines()]
    by = {}
    for c in calls:
        by.setdefault(c["test"].split("::")[-1].replace("[c2t_triton]", ""), []).append(c)
    one = {t: cs[0] for t, cs in by.items()}
    passed = lambda t: outcomes[f"{t}[c2t_triton]"][0] == "passed"  # noqa: E731

    assert passed("test_scale") and one["test_scale"]["status"] == "match", log
    assert one["test_scale"]["compared"] == 2 and one["test_scale"]["used"] == 0  # result and x; bit-identical
    # One wrong element of 24: the case fails, saying where and by how much.
    kind, msg = outcomes["test_scale_bad[c2t_triton]"]
    assert kind == "failure" and "differs from cuTile's" in msg and "1 of 24 elements" in msg, (msg, log)
    worst = one["test_scale_bad"]["worst"]
    assert worst["where"] == "(result, (args, kwargs))[0]" and abs(worst["max_abs"] - 0.5) < 1e-6, worst
    # An output written in place is compared as an argument, on a strided input.
    assert passed("test_fill_out") and one["test_fill_out"]["status"] == "match"
    # Nested dispatch stays on its side, also from a thread; dict results compared.
    assert passed("test_outer") and passed("test_outer_threaded"), log
    assert one["test_outer"]["status"] == one["test_outer_threaded"]["status"] == "match"
    # cuTile not repeatable: those outputs are left out, the others still count.
    assert passed("test_noisy") and one["test_noisy"]["status"] == "match_except_varying", log
    assert passed("test_two_out") and one["test_two_out"]["varying"] == ["(result, (args, kwargs))[0][1]"]
    kind, msg = outcomes["test_two_out_bad[c2t_triton]"]
    assert kind == "failure" and "[0][0]" in msg and one["test_two_out_bad"]["status"] == "mismatch", (msg, log)
    # An element cuTile leaves unwritten (torch.empty) is left out, found by filling cuTile's new tensors
    # with other bytes in its repeat runs (the caching allocator would give both runs the same stale bytes);
    # the other elements still count.
    assert passed("test_unwritten") and one["test_unwritten"]["status"] == "match_except_varying", log
    assert one["test_unwritten"]["varying_elements"] == {"(result, (args, kwargs))[0]": 1}, one["test_unwritten"]
    kind, msg = outcomes["test_unwritten_bad[c2t_triton]"]
    assert kind == "failure" and "1 of 5 elements differ" in msg, (msg, log)
    assert one["test_unwritten_bad"]["varying_elements"] == {"(result, (args, kwargs))[0]": 1}
    # Random numbers drawn from torch's state and from a generator argument: both sides draw the same, and
    # the test's own draws are unchanged.
    assert passed("test_rand_add") and one["test_rand_add"]["status"] == "match", log
    # cuTile raising leaves no reference; the converted op still runs and its result reaches the test.
    assert passed("test_refused") and one["test_refused"]["status"] == "cutile_raised"
    assert "does not take this shape" in one["test_refused"]["error"]
    # The converted op raising: recorded, and the exception reaches the test.
    assert passed("test_boom") and one["test_boom"]["status"] == "converted_raised", log
    # Objects holding tensors are copied for cuTile (the test's object is updated once); aliased arguments
    # alias in the copy too (no false mismatch).
    assert passed("test_kv_append") and one["test_kv_append"]["status"] == "not_compared", log
    assert passed("test_add_into") and one["test_add_into"]["status"] == "match", log
    # A factory's functions are checked when called.
    assert passed("test_get_scaler") and [c["status"] for c in by["test_get_scaler"]] == ["factory", "match"]
    assert by["test_get_scaler"][1]["op"] == "get_scaler()"
    kind, msg = outcomes["test_get_scaler_bad[c2t_triton]"]
    assert kind == "failure" and "op 'get_scaler_bad()'" in msg, (msg, log)
    # Functions of cuTile's modules that the test calls directly (a name the module took at import, a module
    # imported in the test, an attribute chain): checked as ops of their own.
    assert passed("test_direct_calls"), log
    assert [(c["op"], c["status"]) for c in by["test_direct_calls"]] == [("ops.cutile.diffops.scale", "match")] * 3
    kind, msg = outcomes["test_direct_bad[c2t_triton]"]
    assert kind == "failure" and "op 'ops.cutile.diffops.scale_bad'" in msg, (msg, log)
    assert "op calls checked against cuTile" in log and "5 mismatch" in log, log
    # An op nested in cuTile's reference that only cuTile has runs as cuTile's; ours fails on the missing op.
    assert passed("test_outer_neg") and one["test_outer_neg"]["status"] == "converted_raised", log

    # The GPU run's summary (benchmarks/gpu/tilegym_summary.py) makes a per-op table of these records.
    spec = importlib.util.spec_from_file_location("tilegym_summary", ROOT / "benchmarks" / "gpu" / "tilegym_summary.py")
    summary = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summary)
    run = tmp_path / "run" / "triton"
    run.mkdir(parents=True)
    (run / "test_diff.diff.jsonl").write_text((tmp_path / "diff.jsonl").read_text() + '{"op": "cut off')
    table = "\n".join(summary.differential(tmp_path / "run"))
    assert f"{len(calls)} op calls" in table and "5 mismatch" in table and "1 line not read" in table, table
    assert "| scale | 1 | 2 | 1 | 0 |" in table, table
    assert "| scale_bad | 1 | 2 | 0 | 1 |" in table and "mismatch in `test_scale_bad[c2t_triton]`: " \
           "(result, (args, kwargs))[0]: 1 of 24 beyond, max abs 0.5" in table, table


def test_plugin_differential_catches_a_wrong_in_place_output(tmp_path):
    r = _run_diff(tmp_path, "--c2t-cutile", "allow", "--c2t-differential", str(tmp_path / "diff.jsonl"),
                  "-k", "fill_out", env_extra={"FAKE_FILL": "1e6"})
    kind, msg = _outcomes(tmp_path / "out.xml")["test_fill_out[c2t_triton]"]
    assert kind == "failure" and "(result, (args, kwargs))[1][0][1]" in msg and "1 of 15 elements" in msg, \
        (msg, r.stdout + r.stderr)


def test_plugin_differential_needs_cutile(tmp_path):
    r = _run_diff(tmp_path, "--c2t-differential", str(tmp_path / "diff.jsonl"))
    assert r.returncode == 4 and "--c2t-cutile allow" in r.stderr, r.stdout + r.stderr


def test_the_gpu_scripts_plugin_only_package_has_what_the_plugin_imports(tmp_path):
    # The GPU scripts (benchmarks/gpu/cutile_env.sh c2t_plugin_package) copy the plug-in's modules into a
    # package without the compiler extension; a module the plug-in imports but the copy leaves out would
    # fail only on the GPU machine.
    r = subprocess.run(["bash", "-c", f". benchmarks/gpu/cutile_env.sh && c2t_plugin_package {tmp_path}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "cutile2triton" / "_fast_launch.c").exists()
    # ... and what the GPU harnesses import from it (e.g. tilegym_bench.py's tilegym_as_cutile).
    used = {m for f in (ROOT / "benchmarks" / "gpu").glob("*.py")
            for m in re.findall(r"^\s*(?:from|import) cutile2triton\.(\w+)", f.read_text(), re.M)}
    assert "tilegym_as_cutile" in used, used
    modules = sorted({"pytest_tilegym", "tilegym_differential", "fast_launch"} | used)
    r = subprocess.run([sys.executable, "-c", "import " + ", ".join(f"cutile2triton.{m}" for m in modules)],
                       env=dict(os.environ, PYTHONPATH=str(tmp_path)), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for script in ("tilegym_tests_on_device.sh", "launch_sweep_on_device.sh"):  # one package, made in one place
        text = (ROOT / "benchmarks" / "gpu" / script).read_text()
        assert "c2t_plugin_package" in text and "src/cutile2triton/pytest_tilegym.py" not in text, script


@pytest.mark.parametrize("file, overrides, want", [
    ("tests/ops/test_softmax.py", "", "120"),  # TEST_TIMEOUT
    ("tests/ops/test_chunk_gated_delta_rule.py", "", "900"),  # the script's default for it
    ("tests/ops/test_chunk_gated_delta_rule.py", "tests/ops/test_chunk_gated_delta_rule.py=1200", "1200"),
    ("tests/ops/test_softmax.py", "tests/ops/test_bmm.py=600 tests/ops/test_softmax.py=30", "30"),
    ("tests/ops/test_softmax.py", "tests/ops/test_softmax.py=soon", "120"),  # not a count: ignored
    ("tests/ops/test_softmax", "tests/ops/test_softmax.py=30", "120"),  # whole names only
])
def test_the_gpu_test_runner_gives_slow_files_longer_test_timeouts(file, overrides, want):
    # tilegym_tests_on_device.sh passes pytest-timeout c2t_test_timeout's answer per file: s29's full run
    # lost a chunk_gated_delta_rule case to the 300 s it gave every test while Triton compiled it.
    r = subprocess.run(["bash", "-c", '. benchmarks/gpu/cutile_env.sh && c2t_test_timeout "$0" 120', file], cwd=ROOT,
                       env=dict(os.environ, C2T_TEST_TIMEOUTS=overrides), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == want, (r.stdout, r.stderr)
    runner = (ROOT / "benchmarks" / "gpu" / "tilegym_tests_on_device.sh").read_text()
    assert '--timeout=$(c2t_test_timeout "$f" "$TEST_TIMEOUT")' in runner and "export -f run_one c2t_test_timeout" in runner


def test_describe_by_default_changes_only_launchers_own_use_tma_defaults():
    """Launchers as host/launcher.cpp writes them (the flag renamed use_tma_ where a kernel parameter is
    named use_tma), a keyword-only flag, a functools.wraps wrapper (its own defaults, not the wrapped
    function's), a launcher without descriptors, and one a caller already gave another default."""
    import types

    from cutile2triton.pytest_tilegym import describe_by_default

    mod = types.ModuleType("fake_converted")
    exec(textwrap.dedent("""
        import functools
        def launch_a(grid, x, y=3, use_tma="tuned", **options): return use_tma, y
        def launch_b(grid, *xs, use_tma="tuned", **options): return use_tma
        def launch_c(grid, use_tma, use_tma_="tuned", **options): return use_tma, use_tma_
        def launch_plain(grid, x, **options): return "plain"
        def launch_false(grid, x, use_tma=False): return use_tma
        def inner(grid, x, k=1, use_tma="tuned"): return use_tma, k
        @functools.wraps(inner)
        def launch_wrapped(grid, x, z=5): return z
        def not_a_launcher(grid, use_tma="tuned"): return use_tma
    """), mod.__dict__)
    assert describe_by_default([mod]) == 3
    assert mod.launch_a(1, 2) == (None, 3) and mod.launch_a(1, 2, use_tma=False) == (False, 3)
    assert mod.launch_b(1, 2) is None
    assert mod.launch_c(1, "kernel's") == ("kernel's", None)
    assert mod.launch_plain(1, 2) == "plain" and mod.launch_false(1, 2) is False
    assert mod.launch_wrapped(1, 2) == 5 and mod.inner(1, 2) == ("tuned", 1)
    assert mod.not_a_launcher(1) == "tuned"
    assert describe_by_default([mod]) == 0  # a second pass finds nothing left to change
