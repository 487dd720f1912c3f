#include <gtest/gtest.h>

#include "support/diagnostics.h"

using c2t::Diagnostic;
using c2t::Severity;

TEST(Diagnostics, RendersFileLineColumnSourceAndCaret) {
  std::string src = "x = 1\ny = ct.foo(x)\n";
  Diagnostic d{Severity::Error, 2, 4, "unknown cuTile operation 'ct.foo'"};
  EXPECT_EQ(c2t::render(d, "k.py", src),
            "k.py:2:5: error: unknown cuTile operation 'ct.foo'\n"
            "y = ct.foo(x)\n"
            "    ^\n");
}

TEST(Diagnostics, ColumnCountsCharactersNotBytes) {
  // 'é' is two UTF-8 bytes; CPython's col_offset 5 is the 5th character here.
  std::string src = "é = ct.x\n";
  Diagnostic d{Severity::Warning, 1, 5, "w"};
  EXPECT_EQ(c2t::render(d, "f.py", src), "f.py:1:5: warning: w\né = ct.x\n    ^\n");
}

TEST(Diagnostics, OutOfRangePositionsAreClamped) {
  Diagnostic d{Severity::Error, 9, 99, "eof"};
  std::string out = c2t::render(d, "f.py", "a\n");
  EXPECT_EQ(out.rfind("f.py:9:1: error: eof\n", 0), 0u);
  Diagnostic whole{Severity::Error, 0, 0, "cannot read"};
  EXPECT_EQ(c2t::render(whole, "f.py", ""), "f.py: error: cannot read\n");
}

TEST(Diagnostics, TabsAreKeptUnderTheCaret) {
  Diagnostic d{Severity::Error, 1, 2, "m"};
  EXPECT_EQ(c2t::render(d, "f.py", "\tab\n"), "f.py:1:3: error: m\n\tab\n\t ^\n");
}

TEST(Diagnostics, HasErrorsIgnoresWarnings) {
  c2t::Diagnostics ds;
  ds.warning(1, 0, "w");
  EXPECT_FALSE(ds.has_errors());
  ds.error(1, 0, "e");
  EXPECT_TRUE(ds.has_errors());
}

TEST(Diagnostics, InvalidUtf8IsReplacedSoOutputIsValidText) {
  Diagnostic d{Severity::Error, 1, 0, "bad byte"};
  EXPECT_EQ(c2t::render(d, "f.py", "a\xff" "b\n"), "f.py:1:1: error: bad byte\na\xEF\xBF\xBD" "b\n^\n");
}

TEST(Diagnostics, DisplayColumnMatchesRenderedColumn) {
  std::string src = "a\né = ct.x\n";
  EXPECT_EQ(c2t::display_column(src, 2, 5), 5);
  EXPECT_EQ(c2t::display_column(src, 1, 0), 1);
  EXPECT_EQ(c2t::display_column(src, 0, 3), 0);
  EXPECT_EQ(c2t::display_column(src, 7, 3), 1);
}
