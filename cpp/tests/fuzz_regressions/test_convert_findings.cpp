// Findings of fuzz_convert (crashes and broken invariants), minimized, and
// converted here from their exact bytes.
#include <gtest/gtest.h>

#include <string>

#include "driver/convert.h"
#include "fuzz/invariants.h"
#include "syntax/parser.h"

namespace {

// The first error diagnostic, or nullptr.
const c2t::Diagnostic* first_error(const c2t::ConvertResult& r) {
  for (auto& d : r.diags.items)
    if (d.severity == c2t::Severity::Error) return &d;
  return nullptr;
}

}  // namespace

// ct.extract with a zero-sized sub-tile: lower/ops_shape.cpp extract()
// divided the axis extent by the sub-tile extent 0 (UBSan: division by zero;
// SIGFPE in a release build). Found 2026-11-29 (crash-f48edf77...).
TEST(FuzzRegressions, ExtractWithZeroShapeIsAnError) {
  const std::string src =
      "import cuda.tile as ct\n"
      "@ct.kernel\n"
      "def k(A):\n"
      "    a=ct.load(A,(0),(1))\n"
      "    ct.extract(a,(5),(0))\n";
  c2t::ConvertResult r = c2t::convert_source(src, "k.py");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "");
  const c2t::Diagnostic* e = first_error(r);
  ASSERT_NE(e, nullptr) << r.rendered;
  EXPECT_EQ(e->line, 5) << r.rendered;
  // The shape check (powers of two, lower/lowerer.cpp shape_arg) rejects it first.
  EXPECT_NE(e->message.find("sub-tile shape"), std::string::npos) << r.rendered;
  EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
}

// A PEP 263 cookie naming another codec was kept while the code is UTF-8 (the
// Python layer writes it so): Python then decoded the output as latin-1, so
// `\xff=1` no longer parsed (U+00BF) and string constants silently changed
// ("caf\u00e9" became "caf\u00c3\u00a9"). Found 2026-11-29 (crash-b6ac1ecc..., crash-819a0e63...).
TEST(FuzzRegressions, LatinOneCookieIsNotKeptOnUtf8Output) {
  const std::string non_cutile = "#coding:latin-1\n\xff=1\n";
  const std::string cutile =
      "# -*- coding: latin-1 -*-\nimport cuda.tile as ct\n\n@ct.kernel\ndef k(a):\n"
      "    ct.store(a, index=(0,), tile=ct.load(a, index=(0,), shape=(4,)))\n\ns = \"caf\xe9\"\n";
  // CPython takes the first "coding" followed by ':' or '=', not the first
  // "coding": the rewrite missed this cookie (crash-33bd4c3c..., 2026-11-29).
  const std::string second_coding = "#coding coding:latin-1\ns=\"\xe9\"\n";
  for (const std::string& src : {non_cutile, cutile, second_coding}) {
    SCOPED_TRACE(src);
    c2t::ConvertResult r = c2t::convert_source(src, "k.py");
    ASSERT_TRUE(r.ok) << r.rendered;
    c2t::syntax::ParseResult out = c2t::syntax::parse(r.code, "out.py");
    ASSERT_TRUE(out.ok()) << out.diags.render_all("out.py", r.code) << r.code;
    // Read back under its own cookie, the output is the text that was written.
    EXPECT_EQ(out.source->text(), r.code);
    EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
  }
}

// A 700-term `a + a + ...` chain inside a kernel: Lowerer::eval recursed once
// per BinOp level and overflowed the stack under ASan (712 levels). The driver
// now rejects code nested more than 200 levels before any recursive stage
// (driver/convert.cpp kMaxNesting). Found 2026-11-29 (crash-b5cff54d...).
TEST(FuzzRegressions, DeeplyNestedKernelExpressionIsAnError) {
  for (int terms : {150, 700, 990}) {
    SCOPED_TRACE(terms);
    std::string chain = "a";
    for (int i = 1; i < terms; ++i) chain += " + a";
    const std::string src =
        "import cuda.tile as ct\n"
        "@ct.kernel\n"
        "def k(X):\n"
        "    a = ct.load(X, (0,), (4,))\n"
        "    ct.store(X, (0,), " + chain + ")\n";
    c2t::ConvertResult r = c2t::convert_source(src, "k.py");
    if (terms < 190) {  // within the limit: converts
      EXPECT_TRUE(r.ok) << r.rendered.substr(0, 2000);
      continue;
    }
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.code, "");
    const c2t::Diagnostic* e = first_error(r);
    ASSERT_NE(e, nullptr) << r.rendered.substr(0, 2000);
    EXPECT_EQ(e->line, 5);
    EXPECT_NE(e->message.find("nested more than 200 levels"), std::string::npos) << e->message;
    EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
  }
}

// Both branches of an `if` on a Constant fail to convert: each failure became
// a warning (a specialization may never take it), a later use of a name they
// assigned stayed silent, and the result was ok == false with no error
// (fuzz_convert invariant). Now every specialization failing is an error.
// Found 2026-11-29 (crash-7fab90e2...).
TEST(FuzzRegressions, ConstantIfWithNoConvertibleBranchIsAnError) {
  const std::string src =
      "import cuda.tile as ct\n"
      "ConstInt = ct.Constant[int]\n"
      "\n"
      "\n"
      "@ct.kernel\n"
      "def k(X, Out, W: ConstInt, TN: ConstInt):\n"
      "    if W == 1:\n"
      "        acc = ct.zeroq((TN,), dtype=ct.float31)\n"
      "    else:\n"
      "        acc = ct.yeros((TN, W), dtype=ct.float32)\n"
      "    acc = acc + 1.0\n"
      "    ct.store(Out, index=(0,), tile=ct.reshape(ct.sum(acc, axis=0), (W,)))\n";
  c2t::ConvertResult r = c2t::convert_source(src, "fuzz.py");
  EXPECT_FALSE(r.ok);
  const c2t::Diagnostic* e = first_error(r);
  ASSERT_NE(e, nullptr) << r.rendered;
  EXPECT_EQ(e->line, 7);
  EXPECT_NE(e->message.find("no branch of `if W == 1` can be converted"), std::string::npos) << e->message;
  EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
}

// A cuTile function (or module, or array) passed where ct.bitcast, ct.cdiv or ct.where take a
// number, scalar or tile has no expression: the printer dereferenced a null expression (SIGSEGV).
// Now each is a compiler error at the call. Found 2026-11-30 by fuzz_convert (crash-cfa12b92...,
// `ct.bitcast(ct.cumsumx, ct.int32)`); a sweep of every cuTile op with such arguments found the
// other two.
TEST(FuzzRegressions, NonValueOperandsOfBitcastCdivWhereAreErrors) {
  for (const char* expr : {"ct.bitcast(ct.cumsum, ct.int32)", "ct.cdiv(x, ct.cumsum)", "ct.cdiv(ct, 2)",
                           "ct.where(x, x, ct.cumsum)", "ct.where(X, x, x)"}) {
    const std::string src = std::string(
                                "import cuda.tile as ct\n"
                                "ConstInt = ct.Constant[int]\n"
                                "\n"
                                "\n"
                                "@ct.kernel\n"
                                "def k(X, Y, T: ConstInt):\n"
                                "    x = ct.load(X, index=(0,), shape=(T,))\n"
                                "    y = ") + expr + "\n    ct.store(Y, index=(0,), tile=x + y)\n";
    c2t::ConvertResult r = c2t::convert_source(src, "fuzz.py");
    EXPECT_FALSE(r.ok) << expr;
    const c2t::Diagnostic* e = first_error(r);
    ASSERT_NE(e, nullptr) << expr << r.rendered;
    EXPECT_EQ(e->line, 8) << expr;
    EXPECT_NE(e->message.find("take"), std::string::npos) << expr << ": " << e->message;
    EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "") << expr;
  }
}

// A kernel docstring whose value holds control characters (`\x00` in the source): the printer
// wrote them raw, so the output held a NUL byte and did not compile ("source code string cannot
// contain null bytes"); a raw carriage return would read back as a newline. Now they are written
// as \xNN (newline and tab stay), and string constants as CPython's repr writes them. Found
// 2026-11-30 (crash-c204b3a2...).
// A docstring holding a lone surrogate (`\ud800` in the source, kept as WTF-8 bytes) was written
// raw: the output was not UTF-8 and the command stopped with Python's UnicodeDecodeError instead of
// writing a module. Docstrings are now escaped as repr() escapes a str (newlines and tabs kept),
// so non-printable characters (U+0085, U+2028) come out as escapes too. Found 2026-11-30 reading
// the two escapers side by side (finding 10).
TEST(FuzzRegressions, DocstringSurrogatesAndNonPrintablesAreEscaped) {
  const std::string src =
      "import cuda.tile as ct\n@ct.kernel\ndef k(A):\n"
      "    \"\"\"s \\ud800 n \\x85 l \\u2028 e \xC3\xA9\"\"\"\n"
      "    ct.store(A, index=(0,), tile=ct.load(A, index=(0,), shape=(4,)))\n";
  c2t::ConvertResult r = c2t::convert_source(src, "k.py");
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_NE(r.code.find("\"\"\"s \\ud800 n \\x85 l \\u2028 e \xC3\xA9\"\"\""), std::string::npos) << r.code;
  EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
}

TEST(FuzzRegressions, DocstringControlCharactersAreEscaped) {
  const std::string src =
      "import cuda.tile as ct\n@ct.kernel\ndef k(A):\n"
      "    \"\"\"a\\x00b\\rc\\x7f\\td\"\"\"\n"
      "    t = ct.load(A, index=(0,), shape=(4,))\n"
      "    ct.printf(\"v\\x00\\r %f\", t)\n"
      "    ct.store(A, index=(0,), tile=t)\n";
  c2t::ConvertResult r = c2t::convert_source(src, "k.py");
  ASSERT_TRUE(r.ok) << r.rendered;
  EXPECT_NE(r.code.find("\"\"\"a\\x00b\\rc\\x7f\td\"\"\""), std::string::npos) << r.code;
  // String constants too (they were written between quotes, escaping only quotes, backslashes and
  // newlines): as CPython's repr.
  EXPECT_NE(r.code.find("tl.device_print('v\\x00\\r %f', t)"), std::string::npos) << r.code;
  c2t::syntax::ParseResult out = c2t::syntax::parse(r.code, "out.py");
  EXPECT_TRUE(out.ok()) << out.diags.render_all("out.py", r.code);
  EXPECT_EQ(c2t::fuzz::convert_invariants(src, {}), "");
}
