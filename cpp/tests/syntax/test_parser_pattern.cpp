// Parser tests: match statements and every pattern kind.
// Expected dumps are CPython 3.11's (tests/tools/gen_parser_tests.py).
#include <gtest/gtest.h>

#include "test_parser_util.h"

namespace c2t::syntax::testing {
namespace {

const Case kCases[] = {
#include "test_parser_cases_pattern.inc"
};

TEST(ParserPattern, MatchesCPython) {
  for (const Case& c : kCases) EXPECT_EQ(parse_dump(c.src), c.expected) << "source: " << c.src;
}

}  // namespace
}  // namespace c2t::syntax::testing
