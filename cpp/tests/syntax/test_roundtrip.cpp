// Lossless printing: an unchanged tree reproduces its input byte for byte.
#include <gtest/gtest.h>

#include "syntax/parser.h"
#include "syntax/rewriter.h"
#include "syntax/roundtrip.h"

using namespace c2t::syntax;

namespace {
std::string reprint(const std::string& src, std::string* problems) {
  ParseResult r = parse(src, "t.py");
  EXPECT_TRUE(r.ok()) << r.diags.render_all("t.py", src);
  return print_tree(r, src, problems);
}
}  // namespace

TEST(Roundtrip, CommentsBlankLinesContinuationsAndFormattingSurvive) {
  const std::string src =
      "# header\n\nimport cuda.tile as ct  # alias\n\n\n@ct.kernel\ndef k(x,   y,\n      n: ct.Constant[int] = 4):\n"
      "    t = (ct.load(x, index=(0,),\n                 shape=(n,)))  \\\n        if n else None\n"
      "    s = f\"{{literal}} {t!r:>{n}} }}\"\n    return  # done\n";
  std::string problems;
  EXPECT_EQ(reprint(src, &problems), src);
  EXPECT_EQ(problems, "");
}

TEST(Roundtrip, LineEndingsAndByteOrderMarkArePutBack) {
  std::string problems;
  for (std::string src : {"a = 1\r\nb = 2\r\n", "a = 1\rb = 2\n", "\xEF\xBB\xBFx = 'é'\n", "x = 1"}) {
    EXPECT_EQ(reprint(src, &problems), src);
  }
  EXPECT_EQ(problems, "");
}

TEST(Roundtrip, SpanCheckerReportsCorruptedSpans) {
  std::string src = "x = 1\ny = 2\n";
  ParseResult r = parse(src, "t.py");
  ASSERT_TRUE(r.ok());
  // Make the second statement start before the first one ends.
  Node* second = r.tree.root->list("body")[1].node;
  second->lineno = 1;
  second->col_offset = 0;
  std::string problems;
  print_tree(r, src, &problems);
  EXPECT_NE(problems.find("overlaps its previous sibling"), std::string::npos) << problems;
}

TEST(Rewriter, EditsOnlyTheGivenSpans) {
  std::string src = "import cuda.tile as ct\nx = ct.bid(0)  # keep me\n";
  Rewriter rw(src);
  rw.replace(0, 22, "import triton.language as tl");
  size_t at = src.find("ct.bid");
  rw.replace(at, at + 6, "tl.program_id");
  std::string out;
  ASSERT_TRUE(rw.apply(out));
  EXPECT_EQ(out, "import triton.language as tl\nx = tl.program_id(0)  # keep me\n");
}

TEST(Rewriter, OverlappingEditsAreRefused) {
  std::string src = "abcdef";
  Rewriter rw(src);
  rw.replace(1, 4, "X");
  rw.replace(3, 5, "Y");
  std::string out = "untouched";
  EXPECT_FALSE(rw.apply(out));
  EXPECT_EQ(out, "untouched");
}
