// decode_string_body / split_string_token against CPython 3.11's parser.
#include <gtest/gtest.h>

#include "case_file.h"
#include "pyvalue/string_literal.h"

namespace c2t::pyvalue {
namespace {

using test_data::load_cases;
using test_data::unescape_field;

TEST(StringLiteral, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("string_literals.txt");
  int bad = 0, errors = 0, warnings = 0;
  for (auto& r : rows) {
    const std::string& kind = r[0];
    DecodeOptions opts;
    opts.raw = kind.find('r') != std::string::npos;
    opts.bytes = kind.find('b') != std::string::npos;
    opts.fstring_braces = kind.find('f') != std::string::npos;
    std::string body = unescape_field(r[1]), want = unescape_field(r[3]);
    std::string want_warning = r[4] == "-" ? "" : unescape_field(r[4]);
    std::string out;
    DecodeError err;
    EscapeWarning w;
    bool ok = decode_string_body(body, opts, out, err, &w);
    std::string got = ok ? "V " + out : "E " + err.message;
    std::string got_warning = ok && w.present ? w.message : "";
    errors += !ok;
    warnings += w.present;
    if ((got != r[2] + " " + want || got_warning != want_warning) && ++bad < 10)
      ADD_FAILURE() << kind << " [" << r[1] << "]: got " << got << " | " << got_warning << "\n want " << r[2]
                    << " " << want << " | " << want_warning;
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
  EXPECT_GT(errors, 100);
  EXPECT_GT(warnings, 100);
}

TEST(StringLiteral, ErrorOffsetsPointAtTheEscape) {
  std::string out;
  DecodeError err;
  ASSERT_FALSE(decode_string_body("ab\\x4g", {}, out, err));
  EXPECT_EQ(err.message,
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 2-4: truncated \\xXX escape");
  EXPECT_EQ(err.offset, 2u);
  EXPECT_EQ(err.end_offset, 5u);
  // A non-ASCII char counts 10 in CPython's message, 2 bytes in the offset.
  ASSERT_FALSE(decode_string_body("\xC3\xA9\\x4", {}, out, err));
  EXPECT_EQ(err.message,
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 10-12: truncated \\xXX escape");
  EXPECT_EQ(err.offset, 2u);
}

TEST(StringLiteral, FStringPiecesRestartPositions) {
  std::string out;
  DecodeError err;
  DecodeOptions f;
  f.fstring_braces = true;
  ASSERT_TRUE(decode_string_body("a{{b}}c\\N{BOM}", f, out, err));
  EXPECT_EQ(out, "a{b}c\xEF\xBB\xBF");
  ASSERT_FALSE(decode_string_body("abc{{\\x4", f, out, err));
  EXPECT_EQ(err.message,
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape");
  EXPECT_EQ(err.offset, 5u);
}

TEST(StringLiteral, BytesRules) {
  std::string out;
  DecodeError err;
  DecodeOptions b;
  b.bytes = true;
  ASSERT_TRUE(decode_string_body("\\777\\u1234\\N{BOM}", b, out, err));
  EXPECT_EQ(out, "\xFF\\u1234\\N{BOM}");
  ASSERT_FALSE(decode_string_body("a\xC3\xA9", b, out, err));
  EXPECT_EQ(err.message, "bytes can only contain ASCII literal characters");
  ASSERT_FALSE(decode_string_body("ab\\x4", b, out, err));
  EXPECT_EQ(err.message, "(value error) invalid \\x escape at position 2");
}

TEST(SplitStringToken, PrefixesAndQuotes) {
  StringParts p;
  ASSERT_TRUE(split_string_token("Rb'''x'''", p));
  EXPECT_EQ(p.prefix, "Rb");
  EXPECT_EQ(p.quote, "'''");
  EXPECT_EQ(p.body, "x");
  EXPECT_TRUE(p.raw && p.bytes && !p.fstring);
  ASSERT_TRUE(split_string_token("''", p));
  EXPECT_EQ(p.body, "");
  ASSERT_TRUE(split_string_token("''''''", p));
  EXPECT_EQ(p.quote, "'''");
  EXPECT_EQ(p.body, "");
  ASSERT_TRUE(split_string_token("fR\"{x}\"", p));
  EXPECT_TRUE(p.fstring && p.raw);
  EXPECT_FALSE(split_string_token("ub''", p));
  EXPECT_FALSE(split_string_token("bf''", p));
  EXPECT_FALSE(split_string_token("ur''", p));
  EXPECT_FALSE(split_string_token("'abc", p));
}

}  // namespace
}  // namespace c2t::pyvalue
