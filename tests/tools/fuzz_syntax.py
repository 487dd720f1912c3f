#!/usr/bin/env python3
"""Accept/reject differential testing of the C++ parser against CPython.

Sources of snippets:
  --doctests   the examples of CPython's Lib/test/test_syntax.py (and other
               doctest-style syntax tests), most of them invalid code;
  --strings    string literals passed to compile()/exec()/eval()/
               check_syntax_error() in Lib/test/test_*.py;
  --mutate N   N mutations of random stdlib line ranges (token deleted,
               duplicated, swapped or inserted);
  --slices N   N random (dedented) line ranges of stdlib files.

Each snippet is parsed by CPython 3.11 (ast.parse) and by our driver; the
script reports accept/reject disagreements and, for inputs both accept,
dump differences. Inputs that only Python 3.12 accepts (PEP 695 / PEP 701
syntax) are expected to be accepted by us: they are checked against
python3.12 when it is available.

Usage: tests/tools/fuzz_syntax.py [--doctests] [--strings] [--mutate N] [--slices N] [--seed S] [--show N]
"""
import argparse
import ast
import doctest
import io
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import tokenize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_ast  # noqa: E402

STDLIB = sysconfig.get_paths()["stdlib"]
PY312 = shutil.which("python3.12") or "/root/.pyenv/versions/3.12.1/bin/python3"


def cpython(src):
    try:
        return ast.dump(ast.parse(src), include_attributes=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:
        return f"ERROR {getattr(e, 'lineno', 0)}:{(getattr(e, 'offset', 0) or 1) - 1}: {getattr(e, 'msg', str(e))}"


def doctest_snippets():
    out = []
    for name in ("test_syntax.py", "test_genexps.py", "test_unpack_ex.py", "test_unpack.py"):
        path = os.path.join(STDLIB, "test", name)
        if not os.path.exists(path):
            continue
        tree = ast.parse(open(path, "rb").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value:
                try:
                    examples = doctest.DocTestParser().get_examples(node.value)
                except ValueError:
                    continue
                out.extend(ex.source.encode("utf-8", "surrogatepass") for ex in examples)
    return out


def string_snippets():
    """String literal arguments of compile/exec/eval/check_syntax_error calls."""
    out = []
    names = {"compile", "exec", "eval", "check_syntax_error", "_check_error", "assertSyntaxError",
             "check", "check_error", "assertInvalid", "assertValid", "parse", "_check_syntax_error"}
    for f in sorted(os.listdir(os.path.join(STDLIB, "test"))):
        if not f.startswith("test_") or not f.endswith(".py"):
            continue
        try:
            tree = ast.parse(open(os.path.join(STDLIB, "test", f), "rb").read())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
                if name in names:
                    for a in node.args[:2]:
                        if isinstance(a, ast.Constant) and isinstance(a.value, (str, bytes)):
                            v = a.value.encode("utf-8", "surrogatepass") if isinstance(a.value, str) else a.value
                            out.append(v)
    return out


def stdlib_files():
    return [f for f in compare_ast.collect([STDLIB]) if "lib2to3/tests/data" not in f and "badsyntax" not in f]


def slices(rng, n, files):
    out = []
    while len(out) < n:
        f = rng.choice(files)
        try:
            lines = open(f, encoding="utf-8").read().splitlines(True)
        except (UnicodeDecodeError, OSError):
            continue
        if not lines:
            continue
        i = rng.randrange(len(lines))
        k = rng.randint(1, 8)
        out.append(textwrap.dedent("".join(lines[i:i + k])).encode())
    return out


INSERTS = ["(", ")", "[", "]", "{", "}", ":", ",", "=", "*", "**", "lambda", "yield", "for", "in", "if",
           "else", "async", "await", "not", ":=", "...", "@", ".", ";", "\n", " ", "\\\n", "del", "return",
           "import", "from", "as", "is", "-", "+", "0", "'s'", "f'{x}'", "x", "_", "match", "case", "type",
           "global", "class", "def", "with", "try", "except", "finally", "*a", "b'x'", "pass", "->", "~"]


def mutate(rng, n, files):
    out = []
    while len(out) < n:
        src = slices(rng, 1, files)[0].decode()
        try:
            toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
                    if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                                      tokenize.ENDMARKER, tokenize.COMMENT)]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            continue
        if not toks:
            continue
        lines = src.splitlines(True)
        offs = [0]
        for ln in lines:
            offs.append(offs[-1] + len(ln))

        def off(pos):
            return offs[pos[0] - 1] + pos[1]

        t = rng.choice(toks)
        a, b = off(t.start), off(t.end)
        op = rng.randrange(4)
        if op == 0:
            m = src[:a] + src[b:]
        elif op == 1:
            m = src[:b] + " " + src[a:b] + src[b:]
        elif op == 2:
            u = rng.choice(toks)
            c, d = off(u.start), off(u.end)
            if c < a:
                a, b, c, d = c, d, a, b
            if c < b:
                continue
            m = src[:a] + src[c:d] + src[b:c] + src[a:b] + src[d:]
        else:
            ins = rng.choice(INSERTS)
            at = rng.choice((a, b))
            m = src[:at] + ins + src[at:]
        out.append(m.encode())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--doctests", action="store_true")
    ap.add_argument("--strings", action="store_true")
    ap.add_argument("--mutate", type=int, default=0)
    ap.add_argument("--slices", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--messages", action="store_true", help="also compare error messages and positions")
    ap.add_argument("--save", help="directory to keep the failing snippets in")
    ap.add_argument("--source", action="append", help="files/dirs to take slices from (default: stdlib)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    snippets = []
    if args.doctests:
        snippets += doctest_snippets()
    if args.strings:
        snippets += string_snippets()
    files = []
    if args.mutate or args.slices:
        files = compare_ast.collect(args.source) if args.source else stdlib_files()
    if args.slices:
        snippets += slices(rng, args.slices, files)
    if args.mutate:
        snippets += mutate(rng, args.mutate, files)
    snippets = list(dict.fromkeys(snippets))
    exe = compare_ast.build_driver()
    tmp = tempfile.mkdtemp(prefix="fuzz_syntax_")
    paths = []
    for i, s in enumerate(snippets):
        p = os.path.join(tmp, f"{i}.py")
        with open(p, "wb") as f:
            f.write(s)
        paths.append(p)
    ours = compare_ast.run_driver(exe, paths)
    bad = []
    msg_same = msg_total = 0
    for p, s in zip(paths, snippets):
        r = cpython(s)
        o = ours.get(p, "MISSING (driver crashed?)")
        if o.startswith("MISSING"):
            bad.append((p, s, "driver crashed", r))
            continue
        if r.startswith("ERROR") != o.startswith("ERROR"):
            if not o.startswith("ERROR"):
                # Accepted by us, rejected by 3.11: fine if 3.12 accepts it.
                try:
                    res = subprocess.run([PY312, "-c", "import ast,sys; ast.parse(sys.stdin.buffer.read())"],
                                         input=s, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    if res.returncode == 0:
                        continue
                except OSError:
                    pass
            bad.append((p, s, o, r))
        elif r.startswith("ERROR"):
            msg_total += 1
            if o.split(" [")[0] == r:
                msg_same += 1
            elif args.messages:
                bad.append((p, s, o, r))
        elif o != r:
            bad.append((p, s, "dump differs", compare_ast.first_diff(o, r)))
    print(f"snippets: {len(snippets)}  disagreements: {len(bad)}  "
          f"rejected by both: {msg_total} (same message and position: {msg_same})")
    for p, s, o, r in bad[: args.show]:
        print("-----", p)
        print(repr(s)[:400])
        print("  ours:", o[:300])
        print("  ref :", r[:300])
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for p, s, o, r in bad:
            shutil.copy(p, args.save)
    shutil.rmtree(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
