// Parser tests: expressions (precedence, comparisons, calls, subscripts and
// slices, lambdas, comprehensions, displays, starred expressions, numbers).
// Expected dumps are CPython 3.11's (tests/tools/gen_parser_tests.py).
#include <gtest/gtest.h>

#include "test_parser_util.h"

namespace c2t::syntax::testing {
namespace {

const Case kExpr[] = {
#include "test_parser_cases_expr.inc"
};

TEST(ParserExpr, MatchesCPython) {
  for (const Case& c : kExpr) EXPECT_EQ(parse_dump(c.src), c.expected) << "source: " << c.src;
}

// The shared Load context and operator nodes are singletons per tree: every
// Name in Load context points at the same node.
TEST(ParserExpr, ContextSingletons) {
  ParseResult r = parse("a + b + c");
  ASSERT_TRUE(r.ok());
  const Node* e = r.tree.root->list("body")[0].node->child("value");
  const Node* c = e->child("right");
  const Node* b = e->child("left")->child("right");
  EXPECT_EQ(c->child("ctx"), b->child("ctx"));
  EXPECT_EQ(e->child("op"), e->child("left")->child("op"));
}

// Fields are stored in CPython 3.12 `_fields` order.
TEST(ParserExpr, FieldOrder) {
  ParseResult r = parse("f(a, k=1)");
  ASSERT_TRUE(r.ok());
  const Node* call = r.tree.root->list("body")[0].node->child("value");
  ASSERT_EQ(call->fields.size(), 3u);
  EXPECT_EQ(call->fields[0].first, "func");
  EXPECT_EQ(call->fields[1].first, "args");
  EXPECT_EQ(call->fields[2].first, "keywords");
}

}  // namespace
}  // namespace c2t::syntax::testing
