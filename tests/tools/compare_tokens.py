#!/usr/bin/env python3
"""Compares c2t's tokenizer with CPython 3.12's `tokenize` module.

Usage: compare_tokens.py --tokdump BUILD/tokdump --python312 PY312 FILE_OR_DIR...

Needs Python 3.12 (the first version whose tokenize module uses the C
tokenizer and emits PEP 701 f-string tokens); when this script runs under an
older Python, it re-runs the CPython side with --python312. For every .py file
that is valid UTF-8 and that CPython 3.12 compiles, the token kinds, 1-based
lines, byte columns and texts must be equal. For files CPython rejects, c2t
must report an error too. Prints mismatches and a summary; exit status 1 if
any file mismatches.
"""
import argparse, json, os, subprocess, sys

def cpython_tokens(path):
    """[(kind, sl, sc, el, ec, text)] with byte columns, or None if compile() fails."""
    import tokenize, io
    data = open(path, 'rb').read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError:
        return 'skip'
    try:
        compile(data, path, 'exec', dont_inherit=True)
    except SyntaxError as e:
        return ['ERROR', e.lineno, e.offset, e.msg]
    except (ValueError, RecursionError, MemoryError):
        return 'skip'
    lines = text.splitlines(keepends=True)
    def bcol(l, c):
        if 1 <= l <= len(lines):
            return len(lines[l - 1][:c].encode('utf-8'))
        return c
    out = []
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        kind = tokenize.tok_name[t.type]
        # 3.12's tokenize converts the end column of a multi-line token with
        # the text of its first line; keep the raw value as an alternative.
        out.append((kind, t.start[0], bcol(*t.start), t.end[0], bcol(*t.end), t.string, t.end[1]))
    return out

TOKENIZER_MESSAGES = (
    'unterminated', 'invalid decimal literal', 'invalid hexadecimal literal',
    'invalid octal literal', 'invalid binary literal', 'invalid imaginary literal',
    'invalid digit', 'leading zeros', 'invalid character', 'invalid non-printable',
    'unmatched', 'closing parenthesis', 'unindent does not match',
    'inconsistent use of tabs', 'unexpected character after line continuation',
    'too many levels of indentation', 'too many nested', "f-string: single '}'",
    'f-string: unmatched', 'f-string: expressions nested too deeply')

def cpython_offset(data, err):
    """(line, SyntaxError.offset, msg) that CPython reports for c2t's error
    `err` = (line, byte col, msg, style) on compile(bytes) of `data`."""
    line, col, msg, style = err
    if style == 'chars':
        lines = data.splitlines()
        text = lines[line - 1] if 1 <= line <= len(lines) else b''
        return line, len(text[:col].decode('utf-8', 'replace')) + 1, msg
    return line, col + 1, msg  # 'bytes', and 'pegen' for bytes input

def collect(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith('.py')]
        else:
            files.append(p)
    return sorted(files)

def c2t_tokens(tokdump, files):
    res = {}
    for i in range(0, len(files), 500):
        out = subprocess.run([tokdump] + files[i:i + 500], capture_output=True, check=True).stdout.decode()
        cur = None
        for line in out.splitlines():
            if line.startswith('FILE '):
                cur = res.setdefault(line[5:], {'toks': [], 'err': None})
            elif line.startswith('ERROR '):
                _, l, c, style, msg = line.split(' ', 4)
                cur['err'] = (int(l), int(c), msg, style)
            else:
                k, sl, sc, el, ec, b, e = line.split()
                cur['toks'].append((k, int(sl), int(sc), int(el), int(ec), int(b), int(e)))
    return res

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tokdump', required=True)
    ap.add_argument('--python312', default='python3.12')
    ap.add_argument('--cpython-side', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('--max-report', type=int, default=20)
    ap.add_argument('paths', nargs='+')
    a = ap.parse_args()
    files = collect(a.paths)
    if a.cpython_side:
        json.dump({f: cpython_tokens(f) for f in files}, sys.stdout)
        return 0
    if sys.version_info >= (3, 12):
        ref = {f: cpython_tokens(f) for f in files}
    else:
        out = subprocess.run([a.python312, __file__, '--cpython-side', '--tokdump', a.tokdump] + files,
                             capture_output=True, check=True).stdout
        ref = json.loads(out)
    mine = c2t_tokens(a.tokdump, files)
    bad = ok = skipped = rejected = 0
    for f in files:
        r = ref[f]
        m = mine[f]
        if r == 'skip':
            skipped += 1
            continue
        data = open(f, 'rb').read()
        if r and r[0] == 'ERROR':
            rejected += 1
            # Errors that come from the tokenizer must be ours too, at the
            # same place; the rest are the parser's to report.
            _, line, offset, msg = r
            if msg.startswith(TOKENIZER_MESSAGES):
                if m['err'] is None or cpython_offset(data, m['err']) != (line, offset, msg):
                    bad += 1
                    if bad <= a.max_report:
                        print('%s: cpython error %r, c2t %r' % (f, (line, offset, msg), m['err']))
            continue
        problem = None
        if m['err']:
            problem = 'c2t error %r' % (m['err'],)
        else:
            mt = m['toks']
            for i in range(max(len(r), len(mt))):
                if i >= len(r) or i >= len(mt):
                    problem = 'length %d vs %d at %r' % (len(r), len(mt), (r[i] if i < len(r) else mt[i]))
                    break
                k, sl, sc, el, ec, s, raw_ec = r[i]
                mk, msl, msc, mel, mec, b, e = mt[i]
                mtext = data[b:e].decode('utf-8', 'replace')
                if sl != el and el == mel:
                    # 3.12's tokenize converts a multi-line token's end column
                    # against its first line; check ours against the text.
                    tail = data[b:e].rsplit(b'\n', 1)[-1]
                    if mec == len(tail):
                        ec = mec
                if (k, sl, sc, el, ec, s) != (mk, msl, msc, mel, mec, mtext):
                    problem = 'token %d: cpython %r c2t %r' % (i, r[i], (mk, msl, msc, mel, mec, mtext))
                    break
            # Losslessness: gaps between tokens are only whitespace/continuations.
            if not problem:
                prev = 0
                prev_kind = None
                for t in mt:
                    gap = data[prev:t[5]]
                    # The second brace of a "{{" / "}}" escape follows its
                    # FSTRING_MIDDLE, as in CPython.
                    if prev_kind == 'FSTRING_MIDDLE' and gap in (b'{', b'}'):
                        gap = b''
                    prev_kind = t[0]
                    if gap.strip(b' \t\x0c\\\r\n') or t[5] < prev:
                        problem = 'gap %r before %r' % (gap[:40], t)
                        break
                    prev = max(prev, t[6])
                if prev != len(data) and not problem:
                    problem = 'tokens end at %d of %d' % (prev, len(data))
        if problem:
            bad += 1
            if bad <= a.max_report:
                print('%s: %s' % (f, problem))
        else:
            ok += 1
    print('files: %d ok, %d mismatched, %d rejected by CPython (not compared), %d skipped (not UTF-8)'
          % (ok, bad, rejected, skipped))
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main())
