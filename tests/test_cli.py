"""The ``cutile2triton`` command: version, help, parse, exit codes, diagnostics form."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path
import sys

import pytest

from cutile2triton import __version__
from cutile2triton.cli import main


def run(*args, cwd=None):
    p = subprocess.run([sys.executable, "-m", "cutile2triton", *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def test_version_and_help():
    rc, out, _ = run("--version")
    assert rc == 0 and out.strip() == f"cutile2triton {__version__}"
    rc, out, _ = run("--help")
    assert rc == 0
    for word in ("parse", "convert", "analyze", "Exit codes"):
        assert word in out


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2


def test_parse_dump_equals_cpython(tmp_path):
    src = "import cuda.tile as ct\n\n@ct.kernel\ndef k(x, n: ct.Constant[int]):\n    t = ct.load(x, index=(ct.bid(0),), shape=(n,))\n"
    f = tmp_path / "k.py"
    f.write_text(src)
    rc, out, err = run("parse", "--dump-ast", str(f))
    assert rc == 0, err
    assert out.strip() == ast.dump(ast.parse(src), include_attributes=True)


def test_parse_error_is_compiler_form_with_caret(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text("x = 1\ny = = 2\n")
    rc, out, err = run("parse", str(f))
    assert rc == 1
    lines = err.splitlines()
    assert lines[0].startswith(f"{f}:2:") and ": error: " in lines[0]
    assert lines[1] == "y = = 2"
    assert lines[2].strip() == "^"


def test_missing_file_is_an_io_error(tmp_path):
    rc, _, err = run("parse", str(tmp_path / "nope.py"))
    assert rc == 2 and "cannot read" in err


def test_bad_python_version_is_a_usage_error(tmp_path):
    f = tmp_path / "k.py"
    f.write_text("x = 1\n")
    rc, _, err = run("parse", "--dump-ast", "--python-version", "2.7", str(f))
    assert rc == 2 and "unsupported" in err


@pytest.mark.parametrize("blob", [b"\x00\x01\x02", b"\xff\xfe garbage", b"(" * 10000, b"x = '" + b"a" * 100])
def test_hostile_input_gets_a_diagnostic_not_a_crash(tmp_path, blob):
    f = tmp_path / "hostile.py"
    f.write_bytes(blob)
    rc, _, err = run("parse", str(f))
    assert rc == 1, err
    assert f"{f}:" in err and "error:" in err


def test_ten_megabyte_file_is_parsed(tmp_path):
    f = tmp_path / "huge.py"
    f.write_text("x = 1\n" * 1_700_000)  # 10.2 MB
    rc, out, err = run("parse", str(f))
    assert rc == 0, err
    assert out.strip() == f"{f}: ok"


@pytest.mark.parametrize("nest", ["(" * 10000 + "1" + ")" * 10000, "-" * 10000 + "1", "a[" * 5000 + "1" + "]" * 5000])
def test_ten_thousand_deep_nesting_is_a_diagnostic(tmp_path, nest):
    f = tmp_path / "deep.py"
    f.write_text(f"x = {nest}\n")
    rc, _, err = run("parse", str(f))
    assert rc == 1 and f"{f}:1:" in err and "error:" in err


KERNEL = """import cuda.tile as ct
import torch


@ct.kernel
def copy_kernel(a, b, TILE: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=({shape},))
    ct.store(b, index=(ct.bid(0),), tile=x)


def copy(a):
    b = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), copy_kernel, (a, b, 64))
    return b
"""


def test_non_power_of_two_tile_is_a_diagnostic_and_writes_nothing(tmp_path):
    src = tmp_path / "ops" / "cutile" / "k.py"
    src.parent.mkdir(parents=True)
    src.write_text(KERNEL.format(shape=100))
    rc, _, err = run("convert", str(src))
    assert rc == 1
    assert f"{src}:7:" in err and "powers of two" in err
    assert not (tmp_path / "ops" / "triton").exists()


@pytest.mark.parametrize("axis", [5, -3])
def test_scan_axis_out_of_range_is_a_diagnostic(tmp_path, axis):
    # ct.cumsum's axis is range-checked as the reductions' are (axis=5 was emitted as written, axis=-3 as -1:
    # another axis).
    call = f"ct.cumsum(t, axis={axis})"
    (tmp_path / "k.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y, TM: ct.Constant[int], "
                                   "TN: ct.Constant[int]):\n    t = ct.load(x, index=(0, 0), shape=(TM, TN))\n"
                                   f"    ct.store(y, index=(0, 0), tile={call})\n")
    rc, out, err = run("convert", "k.py", "--stdout", cwd=tmp_path)
    assert rc == 1 and out == "", (out, err)
    col = 4 + len("ct.store(y, index=(0, 0), tile=ct.cumsum(t, axis=")
    assert err.startswith(f"k.py:7:{col + 1}: error: axis {axis} is out of range for a tile of rank 2\n"
                          f"    ct.store(y, index=(0, 0), tile={call})\n{' ' * col}^\n"), err


def test_ct_launch_replaced_or_aliased_is_reported_once_each(tmp_path):
    # TileGym's experimental.py wraps ct.launch. An alias host code uses is one error (its statement's
    # names and each use were reported again), and assigning to ct.launch or ct.kernel, in a function or at
    # module level, is an error (it was rewritten to the runtime's name, rebinding a local, or the
    # statement was dropped).
    (tmp_path / "k.py").write_text("import cuda.tile as ct\n\n_orig = ct.launch\n\n\ndef original():\n"
                                   "    return _orig\n\n\ndef patch(f):\n    ct.launch = f\n\n\nct.kernel = None\n")
    rc, out, err = run("convert", "k.py", "--stdout", cwd=tmp_path)
    assert rc == 1 and out == "", (out, err)
    patching = ("' (patching cuda.tile); the converted module does not import cuda.tile, so there is nothing to "
                "patch")
    assert [line for line in err.splitlines() if ": error: " in line] == [
        "k.py:3:1: error: host code uses '_orig', which is defined from cuda.tile names; the converted module "
        "cannot import cuda.tile",
        "k.py:11:5: error: host code assigns to or deletes 'ct.launch" + patching,
        "k.py:14:1: error: host code assigns to or deletes 'ct.kernel" + patching], err


def test_out_dir_keeps_relative_paths_and_refuses_collisions(tmp_path):
    for sub in ("a", "b"):
        f = tmp_path / sub / "cutile" / "k.py"
        f.parent.mkdir(parents=True)
        f.write_text(KERNEL.format(shape="TILE"))
    rc, _, err = run("convert", "a/cutile/k.py", "b/cutile/k.py", "--out-dir", "out", cwd=tmp_path)
    assert rc == 0, err
    assert (tmp_path / "out" / "a" / "triton" / "k.py").exists() and (tmp_path / "out" / "b" / "triton" / "k.py").exists()
    (tmp_path / "c" / "cutile").mkdir(parents=True)
    (tmp_path / "c" / "cutile" / "k.py").write_text(KERNEL.format(shape="TILE"))
    rc, _, err = run("convert", "a/cutile/k.py", str(tmp_path / "c" / "cutile" / "k.py"), "-o", "x.py", cwd=tmp_path)
    assert rc == 2 and "exactly one input" in err


def test_parse_for_python_3_11_rejects_3_12_only_nodes(tmp_path):
    f = tmp_path / "t.py"
    f.write_text("type X = int\n")
    rc, _, err = run("parse", "--python-version", "3.11", str(f))
    assert rc == 1 and "TypeAlias" in err
    rc, out, _ = run("parse", "--python-version", "3.12", "--dump-ast", str(f))
    assert rc == 0 and out.startswith("Module(body=[TypeAlias(")
    rc, _, err = run("parse", "--python-version", "3.10", str(f))
    assert rc == 2


def test_decimal_literal_over_4300_digits_is_rejected_like_cpython(tmp_path):
    f = tmp_path / "big.py"
    f.write_text("x = " + "1" * 4301 + "\n")
    rc, _, err = run("parse", str(f))
    assert rc == 1 and "Exceeds the limit (4300 digits)" in err
    f.write_text("x = " + "1" * 4300 + "\n")
    assert run("parse", str(f))[0] == 0


DTYPE_ONLY = """
import cuda.tile as ct

@ct.kernel
def k(X, Y, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(X, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(i,), tile=t)
"""


def test_int64_indexing_and_array_rank_options(tmp_path):
    # The converter options reach convert_source from the API and the command
    # line, --stdout included (it printed a second, option-less conversion).
    import cutile2triton

    plain = cutile2triton.convert_source(DTYPE_ONLY, "k.py")
    wide = cutile2triton.convert_source(DTYPE_ONLY, "k.py", int64_indexing=True)
    assert plain.ok and wide.ok
    assert "tl.int64" not in plain.code and "t_offs = tl.cast(i, tl.int64) * TILE" in wide.code
    f = tmp_path / "k.py"
    f.write_text(DTYPE_ONLY)
    rc, out, err = run("convert", "--stdout", "--int64-indexing", str(f))
    assert rc == 0 and out == cutile2triton.convert_source(DTYPE_ONLY, str(f), int64_indexing=True).code, err
    # array_ranks: an explicit rank for a parameter whose uses do not show one.
    src = DTYPE_ONLY.replace("ct.store(Y, index=(i,), tile=t)", "ct.store(Y, index=(i,), tile=t)\n    h(Z)") \
        .replace("def k(X, Y,", "def k(X, Y, Z,").replace("@ct.kernel", "def h(A):\n    return A.dtype\n\n@ct.kernel")
    ranked = cutile2triton.convert_source(src, "k.py", array_ranks={"k.Z": 3})
    assert ranked.ok, ranked.rendered
    assert "Z_shape_2" in ranked.code and "Z_stride_2" in ranked.code
    (tmp_path / "k2.py").write_text(src)
    rc, out, err = run("convert", "--stdout", "--array-rank", "k.Z=3", str(tmp_path / "k2.py"))
    assert rc == 0 and out == cutile2triton.convert_source(src, str(tmp_path / "k2.py"), array_ranks={"k.Z": 3}).code, err
    rc, out, err = run("convert", "--stdout", "--array-rank", "Z3", str(tmp_path / "k2.py"))
    assert rc == 2 and "expected [KERNEL.]PARAM=N" in err
    with pytest.raises(ValueError, match="array_ranks"):
        cutile2triton.convert_source(src, "k.py", array_ranks={"k.Z": -1})


def test_an_error_in_an_assignment_is_reported_once():
    # Later uses of a name whose assignment failed add no "is not defined" errors.
    import cutile2triton

    src = """
import cuda.tile as ct

@ct.kernel
def k(X, TILE: ct.Constant[int]):
    t = ct.load(X, (0,), (TILE,), padding_mode=ct.PaddingMode.ONE)
    u = t * 2
    ct.store(X, (0,), u + t)
"""
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and r.code == ""
    errors = [d for d in r.diagnostics if d.severity == "error"]
    assert len(errors) == 1, r.rendered
    assert errors[0].line == 6 and "ct.PaddingMode has no member ONE (its members: NAN," in errors[0].message


@pytest.mark.parametrize("binding, name", [
    ("def _c2t_tan(x):\n    return x\n", "_c2t_tan"),          # would replace the converter's ct.tan helper
    ("def launch_k(a):\n    return a\n", "launch_k"),           # would replace kernel k's launcher
    ("def run(x, triton=16):\n    return x\n", "triton"),       # would shadow the Triton module in host code
    ("tl = 3\n", "tl"),
    # Every other way Python binds a module's name (hostile-input round, s39: each converted, then failed
    # or ran the wrong thing at the call).
    ("launch_k = None\n", "launch_k"),
    ("try:\n    import missing\nexcept ImportError as triton:\n    pass\n", "triton"),  # deleted after the handler
    ("def setup():\n    global launch_k\n    launch_k = print\n", "launch_k"),
    ("match [1]:\n    case [*launch_k]:\n        pass\n", "launch_k"),
    ("match {}:\n    case {**_c2t_rest}:\n        pass\n", "_c2t_rest"),
    ("from os import path as _c2t_path\n", "_c2t_path"),
    ("def run(x):\n    launch_k = print\n    return x\n", "launch_k"),  # its launches of k would call it
])
def test_names_the_generated_code_defines_are_reserved(binding, name):
    import cutile2triton

    src = "import cuda.tile as ct\n\n" + binding + """
@ct.kernel
def k(X, TILE: ct.Constant[int]):
    t = ct.load(X, (0,), (TILE,))
    ct.store(X, (0,), ct.tan(t))
"""
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and r.code == ""
    assert f"'{name}' cannot be converted" in r.rendered, r.rendered
    assert r.diagnostics[0].line == src[: src.index(name)].count("\n") + 1
    # Importing the real Triton modules under their usual names is fine.
    ok = cutile2triton.convert_source("import triton\nimport triton.language as tl\n" + src.replace(binding, ""), "k.py")
    assert ok.ok, ok.rendered


@pytest.mark.parametrize("param", ["num_warps", "num_stages", "debug"])
def test_a_kernel_parameter_named_like_a_triton_launch_option_is_refused(param):
    # Triton's binder takes launch options as keywords beside the parameters: every launch of the converted
    # kernel failed with "got multiple values for argument 'num_warps'" (s39 hostile round).
    import cutile2triton

    src = f"""import cuda.tile as ct

@ct.kernel
def k(X, {param}: ct.Constant[int], TILE: ct.Constant[int]):
    t = ct.load(X, (0,), (TILE,))
    ct.store(X, (0,), t * {param})
"""
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and r.code == ""
    assert f"k.py:4:10: error: '{param}' cannot be converted: a Triton kernel's launch takes '{param}'" in r.rendered
    assert cutile2triton.convert_source(src.replace(param, "factor"), "k.py").ok


@pytest.mark.parametrize("binding, said", [
    ('type = "fp32"\n', "'type' cannot be converted: this module-level binding replaces the builtin 'type'"),
    ("def setup():\n    global int\n    int = None\n", "'int' cannot be converted"),
    ("from torch import *\n", "'*' cannot be converted: this import replaces the builtins 'any', 'bool', 'float', 'int'"),
])
def test_module_level_bindings_of_builtins_the_runtime_reads_are_refused(binding, said):
    # The runtime and launchers call int, type, isinstance... through the module's globals: a cuTile module's
    # `type = "fp32"` failed at every launch, `from torch import *` at import (s39 hostile round).
    import cutile2triton

    src = "import cuda.tile as ct\nimport torch\n" + binding + """
@ct.kernel
def k(X, TILE: ct.Constant[int]):
    t = ct.load(X, (0,), (TILE,))
    ct.store(X, (0,), t * 2)


def run(x):
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, 16))
"""
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and r.code == ""
    assert said in r.rendered and r.diagnostics[0].line == 3 + ("global" in binding), r.rendered
    # A builtin the generated code does not read may be rebound, as in any Python module.
    assert cutile2triton.convert_source(src.replace(binding, "zip = None\n"), "k.py").ok


@pytest.mark.parametrize("header, name, col", [("def run(x, x, T=8):", "x", 12), ("def run(x, *, T, **T):", "T", 20),
                                               ("run = lambda x, *x: x", "x", 18)])
def test_a_parameter_named_twice_is_cpythons_syntax_error(header, name, col):
    # ast.parse accepts it, CPython's compiler does not: the module converted into one that did not compile.
    import cutile2triton

    src = "import cuda.tile as ct\n\n" + header + ("\n    return x\n" if header.startswith("def") else "\n")
    with pytest.raises(SyntaxError, match="duplicate argument"):
        compile(src, "k.py", "exec")
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and f"k.py:3:{col}: error: duplicate argument '{name}' in function definition" in r.rendered


def test_a_kernel_defined_twice_is_refused():
    # One Triton kernel and launcher per name: `k_v1 = k` before a second `def k` launched the second kernel's
    # body through k_v1 (3 * x for 2 * x; s39 hostile round).
    import cutile2triton

    kernel = """
@ct.kernel
def k(X, TILE: ct.Constant[int]):
    t = ct.load(X, (0,), (TILE,))
    ct.store(X, (0,), t * {f})
"""
    src = "import cuda.tile as ct\n" + kernel.format(f=2) + "\nk_v1 = k\n" + kernel.format(f=3)
    r = cutile2triton.convert_source(src, "k.py")
    assert not r.ok and "k.py:11:1: error: kernel 'k' is defined again (first at line 4)" in r.rendered, r.rendered


def test_unusable_output_paths_are_io_errors_reported_per_file(tmp_path):
    # -o naming a folder: exit 2 with the reason, no traceback.
    src = tmp_path / "k.py"
    src.write_text(KERNEL.format(shape=64))
    rc, _, err = run("convert", str(src), "-o", str(tmp_path))
    assert rc == 2 and "the output is a folder" in err and "Traceback" not in err, err
    # Several paths, one of which has no output path (not under a `cutile` folder, no --out-dir):
    # the others are converted and reported, the bad one is named, exit 2 (was: exit 2 after the
    # others were written, with no report and the diagnostics of the others lost).
    good = tmp_path / "pkg" / "ops" / "cutile" / "good.py"
    good.parent.mkdir(parents=True)
    good.write_text(KERNEL.format(shape=64))
    loose = tmp_path / "other" / "loose.py"
    loose.parent.mkdir()
    loose.write_text(KERNEL.format(shape=64))
    rc, out, err = run("convert", str(good), str(loose))
    assert rc == 2, (out, err)
    assert (tmp_path / "pkg" / "ops" / "triton" / "good.py").exists()
    assert f"{loose}: error:" in err and "converted" in out, (out, err)


def test_diff_headers(tmp_path):
    # --diff prints what convert would write: git-style a/ b/ names for relative paths, the path
    # itself for absolute ones, /dev/null for an output that does not exist yet; nothing is written.
    src = tmp_path / "k.py"
    src.write_text((EXAMPLES / "softmax.py").read_text())
    rc, out, _ = run("convert", "k.py", "-o", "out.py", "--diff", cwd=tmp_path)
    assert rc == 0 and out.startswith("--- /dev/null\n+++ b/out.py\n"), out[:200]
    assert not (tmp_path / "out.py").exists()
    (tmp_path / "out.py").write_text("stale\n")
    rc, out, _ = run("convert", str(src), "-o", str(tmp_path / "out.py"), "--diff", cwd=tmp_path)
    assert rc == 0 and out.startswith(f"--- {tmp_path / 'out.py'}\n+++ {tmp_path / 'out.py'}\n"), out[:200]
    assert "-stale\n" in out and (tmp_path / "out.py").read_text() == "stale\n"


def test_exists_is_in_the_json_report(tmp_path):
    import json

    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    (tmp_path / "out.py").write_text("hand-edited\n")
    rc, out, err = run("convert", "k.py", "-o", "out.py", "--json", cwd=tmp_path)
    assert rc == 1 and "output exists, differs and is not cutile2triton's earlier output of this source" in err
    f = json.loads(out)["files"][0]
    assert f["status"] == "exists"
    assert any("earlier output of this source (or is a symbolic link); use --force" in d["message"]
               for d in f["diagnostics"]), f
    assert (tmp_path / "out.py").read_text() == "hand-edited\n"


def test_an_earlier_output_is_regenerated_after_the_source_changes(tmp_path):
    # The edit-convert loop: the output carries cutile2triton's header, so converting again replaces it
    # without --force; a file at the same path that cutile2triton did not write is kept.
    src = tmp_path / "pkg" / "ops" / "cutile" / "k.py"
    src.parent.mkdir(parents=True)
    src.write_text(KERNEL.format(shape=64))
    dest = tmp_path / "pkg" / "ops" / "triton" / "k.py"
    assert run("convert", str(src))[0] == 0
    first = dest.read_text()
    assert first.startswith("# Generated by cutile2triton ")
    src.write_text(KERNEL.format(shape=128))
    rc, out, err = run("convert", str(src))
    assert rc == 0 and "1 converted" in out, (out, err)
    assert dest.read_text() != first and "128" in dest.read_text()
    rc, out, _ = run("convert", str(src))
    assert rc == 0 and "1 unchanged" in out
    hand = "# a hand-written Triton op\n"
    dest.write_text(hand)
    rc, out, err = run("convert", str(tmp_path / "pkg"))  # a folder run: the message once, in its row
    assert rc == 1 and dest.read_text() == hand
    assert "earlier output of this source" in out and "earlier output" not in err, (out, err)
    rc, out, _ = run("convert", str(src), "--force")
    assert rc == 0 and dest.read_text().startswith("# Generated by cutile2triton ")


def test_what_counts_as_an_earlier_output(tmp_path):
    # Found by review: the header after a shebang and a coding line; a package's plain module (its
    # mirror has the header too); the output of another source and a symbolic link need --force.
    pkg = tmp_path / "pkg" / "ops" / "cutile"
    pkg.mkdir(parents=True)
    k, init = pkg / "k.py", pkg / "__init__.py"
    k.write_text("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n" + KERNEL.format(shape=64))
    init.write_text("VERSION = 1\n")
    out = tmp_path / "pkg" / "ops" / "triton"
    assert run("convert", str(pkg))[0] == 0
    assert (out / "k.py").read_text().split("\n")[2].startswith("# Generated by cutile2triton ")
    assert (out / "__init__.py").read_text().startswith("# Generated by cutile2triton ")
    k.write_text(k.read_text().replace("64", "128"))
    init.write_text("VERSION = 2\n")
    rc, text, err = run("convert", str(pkg))
    assert rc == 0 and "2 converted" in text, (text, err)
    assert "VERSION = 2" in (out / "__init__.py").read_text()
    # Another source writing the same output: --force.
    other = tmp_path / "other.py"
    other.write_text(KERNEL.format(shape=32))
    rc, _, err = run("convert", str(other), "-o", str(out / "k.py"))
    assert rc == 1 and "earlier output of this source" in err and "128" in (out / "k.py").read_text()
    # An output reached through a symbolic link is not replaced by a file without --force.
    shared = tmp_path / "shared.py"
    (out / "k.py").rename(shared)
    (out / "k.py").symlink_to(shared)
    k.write_text(k.read_text().replace("128", "256"))
    rc, _, err = run("convert", str(k))
    assert rc == 1 and (out / "k.py").is_symlink() and "symbolic link" in err, err


def test_array_rank_naming_no_parameter_of_the_kernel_warns(tmp_path):
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    rc, out, err = run("convert", "k.py", "--stdout", "--array-rank", "softmax_kernel.nope=2", cwd=tmp_path)
    assert rc == 0 and "def softmax_kernel(" in out
    assert "warning: array rank option 'softmax_kernel.nope=2': kernel 'softmax_kernel' has no parameter 'nope'" in err
    # An entry for a kernel in none of the run's files did nothing: said once for the run.
    rc, _, err = run("convert", "k.py", "--stdout", "--array-rank", "other_kernel.x=2", cwd=tmp_path)
    assert rc == 0 and err.count("warning") == 1, err
    assert "warning: --array-rank other_kernel.x=2: no kernel 'other_kernel' in the file; the option did nothing" in err


NO_RANK = """import cuda.tile as ct


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    n = y.shape[0]
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(x, index=(ct.bid(0),), tile=t + n)
"""


@pytest.mark.parametrize("cmd", ["convert", "analyze"])
def test_array_rank_typo_is_said_when_the_file_fails_for_want_of_it(tmp_path, cmd):
    # y's rank shows nowhere: the file needs --array-rank k.y=N, and a misspelt one is why it fails.
    (tmp_path / "k.py").write_text(NO_RANK)
    extra = ["--stdout"] if cmd == "convert" else []
    rc, out, err = run(cmd, "k.py", *extra, "--array-rank", "yy=1", "--array-rank", "kk.y=1", cwd=tmp_path)
    assert rc == 1 and "cannot determine the rank of array parameter 'y'" in out + err, (out, err)
    assert "warning: --array-rank yy=1: no kernel parameter 'yy' in the file; the option did nothing" in err, err
    assert "warning: --array-rank kk.y=1: no kernel 'kk' in the file; the option did nothing" in err, err
    rc, out, err = run(cmd, "k.py", *extra, "--array-rank", "y=1", cwd=tmp_path)
    assert rc == 0 and "--array-rank" not in err, err
    # A file that does not parse has no known kernels: no warning, only its syntax error.
    (tmp_path / "bad.py").write_text("import cuda.tile as ct\n@ct.kernel\ndef k(x:\n")
    rc, out, err = run(cmd, "bad.py", *extra, "--array-rank", "yy=1", cwd=tmp_path)
    assert rc == 1 and "--array-rank yy=1" not in out + err, (out, err)


def test_array_rank_bare_name_matching_no_parameter_anywhere_warns_once(tmp_path):
    # A bare PARAM=N applies to every kernel of every file; one that no kernel has is a typo (it was
    # silently ignored). A name some file's kernel has is used, even if other files lack it.
    for name in ("a.py", "b.py"):
        (tmp_path / "src" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_text((EXAMPLES / "softmax.py").read_text())
    b = (tmp_path / "src" / "b.py").read_text()
    (tmp_path / "src" / "b.py").write_text(b.replace("def softmax_kernel(x, out,", "def softmax_kernel(x, res,")
                                           .replace("ct.store(out,", "ct.store(res,").replace("out.dtype", "res.dtype"))
    rc, out, err = run("convert", "src", "--out-dir", "out", "--array-rank", "outptu=2", "--array-rank", "res=2",
                       cwd=tmp_path)
    assert rc == 0, (out, err)
    assert err.count("warning") == 1, err
    assert "warning: --array-rank outptu=2: no kernel parameter 'outptu' in the 2 files; the option did nothing" in err


def test_folder_with_nowhere_to_write_is_one_usage_error(tmp_path):
    # No -o/--out-dir/--stdout and no `cutile` folder to mirror: one error for the run (was the same
    # error once per file, twice each, prefixed with a meaningless 0:0:).
    for name in ("a.py", "b.py"):
        (tmp_path / "src" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_text(KERNEL.format(shape=64))
    rc, out, err = run("convert", "src", cwd=tmp_path)
    assert rc == 2 and out == "", (out, err)
    assert err.count("no 'cutile' folder") == 1 and "0:0" not in err and "src: no 'cutile' folder" in err, err
    assert not list(tmp_path.rglob("triton"))


def test_single_file_with_nowhere_to_write_is_a_usage_error(tmp_path):
    # A newcomer's first `convert examples/x.py` without an output option: the usage error alone
    # (exit 2), not also a "1 failed" summary as if the conversion had failed.
    (tmp_path / "k.py").write_text(KERNEL.format(shape=64))
    rc, out, err = run("convert", "k.py", cwd=tmp_path)
    assert rc == 2 and out == "" and "failed" not in err, (out, err)
    assert "k.py: no 'cutile' folder in the path to mirror to 'triton'; use -o FILE, --out-dir DIR or --stdout" in err


def test_single_file_without_cuda_tile_is_skipped_not_a_usage_error(tmp_path):
    # A file that would be skipped needs nowhere to be written: per-file hooks over ordinary files
    # keep exit 0 (hostile review: the one-usage-error rule first counted it).
    (tmp_path / "plain.py").write_text("import os\n")
    for extra in ([], ["--check"]):
        rc, out, err = run("convert", "plain.py", *extra, cwd=tmp_path)
        assert rc == 0 and "skipped" in out + err and "error" not in err, (extra, out, err)
    rc, out, err = run("convert", "plain.py", "-o", "plain_out.py", cwd=tmp_path)  # says why, writes nothing
    assert rc == 0 and out.strip() == "1 skipped: plain.py has no cuda.tile import, nothing to convert (no file written)"
    assert not (tmp_path / "plain_out.py").exists()


def test_array_rank_warnings_know_kernels_without_parameters_and_unwritable_outputs(tmp_path):
    (tmp_path / "k0.py").write_text(
        "import cuda.tile as ct\n\n\n@ct.kernel\ndef k0():\n    pass\n")
    rc, _, err = run("convert", "k0.py", "--stdout", "--array-rank", "k0.x=1", cwd=tmp_path)
    assert rc == 0 and "kernel 'k0' has no parameter 'x'" in err and "no kernel 'k0'" not in err, err
    # The output path is unusable, but the file converted: its kernels are known, the typo is said.
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    (tmp_path / "out.py").mkdir()
    rc, _, err = run("convert", "k.py", "-o", "out.py", "--force", "--array-rank", "typo=2", cwd=tmp_path)
    assert rc == 2 and "--array-rank typo=2: no kernel parameter 'typo' in the file" in err, err


def test_summary_row_of_an_unwritable_file_has_no_position(tmp_path):
    good = tmp_path / "pkg" / "cutile" / "good.py"
    good.parent.mkdir(parents=True)
    good.write_text(KERNEL.format(shape=64))
    (tmp_path / "loose.py").write_text(KERNEL.format(shape=64))
    rc, out, err = run("convert", "pkg", "loose.py", cwd=tmp_path)
    assert rc == 2, (out, err)
    row = next(line for line in out.splitlines() if line.startswith("loose.py"))
    assert row == "loose.py  failed  no 'cutile' folder in the path to mirror to 'triton'; use -o FILE, --out-dir DIR " \
                  "or --stdout", row


def test_analyze_warns_about_array_rank_entries_that_name_nothing(tmp_path):
    # analyze takes the same --array-rank options as convert, and says the same about typos.
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    rc, out, err = run("analyze", "k.py", "--array-rank", "outptu=2", "--array-rank", "out=2", cwd=tmp_path)
    assert rc == 0 and "softmax_kernel" in out, (out, err)
    assert err.count("warning") == 1, err
    assert "warning: --array-rank outptu=2: no kernel parameter 'outptu' in the file; the option did nothing" in err


@pytest.mark.parametrize("cmd", ["convert", "analyze"])
def test_array_rank_too_large_is_a_usage_error(tmp_path, cmd):
    # A rank beyond any array (it used to reach the C++ extension's int and fail with a traceback).
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    rc, _, err = run(cmd, "k.py", *(["--stdout"] if cmd == "convert" else []), "--array-rank", "x=99999999999",
                     cwd=tmp_path)
    assert rc == 2 and "--array-rank x=99999999999: expected [KERNEL.]PARAM=N with N from 0 to 64" in err, err
    assert "Traceback" not in err


def test_dash_output_is_standard_output(tmp_path):
    # `-o -` prints the code, as --stdout does, and writes no file named "-".
    import cutile2triton

    f = tmp_path / "k.py"
    f.write_text(DTYPE_ONLY)
    rc, out, err = run("convert", str(f), "-o", "-", cwd=tmp_path)
    assert rc == 0 and out == cutile2triton.convert_source(DTYPE_ONLY, str(f)).code, err
    assert not (tmp_path / "-").exists() and not (tmp_path / "k_triton.py").exists()
    rc, out, err = run("convert", str(f), "-o", "-", "--stdout", cwd=tmp_path)
    assert rc == 2 and "use only one of" in err


def test_analyze_shows_diagnostics_in_compiler_form(tmp_path):
    # As convert does: file:line:col, the source line and a caret under the column (text and --json).
    import json

    (tmp_path / "bad.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n"
                                     "    for i in range(3):\n        pass\n    else:\n        pass\n")
    rc, out, err = run("analyze", "bad.py", cwd=tmp_path)
    assert rc == 1, err
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if "bad.py:6:5: error: 'for ... else' is not supported" in ln)
    assert lines[at + 1].strip() == "for i in range(3):"
    assert lines[at + 2].index("^") == lines[at + 1].index("for")
    rc, out, _ = run("analyze", "bad.py", "--json", cwd=tmp_path)
    rendered = json.loads(out)["files"][0]["rendered"]
    assert rendered.startswith("bad.py:6:5: error:") and "\n    for i in range(3):\n    ^\n" in rendered


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_analyze_says_whether_each_file_converts(tmp_path):
    (tmp_path / "bad.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n"
                                     "    for i in range(3):\n        pass\n    else:\n        pass\n")
    (tmp_path / "plain.py").write_text("import os\n")
    rc, out, err = run("analyze", str(EXAMPLES / "softmax.py"), "bad.py", "plain.py", cwd=tmp_path)
    assert rc == 1, err
    blocks = out.split("\n" + str(tmp_path))[0], out[out.index("bad.py:\n"):], out[out.index("plain.py:\n"):]
    assert "  converts: yes (1 kernel(s))\n" in blocks[0]
    assert blocks[1].startswith("bad.py:\n  converts: no (1 error(s), below)\n")
    assert blocks[2] == "plain.py:\n  not a cuTile module (no cuda.tile import): nothing to convert\n"


def test_analyze_names_what_stops_a_kernel_in_its_section(tmp_path):
    # An operation cuTile does not have (or the converter cannot take) is named under its kernel, with its
    # line, beside the operations that do convert; the error itself follows in compiler form.
    (tmp_path / "k.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(a, b, T: ct.Constant[int]):\n"
                                   "    t = ct.load(a, index=(ct.bid(0),), shape=(T,))\n"
                                   "    u = ct.frobnicate(t)\n    ct.store(b, index=(ct.bid(0),), tile=u + ct.exp(t))\n")
    rc, out, err = run("analyze", "k.py", cwd=tmp_path)
    assert rc == 1, err
    section = out[out.index("  kernel k("):out.index("  host code:")]
    assert "    cuTile operations: load, bid, store\n" in section, out  # an operand after the error is not lowered
    assert "    not convertible: ct.frobnicate at line 7 (error below)\n" in section, out
    assert "k.py:7:9: error: ct.frobnicate is not a cuTile operation" in out[out.index("  host code:"):], out


def test_folder_summary_names_no_output_for_a_failed_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "bad.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x):\n"
                                "    for i in range(3):\n        pass\n    else:\n        pass\n")
    (src / "good.py").write_text((EXAMPLES / "vector_add.py").read_text())
    rc, out, err = run("convert", "src", "--out-dir", "out", cwd=tmp_path)
    assert rc == 1, err
    rows = {ln.split("  ")[0]: ln for ln in out.splitlines()}
    assert rows["src/bad.py"] == "src/bad.py  failed  6:5: 'for ... else' is not supported in tile code", out
    assert rows["src/good.py"] == "src/good.py  converted  out/good.py", out  # a folder's tree under DIR
    assert (tmp_path / "out" / "good.py").exists() and not (tmp_path / "out" / "bad.py").exists()


def test_the_input_file_is_never_the_output_even_with_force(tmp_path):
    # -o naming the source itself (or a link to it, or another spelling) would replace the cuTile kernel
    # by its conversion: refused, --force or not, with exit 2 and the source untouched.
    src = tmp_path / "k.py"
    text = (EXAMPLES / "softmax.py").read_text()
    src.write_text(text)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.py").symlink_to(src)
    for out in ("k.py", "./sub/../k.py", "link.py"):
        for force in ((), ("--force",)):
            rc, out_text, err = run("convert", "k.py", "-o", out, *force, cwd=tmp_path)
            assert rc == 2 and "the output is the input file" in err, (out, force, rc, err)
            assert src.read_text() == text


@pytest.mark.skipif(sys.platform != "linux", reason="file names as raw bytes: a POSIX file system")
def test_file_names_with_a_newline_or_bytes_that_are_not_utf8(tmp_path):
    # The header's comment names the source: a newline in the name ended the comment and put the
    # rest of the name on a line of code (the output did not parse); a name that is not UTF-8
    # stopped the command with a TypeError from the extension. Both now convert, are recognised
    # as this tool's output on the next run (replaced without --force), and parse.
    text = (EXAMPLES / "softmax.py").read_text()
    for raw, shown in ((b"we\nird.py", "we\\x0aird.py"), (b"bad\xff.py", "bad\\x5cxff.py")):
        src = tmp_path / raw.decode("utf-8", "surrogateescape")
        src.write_text(text)
        out = tmp_path / "out.py"
        rc, stdout, err = run("convert", src.name, "-o", "out.py", cwd=tmp_path)
        assert rc == 0, err
        code = out.read_text()
        assert code.splitlines()[0] == f"# Generated by cutile2triton {__version__} from {shown}.", code[:200]
        ast.parse(code)
        src.write_text(text + "# changed\n")
        rc, stdout, err = run("convert", src.name, "-o", "out.py", cwd=tmp_path)
        assert rc == 0 and "converted" in stdout, (stdout, err)  # its own earlier output: replaced
        out.unlink()


def test_two_names_that_escape_alike_do_not_replace_each_others_output(tmp_path):
    # A name with a newline is written as ...\x0a... in the header; a name holding a literal
    # backslash-x0a must not read the same (its backslash is escaped too), so converting it to the
    # first one's output needs --force.
    text = (EXAMPLES / "softmax.py").read_text()
    (tmp_path / "a\nb.py").write_text(text)
    (tmp_path / "a\\x0ab.py").write_text(text + "# another source\n")
    rc, _, err = run("convert", "a\nb.py", "-o", "out.py", cwd=tmp_path)
    assert rc == 0, err
    rc, out, err = run("convert", "a\\x0ab.py", "-o", "out.py", cwd=tmp_path)
    assert rc == 1 and "exists" in (out + err), (rc, out, err)


def test_an_empty_path_is_a_usage_error(tmp_path):
    # pathlib reads "" as "." (an unset shell variable would convert the whole working tree).
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    for cmd in ("convert", "analyze"):
        rc, out, err = run(cmd, "", cwd=tmp_path)
        assert rc == 2 and "empty PATH" in err, (cmd, rc, out, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_an_output_name_near_the_file_system_limit_is_written(tmp_path):
    # The temporary file beside it has a short name of its own (it was ".NAME.c2t-tmp-PID": over 255 bytes).
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    name = "M" * 250 + ".py"
    rc, out, err = run("convert", "k.py", "-o", name, cwd=tmp_path)
    assert rc == 0, err
    assert (tmp_path / name).read_text().startswith("# Generated by cutile2triton")


def test_an_unreadable_source_in_a_folder_run_is_an_io_error(tmp_path):
    # As for a single file: exit 2 (I/O), the readable files still converted.
    src = tmp_path / "src" / "cutile"
    src.mkdir(parents=True)
    (src / "good.py").write_text((EXAMPLES / "softmax.py").read_text())
    (src / "gone.py").symlink_to(tmp_path / "nowhere.py")
    rc, out, err = run("convert", "src", "--out-dir", "out", cwd=tmp_path)
    assert rc == 2 and "cannot read file" in err, (rc, out, err)
    assert (tmp_path / "out" / "triton" / "good.py").exists()  # (the cutile folder mirrored as triton)


def test_an_output_path_through_a_file_or_onto_a_folder_is_said_plainly(tmp_path):
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    (tmp_path / "afile").write_text("")
    (tmp_path / "adir").mkdir()
    for args, said in ((("-o", "adir"), "the output is a folder"),
                       (("-o", "afile/x.py"), "afile is a file, not a folder"),
                       (("--out-dir", "afile"), "afile is a file, not a folder")):
        rc, out, err = run("convert", "k.py", *args, cwd=tmp_path)
        assert rc == 2 and said in err, (args, rc, out, err)
    assert (tmp_path / "afile").read_text() == "" and not any((tmp_path / "adir").iterdir())


def test_another_spelling_of_the_same_source_regenerates_its_output(tmp_path):
    # The header names the source as it was given (k.py); converting it as ./k.py or by its absolute
    # path is the same source, so its earlier output is replaced without --force; another source is not.
    text = (EXAMPLES / "softmax.py").read_text()
    (tmp_path / "k.py").write_text(text)
    (tmp_path / "other.py").write_text(text + "# another\n")
    assert run("convert", "k.py", "-o", "out.py", cwd=tmp_path)[0] == 0
    for spelling in (str(tmp_path / "k.py"), "./k.py"):
        (tmp_path / "k.py").write_text(text + f"# {len(spelling)}\n")
        rc, out, err = run("convert", spelling, "-o", "out.py", cwd=tmp_path)
        assert rc == 0 and "converted" in out, (spelling, rc, out, err)
    rc, out, err = run("convert", "other.py", "-o", "out.py", cwd=tmp_path)
    assert rc == 1 and "exists" in (out + err), (rc, out, err)


def test_diff_headers_quote_names_that_would_split_them(tmp_path):
    # A newline in the output's name would end the `---`/`+++` line: quoted with C escapes, as git does.
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    rc, out, err = run("convert", "k.py", "-o", "we\nird.py", "--diff", cwd=tmp_path)
    assert rc == 0, err
    assert out.splitlines()[:2] == ["--- /dev/null", '+++ "b/we\\nird.py"'], out[:200]
    rc, out, err = run("convert", "k.py", "-o", "plain.py", "--diff", cwd=tmp_path)
    assert out.splitlines()[:2] == ["--- /dev/null", "+++ b/plain.py"], out[:200]


def test_the_header_leads_a_module_that_does_not_start_with_imports(tmp_path):
    # The runtime block goes after the leading imports; with none, it was inserted before the header
    # (and before a shebang), so the next conversion did not recognise its own output.
    body = (EXAMPLES / "vector_add.py").read_text()
    (tmp_path / "k.py").write_text('#!/usr/bin/env python3\n__all__ = ["vector_add"]\n' + body)
    rc, out, err = run("convert", "k.py", "-o", "out.py", cwd=tmp_path)
    assert rc == 0, err
    lines = (tmp_path / "out.py").read_text().splitlines()
    assert lines[0] == "#!/usr/bin/env python3" and lines[1].startswith("# Generated by cutile2triton"), lines[:3]
    (tmp_path / "k.py").write_text('#!/usr/bin/env python3\n__all__ = ["vector_add"]\n' + body + "# edited\n")
    rc, out, err = run("convert", "k.py", "-o", "out.py", cwd=tmp_path)
    assert rc == 0 and "converted" in out, (rc, out, err)


def test_an_empty_output_argument_is_a_usage_error(tmp_path):
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    for args in (("-o", ""), ("--out-dir", "")):
        rc, out, err = run("convert", "k.py", *args, cwd=tmp_path)
        assert rc == 2 and "empty" in err, (args, rc, out, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_check_names_the_output_that_would_change(tmp_path):
    # --check writes nothing and exits 1 when an output would change; a single file's summary says which.
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text())
    assert run("convert", "k.py", "-o", "out.py", cwd=tmp_path)[0] == 0
    rc, out, _ = run("convert", "k.py", "-o", "out.py", "--check", cwd=tmp_path)
    assert rc == 0 and out.strip() == "1 unchanged: out.py", out
    (tmp_path / "k.py").write_text((EXAMPLES / "softmax.py").read_text() + "# edited\n")
    before = (tmp_path / "out.py").read_text()
    rc, out, _ = run("convert", "k.py", "-o", "out.py", "--check", cwd=tmp_path)
    assert rc == 1 and out.strip() == "1 would-change: out.py", out
    assert (tmp_path / "out.py").read_text() == before


def test_analyze_text_lists_each_access_in_words():
    # The pre-flight report's text: every tile access with its line and the path taken, the ops, helpers, host.
    rc, out, err = run("analyze", str(EXAMPLES / "matmul.py"), str(EXAMPLES / "histogram.py"))
    assert rc == 0, err
    assert "kernel matmul_kernel(A: 2-D array, B: 2-D array, C: 2-D array, TILE_M: constexpr," in out, out
    assert "    line 28: load of A (2-D tile, padding ZERO): pointer + mask; TMA: descriptor A_desc behind USE_TMA" in out
    assert "    line 31: store to C (2-D tile): pointer + mask; TMA: descriptor C_desc" in out, out
    assert "    helpers called: swizzle\n" in out and "mma" in out.split("cuTile operations:")[1].split("\n")[0], out
    assert "    line 14: atomic_add on hist (1-D tile): pointer + mask\n" in out, out
    assert out.count("  host code: 1 ct.launch call(s)\n") == 2, out


def test_analyze_says_an_undetermined_padding_is_unspecified(tmp_path):
    (tmp_path / "k.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(x, y, T: ct.Constant[int]):\n"
                                   "    t = ct.load(x, index=(ct.bid(0), 0), shape=(T, T))\n"
                                   "    ct.store(y, index=(ct.bid(0), 0), tile=t)\n")
    rc, out, err = run("analyze", "k.py", cwd=tmp_path)
    assert rc == 0 and "line 6: load of x (2-D tile, padding unspecified): pointer + mask" in out, out + err


def test_analyze_lists_a_while_condition_atomic_once(tmp_path):
    # The condition is lowered twice (before the loop and at the end of each iteration); the report has one site.
    import json

    (tmp_path / "k.py").write_text("import cuda.tile as ct\n\n\n@ct.kernel\ndef k(lock, x, T: ct.Constant[int]):\n"
                                   "    while ct.atomic_cas(lock, 0, 0, 1) == 1:\n        pass\n"
                                   "    ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)))\n"
                                   "    ct.atomic_xchg(lock, 0, 0)\n")
    rc, out, err = run("analyze", "k.py", cwd=tmp_path)
    assert rc == 0 and out.count("line 6: atomic_cas on lock") == 1, out + err
    rc, out, _ = run("analyze", "k.py", "--json", cwd=tmp_path)
    k = json.loads(out)["files"][0]["kernels"][0]
    assert k["atomics"] == 2 and [a["op"] for a in k["accesses"]] == ["atomic_cas", "load", "store", "atomic_xchg"], k


def test_ops_filters_by_name_or_family():
    rc, out, err = run("ops", "load", "ct.sum")
    assert rc == 0, err
    calls = [line.strip() for line in out.splitlines() if line.startswith("  ") and not line.startswith("      ")]
    assert calls and all("load" in c or c.startswith("ct.sum(") for c in calls), calls  # not ct.cumsum
    assert any(c.startswith("ct.load(") for c in calls) and any(c.startswith("ct.sum(") for c in calls)
    assert out.strip().splitlines()[-1] == f"{len(calls)} operations"
    rc, out, _ = run("ops", "mma", "--json")  # a family: every member, in any output form
    assert rc == 0 and {o["name"] for o in __import__("json").loads(out)["operations"]} >= {"mma", "matmul"}
    rc, out, err = run("ops", "laod")
    assert rc == 1 and out == "" and "no supported cuTile operation is named 'laod'" in err


def test_ops_lists_the_registry_and_docs_operations_md_is_its_output():
    import json

    rc, out, err = run("ops")
    assert rc == 0, err
    assert "  ct.load(array, index, shape, *, order=, padding_mode=" in out and "      -> tl.load(" in out, out[:500]
    assert "  tile.astype(dtype, *, rounding_mode=)\n" in out and "  array.tiled_view(tile_shape, *," in out
    rc, out, _ = run("ops", "--json")
    ops = {o["name"]: o for o in json.loads(out)["operations"]}
    assert ops["mma"]["family"] == "mma" and ops["mma"]["call"] == "ct.mma(x, y, acc, *, use_fast_acc=)"
    assert len(ops) == int(run("ops")[1].strip().splitlines()[-1].split()[0])
    # The documented list is the registry's: regenerate with `cutile2triton ops --markdown > docs/OPERATIONS.md`.
    rc, out, _ = run("ops", "--markdown")
    doc = (EXAMPLES.parent / "docs" / "OPERATIONS.md").read_text()
    assert rc == 0 and out == doc, "docs/OPERATIONS.md is stale: cutile2triton ops --markdown > docs/OPERATIONS.md"
    assert run("ops", "--json", "--markdown")[0] == 2


def test_a_failed_single_file_is_named_and_python_constructs_in_pythons_words(tmp_path):
    # A newcomer found "1 failed" alone hard to place in a mixed log, and ast node names
    # ("'ListComp' expressions") jargon.
    src = tmp_path / "bad.py"
    src.write_text("import cuda.tile as ct\n@ct.kernel\ndef k(x):\n    a = [i for i in range(3)]\n"
                   "    b = {i: i for i in range(3)}\n")
    rc, out, err = run("convert", str(src), "-o", str(tmp_path / "out.py"))
    assert rc == 1 and not (tmp_path / "out.py").exists()
    assert out.strip() == f"1 failed: {src} (diagnostics on stderr, no file written)"
    assert f"{src}:4:9: error: list comprehensions are not supported in tile code" in err, err
    assert f"{src}:5:9: error: dict comprehensions are not supported in tile code" in err, err
