// Character classes, NFKC, names and UTF-8 helpers against CPython 3.11.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>

#include "case_file.h"
#include "pyvalue/source_decode.h"
#include "pyvalue/unicode.h"

namespace c2t::pyvalue {
namespace {

using test_data::load_cases;
using test_data::unescape_field;

// "a-b c-d ..." (hex) -> membership bitmap over all code points.
std::vector<bool> parse_ranges(const std::string& text) {
  std::vector<bool> in(0x110000, false);
  std::istringstream ss(text);
  std::string r;
  while (ss >> r) {
    size_t dash = r.find('-');
    uint32_t a = std::stoul(r.substr(0, dash), nullptr, 16), b = std::stoul(r.substr(dash + 1), nullptr, 16);
    for (uint32_t c = a; c <= b; ++c) in[c] = true;
  }
  return in;
}

TEST(CharClasses, EveryCodePointMatchesCPython) {
  auto rows = load_cases("char_classes.txt");
  ASSERT_EQ(rows.size(), 3u);
  for (auto& row : rows) {
    auto want = parse_ranges(row[1]);
    bool (*fn)(char32_t) = row[0] == "printable" ? is_printable : row[0] == "xid_start" ? is_xid_start : is_xid_continue;
    int bad = 0;
    for (char32_t c = 0; c < 0x110000; ++c)
      if (fn(c) != want[c] && ++bad < 5) ADD_FAILURE() << row[0] << " U+" << std::hex << uint32_t(c);
    EXPECT_EQ(bad, 0) << row[0];
  }
}

std::string utf8_of(char32_t c) {
  std::string s;
  utf8_append(s, c);
  return s;
}

TEST(Nfkc, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("nfkc.txt");
  int bad = 0;
  for (auto& r : rows) {
    std::string in = unescape_field(r[0]), want = unescape_field(r[1]);
    std::string got = nfkc(in);
    if (got != want && ++bad < 10) ADD_FAILURE() << r[0] << ": got " << got << " want " << want;
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
}

TEST(Nfkc, AsciiAndStableTextUnchanged) {
  EXPECT_EQ(nfkc("hello_world9"), "hello_world9");
  EXPECT_EQ(nfkc("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");   // précomposed é is NFKC
  EXPECT_EQ(nfkc("e\xCC\x81"), "\xC3\xA9");                     // e + COMBINING ACUTE
  EXPECT_EQ(nfkc("\xEF\xAC\x81"), "fi");                        // U+FB01 LATIN SMALL LIGATURE FI
}

// CRC-32 (the zlib polynomial), to compare all names at once with CPython.
uint32_t crc32_update(uint32_t crc, const std::string& s) {
  crc = ~crc;
  for (unsigned char b : s) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

TEST(Names, EveryNameMatchesCPythonAndLooksUpBack) {
  auto rows = load_cases("names.txt");
  ASSERT_EQ(rows[0][0], "CRC");
  uint32_t crc = 0;
  long count = 0;
  int bad = 0;
  char buf[16];
  for (char32_t c = 0; c < 0x110000; ++c) {
    std::string n = char_name(c);
    if (n.empty()) continue;
    ++count;
    std::snprintf(buf, sizeof buf, "%x:", static_cast<unsigned>(c));
    crc = crc32_update(crc, buf + n + "\n");
    char32_t back = 0;
    if ((!lookup_name(n, back) || back != c) && ++bad < 5) ADD_FAILURE() << n;
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(std::to_string(count), rows[0][1]);
  std::snprintf(buf, sizeof buf, "%08x", crc);
  EXPECT_EQ(buf, rows[0][2]);
}

TEST(Names, LookupMatchesCPython) {
  auto rows = load_cases("names.txt");
  int bad = 0, found = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    std::string name = unescape_field(rows[i][0]);
    char32_t c = 0;
    bool ok = lookup_name(name, c);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", static_cast<unsigned>(c));
    // Named sequences: unicodedata.lookup accepts them, "\N{...}" does not.
    std::string want = rows[i][1] == "SEQ" ? "ERR" : rows[i][1];
    std::string got = ok ? buf : "ERR";
    found += ok;
    if (got != want && ++bad < 10) ADD_FAILURE() << "'" << name << "': " << got << " != " << want;
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
  EXPECT_GT(found, 500);
}

TEST(Utf8, ErrorMessagesMatchCPython) {
  auto rows = load_cases("utf8_errors.txt");
  int bad = 0;
  for (auto& r : rows) {
    std::string in = unescape_field(r[0]);
    std::string want = r[1] == "-" ? "" : r[1];
    std::string got = utf8_error_message(in);
    if (got != want && ++bad < 10) ADD_FAILURE() << r[0] << ": '" << got << "' != '" << want << "'";
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
}

TEST(Utf8, RoundTripsEveryCodePoint) {
  for (char32_t c = 0; c < 0x110000; ++c) {
    std::string s = utf8_of(c);
    char32_t back = 0;
    bool surrogate = c >= 0xD800 && c <= 0xDFFF;
    ASSERT_EQ(utf8_decode(s, 0, back), surrogate ? 0 : static_cast<int>(s.size())) << uint32_t(c);
    ASSERT_EQ(utf8_decode(s, 0, back, true), static_cast<int>(s.size()));
    ASSERT_EQ(back, c);
  }
}

}  // namespace
}  // namespace c2t::pyvalue
