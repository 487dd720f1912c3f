// "Did you mean" suggestions for rejected names (support/suggest.h).
#include "support/suggest.h"

#include <gtest/gtest.h>

namespace c2t {
namespace {

TEST(Suggest, CostsAsCPythonCountsThemButASwap) {
  EXPECT_EQ(suggestion_cost("", ""), 0u);
  EXPECT_EQ(suggestion_cost("exp", "expp"), 2u);     // an insertion
  EXPECT_EQ(suggestion_cost("axis", "axs"), 2u);     // a deletion
  EXPECT_EQ(suggestion_cost("sum", "sun"), 2u);      // a substitution
  EXPECT_EQ(suggestion_cost("Sum", "sum"), 1u);      // a change of case only
  EXPECT_EQ(suggestion_cost("axis", "aixs"), 2u);    // a swap of adjacent letters: one move (CPython: 4)
  EXPECT_EQ(suggestion_cost("laod", "load"), 2u);
  EXPECT_EQ(suggestion_cost("ab", "ba"), 2u);
  EXPECT_EQ(suggestion_cost("abc", "ca"), 6u);       // no edit between swapped letters (not Damerau: 4)
  EXPECT_EQ(suggestion_cost("kitten", "sitting"), 6u);
  EXPECT_EQ(suggestion_cost("", "abc"), 6u);
}

TEST(Suggest, ClosestNameWithinABoundThatGrowsWithTheName) {
  const std::vector<std::string_view> ct = {"exp", "exp2", "sum", "load", "store", "transpose", "sin", "min"};
  EXPECT_EQ(closest_name("expp", ct), "exp");
  EXPECT_EQ(closest_name("lod", ct), "load");
  EXPECT_EQ(closest_name("tranpose", ct), "transpose");
  EXPECT_EQ(closest_name("laod", ct), "load");  // CPython suggests nothing: 4 > (4 + 4 + 3) * 2 / 6
  EXPECT_EQ(closest_name("stroe", ct), "store");
  EXPECT_EQ(closest_name("sigmoid", ct), "");  // CPython suggests nothing either (divmod costs 6 > 5)
  EXPECT_EQ(closest_name("x", ct), "");
  EXPECT_EQ(closest_name("sum", ct), "");      // a candidate equal to the name is not a suggestion
  EXPECT_EQ(closest_name("sim", ct), "sum");   // a tie (sum, sin, min): the earlier candidate
  EXPECT_EQ(closest_name("SUM", ct), "sum");   // three changes of case: 3, the bound (3 + 3 + 3) * 2 / 6
  EXPECT_EQ(did_you_mean("expp", ct, "ct."), "; did you mean ct.exp?");
  EXPECT_EQ(did_you_mean("axs", {"axis", "keepdims"}, "", "'"), "; did you mean 'axis'?");
  EXPECT_EQ(did_you_mean("zzzz", ct), "");
  const std::string over(41, 'e'), under(40, 'e');
  EXPECT_EQ(closest_name(over, {under}), "") << "a name over 40 characters suggests nothing";
  EXPECT_EQ(closest_name(under.substr(1), {under}), under);
  EXPECT_EQ(closest_name(std::string(1000000, 'a'), ct), "") << "a huge name: no quadratic work";
}

}  // namespace
}  // namespace c2t
