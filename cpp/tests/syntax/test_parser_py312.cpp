// Parser tests: Python 3.12 syntax (PEP 695 type parameters and `type`
// statements, PEP 701 f-strings). Expected dumps are CPython 3.12's; PEP 701
// f-strings are compared without positions, since the tree keeps 3.11's
// position rules for f-strings (tests/tools/gen_parser_tests.py).
#include <gtest/gtest.h>

#include "test_parser_util.h"

namespace c2t::syntax::testing {
namespace {

const Case kTypeParams[] = {
#include "test_parser_cases_py312.inc"
};

const Case kFStrings[] = {
#include "test_parser_cases_py312_fstrings.inc"
};

TEST(ParserPy312, TypeParamsMatchCPython312) {
  for (const Case& c : kTypeParams) EXPECT_EQ(parse_dump(c.src, 12), c.expected) << "source: " << c.src;
}

TEST(ParserPy312, FStringsMatchCPython312WithoutPositions) {
  for (const Case& c : kFStrings) EXPECT_EQ(parse_dump(c.src, 12, false), c.expected) << "source: " << c.src;
}

}  // namespace
}  // namespace c2t::syntax::testing
