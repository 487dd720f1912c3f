// Parser tests: inputs that CPython's ast.parse rejects. Every one must be
// rejected with exactly one error diagnostic; the message and position must
// be CPython's (line, col = SyntaxError.offset - 1) except for the few cases
// listed in kApproximate, whose text differs (best effort, see the report in
// tests/tools/fuzz_syntax.py --messages).
// Also: robustness on deeply nested and degenerate inputs.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "test_parser_util.h"

namespace c2t::syntax::testing {
namespace {

const Case kErrors[] = {
#include "test_parser_cases_errors.inc"
};

// Sources whose message or position differs from CPython's.
const std::set<std::string> kApproximate = {
#include "test_parser_errors_approx.inc"
};

bool is_error(const Case& c) { return std::string_view(c.expected).substr(0, 6) == "ERROR "; }

TEST(ParserErrors, RejectedLikeCPython) {
  for (const Case& c : kErrors) {
    if (!is_error(c)) {
      // A near miss that CPython accepts: the tree must be CPython's.
      EXPECT_EQ(parse_dump(c.src), c.expected) << "source: " << c.src;
      continue;
    }
    ParseResult r = parse(c.src, "<test>");
    EXPECT_FALSE(r.ok()) << "accepted: " << c.src;
    EXPECT_EQ(r.diags.items.size(), 1u) << "source: " << c.src;
    EXPECT_EQ(r.tree.root, nullptr);
  }
}

TEST(ParserErrors, MessagesMatchCPython) {
  for (const Case& c : kErrors) {
    if (kApproximate.count(c.src) || !is_error(c)) continue;
    EXPECT_EQ(parse_dump(c.src), c.expected) << "source: " << c.src;
  }
}

// Each approximate case really differs (otherwise it belongs in the exact set).
TEST(ParserErrors, ApproximateListIsCurrent) {
  for (const Case& c : kErrors) {
    if (kApproximate.count(c.src)) {
      EXPECT_NE(parse_dump(c.src), c.expected) << "now exact: " << c.src;
    }
  }
}

// NUL bytes and undecodable bytes are rejected before tokenizing.
TEST(ParserErrors, SourceDecodingErrors) {
  using namespace std::string_literals;
  EXPECT_EQ(parse_dump("a = 1\n\0"s), "ERROR 0:0: source code string cannot contain null bytes");
  EXPECT_FALSE(parse("x = '\xff'"s).ok());
  EXPECT_TRUE(parse("# coding: latin-1\nx = '\xe9'\n"s).ok());
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// 10,000-deep nesting of any kind gives one diagnostic, never a crash.
TEST(ParserErrors, DeepNestingIsADiagnostic) {
  const int n = 10000;
  const std::string cases[] = {
      repeat("-", n) + "1",
      repeat("not ", n) + "x",
      repeat("lambda:", n) + "x",
      std::string("x").append(repeat("**x", n)),
      std::string("x").append(repeat(".a", n)),
      std::string("x").append(repeat("[0]", n)),
      repeat("a if b else ", n) + "c",
      std::string("x").append(repeat("+x", n)),
      repeat("(", n) + repeat(")", n),
      repeat("[", n) + repeat("]", n),
      repeat("{", n) + repeat("}", n),
      repeat("f(", n) + repeat(")", n),
      repeat("f\"{", n) + "x" + repeat("}\"", n),
      repeat("lambda a=", n) + "1" + repeat(":0", n),
      std::string("if x: pass\n").append(repeat("elif x: pass\n", n)),
      std::string("match x:\n case ").append(repeat("[", n)) + repeat("]", n) + ": pass\n",
      std::string("match x:\n case ").append(repeat("C(", n)) + repeat(")", n) + ": pass\n",
      repeat("~", n) + "x",
      repeat("await ", n) + "x",
      std::string("x = ").append(repeat("yield ", n)),
  };
  for (const std::string& src : cases) {
    ParseResult r = parse(src, "<deep>");
    EXPECT_FALSE(r.ok()) << src.substr(0, 40);
    EXPECT_EQ(r.diags.items.size(), 1u) << src.substr(0, 40);
  }
}

// Wide but shallow inputs are fine (no limit on lengths of lists).
TEST(ParserErrors, WideInputsAreAccepted) {
  std::string tuple = repeat("x,", 100000);
  std::string strs = repeat("'a' ", 100000);
  std::string elifs = "if x: pass\n" + repeat("elif x: pass\n", 500);
  for (const std::string* s : {&tuple, &strs, &elifs}) EXPECT_TRUE(parse(*s).ok());
}

// Random bytes and random token soup: always a result, at most one diagnostic.
TEST(ParserErrors, RandomInputsNeverCrash) {
  std::mt19937 rng(12345);
  const char* pieces[] = {"(", ")", "[", "]", "{", "}", ":", ",", "=", "*", "**", "lambda", "yield",
                          "for", "in", "if", "else", "async", "await", "not", ":=", "...", "@", ".",
                          ";", "\n", " ", "    ", "x", "1", "'s'", "f'{", "}'", "match", "case", "def",
                          "class", "with", "try", "except", "->", "\\\n", "#", "\t", "type", "_"};
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    int len = static_cast<int>(rng() % 40);
    for (int k = 0; k < len; ++k) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
    ParseResult r = parse(s, "<fuzz>");
    EXPECT_LE(r.diags.items.size(), 1u) << s;
    EXPECT_EQ(r.ok(), r.diags.items.empty()) << s;
  }
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    int len = static_cast<int>(rng() % 64);
    for (int k = 0; k < len; ++k) s += static_cast<char>(rng() % 256);
    ParseResult r = parse(s, "<bytes>");
    EXPECT_LE(r.diags.items.size(), 1u);
  }
}

}  // namespace
}  // namespace c2t::syntax::testing
