"""Names a kernel reads that have a value at launch but none at conversion (cuTile execution.rst,
"Constant Expressions": "a global object that is defined at the time of compilation or launch"):
module-level values the module computes when it runs (`BLOCK = int(os.environ[...])`, a name bound in
both branches of a module-level `if`) and, in a kernel factory, the factory's parameters and locals.
Each becomes a trailing constexpr parameter of the Triton kernel; the launcher passes the value the
name has at launch. Converted and run under Triton's CPU interpreter against torch references on
fresh random inputs of ragged sizes; a value changed between launches is the one the next launch uses.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from c2t_interp import ConversionFailed, convert, dev, fresh_seed, load, poison

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

ENV_GLOBALS = """
import os

import cuda.tile as ct
import torch

BLOCK = int(os.environ.get("C2T_TEST_BLOCK", "32"))
SCALE = float(os.environ.get("C2T_TEST_SCALE", "2.0"))
if os.environ.get("C2T_TEST_SHIFT") == "up":
    SHIFT = 1.0
else:
    SHIFT = -1.0


@ct.kernel
def scale_shift(x, y):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(pid,), tile=t * SCALE + SHIFT)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], BLOCK),), scale_shift, (x, y))
    return y
"""


def test_module_values_computed_at_run_time_are_read_at_launch(tmp_path, monkeypatch):
    code = convert(ENV_GLOBALS, "env_globals.py")
    assert "    BLOCK: tl.constexpr,\n    SCALE: tl.constexpr,\n    SHIFT: tl.constexpr,\n):" in code
    assert "def launch_scale_shift(grid, x, y, **options):" in code  # call sites pass no more arguments
    seed = fresh_seed()
    rng = random.Random(seed)
    block, scale = rng.choice([16, 32, 64]), rng.choice([0.5, 3.0, -1.25])
    monkeypatch.setenv("C2T_TEST_BLOCK", str(block))
    monkeypatch.setenv("C2T_TEST_SCALE", str(scale))
    monkeypatch.setenv("C2T_TEST_SHIFT", "up")
    mod = load(code, tmp_path, "env_globals")
    g = torch.Generator().manual_seed(seed)
    for n in (rng.randint(1, 3 * block), rng.randint(200, 999)):  # ragged: not a multiple of the tile
        x = dev(torch.randn(n, generator=g))
        torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * scale + 1.0, msg=f"seed={seed} n={n} block={block}")
    # The value at launch, not at import: a changed global takes effect at the next launch (a new
    # specialization, not the natively reused one of the launch before).
    mod.BLOCK, mod.SCALE, mod.SHIFT = 128, 4.0, -1.0
    x = dev(torch.randn(300, generator=g))
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * 4.0 - 1.0, msg=f"seed={seed}")


FACTORY = """
import functools

import cuda.tile as ct
import torch

OFFSET = 0.5


@functools.lru_cache(maxsize=None)
def make_kernel(tile: int, scale: float, occupancy: int = 1):
    half = tile // 2

    @ct.kernel(occupancy=occupancy)
    def axpb(X, Y, Z):
        pid = ct.bid(0)
        x = ct.load(X, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
        y = ct.load(Y, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
        lo = ct.arange(tile, dtype=ct.int32) < half
        ct.store(Z, index=(pid,), tile=ct.where(lo, x * scale + y, y - OFFSET))

    return axpb


def run(x, y, tile, scale):
    z = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), make_kernel(tile, scale), (x, y, z))
    return z
"""


def test_kernel_factory_reading_its_parameters_and_locals(tmp_path):
    code = convert(FACTORY, "factory.py")
    # in the order the body first reads them
    assert "        tile: tl.constexpr,\n        half: tl.constexpr,\n        scale: tl.constexpr,\n    ):" in code
    mod = load(code, tmp_path, "factory")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)

    def expected(x, y, tile, scale):
        lo = (torch.arange(x.shape[0]) % tile) < tile // 2
        return torch.where(lo, x * scale + y, y - 0.5)

    n = 70 + seed % 50  # ragged for both tiles
    x, y = (dev(torch.randn(n, generator=g)) for _ in range(2))
    for tile, scale in ((16, 2.0), (64, -0.75), (16, 2.0)):  # two kernels of one factory, alternately
        z = mod.run(x, y, tile, scale)
        torch.testing.assert_close(z.cpu(), expected(x.cpu(), y.cpu(), tile, scale), msg=f"seed={seed} tile={tile}")
    assert mod.make_kernel(16, 2.0) is not mod.make_kernel(64, -0.75)


def test_a_helper_reading_a_run_time_global_is_diagnosed():
    src = ENV_GLOBALS.replace("@ct.kernel\n", "def shifted(t):\n    return t + SHIFT\n\n\n@ct.kernel\n").replace(
        "tile=t * SCALE + SHIFT", "tile=shifted(t * SCALE)")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "helper.py")
    msg = str(e.value)
    assert "helper.py:16:16: error: module global 'SHIFT' has no value at conversion" in msg, msg
    assert "but helper 'shifted' cannot: pass it as an argument" in msg and "    return t + SHIFT\n               ^\n" in msg, msg


def test_a_factory_kernel_calling_a_function_of_the_factory_is_diagnosed():
    src = FACTORY.replace("    half = tile // 2\n", "    half = tile // 2\n\n    def twice(v):\n        return v * 2\n"
                          ).replace("x * scale + y", "twice(x) + y")
    with pytest.raises(ConversionFailed, match="reads 'twice' of that function, a function defined there"):
        convert(src, "factory_def.py")
    src = FACTORY.replace("def axpb(X, Y, Z):", "def axpb(X, Y, Z, T: ct.Constant[int] = tile):")
    with pytest.raises(ConversionFailed, match="reads 'tile' of that function in its signature"):
        convert(src, "factory_sig.py")


def test_analyze_names_the_constants_read_at_launch(tmp_path):
    import subprocess
    import sys

    (tmp_path / "k.py").write_text(FACTORY)
    p = subprocess.run([sys.executable, "-m", "cutile2triton", "analyze", "k.py"], capture_output=True, text=True,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "  kernel axpb(X: 1-D array, Y: 1-D array, Z: 1-D array, tile: constexpr read at launch, half: " \
           "constexpr read at launch, scale: constexpr read at launch)" in p.stdout, p.stdout
    assert "note: 'half' has no value at conversion (a name of the factory function 'make_kernel')" in p.stdout


def test_a_constant_named_like_the_launchers_own_names_is_diagnosed():
    # The launcher binds `grid` and calls `len`: a module value so named cannot be read there at launch.
    src = ENV_GLOBALS.replace('SCALE = float(', 'grid = float(').replace("t * SCALE", "t * grid")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "named_grid.py")
    assert "named_grid.py:19:40: error: kernel 'scale_shift' reads 'grid' at launch, but its launcher " \
           "launch_scale_shift uses that name itself; rename it" in str(e.value), str(e.value)


# Found by the hostile round of s36; each failed before its fix.

NONE_OR_FLOAT = """
import os

import cuda.tile as ct
import torch

BIAS = None if os.environ.get("C2T_TEST_BIAS") is None else float(os.environ["C2T_TEST_BIAS"])


@ct.kernel
def add_bias(x, y, T: ct.Constant[int] = 32, S: ct.Constant[float] = 1.0):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO) * S
    if BIAS is None:
        ct.store(y, index=(ct.bid(0),), tile=t)
    else:
        ct.store(y, index=(ct.bid(0),), tile=t + BIAS)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 32),), add_bias, (x, y, 32, 1.0))
    return y
"""


def test_is_none_of_a_constant_read_at_launch_is_decided_per_launch(tmp_path, monkeypatch):
    # `BIAS is None` was decided False at conversion (the branch dropped), and the constant after
    # defaulted parameters made the module a SyntaxError.
    monkeypatch.delenv("C2T_TEST_BIAS", raising=False)
    code = convert(NONE_OR_FLOAT, "none_or_float.py")
    assert "if BIAS is None:" in code and "    BIAS: tl.constexpr = None,\n" in code
    mod = load(code, tmp_path, "none_or_float")
    seed = fresh_seed()
    x = dev(torch.randn(77, generator=torch.Generator().manual_seed(seed)))
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu(), msg=f"seed={seed}")
    mod.BIAS = 2.5
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() + 2.5, msg=f"seed={seed}")


REBOUND = """
import cuda.tile as ct
import torch

SCALE = 3.0
if __name__ == "not this":
    SCALE = 4.0


def configure(scale):
    global SCALE
    SCALE = scale


@ct.kernel
def scale(x, y):
    t = ct.load(x, index=(ct.bid(0),), shape=(16,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(ct.bid(0),), tile=t * SCALE)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), scale, (x, y))
    return y
"""


def test_a_global_rebound_in_a_block_or_by_a_function_is_read_at_launch(tmp_path):
    # A literal later rebound (in a module-level block, through `global` in a function) was folded to
    # the literal: the value at launch was ignored.
    code = convert(REBOUND, "rebound.py")
    assert "SCALE: tl.constexpr):" in code
    mod = load(code, tmp_path, "rebound")
    seed = fresh_seed()
    x = dev(torch.randn(50, generator=torch.Generator().manual_seed(seed)))
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * 3.0, msg=f"seed={seed}")
    mod.configure(-5.0)
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * -5.0, msg=f"seed={seed}")


def test_a_float_constant_read_at_launch_compares_in_the_tiles_dtype(tmp_path, monkeypatch):
    # cuTile gives a loosely typed constant the tile's dtype: fp16(0.1) == fp16(0.1) holds; Triton
    # compared the fp16 tile with an fp32 0.1.
    src = ENV_GLOBALS.replace("tile=t * SCALE + SHIFT", "tile=ct.astype(ct.astype(t, ct.float16) >= SCALE, ct.float32)")
    monkeypatch.setenv("C2T_TEST_SCALE", "0.1")
    mod = load(convert(src, "fp16_compare.py"), tmp_path, "fp16_compare")
    x = dev(torch.tensor([0.1, 0.0999, 0.2, -1.0] * 10))
    expected = (x.cpu().half() >= torch.tensor(0.1).half()).float()
    assert torch.equal(mod.run(x).cpu(), expected)


def test_a_tuple_read_at_launch_is_said_at_launch(tmp_path, monkeypatch):
    src = ENV_GLOBALS.replace('SCALE = float(os.environ.get("C2T_TEST_SCALE", "2.0"))',
                              "SCALE = float(os.environ.get('C2T_TEST_SCALE', '2.0'))\nPAIR = tuple(int(v) for v in '1,2'.split(','))"
        ).replace("t * SCALE + SHIFT", "t * PAIR + SHIFT")
    mod = load(convert(src, "pair.py"), tmp_path, "pair")
    with pytest.raises(TypeError, match="kernel scale_shift: 'PAIR' is read at launch as a constant and must be an "
                                        "int, float, bool or None, not tuple"):
        mod.run(dev(torch.randn(40)))


@pytest.mark.parametrize("name, said", [
    # Said at the binding since s39: any binding of a launcher's name is (convert.cpp check_reserved_names).
    ("launch_scale_shift", "named.py:8:1: error: 'launch_scale_shift' cannot be converted: the converted module "
                           "defines this launcher for the kernel"),
    ("grid", "named.py:19:40: error: kernel 'scale_shift' reads 'grid' at launch, but its launcher "
             "launch_scale_shift uses that name itself"),
])
def test_a_constant_named_like_a_launcher_is_diagnosed(name, said):
    src = ENV_GLOBALS.replace('SCALE = float(', f'{name} = float(').replace("t * SCALE", f"t * {name}")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "named.py")
    assert said in str(e.value), str(e.value)


def test_kernels_deeper_than_a_factory_are_diagnosed():
    # A kernel two functions deep, or in a class, was missed: its enclosing function looked like a tile helper
    # and was left out of the output, with warnings only.
    body = ("        @ct.kernel\n        def k(x):\n"
            "            ct.store(x, index=(ct.bid(0),), tile=ct.zeros((16,), dtype=ct.float32))\n        return k\n")
    for outer, where in (("def outer(a):\n    def inner(b):\n", "inner', itself inside 'outer'"),
                         ("class Op:\n    def build(self):\n", "build', itself inside 'Op'")):
        with pytest.raises(ConversionFailed) as e:
            convert("import cuda.tile as ct\n\n" + outer + body, "deep.py")
        assert f"deep.py:5:10: error: kernel 'k' is defined inside function '{where}; cutile2triton converts " \
               "kernels defined at module level or directly inside a module-level function" in str(e.value), str(e.value)


IMPORTED = """
import cuda.tile as ct
import torch
from c2t_cfg_{tag} import BLOCK, SCALE as S
from c2t_cfg_{tag} import Helper


@ct.kernel
def scale(x, y):
    pid = ct.bid(0)
    t = ct.load(x, index=(pid,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(pid,), tile=t * S)


def run(x):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], BLOCK),), scale, (x, y))
    return y
"""


def test_values_imported_from_another_module_are_read_at_launch(tmp_path, monkeypatch):
    # `from cfg import BLOCK`: what BLOCK is exists only when the module runs (cuTile reads the global at
    # compile time); the kernel gets it at launch like a module value computed at run time.
    seed = fresh_seed()
    rng = random.Random(seed)
    block, scale = rng.choice([16, 32, 64]), rng.choice([0.5, -3.0])
    tag = f"{seed % 10**8}"
    (tmp_path / f"c2t_cfg_{tag}.py").write_text(f"BLOCK = {block}\nSCALE = {scale}\nclass Helper:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = convert(IMPORTED.format(tag=tag), "imported.py")
    assert "    BLOCK: tl.constexpr,\n    S: tl.constexpr,\n):" in code
    assert f"from c2t_cfg_{tag} import BLOCK, SCALE as S" in code  # the import stays: the launcher reads them
    mod = load(code, tmp_path, "imported")
    g = torch.Generator().manual_seed(seed)
    for n in (rng.randint(1, 3 * block), rng.randint(200, 999)):  # ragged: not a multiple of the tile
        x = dev(torch.randn(n, generator=g))
        torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * scale, msg=f"seed={seed} n={n} block={block}")
    mod.S = 2.5  # rebound in the converted module: the next launch reads it
    x = dev(torch.randn(70, generator=g))
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * 2.5, msg=f"seed={seed}")


@pytest.mark.parametrize("use, where, message", [
    # called, or the base of an attribute: a function, class or module of another file, not copied in
    ("Helper(t)", "15:36", "name 'Helper' is not defined in tile code"),
    ("t * Helper.X", "15:40", "name 'Helper' is not defined in tile code"),
    # read by a helper: constants read at launch are the kernel's own parameters
    ("mul(t)", "9:16", "a kernel's body reads such a name at launch, as a constexpr parameter, but helper 'mul' "
                       "cannot: pass it as an argument"),
])
def test_imported_names_a_kernel_cannot_read_at_launch_are_diagnosed(use, where, message):
    src = IMPORTED.format(tag="x").replace("tile=t * S)", f"tile={use})")
    src = src.replace("\n\n@ct.kernel", "\n\ndef mul(t):\n    return t * S\n\n@ct.kernel", 1)
    with pytest.raises(ConversionFailed) as e:
        convert(src, "imported_bad.py")
    text = str(e.value)
    assert f"imported_bad.py:{where}: error: " in text and message in text, text


def test_analyze_says_where_an_imported_constant_comes_from(tmp_path):
    src = tmp_path / "imported.py"
    src.write_text(IMPORTED.format(tag="y"))
    r = subprocess.run([sys.executable, "-m", "cutile2triton", "analyze", str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "'S' has no value at conversion (a name imported from another module (c2t_cfg_y.SCALE))" in r.stdout, \
        r.stdout


def test_a_lambda_reading_a_constant_read_at_launch_is_diagnosed():
    # It said "of the enclosing function", as for a kernel's variable; the name is a module-level one, which
    # the kernel reads at launch (its lambdas' reads count).
    src = ENV_GLOBALS.replace("    t = ct.load(", "    f = lambda v: v * SCALE\n    t = ct.load(").replace(
        "tile=t * SCALE + SHIFT", "tile=f(t) + SHIFT")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "lam.py")
    assert "lam.py:18:23: error: this lambda uses 'SCALE', a constant the kernel reads at launch (a constexpr " \
           "parameter of it); lambdas that capture variables are not supported" in str(e.value), str(e.value)


def _cfg_module(tmp_path, monkeypatch, **values):
    """A module c2t_cfg_<n> beside the test's files with `values`, importable; its name."""
    name = f"c2t_cfg_{fresh_seed() % 10**8}"
    (tmp_path / f"{name}.py").write_text("".join(f"{k} = {v!r}\n" for k, v in values.items()) +
                                        "def func(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


@pytest.mark.parametrize("rebind", [
    "from {cfg} import SCALE",                                             # plain
    "try:\n    from {cfg} import SCALE\nexcept ImportError:\n    pass",    # in a block
    "from {cfg} import *",                                                 # a star import
])
def test_a_literal_rebound_by_a_later_import_is_read_at_launch(tmp_path, monkeypatch, rebind):
    # SCALE = 7.0 then an import of SCALE: Python keeps the imported value; the literal was folded (a wrong
    # result found by the hostile round).
    cfg = _cfg_module(tmp_path, monkeypatch, SCALE=2.5)
    src = IMPORTED.format(tag="unused").replace("from c2t_cfg_unused import BLOCK, SCALE as S\n", "").replace(
        "from c2t_cfg_unused import Helper\n", f"BLOCK = 16\nSCALE = 7.0\n{rebind.format(cfg=cfg)}\n").replace(
        "t * S", "t * SCALE")
    code = convert(src, "rebound_by_import.py")
    assert "SCALE: tl.constexpr" in code, code
    mod = load(code, tmp_path, "rebound_by_import")
    x = dev(torch.randn(37, generator=torch.Generator().manual_seed(fresh_seed())))
    torch.testing.assert_close(mod.run(x).cpu(), x.cpu() * 2.5)


def test_a_function_rebound_by_a_later_import_is_diagnosed(tmp_path, monkeypatch):
    cfg = _cfg_module(tmp_path, monkeypatch)
    src = IMPORTED.format(tag="unused").replace("from c2t_cfg_unused import BLOCK, SCALE as S\n", "BLOCK = 16\n").replace(
        "from c2t_cfg_unused import Helper\n", f"def func(t):\n    return t * 2.0\n\nfrom {cfg} import func\n").replace(
        "t * S", "func(t)")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "rebound_func.py")
    assert "error: function 'func' is rebound by the import at line 8, so Python calls the imported one" in \
        str(e.value), str(e.value)


def test_a_factory_may_import_the_values_its_kernel_reads(tmp_path, monkeypatch):
    cfg = _cfg_module(tmp_path, monkeypatch, NEG=-1.5)
    src = f"""
import functools

import cuda.tile as ct
import torch


@functools.lru_cache(maxsize=None)
def make_kernel(tile: int):
    from {cfg} import NEG

    @ct.kernel
    def shift(x, y):
        pid = ct.bid(0)
        t = ct.load(x, index=(pid,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(pid,), tile=t + NEG)
    return shift


def run(x, tile):
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], tile),), make_kernel(tile), (x, y))
    return y
"""
    mod = load(convert(src, "factory_import.py"), tmp_path, "factory_import")
    x = dev(torch.randn(45, generator=torch.Generator().manual_seed(fresh_seed())))
    torch.testing.assert_close(mod.run(x, 16).cpu(), x.cpu() - 1.5)


@pytest.mark.parametrize("use, message", [
    # a ct.reduce combine lambda: it said "of the enclosing function" or "read before this kernel assigns it"
    ("ct.reshape(ct.reduce(t, 0, lambda a, b: a + b * S, identity=0.0), (1,))",
     "the reduce combine function captures 'S', a constant the kernel reads at launch (a constexpr parameter of "
     "it), which is not a runtime scalar"),
    # `import cfg` and a star import: where the name would come from
    ("t * cfg_mod.X", "name 'cfg_mod' is not defined in tile code (not a local, parameter, module constant or "
                      "function); 'cfg_mod' is a module the file imports, and tile code reads attributes of "
                      "cuda.tile, math, numpy and torch only: import the value itself (`from os import NAME`)"),
    ("t * Z", "the star import from 'os' at line 5 may bind it, but which names it binds is known only when "
              "the module runs: import the name itself"),
])
def test_launch_time_names_tile_code_cannot_read_are_diagnosed_with_their_origin(use, message):
    src = IMPORTED.format(tag="x").replace("import torch\n", "import torch\nimport os as cfg_mod\nfrom os import *\n",
                                           1).replace("tile=t * S)", f"tile={use})")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "origin.py")
    assert message in str(e.value), str(e.value)


def test_a_kernel_option_with_no_value_at_conversion_is_said_to_be_left_out(tmp_path):
    # It was dropped silently; options only change speed, so a warning, and the kernel converts.
    src = ENV_GLOBALS.replace("@ct.kernel\n", "OCC = int(os.environ.get('C2T_TEST_OCC', '2'))\n\n\n@ct.kernel(occupancy=OCC)\n")
    (tmp_path / "opt.py").write_text(src)
    r = subprocess.run([sys.executable, "-m", "cutile2triton", "convert", "opt.py", "-o", "opt_t.py"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "opt_t.py").exists(), r.stderr
    assert "opt.py:18:22: warning: kernel option occupancy has no value at conversion, so cutile2triton does not " \
           "apply it (it applies options given as literals or module constants)" in r.stderr, r.stderr


def test_an_imported_annotation_alias_is_diagnosed(tmp_path, monkeypatch):
    # `T: ConstInt` with ConstInt = ct.Constant[int] in another module: T was silently a runtime scalar.
    cfg = _cfg_module(tmp_path, monkeypatch, X=1)
    src = ENV_GLOBALS.replace("import torch\n", f"import torch\nfrom {cfg} import X as ConstInt\n", 1).replace(
        "def scale_shift(x, y):", "def scale_shift(x, y, T: ConstInt):")
    with pytest.raises(ConversionFailed) as e:
        convert(src, "ann.py")
    assert f"ann.py:17:26: error: the annotation of parameter 'T' is imported from another module ({cfg}.X), so " \
           "whether it is ct.Constant is not known at conversion" in str(e.value), str(e.value)
