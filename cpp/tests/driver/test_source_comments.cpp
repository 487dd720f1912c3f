// The author's comments kept in the converted kernels, end to end (lower/source_comments.h; the rules
// themselves: cpp/tests/lower/test_source_comments.cpp, same kernel).
#include <gtest/gtest.h>

#include <string>

#include "driver/convert.h"

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

}  // namespace
}  // namespace c2t
