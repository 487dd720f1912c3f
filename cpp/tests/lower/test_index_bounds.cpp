// ct.where in a loop skips its select where the mask's index tiles show every element true
// (lower/index_bounds.h): the test that is emitted, and the cases that must not get one
// (names that change, a runtime if around it, dtypes the two arms would not share).
#include <gtest/gtest.h>

#include "lowered_fixture.h"

namespace c2t::lower {
namespace {

const char* kHead = "import cuda.tile as ct\nConstInt = ct.Constant[int]\nConstBool = ct.Constant[bool]\n\n";

std::string lowered(const std::string& body) {
  auto l = testing::lower_src(std::string(kHead) + body);
  EXPECT_EQ(l->lm.kernels.size(), 1u);
  if (l->lm.kernels.empty()) return "";
  EXPECT_TRUE(l->lm.kernels[0].ok) << l->diags.render_all("t.py", body);
  return l->text;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A row walked in tiles: the mask `offs < n` is all true but on the last tile.
const char* kRowLoop = R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(ct.cdiv(n, T)):
        offs = ct.arange(T, dtype=ct.int32) + j * T
        x = ct.load(X, index=(j,), shape=(T,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
        x = ct.where(offs < n, x, -1.0)
        acc = acc + x
    ct.store(Y, index=(0,), tile=acc)
)";

TEST(IndexBounds, LastElementBelowTheLimitSkipsTheSelect) {
  std::string t = lowered(kRowLoop);
  // first + (T - 1), first <= last (no int32 wrap), and both arms x.
  EXPECT_TRUE(has(t, "mask_all_true = (T - 1 + j * T < n) & (j * T <= T - 1 + j * T)")) << t;
  EXPECT_TRUE(has(t, "x = x if mask_all_true else tl.where(offs < n, x, -1.0)")) << t;
}

TEST(IndexBounds, TwoAxesAndAConstexprIfEachSpecializationGetsItsTerms) {
  std::string t = lowered(R"(
@ct.kernel
def k(S, O, w: int, seq: int, TM: ConstInt, TN: ConstInt, CAUSAL: ConstBool):
    q0 = ct.bid(0) * TM
    offs_m = ct.expand_dims(ct.arange(TM, dtype=ct.int32) + q0, axis=1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for b in range(0, ct.cdiv(seq, TN)):
        offs_n = ct.arange(TN, dtype=ct.int32)[None, :] + b * TN
        s = ct.load(S, index=(0, b), shape=(TM, TN)).astype(ct.float32)
        mask = offs_n > (offs_m - w)
        if CAUSAL:
            mask = mask & (offs_n <= offs_m)
        s = ct.where(mask, s, ct.full((TM, TN), -1e30, dtype=ct.float32))
        acc = acc + s
    ct.store(O, index=(0, 0), tile=acc)
)");
  EXPECT_TRUE(has(t, "(b * TN > TM - 1 + q0 - w)")) << t;
  EXPECT_TRUE(has(t, "(TN - 1 + b * TN <= q0 if CAUSAL else True)")) << t;
  EXPECT_TRUE(has(t, "s = s if mask_all_true else tl.where(mask, s, ")) << t;
}

TEST(IndexBounds, ARuntimeIfInTheLoopKeepsThePlainSelect) {
  // The kernel already confines the mask to some iterations (TileGym's MLA: `if j >= mask_start`).
  std::string t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, start: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(ct.cdiv(n, T)):
        offs = ct.arange(T, dtype=ct.int32) + j * T
        x = ct.load(X, index=(j,), shape=(T,)).astype(ct.float32)
        if j >= start:
            x = ct.where(offs < n, x, -1.0)
        acc = acc + x
    ct.store(Y, index=(0,), tile=acc)
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
}

TEST(IndexBounds, OutsideLoopsNoTest) {
  std::string t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    offs = ct.arange(T, dtype=ct.int32) + ct.bid(0) * T
    x = ct.load(X, index=(ct.bid(0),), shape=(T,)).astype(ct.float32)
    ct.store(Y, index=(ct.bid(0),), tile=ct.where(offs < n, x, 0.0))
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
}

TEST(IndexBounds, NamesThatChangeAreNotUsed) {
  // `s` is bound twice: a test mentioning it could read the other value.
  std::string t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    s = 0
    for j in range(ct.cdiv(n, T)):
        offs = ct.arange(T, dtype=ct.int32) + s
        s = s + T
        x = ct.load(X, index=(j,), shape=(T,)).astype(ct.float32)
        acc = acc + ct.where(offs < n, x, -1.0)
    ct.store(Y, index=(0,), tile=acc)
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
  // A scalar parameter rebound once holds two values too.
  t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(4):
        offs = ct.arange(T, dtype=ct.int32) + j * T
        x = ct.load(X, index=(j,), shape=(T,)).astype(ct.float32)
        acc = acc + ct.where(offs < n, x, -1.0)
    n = n + 1
    ct.store(Y, index=(0,), tile=acc + n)
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
}

TEST(IndexBounds, ArmsOfDifferentDtypesAreLeftAlone) {
  // x's dtype is the array's (maybe an int one): a float literal y could make the select fp32.
  std::string t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(ct.cdiv(n, T)):
        offs = ct.arange(T, dtype=ct.int32) + j * T
        x = ct.load(X, index=(j,), shape=(T,))
        acc = acc + ct.where(offs < n, x, 0.0)
    ct.store(Y, index=(0,), tile=acc)
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
}

TEST(IndexBounds, ArmsTritonWouldTypeApartAreLeftAlone) {
  // x of a rank only Triton knows (constexpr branches of two ranks): the arms could differ in
  // rank. x loaded from an array (bool, perhaps) with an int literal y: the select could be int32.
  for (const char* body : {R"(
@ct.kernel
def k(Out, n: int, T: ConstInt, C: ConstBool):
    for j in range(1):
        if C:
            x = ct.full((T,), 1.0, dtype=ct.float32)
            y = ct.full((2, T), -1.0, dtype=ct.float32)
        else:
            x = ct.full((1, T), 1.0, dtype=ct.float32)
            y = ct.full((1, T), -1.0, dtype=ct.float32)
        r = ct.where(ct.arange(T, dtype=ct.int32) < n, x, y)
        ct.store(Out, index=(0, 0), tile=ct.reshape(r, (2, T)) if C else r)
)",
                           R"(
@ct.kernel
def k(X, Out, n: int, T: ConstInt):
    for j in range(2):
        x = ct.load(X, index=(j,), shape=(T,))
        ct.store(Out, index=(j,), tile=ct.where(ct.arange(T, dtype=ct.int32) + j * T < n, x, 0))
)"}) {
    std::string t = lowered(body);
    EXPECT_FALSE(has(t, "all_true")) << t;
  }
}

TEST(IndexBounds, ADimensionThatNamesARebindableValueGetsNoBounds) {
  // `a.shape[0]` is read where the test runs, after `a` was bound again.
  std::string t = lowered(R"(
@ct.kernel
def k(Out, n: int, T: ConstInt, C: ConstBool):
    for j in range(1):
        if C:
            a = ct.full((4 * T,), 1.0, dtype=ct.float32)
        else:
            a = ct.full((2 * T,), 1.0, dtype=ct.float32)
        offs = ct.arange(a.shape[0], dtype=ct.int32)
        a = ct.full((T,), 1.0, dtype=ct.float32)
        x = offs.astype(ct.float32) * 0.0 + 1.0
        ct.store(Out, index=(0,), tile=ct.reshape(ct.sum(ct.where(offs < n, x, -1.0)), (1,)))
)");
  EXPECT_FALSE(has(t, "all_true")) << t;
}

TEST(IndexBounds, AgainstAParameterThatMayBeUnsignedNoNegativeElement) {
  // Triton types an int argument of 2**63 or more as uint64: the tile's negative elements would
  // compare as the largest values. An index tile known not negative needs no such term.
  std::string t = lowered(R"(
@ct.kernel
def k(Out, u: int, T: ConstInt):
    for j in range(2):
        x = ct.full((T,), 1.0, dtype=ct.float32)
        offs = ct.arange(T, dtype=ct.int32) - 1
        ct.store(Out, index=(j,), tile=ct.where(offs < u, x, ct.full((T,), -1.0, dtype=ct.float32)))
        ct.store(Out, index=(j + 2,), tile=ct.where(ct.arange(T, dtype=ct.int32) + j * T < u, x, -1.0))
)");
  EXPECT_TRUE(has(t, "(T - 1 - 1 < u) & (-1 >= 0)")) << t;
  EXPECT_TRUE(has(t, "= (T - 1 + j * T < u) & (j * T <= T - 1 + j * T)\n")) << t;
}

TEST(IndexBounds, NarrowOrDecreasingIndexTilesGetNoBounds) {
  // s - arange runs downwards; an int16 scalar combines differently with a Python int.
  for (const char* expr : {"j * T - ct.arange(T, dtype=ct.int32)",
                           "ct.arange(T, dtype=ct.int32) + h",
                           "ct.arange(T, dtype=ct.int32) * 2 + j"}) {
    std::string t = lowered(std::string(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    for j in range(ct.cdiv(n, T)):
        h = ct.astype(j, ct.int16)
        offs = )") + expr + R"(
        x = ct.load(X, index=(j,), shape=(T,)).astype(ct.float32)
        acc = acc + ct.where(offs < n, x, -1.0)
    ct.store(Y, index=(0,), tile=acc)
)");
    EXPECT_FALSE(has(t, "all_true")) << expr << "\n" << t;
  }
}

TEST(IndexBounds, UnrolledCopiesDoNotShareFacts) {
  // Each ct.static_iter copy rebinds `s` and `offs`: the copy that uses `offs` before rebinding
  // it sees the previous copy's tile, whose facts mention a `s` rebound since.
  std::string t = lowered(R"(
@ct.kernel
def k(X, Y, n: int, T: ConstInt):
    acc = ct.zeros((T,), dtype=ct.float32)
    offs = ct.arange(T, dtype=ct.int32)
    for i in ct.static_iter((0, 1)):
        s = ct.bid(0) * T + i
        x = ct.load(X, index=(i,), shape=(T,)).astype(ct.float32)
        acc = acc + ct.where(offs < n, x, -1.0)
        offs = ct.arange(T, dtype=ct.int32) + s
    ct.store(Y, index=(0,), tile=acc)
)");
  // Every copy starts without facts for the names the body binds (the first too, conservatively):
  // no test, in particular none reading `s` after the second copy rebound it.
  EXPECT_FALSE(has(t, "+ s < n")) << t;
  EXPECT_FALSE(has(t, "all_true")) << t;
}

}  // namespace
}  // namespace c2t::lower
