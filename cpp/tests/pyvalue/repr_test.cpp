// repr_str / repr_bytes / repr_float / repr_imag against CPython 3.11.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "case_file.h"
#include "pyvalue/repr.h"

namespace c2t::pyvalue {
namespace {

using test_data::load_cases;
using test_data::unescape_field;

double from_bits(const std::string& hex) {
  uint64_t u = std::stoull(hex, nullptr, 16);
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

TEST(ReprFloat, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("float_repr.txt");
  int bad = 0;
  for (auto& r : rows) {
    double v = from_bits(r[0]);
    if (repr_float(v) != r[1] && ++bad < 10) ADD_FAILURE() << r[0] << ": " << repr_float(v) << " != " << r[1];
    if (repr_imag(v) != r[2] && ++bad < 10) ADD_FAILURE() << r[0] << ": " << repr_imag(v) << " != " << r[2];
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
}

TEST(ReprFloat, FormatSwitchPoints) {
  EXPECT_EQ(repr_float(1e16), "1e+16");
  EXPECT_EQ(repr_float(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(repr_float(1e-4), "0.0001");
  EXPECT_EQ(repr_float(1e-5), "1e-05");
  EXPECT_EQ(repr_float(-0.0), "-0.0");
  EXPECT_EQ(repr_float(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(repr_float(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(repr_float(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(repr_float(5e-324), "5e-324");
  EXPECT_EQ(repr_float(1.5e300), "1.5e+300");
}

TEST(ReprImag, LiteralForms) {
  EXPECT_EQ(repr_imag(1.0), "1j");
  EXPECT_EQ(repr_imag(1.5), "1.5j");
  EXPECT_EQ(repr_imag(1e16), "1e+16j");
  EXPECT_EQ(repr_imag(0.0), "0j");
  EXPECT_EQ(repr_imag(100.0), "100j");
  EXPECT_EQ(repr_imag(std::numeric_limits<double>::infinity()), "infj");
}

TEST(ReprStr, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("str_repr.txt");
  int bad = 0;
  for (auto& r : rows) {
    std::string in = unescape_field(r[0]), want = unescape_field(r[1]);
    std::string got = repr_str(in);
    if (got != want && ++bad < 10) ADD_FAILURE() << r[0] << ": " << got << " != " << want;
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
}

TEST(ReprStr, QuotesAndSurrogates) {
  EXPECT_EQ(repr_str("it's"), "\"it's\"");
  EXPECT_EQ(repr_str("'\""), "'\\'\"'");
  EXPECT_EQ(repr_str("\xED\xA0\x80"), "'\\ud800'");  // lone surrogate (WTF-8)
  EXPECT_EQ(repr_str("\xC2\xAD"), "'\\xad'");        // soft hyphen: Cf
  EXPECT_EQ(repr_str("\xC3\xA9\xF0\x9F\x98\x80"), "'\xC3\xA9\xF0\x9F\x98\x80'");
}

// The body of a triple-quoted literal (docstrings): repr's escapes, newline and tab kept raw.
TEST(EscapeStr, TripleQuotedBodyKeepsNewlinesAndTabs) {
  EXPECT_EQ(escape_str("a\nb\tc\rd\"e'\\", '"', /*raw_newlines=*/true), "a\nb\tc\\rd\\\"e'\\\\");
  EXPECT_EQ(escape_str("a\nb", '"'), "a\\nb");
  EXPECT_EQ(escape_str("\xED\xA0\x80 \xC2\x85 \xE2\x80\xA8", '"', true), "\\ud800 \\x85 \\u2028");
}

TEST(ReprBytes, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("bytes_repr.txt");
  int bad = 0;
  for (auto& r : rows) {
    std::string in = unescape_field(r[0]), want = unescape_field(r[1]);
    std::string got = repr_bytes(in);
    if (got != want && ++bad < 10) ADD_FAILURE() << r[0] << ": " << got << " != " << want;
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
}

}  // namespace
}  // namespace c2t::pyvalue
