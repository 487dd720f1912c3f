// fp8 matrix-product operands the launcher may lay out K-major (lower/k_major.h): which
// parameters, which axes, under which constexpr branches; and that anything but reading keeps a
// parameter out.
#include <gtest/gtest.h>

#include "lower/k_major.h"
#include "lowered_fixture.h"

namespace c2t::lower {

void PrintTo(const KMajorUse& u, std::ostream* os) {  // gtest: readable mismatches
  *os << u.param << " k=" << u.k_axis << " other=" << u.other_axis << " known=" << u.known
      << " partner=" << u.partner << ":" << u.partner_axis;
  for (auto& [n, t] : u.conds) *os << (t ? " " : " not ") << n;
}

namespace {

const char* kHead = "import cuda.tile as ct\nConstInt = ct.Constant[int]\nConstBool = ct.Constant[bool]\n\n";

std::vector<KMajorUse> uses_of(const std::string& body) {
  auto l = testing::lower_src(std::string(kHead) + body);
  EXPECT_EQ(l->lm.kernels.size(), 1u);
  if (l->lm.kernels.empty()) return {};
  EXPECT_TRUE(l->lm.kernels[0].ok) << l->diags.render_all("t.py", body);
  return l->lm.kernels[0].k_major;
}

// `partner`: the product's other operand "NAME:axis" ("" for none).
KMajorUse use(const std::string& p, int k, int other, std::vector<std::pair<std::string, bool>> conds = {},
              const std::string& partner = "") {
  KMajorUse u;
  u.param = p;
  u.k_axis = k;
  u.other_axis = other;
  u.conds = std::move(conds);
  if (!partner.empty()) {
    u.partner = partner.substr(0, partner.find(':'));
    u.partner_axis = std::stoi(partner.substr(partner.find(':') + 1));
  }
  return u;
}

// TileGym's group_gemm in small: B's layout depends on a Constant, and the product comes after
// the if (the name holds either branch's tile).
const char* kGrouped = R"(
@ct.kernel
def gg(As, Bs, Cs, TM: ConstInt, TN: ConstInt, TK: ConstInt, TRANSPOSE_B: ConstBool):
    for g in range(len(As)):
        Ai = As[g]
        Bi = Bs[g]
        Ci = Cs[g]
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for kk in range(ct.num_tiles(Ai, 1, (TM, TK))):
            ta = ct.load(Ai, (0, kk), shape=(TM, TK))
            if TRANSPOSE_B:
                tb = ct.transpose(ct.load(Bi, (0, kk), shape=(TN, TK)))
            else:
                tb = ct.load(Bi, (kk, 0), shape=(TK, TN))
            acc = ct.mma(ta, tb, acc)
        ct.store(Ci, (0, 0), tile=ct.astype(acc, Ci.dtype))
)";

TEST(KMajor, ListOperandsWithTheirAxesAndBranches) {
  auto got = uses_of(kGrouped);
  // A's partner is B, whose N axis depends on the branch (none known); B's is A's M axis (0).
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], use("As", 1, 0));                                   // A (M x K): K along axis 1
  EXPECT_EQ(got[1], use("Bs", 1, 0, {{"TRANSPOSE_B", true}}, "As:0"));   // B (N x K), transposed
  EXPECT_EQ(got[2], use("Bs", 0, 1, {{"TRANSPOSE_B", false}}, "As:0"));  // B (K x N)
}

// The plain-array kernels below load with allow_tma=False: an array with a descriptor path is never
// copied (ArraysWithADescriptorPathAreNotCopied).
TEST(KMajor, ArraysOnlyReadAreCandidatesOthersAreNot) {
  const std::string mm = R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, 1, (TM, TK))):
        a = ct.load(A, (0, k), shape=(TM, TK), allow_tma=False).astype(A.dtype)
        b = ct.load(B, (k, 0), shape=(TK, TN), allow_tma=False)
        acc = ct.mma(a, b, acc)
    ct.store(C, (0, 0), tile=acc.astype(C.dtype))
)";
  auto got = uses_of(mm);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], use("A", 1, 0, {}, "B:1"));  // how often A is read: B's N
  EXPECT_EQ(got[1], use("B", 0, 1, {}, "A:0"));  // and B: A's M
  // B also stored to, aliased, handed to a helper or viewed: a copy could change the program.
  for (const char* extra : {"    ct.store(B, (0, 0), tile=b)\n", "    B2 = B\n", "    ct.store(C, (0, 0), tile=ct.load(B.slice(0, 0, 4), (0, 0), shape=(TK, TN)))\n"}) {
    auto u = uses_of(mm + std::string(extra));
    ASSERT_EQ(u.size(), 1u) << extra;
    EXPECT_EQ(u[0].param, "A") << extra;
  }
  // A product of non-fp8 tiles (an explicit cast to fp16) needs no layout.
  auto f16 = uses_of(R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    a = ct.load(A, (0, 0), shape=(TM, TK), allow_tma=False).astype(ct.float16)
    b = ct.load(B, (0, 0), shape=(TK, TN), allow_tma=False).astype(ct.float16)
    ct.store(C, (0, 0), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))
)");
  EXPECT_TRUE(f16.empty());
}

TEST(KMajor, BranchesOtherThanAParameterNeedOneLayout) {
  // Both branches of `if LAT >= 1` load B alike: one layout, whatever the branch.
  auto same = uses_of(R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt, LAT: ConstInt):
    if LAT >= 1:
        b = ct.load(B, (0, 0), shape=(TK, TN), latency=LAT, allow_tma=False)
    else:
        b = ct.load(B, (0, 0), shape=(TK, TN), allow_tma=False)
    a = ct.load(A, (0, 0), shape=(TM, TK), allow_tma=False)
    ct.store(C, (0, 0), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))
)");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[0], use("A", 1, 0, {}, "B:1"));
  EXPECT_EQ(same[1], use("B", 0, 1, {}, "A:0"));  // (B is used with one rank per branch: a view of it each)
  // Two layouts under a condition the launcher cannot evaluate: B is left as it is.
  auto mixed = uses_of(R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt, LAT: ConstInt):
    if LAT >= 1:
        b = ct.transpose(ct.load(B, (0, 0), shape=(TN, TK), allow_tma=False))
    else:
        b = ct.load(B, (0, 0), shape=(TK, TN), allow_tma=False)
    a = ct.load(A, (0, 0), shape=(TM, TK), allow_tma=False)
    ct.store(C, (0, 0), tile=ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float32)))
)");
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].param, "A");
}

TEST(KMajor, TransposedFirstOperandKeepsItsAxes) {
  // ct.mma(ct.transpose(a), b) is emitted as tl.trans(tl.dot(tl.trans(b), a)) (ops_mma.cpp
  // transposed_a_dot): the operands' axes are swapped with them. A (K x M), B (K x N): K is axis 0 of both.
  auto got = uses_of(R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    a = ct.load(A, (0, 0), shape=(TK, TM), allow_tma=False)
    b = ct.load(B, (0, 0), shape=(TK, TN), allow_tma=False)
    ct.store(C, (0, 0), tile=ct.mma(ct.transpose(a), b, ct.zeros((TM, TN), dtype=ct.float32)))
)");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], use("B", 0, 1, {}, "A:1"));
  EXPECT_EQ(got[1], use("A", 0, 1, {}, "B:1"));
}

TEST(KMajor, ArraysWithADescriptorPathAreNotCopied) {
  // A TMA descriptor takes the last stride as 1: a K-major copy of B (K x N) has not.
  auto got = uses_of(R"(
@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.num_tiles(A, 1, (TM, TK))):
        a = ct.load(A, (0, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, (k, 0), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, (0, 0), tile=acc)
)");
  EXPECT_TRUE(got.empty()) << got.size();
}

TEST(KMajor, ListElementsBoundOtherwiseKeepTheListOut) {
  std::string g = kGrouped;
  // An element stored to, or a name bound to an element and to something else.
  for (const char* extra : {"        ct.store(Bi, (0, 0), tile=acc)\n", "        Bi = Cs[g]\n"}) {
    auto u = uses_of(g + extra);
    ASSERT_EQ(u.size(), 1u) << extra;
    EXPECT_EQ(u[0].param, "As") << extra;
  }
  // An element read without a name of its own.
  auto u = uses_of(g + "    ct.store(Cs[0], (0, 0), tile=ct.load(Bs[0], (0, 0), shape=(TM, TN)))\n");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].param, "As");
}

}  // namespace
}  // namespace c2t::lower
