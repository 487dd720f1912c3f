"""Shrinks a failing generated program while it keeps failing the same way.

    python3 tests/difftest/minimize.py SEED        prints the minimized cuTile program

Steps (repeated until nothing changes): drop output statements, drop unused
assignments, replace an expression by one of its sub-expressions.  A candidate
is kept when the evaluator still accepts it (a valid program) and the runner
reports the same status with the same signature (exception message / output).
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")
HERE = pathlib.Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from difftest import gen as G  # noqa: E402
from difftest import run as R  # noqa: E402

EXPR_KINDS = {"var", "const", "bid", "load", "gather", "arange", "full", "bin", "un", "where", "reduce", "expand",
              "bcast", "reshape", "permute", "astype"}


def _is_expr(x):
    return isinstance(x, tuple) and x and isinstance(x[0], str) and x[0] in EXPR_KINDS


def _subexpr_paths(node, path=()):
    """Paths (index tuples) of every expression inside `node`."""
    if isinstance(node, (tuple, list)):
        if _is_expr(node):
            yield path
        for i, x in enumerate(node):
            if isinstance(x, (tuple, list)):
                yield from _subexpr_paths(x, path + (i,))


def _get(node, path):
    for i in path:
        node = node[i]
    return node


def _set(node, path, value):
    if not path:
        return value
    i = path[0]
    items = list(node)
    items[i] = _set(node[i], path[1:], value)
    return tuple(items) if isinstance(node, tuple) else items


def rebuild(prog, stmts):
    stmts, arrays = G.prune(stmts, prog.arrays)
    tiles = [prog.consts[f"T{k}"] for k in range(len(prog.consts))]
    return dataclasses.replace(prog, stmts=stmts, arrays=arrays,
                               source=G.render_parts(arrays, stmts, prog.grid, tiles))


def still_fails(prog, input_seed, status, sig):
    try:
        o = R.check_program(prog, input_seed)
    except Exception:
        return False
    return o.status == status and (status == "mismatch" or R.signature(o) == sig)


def minimize(prog, input_seed, outcome, log=lambda *a: None):
    status, sig = outcome.status, R.signature(outcome)
    changed = True
    while changed:
        changed = False
        # 1. drop output statements
        outs = [i for i, st in enumerate(prog.stmts) if st[0] in ("store", "scatter")]
        for i in outs:
            if len(outs) <= 1:
                break
            cand = rebuild(prog, [st for j, st in enumerate(prog.stmts) if j != i])
            if still_fails(cand, input_seed, status, sig):
                prog, changed = cand, True
                log("dropped statement", i)
                break
        if changed:
            continue
        # 2. replace an expression by one of its sub-expressions (outermost first)
        for si, st in enumerate(prog.stmts):
            for path in _subexpr_paths(st):
                node = _get(st, path)
                for cpath in _subexpr_paths(node):
                    if not cpath:
                        continue
                    child = _get(node, cpath)
                    if child == node:
                        continue
                    new_st = _set(st, path, child)
                    stmts = list(prog.stmts)
                    stmts[si] = new_st
                    cand = rebuild(prog, stmts)
                    if cand.source == prog.source:
                        continue
                    if still_fails(cand, input_seed, status, sig):
                        prog, changed = cand, True
                        log("simplified statement", si)
                        break
                if changed:
                    break
            if changed:
                break
    return prog


def main(argv=None):
    argv = argv if argv is not None else sys.argv[1:]
    seed = int(argv[0])
    prog = G.generate(seed)
    o = R.run_seed(seed, int(argv[1]) if len(argv) > 1 else None)
    if o.status in ("ok", "skipped"):
        print(f"seed {seed}: {o.status}; nothing to minimize")
        return 0
    if o.source != prog.source:
        prog = G.with_zero_padding(prog)
    small = minimize(prog, o.input_seed, o)
    print(f"# seed {seed}, inputs {o.input_seed}: {o.status}: {R.signature(o)}")
    print(small.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
