#!/usr/bin/env python3
"""Compare the C++ parser's AST dumps with CPython's over a directory tree.

For every .py file under the given roots: CPython's
ast.dump(ast.parse(bytes), include_attributes=True) (or the fact that it
raises SyntaxError / ValueError etc.) is compared with the C++ parser's output,
obtained from a driver binary that prints one dump per file:

    <driver> batch LISTFILE   ->  "=== path\\n<dump or 'ERROR line:col: msg'>\\n" per file

Default driver: build/parse/parse_driver (tests/tools/parse_driver.cpp), built
on demand from build/parse's static libraries. `--driver "c2t-cli"` style
drivers are not batch-capable, so the batch driver is used.

Usage:
  tests/tools/compare_ast.py [--stdlib] [--corpus] [ROOT...] [--show N] [--jobs N]

Prints counts (matched / total, rejections matched) and the first mismatches.
Reference dumps are cached under build/parse/ast_cache (keyed by path, size
and mtime), so re-runs only pay for the C++ side.
"""
import argparse
import ast
import hashlib
import multiprocessing
import os
import subprocess
import sys
import sysconfig
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(REPO, "build", "parse")
CACHE = os.path.join(BUILD, "ast_cache")


PYTHON = None  # another interpreter as the oracle (e.g. python3.12), run as a subprocess
ATTRS = True


def ref_dump_external(path):
    code = ("import ast,sys\n"
            "src=open(sys.argv[1],'rb').read()\n"
            "try:\n print(ast.dump(ast.parse(src), include_attributes=%s))\n"
            "except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:\n"
            " print(f'ERROR {getattr(e,\"lineno\",0) or 0}:{max((getattr(e,\"offset\",0) or 0)-1,0)}: {getattr(e,\"msg\",str(e))}')\n"
            % ATTRS)
    r = subprocess.run([PYTHON, "-c", code, path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout.decode("utf-8", "surrogateescape").rstrip("\n")


def ref_dump(path):
    if PYTHON:
        return ref_dump_external(path)
    key = hashlib.sha1(path.encode()).hexdigest()
    st = os.stat(path)
    cache_file = os.path.join(CACHE, key)
    stamp = f"{path}\t{st.st_size}\t{st.st_mtime_ns}\n"
    try:
        with open(cache_file, encoding="utf-8", errors="surrogateescape") as f:
            head = f.readline()
            if head == stamp:
                return f.read()
    except OSError:
        pass
    with open(path, "rb") as f:
        data = f.read()
    try:
        out = ast.dump(ast.parse(data), include_attributes=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:
        line = getattr(e, "lineno", 0) or 0
        off = getattr(e, "offset", 0) or 0
        msg = getattr(e, "msg", str(e))
        out = f"ERROR {line}:{max(off - 1, 0)}: {msg}"
    os.makedirs(CACHE, exist_ok=True)
    with open(cache_file, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(stamp)
        f.write(out)
    return out


def build_driver():
    exe = os.path.join(BUILD, "parse_driver")
    src = os.path.join(REPO, "tests", "tools", "parse_driver.cpp")
    subprocess.run(["cmake", "--build", BUILD, "--target", "c2t_syntax"], check=True,
                   stdout=subprocess.DEVNULL)
    libs = [os.path.join(BUILD, f"libc2t_{x}.a") for x in ("syntax", "pyvalue", "support")]
    newest = max(os.path.getmtime(p) for p in libs + [src])
    if not os.path.exists(exe) or os.path.getmtime(exe) < newest:
        subprocess.run(["g++", "-std=c++20", "-O2", "-I", os.path.join(REPO, "cpp"), src] + libs +
                       ["-o", exe], check=True)
    return exe


DRIVER_FLAGS = []


def run_driver(exe, files):
    with tempfile.NamedTemporaryFile("w", delete=False, suffix=".lst") as lst:
        lst.write("\n".join(files) + "\n")
    try:
        proc = subprocess.run([exe, "batch", lst.name] + DRIVER_FLAGS, stdout=subprocess.PIPE)
    finally:
        os.unlink(lst.name)
    out = {}
    cur = None
    text = proc.stdout.decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("=== "):
            cur = lines[i][4:]
            out[cur] = lines[i + 1] if i + 1 < len(lines) else ""
            i += 2
        else:
            i += 1
    if proc.returncode != 0:
        # The driver died (crash): files after the last one reported are missing.
        print(f"driver exited with {proc.returncode}", file=sys.stderr)
    return out


def collect(roots, skip_site_packages=True):
    files = []
    for root in roots:
        if os.path.isfile(root):
            files.append(root)
            continue
        for dp, dn, fn in os.walk(root):
            if skip_site_packages and "site-packages" in dp.split(os.sep):
                dn[:] = []
                continue
            dn.sort()
            for f in sorted(fn):
                if f.endswith(".py"):
                    files.append(os.path.join(dp, f))
    return files


def first_diff(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    lo = max(0, i - 150)
    return f"  ours: ...{a[lo:i + 150]}\n  ref : ...{b[lo:i + 150]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="*")
    ap.add_argument("--stdlib", action="store_true")
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--site-packages", action="store_true")
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--list-mismatches", action="store_true")
    ap.add_argument("--python", help="oracle interpreter (default: this one, with a cache); "
                    "e.g. /root/.pyenv/versions/3.12.1/bin/python3 with --py312")
    ap.add_argument("--py312", action="store_true", help="dump with 3.12's field set")
    ap.add_argument("--no-attributes", action="store_true")
    ap.add_argument("--official", action="store_true", help="use the shared dumper (cpp/syntax/dump.cpp)")
    args = ap.parse_args()
    global PYTHON, ATTRS
    PYTHON = args.python
    ATTRS = not args.no_attributes
    DRIVER_FLAGS.extend((["--py312"] if args.py312 else []) + (["--no-attributes"] if args.no_attributes else []) +
                        (["--official"] if args.official else []))
    roots = list(args.roots)
    stdlib = sysconfig.get_paths()["stdlib"]
    if args.stdlib:
        roots.append(stdlib)
    if args.corpus:
        roots.append("/work/corpus")
    files = collect(roots)
    if args.site_packages:
        files += collect([os.path.join(stdlib, "site-packages")], skip_site_packages=False)
    exe = build_driver()
    with multiprocessing.Pool(args.jobs) as pool:
        refs = dict(zip(files, pool.map(ref_dump, files, chunksize=16)))
    ours = run_driver(exe, files)
    ok_match = rej_match = acc_total = rej_total = 0
    mismatches = []
    for f in files:
        r = refs[f]
        o = ours.get(f, "MISSING (driver crashed?)")
        if r.startswith("ERROR"):
            rej_total += 1
            if o.startswith("ERROR"):
                rej_match += 1
            else:
                mismatches.append((f, "accepted, CPython rejects: " + r, None))
        else:
            acc_total += 1
            if o == r:
                ok_match += 1
            elif o.startswith("ERROR"):
                mismatches.append((f, "rejected: " + o, None))
            else:
                mismatches.append((f, "dump differs", first_diff(o, r)))
    print(f"files: {len(files)}")
    print(f"accepted by CPython: {acc_total}, identical dumps: {ok_match}")
    print(f"rejected by CPython: {rej_total}, rejected by us: {rej_match}")
    for f, what, detail in mismatches[: args.show]:
        print(f"MISMATCH {f}: {what}")
        if detail:
            print(detail)
    if args.list_mismatches:
        for f, what, _ in mismatches:
            print(f"{f}\t{what[:200]}")
    return 0 if not mismatches else 1


if __name__ == "__main__":
    sys.exit(main())
