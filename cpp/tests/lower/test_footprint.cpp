// Tile footprints (lower/footprint.h): what the launcher's num_warps choice
// sees of a kernel's tiles, including through helper calls.
#include <gtest/gtest.h>

#include "lower/footprint.h"
#include "lowered_fixture.h"

namespace c2t::lower {
namespace {

sema::Shape shape(std::initializer_list<sema::Dim> dims) { return sema::Shape(dims); }

TEST(Footprint, LiteralsAndParameterNamesAreKeptExpressionsAreNot) {
  auto f = footprint_of(shape({sema::Dim::known(1), sema::Dim::sym("TM"), sema::Dim::sym("x.shape[1]")}), false);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->dims, (std::vector<std::string>{"1", "TM", "x.shape[1]"}));
  EXPECT_FALSE(footprint_of(shape({sema::Dim::sym("TM // 2")}), false));
  auto dot = footprint_of(shape({sema::Dim::sym("TM * 2"), sema::Dim::sym("TN")}), true);
  ASSERT_TRUE(dot);  // a matrix product of unknown size still marks the kernel
  EXPECT_TRUE(dot->dot && dot->dims.empty());
}

TEST(Footprint, HelperFootprintsMapToTheCallersTexts) {
  std::vector<TileFootprint> helper = {{{"BM", "q.shape[1]"}, true}, {{"BN", "64"}, false}, {{"BK"}, false}};
  auto got = map_footprints(helper, {{"BM", "TILE_M"}, {"q.shape[1]", "TILE_D"}, {"BN", "128"}});
  ASSERT_EQ(got.size(), 2u);  // BK is not mapped: dropped
  EXPECT_EQ(got[0], (TileFootprint{{"TILE_M", "TILE_D"}, true}));
  EXPECT_EQ(got[1], (TileFootprint{{"128", "64"}, false}));
  // An unmapped dot keeps its mark; an argument that is an expression does not map.
  auto marks = map_footprints(helper, {{"BM", "2 * TILE_M"}});
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0], (TileFootprint{{}, true}));
}

TEST(Footprint, KernelSeesAccumulatorsOfHelpersWithTileParameters) {
  auto l = testing::lower_src(R"(
import cuda.tile as ct


def acc_tile(a, b, acc):
    return ct.mma(a, b, acc)


@ct.kernel
def k(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    acc = ct.full((TM, TN), 0.0, dtype=ct.float32)
    a = ct.load(A, index=(0, 0), shape=(TM, TK))
    b = ct.load(B, index=(0, 0), shape=(TK, TN))
    acc = acc_tile(a, b, acc)
    ct.store(C, index=(0, 0), tile=acc)
)");
  ASSERT_EQ(l->lm.kernels.size(), 1u);
  auto& fps = l->lm.kernels[0].footprints;
  // The product's depth (TK) crosses the helper call too: the launcher's warps rule reads it.
  EXPECT_NE(std::find(fps.begin(), fps.end(), TileFootprint{{"TM", "TN"}, true, {}, "TK"}), fps.end());
  EXPECT_NE(std::find(fps.begin(), fps.end(), TileFootprint{{"TM", "TK"}, false}), fps.end());
}

TEST(Footprint, ProductDepthIsKeptWhereItMaps) {
  std::vector<TileFootprint> helper = {TileFootprint{{"BM", "BN"}, true, {}, "BK"}};
  auto mapped = map_footprints(helper, {{"BM", "TM"}, {"BN", "TN"}, {"BK", "TK"}});
  ASSERT_EQ(mapped.size(), 1u);
  EXPECT_EQ(mapped[0], (TileFootprint{{"TM", "TN"}, true, {}, "TK"}));
  auto unmapped = map_footprints(helper, {{"BM", "TM"}, {"BN", "TN"}});  // K not a parameter: unknown
  ASSERT_EQ(unmapped.size(), 1u);
  EXPECT_EQ(unmapped[0], (TileFootprint{{"TM", "TN"}, true}));
  auto literal = map_footprints({TileFootprint{{"BM", "BN"}, true, {}, "128"}}, {});  // dims unmapped, depth literal
  ASSERT_EQ(literal.size(), 1u);
  EXPECT_EQ(literal[0], (TileFootprint{{}, true, {}, "128"}));
}

}  // namespace
}  // namespace c2t::lower
