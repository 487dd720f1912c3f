// Unit tests of stage lower: the op registry, semantic choices of the
// lowering (Python floor division, IEEE division, dtype casts back, NaN
// rules), the access planner and diagnostics for unsupported input.
#include <gtest/gtest.h>

#include <algorithm>

#include "lowered_fixture.h"

#include <fstream>
#include <sstream>

#include "lower/access_plan.h"
#include "lower/module_lowering.h"
#include "lower/op_registry.h"
#include "lower/prelude.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t::lower {
namespace {

std::string golden_dir() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind('/')) + "/../golden";
}

using testing::Lowered;
using testing::lower_src;

const char* kHead = "import cuda.tile as ct\nConstInt = ct.Constant[int]\n";

std::string kernel(const std::string& body, const std::string& params = "X, Y, Z, T: ConstInt") {
  return std::string(kHead) + "@ct.kernel\ndef k(" + params + "):\n" + body;
}

TEST(Registry, EveryOperationIsListedInTheGoldenFile) {
  // The golden list is the documented set of supported cuTile operations; a
  // new registry entry must be added there (and get interpreter tests).
  std::ifstream in(golden_dir() + "/registry.txt");
  ASSERT_TRUE(in) << "missing " << golden_dir() << "/registry.txt";
  std::vector<std::string> expected;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') expected.push_back(line.substr(0, line.find(' ')));
  std::vector<std::string> actual;
  for (auto& [name, e] : registry().entries()) actual.push_back(name);
  EXPECT_EQ(actual, expected);
  for (auto& [name, e] : registry().entries()) {
    EXPECT_FALSE(e.family.empty()) << name;
    EXPECT_FALSE(e.triton.empty()) << name;
    EXPECT_TRUE(e.lower) << name;
  }
}

TEST(Lower, FloorDivisionKeepsPythonSemantics) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0,), shape=(T,))\n"
      "    b = ct.load(Y, index=(0,), shape=(T,))\n"
      "    q = a // b\n"
      "    i = ct.bid(0)\n"
      "    j = i // 4 + i % 4\n"
      "    ct.store(Z, index=(j,), tile=q)\n"));
  ASSERT_FALSE(l->diags.has_errors());
  EXPECT_NE(l->all_source.find("q = _c2t_floordiv(a, b)"), std::string::npos) << l->all_source;
  // bid >= 0 and 4 > 0: Triton's truncating operators give the same result.
  EXPECT_NE(l->all_source.find("j = i // 4 + i % 4"), std::string::npos) << l->all_source;
  EXPECT_NE(std::find(l->lm.prelude.begin(), l->lm.prelude.end(), "_c2t_floordiv"), l->lm.prelude.end());
}

TEST(Lower, DivisionIsIeeeUnlessApprox) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0,), shape=(T,)).astype(ct.float32)\n"
      "    b = ct.load(Y, index=(0,), shape=(T,)).astype(ct.float32)\n"
      "    c = a / b\n"
      "    d = ct.truediv(a, b, rounding_mode=ct.RoundingMode.APPROX)\n"
      "    h = a.astype(ct.float16) / b.astype(ct.float16)\n"
      "    ct.store(Z, index=(0,), tile=c + d + h)\n"));
  ASSERT_FALSE(l->diags.has_errors());
  EXPECT_NE(l->all_source.find("c = tl.div_rn(a, b)"), std::string::npos) << l->all_source;
  EXPECT_NE(l->all_source.find("d = a / b"), std::string::npos);
  EXPECT_NE(l->all_source.find("tl.div_rn(a.to(tl.float16).to(tl.float32), b.to(tl.float16).to(tl.float32)).to(tl.float16)"),
            std::string::npos)
      << l->all_source;
}

TEST(Lower, ReductionsCastBackAndMmaIsExact) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0, 0), shape=(T, T)).astype(ct.float16)\n"
      "    m = ct.max(a, axis=1)\n"
      "    acc = ct.zeros((T, T), dtype=ct.float32)\n"
      "    b = ct.load(Y, index=(0, 0), shape=(T, T)).astype(ct.float32)\n"
      "    acc = ct.mma(b, b, acc)\n"
      "    ct.store(Z, index=(0, 0), tile=acc + m[:, None])\n"));
  ASSERT_FALSE(l->diags.has_errors());
  EXPECT_NE(l->all_source.find("m = tl.max(a, axis=1).to(tl.float16)"), std::string::npos) << l->all_source;
  EXPECT_NE(l->all_source.find("acc = tl.dot(b, b, acc, input_precision='ieee')"), std::string::npos) << l->all_source;
}

// TileGym's chunk_gated_delta_rule: `if a.dtype == ct.float32: a = ct.astype(a, ct.tfloat32)` before
// ct.matmul, with `a` of a dtype known only at run time, is a TF32 product where `a` is fp32, as in
// cuTile; the condition is bound before the `if` (its branch rebinds `a`). Without the rule the
// product was 'ieee': FMA units, 18432 FMAs per thread at K=256 and minutes of ptxas.
TEST(Lower, Tf32CastUnderACompileTimeIfPicksThePrecision) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0, 0), shape=(T, T))\n"
      "    if a.dtype == ct.float32:\n"
      "        a = ct.astype(a, ct.tfloat32)\n"
      "    b = ct.astype(ct.load(Y, index=(0, 0), shape=(T, T)), ct.tfloat32)\n"
      "    c = ct.astype(ct.matmul(a, b), ct.float32)\n"
      "    if T > 16:\n"
      "        c = c * 2.0\n"
      "    ct.store(Z, index=(0, 0), tile=c)\n"));
  ASSERT_FALSE(l->diags.has_errors()) << l->diags.render_all("t.py", "");
  const std::string& s = l->all_source;
  // (`a` is X's tile: its dtype test reads X's element type)
  size_t bound = s.find("cond = X_ptr.dtype.element_ty == tl.float32\n");  // (the collected text omits ": tl.constexpr")
  size_t branch = s.find("\nX_ptr.dtype.element_ty == tl.float32\n", bound);
  EXPECT_NE(bound, std::string::npos) << s;
  EXPECT_NE(branch, std::string::npos) << s;  // the `if` itself, after the bound condition
  EXPECT_NE(s.find("input_precision='tf32' if cond else 'ieee'"), std::string::npos) << s;
  // An `if` whose branches leave no name tfloat32 on one path only binds nothing.
  EXPECT_EQ(s.find("= T > 16"), std::string::npos) << s;
  EXPECT_EQ(s.find("cond_1"), std::string::npos) << s;
}

TEST(Lower, DeadConstantBranchIsNotResolved) {
  auto l = lower_src(std::string(kHead) + "FLAG = False\n@ct.kernel\ndef k(X, T: ConstInt):\n"
                     "    t = ct.load(X, index=(0,), shape=(T,))\n"
                     "    if FLAG:\n        t = ct.sigmoid(t)\n"
                     "    ct.store(X, index=(0,), tile=t)\n");
  EXPECT_FALSE(l->diags.has_errors()) << l->diags.items[0].message;
}

TEST(Lower, UnsupportedOperationIsDiagnosedAtItsPosition) {
  auto l = lower_src(kernel("    t = ct.load(X, index=(0,), shape=(T,))\n    u = ct.sigmoid(t)\n"));
  ASSERT_TRUE(l->diags.has_errors());
  auto& d = l->diags.items[0];
  EXPECT_EQ(d.line, 6);
  EXPECT_EQ(d.col, 8);
  EXPECT_NE(d.message.find("ct.sigmoid"), std::string::npos);
  ASSERT_EQ(l->lm.reports.size(), 1u);
  ASSERT_EQ(l->lm.reports[0].unsupported.size(), 1u);
  EXPECT_EQ(l->lm.reports[0].unsupported[0].what, "ct.sigmoid");
  EXPECT_FALSE(l->lm.ok);
}

TEST(Lower, BreakBecomesAWhileLoopWithAFlag) {
  auto l = lower_src(kernel(
      "    for i in range(1, 10, 2):\n"
      "        if i > 5:\n            break\n"
      "        ct.store(Z, index=(i,), tile=ct.full((T,), 1.0, dtype=ct.float32))\n"));
  ASSERT_FALSE(l->diags.has_errors()) << l->diags.items[0].message;
  auto& body = l->lm.kernels[0].fn.body;
  ASSERT_EQ(body.size(), 3u);
  EXPECT_EQ(source(body[0].target) + " = " + source(body[0].value), "i = 1");
  EXPECT_EQ(source(body[1].target) + " = " + source(body[1].value), "looping = True");
  ASSERT_EQ(body[2].kind, TStmt::Kind::While);
  EXPECT_EQ(source(body[2].value), "looping & (i < 10)");
  auto& loop = body[2].body;
  ASSERT_EQ(loop.size(), 2u);
  EXPECT_EQ(source(loop[0].value), "i > 5");          // if i > 5: looping = False  else: store
  EXPECT_EQ(source(loop[0].body[0].value), "False");
  EXPECT_FALSE(loop[0].orelse.empty());
  EXPECT_EQ(source(loop[1].value), "i + 2");          // the increment runs on every path
}

TEST(Lower, ContinueMovesTheRestIntoTheOtherBranch) {
  auto l = lower_src(kernel(
      "    for i in range(ct.bid(0), 10, ct.num_blocks(0)):\n"
      "        if i == 3:\n            continue\n"
      "        ct.store(Z, index=(i,), tile=ct.full((T,), 1.0, dtype=ct.float32))\n"));
  ASSERT_FALSE(l->diags.has_errors());
  ASSERT_EQ(l->lm.kernels[0].fn.body.size(), 1u);
  auto& loop = l->lm.kernels[0].fn.body[0];
  ASSERT_EQ(loop.kind, TStmt::Kind::For);
  ASSERT_EQ(loop.body.size(), 1u);
  EXPECT_EQ(source(loop.body[0].value), "i != 3");  // `if i == 3: continue` inverted
  EXPECT_TRUE(loop.body[0].orelse.empty());
}

TEST(AccessPlan, RecordsSitesAndTmaCandidates) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0, 0), shape=(64, 64), padding_mode=ct.PaddingMode.ZERO)\n"
      "    b = ct.load(Y, index=(0, 0), shape=(64, 64), padding_mode=ct.PaddingMode.NEG_INF)\n"
      "    c = ct.load(Y, index=(0, 0), shape=(64, 64), order=(1, 0))\n"
      "    d = ct.load(Y, index=(0, 0), shape=(1, 64), order=(1, 0))\n"
      "    ct.store(W, index=(0, 0), tile=c, order=(1, 0))\n"
      "    ct.store(Z, index=(0,), tile=ct.sum(a + b + c + d, axis=1))\n", "X, Y, Z, W, T: ConstInt"));
  ASSERT_FALSE(l->diags.has_errors());
  auto& acc = l->lm.reports[0].accesses;
  ASSERT_EQ(acc.size(), 6u);
  EXPECT_TRUE(acc[0].tma_candidate);
  EXPECT_FALSE(acc[1].tma_candidate);  // NEG_INF padding needs the masked pointer load
  EXPECT_TRUE(acc[2].tma_candidate);   // permuted innermost axis: a memory-order box, permuted
  EXPECT_EQ(acc[2].order, "(1, 0)");
  EXPECT_FALSE(acc[3].tma_candidate);  // its box's innermost extent (Y's last axis) is 1
  EXPECT_FALSE(acc[4].tma_candidate);  // a store through a permuted innermost axis
  EXPECT_EQ(acc[5].op, "store");
  EXPECT_EQ(acc[5].array_rank, 1);
  for (auto& a : acc) EXPECT_EQ(a.strategy, "pointer_mask");
}

TEST(Prelude, DependenciesComeFirstAndOnce) {
  std::string s = prelude_source({"_c2t_cdiv", "_c2t_floordiv"});
  auto f = s.find("def _c2t_floordiv");
  auto c = s.find("def _c2t_cdiv");
  ASSERT_NE(f, std::string::npos);
  ASSERT_NE(c, std::string::npos);
  EXPECT_LT(f, c);
  EXPECT_EQ(s.find("def _c2t_floordiv", f + 1), std::string::npos);
}

// ct.mma_scaled: a prelude helper call; shapes and dtypes sema knows are
// checked as cuTile checks them; fp4 and batched forms are diagnosed.
TEST(MmaScaled, LowersToThePreludeHelperAndFlagsE8m0Arrays) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0, 0), shape=(16, 64))\n"
      "    b = ct.load(X, index=(0, 0), shape=(64, 16))\n"
      "    sa = ct.load(Y, index=(0, 0), shape=(16, 2))\n"
      "    sb = ct.load(Y, index=(0, 0), shape=(2, 16))\n"
      "    acc = ct.mma_scaled(a, sa, b, sb, ct.zeros((16, 16), dtype=ct.float32))\n"
      "    ct.store(Z, index=(0, 0), tile=acc)\n"));
  ASSERT_FALSE(l->diags.has_errors()) << l->diags.items[0].message;
  EXPECT_NE(l->all_source.find("_c2t_mma_scaled(a, sa, b, sb, tl.zeros([16, 16], tl.float32))"), std::string::npos)
      << l->all_source;
  EXPECT_NE(std::find(l->lm.prelude.begin(), l->lm.prelude.end(), "_c2t_mma_scaled"), l->lm.prelude.end());
  EXPECT_TRUE(l->lm.kernels[0].e8m0_as_uint8);
  auto src = prelude_source(l->lm.prelude);
  EXPECT_NE(src.find("def _c2t_e8m0_to_f32(s):"), std::string::npos);  // dependency emitted
  EXPECT_NE(src.find("0x7FC00000"), std::string::npos);                 // 0xFF is NaN
}

TEST(MmaScaled, PlainMmaDoesNotFlagE8m0Arrays) {
  auto l = lower_src(kernel(
      "    a = ct.load(X, index=(0, 0), shape=(16, 16))\n"
      "    ct.store(Z, index=(0, 0), tile=ct.mma(a, a, ct.zeros((16, 16), dtype=ct.float32)))\n"));
  ASSERT_FALSE(l->diags.has_errors());
  EXPECT_FALSE(l->lm.kernels[0].e8m0_as_uint8);
}

TEST(MmaScaled, Diagnostics) {
  auto first_error = [](const std::string& expr, const std::string& sa_shape = "(16, 2)") {
    auto l = lower_src(kernel(
        "    a = ct.load(X, index=(0, 0), shape=(16, 64))\n"
        "    b = ct.load(X, index=(0, 0), shape=(64, 16))\n"
        "    sa = ct.load(Y, index=(0, 0), shape=" + sa_shape + ")\n"
        "    sb = ct.load(Y, index=(0, 0), shape=(2, 16))\n"
        "    acc = ct.zeros((16, 16), dtype=ct.float32)\n"
        "    ct.store(Z, index=(0, 0), tile=" + expr + ")\n"));
    for (auto& d : l->diags.items)
      if (d.severity == Severity::Error) return d.message;
    return std::string();
  };
  EXPECT_NE(first_error("ct.mma_scaled(a, sa, b, sb, acc)", "(16, 4)").find("must be 32 times x_scale.shape[1]"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma_scaled(a, sa, b, sb, acc)", "(8, 2)").find("x_scale.shape[0] = 8 must equal"),
            std::string::npos);
  // (no fp4 tile reaches ct.mma_scaled: the conversion to fp4 is diagnosed first)
  EXPECT_NE(first_error("ct.mma_scaled(ct.astype(a, ct.float4_e2m1fn), sa, b, sb, acc)").find("float4_e2m1fn"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma_scaled(ct.astype(a, ct.float8_e5m2), sa, ct.astype(b, ct.float8_e4m3fn), sb, acc)")
                .find("x and y must have the same dtype"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma_scaled(a, sa, b, sb, ct.astype(acc, ct.float16))").find("must be float32"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma_scaled(ct.reshape(a, (1, 16, 64)), sa, b, sb, acc)").find("batched (3-D)"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma_scaled(a, sa, b, sb)").find("missing required argument 'acc'"), std::string::npos);
}

// A tile whose rank differs from its index's: the message names both (the array's rank is read from its
// uses, so "the array has rank 1" alone blamed the array the user passed).
TEST(Memory, TileRankAgainstIndexNamesBoth) {
  auto l = lower_src(kernel("    t = ct.load(X, index=(0,), shape=(1, 16))\n"
                            "    ct.store(Z, index=(0, 0), tile=ct.reshape(t, (16,)))\n"));
  std::string first;
  for (auto& d : l->diags.items)
    if (d.severity == Severity::Error && first.empty()) first = d.message;
  EXPECT_NE(first.find("the tile shape has rank 2 but the index has 1 entry (array X: rank 1); cuTile takes one "
                       "index entry and one tile extent per array axis"),
            std::string::npos) << first;
}

// x @ y (+ acc) with sizes sema knows: cuTile's shape rules are checked at the
// call (ct.mma, ct.matmul, @), before Triton would stop at the tl.dot; sizes
// known only as constexpr names are left to Triton.
TEST(Mma, ShapeMismatchesAreDiagnosedAtTheCall) {
  auto first_error = [](const std::string& line) -> std::pair<std::string, int> {
    auto l = lower_src(kernel(
        "    a = ct.load(X, index=(0, 0), shape=(16, 64))\n"
        "    b = ct.load(X, index=(0, 0), shape=(64, 16))\n"
        "    t = ct.load(X, index=(0, 0), shape=(T, T))\n"
        "    acc = ct.zeros((16, 16), dtype=ct.float32)\n"
        "    r = " + line + "\n"
        "    ct.store(Z, index=(0, 0), tile=r)\n"));
    for (auto& d : l->diags.items)
      if (d.severity == Severity::Error) return {d.message, d.col};
    return {"", -1};
  };
  auto [k, col] = first_error("ct.mma(a, a, acc)");
  EXPECT_NE(k.find("ct.mma: x (16 x 64) @ y (16 x 64): x's last dimension (64) must equal y's second-to-last (16)"),
            std::string::npos) << k;
  EXPECT_EQ(col, 8);  // the call, after "    r = "
  EXPECT_NE(first_error("ct.mma(a, b, ct.zeros((16, 32), dtype=ct.float32))").first
                .find("acc (16 x 32) must have the product's shape (16 x 16"),
            std::string::npos);
  EXPECT_NE(first_error("ct.mma(ct.reshape(a, (2, 8, 64)), ct.reshape(b, (4, 64, 4)), ct.zeros((2, 8, 4), "
                        "dtype=ct.float32))").first.find("batch dimensions 2 and 4 do not broadcast"),
            std::string::npos);
  EXPECT_NE(first_error("a @ a").first.find("matmul: x (16 x 64) @ y (16 x 64)"), std::string::npos);
  EXPECT_NE(first_error("ct.matmul(b, b)").first.find("x's last dimension (16) must equal y's second-to-last (64)"),
            std::string::npos);
  // Agreeing shapes, and sizes only Triton knows (T), convert.
  EXPECT_EQ(first_error("ct.mma(a, b, acc)").first, "");
  EXPECT_EQ(first_error("ct.mma(ct.transpose(b), ct.transpose(a), acc)").first, "");
  EXPECT_EQ(first_error("ct.mma(t, t, ct.zeros((T, T), dtype=ct.float32))").first, "");
}

}  // namespace
}  // namespace c2t::lower
