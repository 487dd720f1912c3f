// Unit tests of array parameters beyond one plain array: lists of arrays
// (cuTile ListTy, compilation.rst ListConstraint: a table of (pointer,
// shapes, strides) int64 words per element plus the length), arrays whose
// rank a Constant chooses (TileGym liger tvd.py), and names bound to
// different arrays on the two paths of an `if` (TileGym ragged_bmm.py).
#include <gtest/gtest.h>

#include <algorithm>

#include "lowered_fixture.h"

#include "lower/module_lowering.h"
#include "sema/module_scope.h"
#include "sema/params.h"
#include "syntax/parser.h"

namespace c2t::lower {
namespace {

using testing::Lowered;
using testing::lower_src;

std::string errors(const Lowered& l) {
  std::string out;
  for (auto& d : l.diags.items)
    if (d.severity == Severity::Error) out += d.message + "\n";
  return out;
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

const char* kHead = "import cuda.tile as ct\nConstInt = ct.Constant[int]\nZ = ct.PaddingMode.ZERO\n";

const char* kGroup =
    "def rows(A, i, T: ConstInt):\n"
    "    return ct.load(A, index=(i, 0), shape=(T, T), padding_mode=Z)\n"
    "@ct.kernel\n"
    "def k(As, Bs, out, T: ConstInt):\n"
    "    acc = ct.zeros((T, T), dtype=ct.float32)\n"
    "    for g in range(len(As)):\n"
    "        Ai = As[g]\n"
    "        acc += ct.load(Ai, index=(0, 0), shape=(T, T), padding_mode=Z)\n"
    "        acc += rows(Bs[g], 0, T)\n"
    "    ct.store(out, index=(0, 0), tile=ct.astype(acc, out.dtype))\n";

TEST(ArrayLists, ElementRankComesFromAliasesDirectUsesAndHelpers) {
  auto l = lower_src(std::string(kHead) + kGroup);
  ASSERT_EQ(l->lm.kernels.size(), 1u);
  auto& ps = l->lm.kernels[0].params;
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(ps[0].kind, sema::ParamKind::Kind::ArrayList);
  EXPECT_EQ(ps[0].rank, 2);  // `Ai = As[g]` then ct.load(Ai, (0, 0))
  EXPECT_EQ(ps[1].kind, sema::ParamKind::Kind::ArrayList);
  EXPECT_EQ(ps[1].rank, 2);  // Bs[g] passed to a helper that loads it in 2-D
  EXPECT_EQ(ps[2].kind, sema::ParamKind::Kind::Array);
}

TEST(ArrayLists, ElementsAreLoadedFromTheTableInCuTileLayout) {
  auto l = lower_src(std::string(kHead) + kGroup);
  ASSERT_TRUE(l->lm.ok) << errors(*l);
  const std::string& t = l->text;
  // Kernel parameters: table, length, first array (for the dtype), the launcher's facts.
  EXPECT_TRUE(has(t, "param As_table\nparam As_len\nparam As_first\nparam As_facts: tl.constexpr\n")) << t;
  EXPECT_TRUE(has(t, "group_size") || has(t, "range(As_len)")) << t;
  // 1 + 2 * rank = 5 words per element; shapes/strides at int32 (cuTile's default index dtype).
  EXPECT_TRUE(has(t, "Ai_words = As_table + g * 5")) << t;
  EXPECT_TRUE(has(t, "Ai_ptr_raw = tl.load(Ai_words).to(As_first.dtype)")) << t;
  EXPECT_TRUE(has(t, "Ai_shape_1_raw = tl.load(Ai_words + 2).to(tl.int32)")) << t;
  EXPECT_TRUE(has(t, "Ai_stride_1_raw = tl.load(Ai_words + 4).to(tl.int32)")) << t;
  // The launcher's facts (a constexpr bitmask): multiples of 16 per word, and unit strides (bit 5
  // the last, bit 6 the first), which Triton then sees as contiguous offsets; else the table's
  // words as they are.
  EXPECT_TRUE(has(t, "Ai_ptr = tl.multiple_of(Ai_ptr_raw, 16) if As_facts & 1 else Ai_ptr_raw")) << t;
  EXPECT_TRUE(has(t, "Ai_shape_1 = tl.multiple_of(Ai_shape_1_raw, 16) if As_facts & 4 else Ai_shape_1_raw")) << t;
  EXPECT_TRUE(has(t, "Ai_stride_0 = 1 if As_facts & 64 else tl.multiple_of(Ai_stride_0_raw, 16) if As_facts & 8 else "
                     "Ai_stride_0_raw")) << t;
  EXPECT_TRUE(has(t, "Ai_stride_1 = 1 if As_facts & 32 else tl.multiple_of(Ai_stride_1_raw, 16) if As_facts & 16 else "
                     "Ai_stride_1_raw")) << t;
}

TEST(ArrayLists, ConstantIndexAndListPassedToAHelper) {
  auto l = lower_src(std::string(kHead) +
                     "def total(Vs, T: ConstInt):\n"
                     "    acc = ct.zeros((T,), dtype=ct.float32)\n"
                     "    for g in range(len(Vs)):\n"
                     "        acc += ct.load(Vs[g], index=(0,), shape=(T,), padding_mode=Z)\n"
                     "    return acc\n"
                     "@ct.kernel\n"
                     "def k(Vs, out, T: ConstInt):\n"
                     "    a = ct.load(Vs[2], index=(0,), shape=(T,), padding_mode=Z)\n"
                     "    ct.store(out, index=(0,), tile=a + total(Vs, T))\n");
  ASSERT_TRUE(l->lm.ok) << errors(*l);
  EXPECT_TRUE(has(l->text, "Vs_table + 6")) << l->text;  // element 2 of a 1-d list: words 6..8
  EXPECT_TRUE(has(l->text, "param Vs_table_1") || has(l->text, "param Vs_table\n")) << l->text;
  EXPECT_TRUE(has(l->text, "total(Vs_table, Vs_len, Vs_first, Vs_facts, T)")) << l->text;
}

TEST(ArrayLists, Diagnostics) {
  struct Case { const char* body; const char* message; };
  // (Vs[0] and Vs[1] alone would make Vs a tuple parameter, whose elements may differ in rank.)
  for (auto c : {Case{"    g = ct.bid(0)\n    a = ct.load(Vs[g], index=(0,), shape=(4,))\n"
                      "    b = ct.load(Vs[g + 1], index=(0, 0), shape=(4, 4))\n", "different ranks"},
                 Case{"    a = ct.load(Vs[-1], index=(0,), shape=(4,))\n", "negative index"},
                 Case{"    n = Vs[0].shape[0] + len(Vs)\n", "cannot determine the rank"}}) {
    auto l = lower_src(std::string(kHead) + "@ct.kernel\ndef k(Vs):\n" + c.body);
    EXPECT_TRUE(has(errors(*l), c.message)) << c.body << "\n" << errors(*l);
  }
}

const char* kMultiRank =
    "@ct.kernel\n"
    "def k(X, OUT, T: ConstInt, MODE: ConstInt):\n"
    "    x = ct.load(X, index=(0, 0), shape=(1, T), padding_mode=Z)\n"
    "    if MODE == 0:\n"
    "        ct.store(OUT, index=(0, 0), tile=ct.astype(x, OUT.dtype))\n"
    "    if MODE != 0:\n"
    "        ct.scatter(OUT, 0, ct.astype(ct.sum(x), OUT.dtype))\n";

TEST(MultiRank, RanksInConstantBranchesGiveOneViewPerUse) {
  auto l = lower_src(std::string(kHead) + kMultiRank);
  ASSERT_TRUE(l->lm.ok) << errors(*l);
  auto& p = l->lm.kernels[0].params[1];
  EXPECT_EQ(p.kind, sema::ParamKind::Kind::Array);
  EXPECT_EQ(p.ranks, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.rank, 2);
  const std::string& t = l->text;
  EXPECT_TRUE(has(t, "param OUT_stride_1\nparam OUT_NDIM: tl.constexpr\n")) << t;
  EXPECT_TRUE(has(t, "tl.static_assert(OUT_NDIM == 2, 'OUT is used here as a 2-d array')")) << t;
  EXPECT_TRUE(has(t, "tl.static_assert(OUT_NDIM == 1, 'OUT is used here as a 1-d array')")) << t;
  // No TMA descriptor for it: one would be built for every rank.
  EXPECT_FALSE(has(t, "OUT_desc")) << t;
}

TEST(MultiRank, UnconditionalUsesOfTwoRanksAreAnError) {
  auto l = lower_src(std::string(kHead) +
                     "@ct.kernel\ndef k(OUT, MODE: ConstInt):\n"
                     "    ct.store(OUT, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))\n"
                     "    ct.store(OUT, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))\n");
  EXPECT_TRUE(has(errors(*l), "used with different ranks (1, 2): rank 2 here, rank 1 at line")) << errors(*l);
  // At the use that shows the second rank (the second store), not at the parameter.
  const std::string head(kHead);
  int second_store = static_cast<int>(std::count(head.begin(), head.end(), '\n')) + 4;
  bool at_use = false;
  for (auto& d : l->diags.items)
    if (d.severity == Severity::Error && has(d.message, "different ranks")) at_use = d.line == second_store;
  EXPECT_TRUE(at_use) << errors(*l) << " expected line " << second_store;
}

TEST(MultiRank, UseWithoutVisibleRankIsAnError) {
  auto l = lower_src(std::string(kHead) +
                     "def put(A, v):\n    ct.scatter(A, 0, v)\n"
                     "@ct.kernel\ndef k(OUT, MODE: ConstInt):\n"
                     "    if MODE == 0:\n"
                     "        ct.store(OUT, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))\n"
                     "    else:\n"
                     "        ct.store(OUT, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))\n"
                     "    put(OUT, 1.0)\n");
  EXPECT_TRUE(has(errors(*l), "does not show which rank it needs")) << errors(*l);
}

// cuTile's rank is part of an array's type: `len(A.shape)` and `A.ndim` are
// compile-time tests that choose the rank (cutile-python BlockScaledMatMul.py).
TEST(MultiRank, LenOfShapeAndNdimAreTheRankConstexpr) {
  auto l = lower_src(std::string(kHead) +
                     "@ct.kernel\ndef k(S, OUT, T: ConstInt):\n"
                     "    if len(S.shape) == 2:\n"
                     "        s = ct.load(S, index=(0, 0), shape=(T, T), padding_mode=Z)\n"
                     "    else:\n"
                     "        s = ct.reshape(ct.load(S, index=(0, 0, 0), shape=(T, T, 1), padding_mode=Z), (T, T))\n"
                     "    if S.ndim == 3 and len(S.strides) > 2:\n"
                     "        s = s + 1\n"
                     "    n = len(OUT.shape) + OUT.ndim\n"
                     "    ct.store(OUT, index=(0, 0), tile=ct.astype(s * n, OUT.dtype))\n");
  ASSERT_TRUE(l->lm.ok) << errors(*l);
  auto& p = l->lm.kernels[0].params[0];
  EXPECT_EQ(p.ranks, (std::vector<int>{2, 3}));
  const std::string& t = l->text;
  EXPECT_TRUE(has(t, "S_NDIM == 2\n")) << t;                       // the if test
  EXPECT_TRUE(has(t, "S_NDIM == 3 and S_NDIM > 2\n")) << t;
  EXPECT_TRUE(has(t, "tl.static_assert(S_NDIM == 3, 'S is used here as a 3-d array')")) << t;
  EXPECT_FALSE(has(t, "OUT_NDIM")) << t;  // one rank: a constant
  EXPECT_TRUE(has(t, "n = 4\n")) << t;
}

// A runtime `if` still may not use an array with two ranks.
TEST(MultiRank, RankTestMixedWithRuntimeValuesIsNotCompileTime) {
  auto l = lower_src(std::string(kHead) +
                     "@ct.kernel\ndef k(S, T: ConstInt):\n"
                     "    if len(S.shape) == 2 and ct.bid(0) == 0:\n"
                     "        ct.store(S, index=(0, 0), tile=ct.zeros((T, T), dtype=ct.float32))\n"
                     "    else:\n"
                     "        ct.store(S, index=(0, 0, 0), tile=ct.zeros((T, T, T), dtype=ct.float32))\n");
  EXPECT_TRUE(has(errors(*l), "used with different ranks (2, 3)")) << errors(*l);
}

TEST(BranchArrays, DifferentArraysOnTwoPathsGetCommonNames) {
  auto l = lower_src(std::string(kHead) +
                     "@ct.kernel\ndef k(A, out, AXIS: ConstInt, T: ConstInt):\n"
                     "    if AXIS == 0:\n"
                     "        S = A.slice(axis=0, start=1, stop=A.shape[0])\n"
                     "    else:\n"
                     "        S = A.slice(axis=1, start=1, stop=A.shape[1])\n"
                     "    ct.store(out, index=(0, 0), tile=ct.load(S, index=(0, 0), shape=(T, T), padding_mode=Z))\n");
  ASSERT_TRUE(l->lm.ok) << errors(*l);
  const std::string& t = l->text;
  // Each differing component is assigned on both paths under one name ...
  size_t first = t.find("S_ptr_2 = ");
  ASSERT_NE(first, std::string::npos) << t;
  EXPECT_NE(t.find("S_ptr_2 = ", first + 1), std::string::npos) << t;
  EXPECT_TRUE(has(t, "S_shape_0_1 = A_shape_0")) << t;  // the else path does not slice axis 0
  // ... and the load after the if uses those names.
  EXPECT_TRUE(has(t, "S_ptr_2 + ")) << t;
}

TEST(BranchArrays, ArrayReboundInALoopIsAnError) {
  auto l = lower_src(std::string(kHead) +
                     "@ct.kernel\ndef k(Xs, out, T: ConstInt):\n"
                     "    X = Xs[0]\n"
                     "    for g in range(len(Xs)):\n"
                     "        ct.store(out, index=(g,), tile=ct.load(X, index=(0,), shape=(T,)))\n"
                     "        X = Xs[g]\n");
  EXPECT_TRUE(has(errors(*l), "names different arrays depending on control flow")) << errors(*l);
}

}  // namespace
}  // namespace c2t::lower
