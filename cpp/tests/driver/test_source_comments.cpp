// The author's comments kept in the converted kernels (lower/source_comments.h): the placement
// rules on one kernel's statements, then the same kernel converted end to end.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "driver/convert.h"
#include "lower/source_comments.h"
#include "syntax/parser.h"

namespace c2t {
namespace {

const char* kKernel = R"(import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def rowsum(
    x,  # trailing a parameter: not a statement's
    # inside the header: not the body's
    out,
    N: int,
    TILE: ConstInt,
):
    """A docstring
    # that is not a comment
    """
    # accumulate in fp32

    # (a second paragraph)
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for j in range(ct.cdiv(N, TILE)):  # the row in tiles
        t = ct.load(x, (j,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)  # noqa: E501
        # type: ignore
        acc = acc + t.astype(ct.float32)  # widen
    if TILE > 1024:
        # nothing to do for wide tiles
        pass
    ct.store(out, (0,), tile=acc)
)";


// The statement starting on `line` (a simple or compound statement, not an expression in it).
const syntax::Node* statement_at(const syntax::Node* n, int line) {
  if (!n) return nullptr;
  for (std::string_view t : {"Assign", "AugAssign", "For", "If", "Pass", "Expr"})
    if (n->type == t && n->lineno == line) return n;
  for (auto& [name, v] : n->fields) {
    if (v.kind == syntax::Value::Kind::Node) {
      if (auto* s = statement_at(v.node, line)) return s;
    } else if (v.kind == syntax::Value::Kind::List) {
      for (auto& item : v.items)
        if (item.kind == syntax::Value::Kind::Node)
          if (auto* s = statement_at(item.node, line)) return s;
    }
  }
  return nullptr;
}

TEST(SourceComments, RunsAboveAStatementAndItsTrailingComment) {
  auto pr = syntax::parse(kKernel, "k.py");
  ASSERT_TRUE(pr.ok());
  lower::SourceComments c(pr.tokens, *pr.source, pr.tree.root);
  auto at = [&](int line) { return c.before(statement_at(pr.tree.root, line)); };
  using Lines = std::vector<std::pair<int, std::string>>;
  // acc = ...: the two comments above it, across the blank line; not the header's or the docstring's.
  EXPECT_EQ(at(20), (Lines{{17, "accumulate in fp32"}, {19, "(a second paragraph)"}}));
  EXPECT_EQ(at(21), (Lines{{21, "the row in tiles"}}));  // a loop header's trailing comment
  EXPECT_EQ(at(22), (Lines{}));                          // noqa: a pragma, left out
  // `# type: ignore` on its own line is a pragma: left out.
  EXPECT_EQ(at(24), (Lines{{24, "widen"}}));
  EXPECT_EQ(at(27), (Lines{{26, "nothing to do for wide tiles"}}));
  EXPECT_EQ(at(28), (Lines{}));  // a line of code above: nothing  // a line of code above: nothing
}

TEST(SourceCommentsConverted, ConvertedKernelKeepsThemInPlace) {
  ConvertResult r = convert_source(kKernel, "k.py");
  ASSERT_TRUE(r.ok) << r.rendered;
  const std::string& code = r.code;
  auto pos = [&](const std::string& s) { return code.find(s); };
  ASSERT_NE(pos("    # accumulate in fp32\n    # (a second paragraph)\n    acc = tl.zeros("), std::string::npos) << code;
  EXPECT_NE(pos("    # the row in tiles\n    for j in range("), std::string::npos) << code;
  EXPECT_NE(pos("        # widen\n        acc = acc + "), std::string::npos) << code;
  // A branch left with its comment only still has a statement.
  EXPECT_NE(pos("        # nothing to do for wide tiles\n        pass\n"), std::string::npos) << code;
  for (const char* absent : {"not a statement's", "not the body's", "noqa", "type: ignore"})
    EXPECT_EQ(pos(std::string("# ") + absent), std::string::npos) << absent;
}

TEST(SourceCommentsConverted, SynthesizedBodiesDoNotRepeatThem) {
  // A lambda's lifted function borrows the lambda's position: the statement's comments stay with
  // the statement, once.
  const char* src = R"(import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def k(X, Out, T: ConstInt):
    x = ct.load(X, (0,), shape=(T,))
    # one more
    f = lambda a: a + 1  # the lambda
    ct.store(Out, (0,), tile=f(x))
)";
  ConvertResult r = convert_source(src, "k.py");
  ASSERT_TRUE(r.ok) << r.rendered;
  for (const char* c : {"# one more\n", "# the lambda\n"}) {
    size_t first = r.code.find(c);
    ASSERT_NE(first, std::string::npos) << c << r.code;
    EXPECT_EQ(r.code.find(c, first + 1), std::string::npos) << c << r.code;
  }
}

}  // namespace
}  // namespace c2t
