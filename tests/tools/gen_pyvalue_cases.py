#!/usr/bin/env python3
r"""Generates the CPython 3.11 reference cases for the cpp/pyvalue unit tests.

    python3 tests/tools/gen_pyvalue_cases.py
    python3 tests/tools/gen_pyvalue_cases.py --out /tmp/big --scale 20 --seed 7
        (a larger sample for a one-off run: C2T_PYVALUE_DATA=/tmp/big test_pyvalue)

Writes cpp/tests/pyvalue/data/*.txt (committed). Every expected value comes
from the running CPython 3.11 (repr, ast.parse, unicodedata, bytes.decode),
never from the C++ code. Random cases use a fixed seed so reruns give the same
files. Format: one case per line, fields separated by a tab; text fields are
their UTF-8 (surrogatepass) bytes with backslash, tab, newline and bytes
outside 0x20..0x7e written as \\, \t, \n, \xHH (see hx).
"""

import ast
import os
import random
import struct
import sys
import unicodedata
import warnings
import zlib

if sys.version_info[:2] != (3, 11):
    sys.exit("run with CPython 3.11")
sys.set_int_max_str_digits(0)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "cpp", "tests", "pyvalue", "data")
SCALE = 1  # multiplies the number of random cases
rng = random.Random(20240611)


def scaled(count):
    return count * SCALE


def hx(s):
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogatepass")
    out = []
    for b in s:
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x09:
            out.append("\\t")
        elif b == 0x0A:
            out.append("\\n")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def write(name, lines):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%-22s %5d cases" % (name, len(lines)))


def dbits(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


# ---------------------------------------------------------------- floats
def gen_floats():
    vals = []
    for _ in range(scaled(900)):  # random bit patterns (all exponents)
        vals.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
    for _ in range(scaled(800)):  # short decimals around the repr switch points
        digits = rng.randint(1, 17)
        m = rng.randint(1, 10 ** digits - 1)
        e = rng.randint(-30, 30)
        vals.append(float("%de%d" % (m, e)))
    for e in list(range(-330, -300)) + list(range(-30, 30)) + list(range(290, 310)):
        vals += [float("1e%d" % e), float("9.999e%d" % e), float("5e%d" % e)]
    for k in range(0, 60):
        vals += [float(2 ** k), float(2 ** k - 1), float(10 ** min(k, 22)) + 1]
    vals += [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 5e-324, 1.7976931348623157e308,
             2.2250738585072014e-308, 0.1, 0.2, 0.30000000000000004, 1e16, 9999999999999998.0,
             1e-4, 1e-5, 0.00012345, 123456789012345678.0]
    write("float_repr.txt", ["%s\t%s\t%s" % (dbits(v), repr(v), repr(complex(0.0, v))) for v in vals])


def classify_number(lit, want):
    """Value of `lit` as a single NUMBER literal of type want, else None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(lit, mode="eval")
        except SyntaxError:
            return None
    body = tree.body
    if isinstance(body, ast.Constant) and type(body.value) is want:
        return body.value
    return None


def gen_float_literals():
    lines = []
    alphabet = "0123456789_.eE+-"
    seen = set()
    pieces = ["1", "0", "9", "123", "1_0", "00", ".", ".5", "e", "E", "e+", "e-", "_", "5_5", "e1_0",
              "999999", "7" * 30, "0" * 20]
    while len(lines) < scaled(2500):
        if rng.random() < 0.5:
            lit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        else:
            lit = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
        if lit in seen or lit[0] in "+-":
            continue
        seen.add(lit)
        v = classify_number(lit + "j", complex)
        lines.append("%s\t%s" % (lit, "ERR" if v is None else dbits(v.imag)))
    for lit in ["1e400", "1e-400", "1e308", "2e308", "4.9e-324", "2.4e-324", "2.5e-324",
                "1" + "0" * 400, "0." + "0" * 400 + "1", "1" * 400 + "e-400", "0e99999999999999999999",
                "1e99999999999999999999", "1e-99999999999999999999", "1.7976931348623157e308",
                "1.7976931348623158e308", "1.7976931348623159e308", "179769313486231580793728971405301e276",
                "9007199254740993", "9007199254740993.0000000000000000001", "0.1", "1_2.3_4e5_6"]:
        v = classify_number(lit + "j", complex)
        lines.append("%s\t%s" % (lit, "ERR" if v is None else dbits(v.imag)))
    write("float_literals.txt", lines)


def gen_int_literals():
    lines = []
    seen = set()
    alphabet = "0123456789abcdefABCDEFxXoObB_"
    prefixes = ["", "", "0x", "0X", "0o", "0O", "0b", "0B", "0", "0x_", "0b_", "0o_"]
    while len(lines) < scaled(2500):
        r = rng.random()
        if r < 0.4:
            lit = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
        elif r < 0.8:
            p = rng.choice(prefixes)
            digs = {"0x": "0123456789abcdefABCDEF", "0X": "0123456789abcdef", "0o": "01234567",
                    "0O": "01234567", "0b": "01", "0B": "01"}.get(p.rstrip("_"), "0123456789")
            body = "".join(rng.choice(digs + "_") for _ in range(rng.randint(1, 40)))
            lit = p + body
        elif r < 0.996:
            lit = str(rng.getrandbits(rng.randint(1, 200)))
            if rng.random() < 0.3:
                lit = "0x%x" % int(lit)
        else:
            lit = str(rng.getrandbits(rng.randint(1, 3000)))
            if rng.random() < 0.3:
                lit = "0x%x" % int(lit)
        if lit in seen or not lit[0].isdigit():
            continue
        seen.add(lit)
        v = classify_number(lit, int)
        lines.append("%s\t%s" % (lit, "ERR" if v is None else str(v)))
    write("int_literals.txt", lines)


# ---------------------------------------------------------------- str / bytes repr
def rand_char():
    r = rng.random()
    if r < 0.4:
        return chr(rng.randint(0x20, 0x7E))
    if r < 0.5:
        return rng.choice("'\"\\\t\n\r\x00\x7f\x1b")
    if r < 0.6:
        return chr(rng.randint(0x80, 0xFF))
    if r < 0.7:
        return chr(rng.randint(0xD800, 0xDFFF))
    if r < 0.85:
        return chr(rng.randint(0x100, 0xFFFF))
    return chr(rng.randint(0x10000, 0x10FFFF))


def gen_repr():
    lines = []
    for _ in range(scaled(1200)):
        s = "".join(rand_char() for _ in range(rng.randint(0, 12)))
        lines.append("%s\t%s" % (hx(s), hx(repr(s))))
    for q in ["", "'", '"', "'\"", "a'b", 'a"b', "\\'", "\u2028", "\xad", "\u00a0"]:
        lines.append("%s\t%s" % (hx(q), hx(repr(q))))
    write("str_repr.txt", lines)
    lines = []
    for _ in range(scaled(1000)):
        b = bytes(rng.choice([rng.randint(0, 255), ord(rng.choice("'\"\\ab"))]) for _ in range(rng.randint(0, 12)))
        lines.append("%s\t%s" % (hx(b), hx(repr(b))))
    for b in [b"", b"'", b'"', b"'\"", b"\\"]:
        lines.append("%s\t%s" % (hx(b), hx(repr(b))))
    write("bytes_repr.txt", lines)


def ranges(pred):
    out, start = [], None
    for c in range(0x110001):
        ok = c < 0x110000 and pred(c)
        if ok and start is None:
            start = c
        elif not ok and start is not None:
            out.append("%x-%x" % (start, c - 1))
            start = None
    return out


def gen_char_classes():
    # Derived from behaviour (repr keeps the char; identifiers), not from the
    # Unicode property calls the table generator uses.
    printable = ranges(lambda c: repr(chr(c))[1:-1] == chr(c) or chr(c) in "'\\")
    start = ranges(lambda c: ("%s" % chr(c)).isidentifier())
    cont = ranges(lambda c: ("x" + chr(c)).isidentifier())
    write("char_classes.txt", ["printable\t" + " ".join(printable), "xid_start\t" + " ".join(start),
                               "xid_continue\t" + " ".join(cont)])


def gen_nfkc():
    lines = []
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        n = unicodedata.normalize("NFKC", chr(c))
        if n != chr(c):
            lines.append("%s\t%s" % (hx(chr(c)), hx(n)))
    # Sequences: bases, combining marks in any order, Hangul jamo, compat chars.
    marks = [0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0x323, 0x327, 0x328, 0x331, 0x345, 0x34F,
             0x5B0, 0x5B4, 0x93C, 0x94D, 0x1DFA, 0x20D0, 0x302A, 0x3099, 0x309A, 0x1D165, 0x1D16D]
    bases = "aeiouAEIOUcnsyzwkgAEOUaœæıȷ" + "αεηιοωυΑΕΗΙΟΥΩ" + "кгиуеКГИУЕ" + "かはカハ" + "\u1100\u1161\u11a8\uac00\uac01"
    compat = "ﬁ²①㎞ｱＡ\u2126\u212b\u1e9b\u0344\u0f73\u0fb2\u0f80\u1161\u11a8\u3131\uff9e"
    for _ in range(scaled(600)):
        s = ""
        for _ in range(rng.randint(1, 8)):
            r = rng.random()
            if r < 0.35:
                s += rng.choice(bases)
            elif r < 0.75:
                s += chr(rng.choice(marks))
            elif r < 0.9:
                s += rng.choice(compat)
            else:
                s += chr(rng.randint(0xA0, 0x2FFFF)) if rng.random() < 0.5 else rng.choice("abc_1")
        s = "".join(ch for ch in s if not 0xD800 <= ord(ch) <= 0xDFFF)
        lines.append("%s\t%s" % (hx(s), hx(unicodedata.normalize("NFKC", s))))
    write("nfkc.txt", lines)


def gen_names():
    # Exhaustive check data: number of named code points and a CRC of all
    # "cp:name\n" lines; the test recomputes it from char_name.
    crc = 0
    count = 0
    for c in range(0x110000):
        n = unicodedata.name(chr(c), None)
        if n is not None:
            crc = zlib.crc32(("%x:%s\n" % (c, n)).encode(), crc)
            count += 1
    lines = ["CRC\t%d\t%08x" % (count, crc)]
    # Lookup cases: aliases, case variants, algorithmic names and near misses.
    perl = "/usr/share/perl/5.36.0/unicore/Name.pl"
    cands = []
    text = open(perl).read().split("\n")
    for i in range(len(text) - 1):
        k = text[i]
        if k and all(ch in "0123456789ABCDEF" for ch in k) and text[i + 1]:
            cands.append(text[i + 1])
    names = set(cands)
    sample = rng.sample(sorted(names), min(len(names), scaled(600)))
    extra = ["hangul syllable GAG", "HANGUL SYLLABLE GAG", "HANGUL SYLLABLE A", "HANGUL SYLLABLE GA",
             "HANGUL SYLLABLE ", "HANGUL SYLLABLE GAGG", "HANGUL SYLLABLE GGAGG", "HANGUL SYLLABLE WAEG",
             "HANGUL SYLLABLE X", "CJK UNIFIED IDEOGRAPH-4E00", "CJK UNIFIED IDEOGRAPH-04E00",
             "CJK UNIFIED IDEOGRAPH-4e00", "cjk unified ideograph-4E00", "CJK UNIFIED IDEOGRAPH-9FFF",
             "CJK UNIFIED IDEOGRAPH-A000", "CJK UNIFIED IDEOGRAPH-2A6DF", "CJK UNIFIED IDEOGRAPH-2A6E0",
             "CJK UNIFIED IDEOGRAPH-3134A", "CJK UNIFIED IDEOGRAPH-3134B", "CJK UNIFIED IDEOGRAPH-004E00",
             "cjk compatibility ideograph-f900", "CJK COMPATIBILITY IDEOGRAPH-0F900",
             "KHITAN SMALL SCRIPT CHARACTER-18B00", "NUSHU CHARACTER-1B2FB", "NUSHU CHARACTER-1B2FC",
             "TANGUT IDEOGRAPH-17000", "LATIN SMALL LETTER A ", " LATIN SMALL LETTER A", "LATIN  SMALL LETTER A",
             "BOM", "bom", "ZWNBSP", "LATIN CAPITAL LETTER GHA", "BYTE ORDER MARK", "NULL", "NUL", "LF",
             "SPACE", "EURO SIGN", "euro sign", "Euro Sign", "LATIN CAPITAL LETTER A WITH MACRON AND GRAVE",
             "KEYCAP NUMBER SIGN", "", "A", "LATIN SMALL LETTER A\u00e9", "GREEK SMALL LETTER ALPHA"]
    for n in sample + extra:
        for v in sorted({n, n.lower(), n.title()}):
            try:
                r = unicodedata.lookup(v)
                r = "%x" % ord(r) if len(r) == 1 else "SEQ"
            except KeyError:
                r = "ERR"
            lines.append("%s\t%s" % (hx(v), r))
    write("names.txt", lines)


# ---------------------------------------------------------------- literals
def parse_literal(src):
    """(value or None, error message, first warning message) for a string expression."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            tree = ast.parse(src, mode="eval")
        except SyntaxError as e:
            return None, e.msg, ""
    warn = ""
    for w in ws:
        if issubclass(w.category, DeprecationWarning):
            warn = str(w.message)
            break
    body = tree.body
    if isinstance(body, ast.JoinedStr):
        assert all(isinstance(v, ast.Constant) for v in body.values)
        return "".join(v.value for v in body.values), "", warn
    return body.value, "", warn


def rand_body(bytes_mode):
    atoms = ["a", "b", " ", "'", "\\\\", "\\'", '\\"', "\\n", "\\t", "\\a", "\\b", "\\f", "\\v", "\\r", "\\0",
             "\\7", "\\12", "\\123", "\\400", "\\777", "\\8", "\\9", "\\d", "\\q", "\\ ", "\\\n", "\\x", "\\x4",
             "\\x41", "\\xG1", "\\xfF", "\\u", "\\u12", "\\u1234", "\\uD800", "\\udc00", "\\U0001F600",
             "\\U00110000", "\\UFFFFFFFF", "\\U0000004", "\\N", "\\N{", "\\N{}", "\\N{LATIN SMALL LETTER A}",
             "\\N{BOM}", "\\N{bom}", "\\N{EURO SIGN}", "\\N{NO SUCH NAME}", "\\N{HANGUL SYLLABLE GAG}",
             "\\N{CJK UNIFIED IDEOGRAPH-4E00}", "\\N{cjk unified ideograph-4E00}", "\\Nx", "{{", "}}", "0",
             "é", "€", "😀", "\\é", "\\€", "\\{", "\\}", "\\N{é}", "\\N{LATIN SMALL LETTER A", "x"]
    n = rng.randint(0, 6)
    return "".join(rng.choice(atoms) for _ in range(n))


def gen_string_literals():
    lines = []
    seen = set()
    while len(lines) < scaled(2200):
        kind = rng.choice(["", "", "r", "b", "rb", "f", "f", "rf", "u"])
        body = rand_body("b" in kind)
        if body.endswith("\\") or (body, kind) in seen:
            continue
        if "f" in kind and ("{" in body.replace("{{", "").replace("\\N{", "") or
                            "}" in body.replace("}}", "")):
            continue  # only literal text: no replacement fields
        if "f" in kind and "\\N" in body:
            continue  # "\N" in f-strings interacts with brace scanning; covered by hand cases
        seen.add((body, kind))
        q = "'''" if "\n" in body else ("'" if "'" not in body else '"')
        if q == '"' and '"' in body:
            continue
        if q == "'''" and "'" in body:
            continue
        src = kind + q + body + q
        val, err, warn = parse_literal(src)
        if val is None:
            exp = "E\t" + hx(err)
        elif isinstance(val, bytes):
            exp = "V\t" + hx(val)
        else:
            exp = "V\t" + hx(val)
        lines.append("%s\t%s\t%s\t%s" % (kind or "-", hx(body), exp, hx(warn) if warn else "-"))
    write("string_literals.txt", lines)


def gen_utf8():
    """CPython's UnicodeDecodeError text for short byte strings."""
    lines = []
    seqs = [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xed\x9f\xbf", b"\xee\x80\x80",
            b"\xf4\x8f\xbf\xbf"]
    for _ in range(scaled(800)):
        parts = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.4:
                parts.append(rng.choice(seqs))
            elif r < 0.7:
                parts.append(bytes([rng.choice([0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
                                                0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f])]))
            else:
                seq = rng.choice(seqs[1:])
                parts.append(seq[:rng.randint(1, len(seq) - 1)])
        b = b"".join(parts)
        try:
            b.decode("utf-8")
            msg = ""
        except UnicodeDecodeError as e:
            msg = str(e)
        lines.append("%s\t%s" % (hx(b), msg or "-"))
    write("utf8_errors.txt", lines)


def gen_codecs():
    import encodings.aliases
    names = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    variants = set()
    for n in sorted(names):
        variants |= {n, rng.choice([n.upper(), n.replace("_", "-"), n.replace("_", "."), n + "-x"])}
    variants |= {"utf-8", "UTF-8", "utf_8", "utf8", "latin-1", "Latin-1", "iso-8859-1", "iso_8859_1_x",
                 "latin-1-foo", "utf-8-sig", "utf-8-foo", "iso-latin-1", "xyz", "latin.1", "cp1252",
                 "windows-1252", "mbcs", "utf8_sig", "euc-jp", "utf-16", "hz", "ascii", "us-ascii"}
    lines = []
    body = b"x = '\xe9\x80\x81\xa4 a\x9d'\n"
    for n in sorted(variants):
        if not all(c.isalnum() or c in "-_." for c in n):
            continue
        src = ("# -*- coding: %s -*-\n" % n).encode() + body
        try:
            tree = ast.parse(src)
            exp = "V\t" + hx(tree.body[0].value.value)
        except SyntaxError as e:
            exp = "E\t" + hx(e.msg)
        except Exception as e:  # codecs that are not text encodings etc.
            exp = "X\t" + hx(type(e).__name__)
        lines.append("%s\t%s" % (hx(src), exp))
    for src in [b"x = 1\n", b"\xef\xbb\xbfx = 1\n", b"x=1\0\n", b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
                b"\xef\xbb\xbf# coding: utf-8\nx = 1\n", b"\xef\xbb\xbf#coding:utf8\nx=1\n",
                b"x=1\n# coding: latin-1\ny='\xe9'\n", b"\n# coding: latin-1\nx='\xe9'\n",
                b"#!/usr/bin/python\n# vim: set fileencoding=latin-1 :\nx='\xe9'\n",
                b"  # coding: latin-1\nx='\xe9'\n", b"x=1 # coding: latin-1\n", b"#\n#\n# coding: latin-1\nx='\xe9'\n",
                b"# coding: ascii\nx = '\xe9'\n", b"#coding:utf8\nx='\xff'\n", b"#coding:cp1252\r\n\r\n'\x81'\n",
                b"#coding:latin-1\r\nx='\xe9\r\n'", b"#coding:latin-1\rx='\xe9'", b"#coding:xyz", b"#coding: \nx=1\n",
                b"#coding=latin-1\nx='\xe9'\n", b"#coding:=latin-1\nx=1\n", b"# codingg: latin-1\n'\xe9'\n",
                b"#coding:\n#coding:xyz\n", b"x\n#coding:xyz\n", b" \n#coding:xyz\n", b"\f#coding:xyz\n",
                b"\xef\xbb\xbf\n#coding:latin-1\n", b"\xef\xbb\xbf#coding:xyz\n", b"#coding:utf8\n# \xff\n",
                b"#coding:utf-8\n# \xff\n", b"# \xff\n", b"#coding:latin-1\n#coding:xyz\n'\xe9'\n"]:
        try:
            tree = ast.parse(src)
            vals = [n.value.value for n in tree.body if isinstance(getattr(n, "value", None), ast.Constant)
                    and isinstance(n.value.value, str)]
            exp = "V\t" + hx(vals[-1] if vals else "")
        except SyntaxError as e:
            exp = "E\t" + hx(e.msg)
        except ValueError as e:
            exp = "E\t" + hx(str(e))
        lines.append("%s\t%s" % (hx(src), exp))
    write("source_decode.txt", lines)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    OUT, SCALE = args.out, args.scale
    rng.seed(args.seed)
    gen_floats()
    gen_float_literals()
    gen_int_literals()
    gen_repr()
    gen_char_classes()
    gen_nfkc()
    gen_names()
    gen_string_literals()
    gen_utf8()
    gen_codecs()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("total %d bytes" % total)
