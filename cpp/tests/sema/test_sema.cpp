// Unit tests of stage sema: module scope (imports, aliases, constants,
// kernels), constant folding and kernel parameter classification.
#include <gtest/gtest.h>

#include <cmath>

#include "sema/const_value.h"
#include "sema/dtype.h"
#include "sema/module_scope.h"
#include "sema/params.h"
#include "sema/types.h"
#include "syntax/parser.h"

namespace c2t::sema {
namespace {

struct Parsed {
  syntax::ParseResult pr;
  Diagnostics diags;
  ModuleInfo mi;
};

std::unique_ptr<Parsed> analyze(const std::string& src) {
  auto p = std::make_unique<Parsed>();
  p->pr = syntax::parse(src, "t.py");
  EXPECT_TRUE(p->pr.ok()) << p->pr.diags.render_all("t.py", src);
  if (p->pr.ok()) p->mi = analyze_module(p->pr.tree.root, p->diags);
  return p;
}

TEST(ModuleScope, ResolvesImportsAndAliases) {
  auto p = analyze(
      "import cuda.tile as ct\n"
      "from cuda.tile import RoundingMode as RMd, load\n"
      "import math, numpy as np\n"
      "RM2 = ct.RoundingMode\n");
  auto& mi = p->mi;
  EXPECT_TRUE(mi.ct_modules.count("ct"));
  EXPECT_EQ(mi.ct_names.at("RMd"), "RoundingMode");
  EXPECT_EQ(mi.ct_names.at("load"), "load");
  EXPECT_EQ(mi.ct_names.at("RM2"), "RoundingMode");
  EXPECT_TRUE(mi.math_modules.count("math"));
  EXPECT_TRUE(mi.numpy_modules.count("np"));
  EXPECT_EQ(mi.cutile_imports.size(), 2u);
}

TEST(ModuleScope, FoldsModuleConstants) {
  auto p = analyze(
      "import math\nimport cuda.tile as ct\n"
      "INV_LOG_2 = 1.0 / math.log(2)\n"
      "ConstInt = ct.Constant[int]\n"
      "PAD = ct.PaddingMode.ZERO\n"
      "BLOCK = 2 ** 7\n"
      "SHAPE = (BLOCK, 4)\n"
      "DT = ct.float16\n"
      "X = 1\nX = 2\n");
  auto& c = p->mi.constants;
  ASSERT_TRUE(c.count("INV_LOG_2"));
  EXPECT_DOUBLE_EQ(c.at("INV_LOG_2").f, 1.0 / std::log(2.0));
  EXPECT_EQ(c.at("ConstInt").kind, ConstValue::Kind::ConstantAnnotation);
  EXPECT_EQ(c.at("PAD").s, "PaddingMode.ZERO");
  EXPECT_EQ(c.at("BLOCK").i, 128);
  EXPECT_EQ(c.at("SHAPE").python(), "(128, 4)");
  EXPECT_EQ(c.at("DT").kind, ConstValue::Kind::DType);
  EXPECT_FALSE(c.count("X")) << "a rebound global is not a constant";
  EXPECT_TRUE(p->mi.assigned_more_than_once.count("X"));
}

TEST(ModuleScope, FindsKernelsInAllForms) {
  auto p = analyze(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef a(x):\n    pass\n"
      "@ct.kernel(occupancy=2, num_ctas=ct.ByTarget(sm_100=2))\ndef b(x):\n    pass\n"
      "def c_impl(x):\n    pass\n"
      "c = ct.kernel(c_impl, occupancy=4)\n"
      "def helper(x):\n    pass\n");
  auto& ks = p->mi.kernels;
  ASSERT_EQ(ks.size(), 3u);
  EXPECT_EQ(ks[0].name, "a");
  EXPECT_EQ(ks[1].name, "b");
  EXPECT_TRUE(ks[1].options.count("occupancy"));
  EXPECT_TRUE(ks[1].options.count("num_ctas"));
  EXPECT_EQ(ks[2].name, "c");
  EXPECT_EQ(std::string(ks[2].def->str("name")), "c_impl");
  EXPECT_NE(ks[2].assign_stmt, nullptr);
  EXPECT_TRUE(p->mi.functions.count("helper"));
}

// A kernel defined inside a function (TileGym nvfp4_quantize.py's lru_cache
// factory) is a kernel; the factory's values its body reads are constants read
// at launch, its functions and names in the signature are diagnosed there.
TEST(ModuleScope, KernelInsideAFactory) {
  auto p = analyze(
      "import cuda.tile as ct\n"
      "N = 4\n"
      "def make(occupancy):\n"
      "    @ct.kernel(occupancy=occupancy)\n"
      "    def k(x):\n"
      "        ct.store(x, index=(0,), tile=ct.zeros((N,), dtype=ct.float32))\n"
      "    return k\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->diags.items[0].message;
  ASSERT_EQ(p->mi.kernels.size(), 1u);
  EXPECT_EQ(p->mi.kernels[0].name, "k");
  EXPECT_EQ(std::string(p->mi.kernels[0].factory->str("name")), "make");
  EXPECT_TRUE(p->mi.kernels[0].options.count("occupancy"));

  auto q = analyze(
      "import cuda.tile as ct\n"
      "def make(occupancy):\n"
      "    n = occupancy * 2\n"
      "    @ct.kernel\n"
      "    def k(x):\n"
      "        ct.store(x, index=(0,), tile=ct.zeros((n,), dtype=ct.float32))\n"
      "    return k\n");
  // A value of the factory read in the kernel's body: a constant at launch.
  ASSERT_FALSE(q->diags.has_errors()) << q->diags.items[0].message;
  ASSERT_EQ(q->mi.kernels.size(), 1u);
  ASSERT_EQ(q->mi.kernels[0].launch_constants.size(), 1u);
  EXPECT_EQ(q->mi.kernels[0].launch_constants[0]->str("id"), "n");
  EXPECT_EQ(q->mi.kernels[0].launch_constants[0]->lineno, 6);

  // A function of the factory, or a factory name in the kernel's signature: diagnosed at the name.
  struct Case { const char* kernel_text; int line, col; };
  for (auto [kernel_text, line, col] : {Case{"    def k(x):\n        ct.store(x, index=(0,), tile=f())\n", 8, 37},
                                        Case{"    def k(x, T: ct.Constant[int] = n):\n        pass\n", 7, 35}}) {
    auto r = analyze(std::string("import cuda.tile as ct\n"
                                 "def make(occupancy):\n"
                                 "    n = occupancy * 2\n"
                                 "    def f():\n"
                                 "        return ct.zeros((n,), dtype=ct.float32)\n"
                                 "    @ct.kernel\n") + kernel_text + "    return k\n");
    EXPECT_TRUE(r->mi.kernels.empty());
    ASSERT_TRUE(r->diags.has_errors());
    auto& d = r->diags.items[0];
    EXPECT_EQ(d.line, line);
    EXPECT_EQ(d.col, col);
    EXPECT_NE(d.message.find("kernel 'k' is defined inside function 'make' (a kernel factory) and reads '"),
              std::string::npos)
        << d.message;
  }
}

TEST(ModuleScope, RunTimeGlobalsAreLaunchConstants) {
  // Module-level names the module computes when it runs (cuTile: "a global object defined at the time of
  // compilation or launch"): read by a kernel's body, constants at launch; folded ones stay constants.
  auto p = analyze(
      "import os\nimport cuda.tile as ct\n"
      "B = int(os.environ.get('B', '64'))\n"
      "C = 3\n"
      "if os.environ.get('X'):\n    D = 1.0\nelse:\n    D = 2.0\n"
      "@ct.kernel\n"
      "def k(x, B2: ct.Constant[int]):\n"
      "    t = ct.load(x, index=(0,), shape=(B,)) * D + C\n"
      "    B = 5\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->diags.items[0].message;
  EXPECT_EQ(p->mi.runtime_globals, (std::set<std::string>{"B", "D"}));
  ASSERT_EQ(p->mi.kernels.size(), 1u);
  // `B` is the kernel's own local (bound in its body): not the global.
  ASSERT_EQ(p->mi.kernels[0].launch_constants.size(), 1u);
  EXPECT_EQ(p->mi.kernels[0].launch_constants[0]->str("id"), "D");
}

TEST(ModuleScope, ImportedValuesReadAsValuesAreLaunchConstants) {
  // `from M import name` binds what only the running module knows: read by a kernel's body as a value, a
  // constant at launch; called or an attribute's base, not (a function, class or module of another file).
  auto p = analyze(
      "import math as m\nimport cuda.tile as ct\nfrom operator import add\n"
      "from cfg import A, B as BB, F, Mod\nfrom . import D\nfrom cfg import *\n"
      "try:\n    from fast import E\nexcept ImportError:\n    E = 2\n"
      "@ct.kernel\n"
      "def k(x):\n"
      "    t: A = ct.load(x, index=(0,), shape=(16,)) * BB + D * E + m.pi\n"
      "    u = F(t) + Mod.X\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->diags.items[0].message;
  EXPECT_EQ(p->mi.imported_values,
            (std::map<std::string, std::string>{{"A", "cfg.A"}, {"BB", "cfg.B"}, {"D", ".D"}, {"E", "fast.E"},
                                                {"F", "cfg.F"}, {"Mod", "cfg.Mod"}}));
  EXPECT_EQ(p->mi.runtime_globals, (std::set<std::string>{"E"}));  // imported and assigned: either at launch
  ASSERT_EQ(p->mi.kernels.size(), 1u);
  std::vector<std::string> names;
  for (auto* n : p->mi.kernels[0].launch_constants) names.emplace_back(n->str("id"));
  EXPECT_EQ(names, (std::vector<std::string>{"BB", "D", "E"}));  // A annotates, F is called, Mod an attribute base
}

TEST(ConstEval, PythonSemantics) {
  auto p = analyze("A = -7 // 2\nB = -7 % 2\nC = 7 % -2\nD = -7.5 % 2\nE = (1, 2) + (3,)\nF = 3 if 2 > 1 else 4\n"
                   "G = 1 < 2 < 3\nH = min(4, 2, 9)\nI = float('-inf')\nJ = int(3.9)\n");
  auto& c = p->mi.constants;
  EXPECT_EQ(c.at("A").i, -4);
  EXPECT_EQ(c.at("B").i, 1);
  EXPECT_EQ(c.at("C").i, -1);
  EXPECT_DOUBLE_EQ(c.at("D").f, 0.5);
  EXPECT_EQ(c.at("E").python(), "(1, 2, 3)");
  EXPECT_EQ(c.at("F").i, 3);
  EXPECT_TRUE(c.at("G").b);
  EXPECT_EQ(c.at("H").i, 2);
  EXPECT_EQ(c.at("I").python(), "float('-inf')");
  EXPECT_EQ(c.at("J").i, 3);
}

TEST(ConstEval, FloatSpelling) {
  EXPECT_EQ(python_float(1.0), "1.0");
  EXPECT_EQ(python_float(0.1), "0.1");
  EXPECT_EQ(python_float(1e100), "1e+100");
  EXPECT_EQ(python_float(-2.5), "-2.5");
}

TEST(DTypes, PromotionFollowsCuTile) {
  auto* f16 = find_dtype("float16");
  auto* bf16 = find_dtype("bfloat16");
  auto* i32 = find_dtype("int32");
  auto* u32 = find_dtype("uint32");
  auto* i64 = find_dtype("int64");
  EXPECT_EQ(promote(f16, i32), f16);
  EXPECT_EQ(promote(i32, i64), i64);
  EXPECT_EQ(promote(f16, bf16), nullptr);
  EXPECT_EQ(promote(i32, u32), nullptr);
  EXPECT_EQ(promote(find_dtype("tfloat32"), find_dtype("float32")), nullptr);
  EXPECT_EQ(find_dtype("half"), f16);
  EXPECT_EQ(std::string(find_dtype("float8_e4m3fn")->triton), "tl.float8e4nv");
}

TEST(Types, BroadcastShapes) {
  Shape a{Dim::sym("M"), Dim::known(1)};
  Shape b{Dim::sym("N")};
  auto r = broadcast_shapes(a, b);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].expr, "M");
  EXPECT_EQ((*r)[1].expr, "N");
  EXPECT_FALSE(broadcast_shapes(Shape{Dim::known(4)}, Shape{Dim::known(8)}));
  EXPECT_TRUE(broadcast_shapes(Shape::unknown(), a)->unknown_rank);
}

// A keepdims reduction along a ct.Constant axis leaves an extent that is 1 in some specializations only
// (maybe_one): broadcasting takes the other operand's extent, symbolic or known, and of two such extents
// their max (the larger is the broadcast's in a valid program).
TEST(Types, BroadcastShapesWithExtentsThatMayBeOne) {
  Dim m0 = Dim::sym("(1 if (AX) % 2 == 0 else 4)"), m1 = Dim::sym("(1 if (1 - AX) % 2 == 0 else 4)");
  m0.maybe_one = m1.maybe_one = true;
  auto r = broadcast_shapes(Shape{m0, Dim::known(32)}, Shape{Dim::known(4), Dim::known(1)});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].value, 4);  // not m0, which is 1 when AX is 0
  EXPECT_EQ((*r)[1].value, 32);
  r = broadcast_shapes(Shape{Dim::sym("TM")}, Shape{m0});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].expr, "TM");
  EXPECT_FALSE((*r)[0].maybe_one);
  r = broadcast_shapes(Shape{m0}, Shape{Dim::known(1)});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].expr, m0.expr);  // 1 broadcasts to anything
  r = broadcast_shapes(Shape{m0}, Shape{m1});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].expr, "max(" + m0.expr + ", " + m1.expr + ")");
  EXPECT_TRUE((*r)[0].maybe_one);
  r = broadcast_shapes(Shape{m0}, Shape{m0});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0].expr, m0.expr);
  r = broadcast_shapes(Shape{Dim{}}, Shape{m0});  // unknown against maybe 1: read back from the result
  ASSERT_TRUE(r);
  EXPECT_TRUE((*r)[0].expr.empty());
  EXPECT_FALSE((*r)[0].value);
}

std::vector<ParamKind> params(const std::string& src, Diagnostics& d, std::map<std::string, int> ov = {}) {
  static std::vector<std::unique_ptr<Parsed>> keep;
  keep.push_back(analyze(src));
  auto& mi = keep.back()->mi;
  EXPECT_FALSE(mi.kernels.empty());
  return classify_kernel_params(mi, mi.kernels[0], ov, d);
}

TEST(Params, RanksFromUses) {
  Diagnostics d;
  auto ps = params(
      "import cuda.tile as ct\nConstInt = ct.Constant[int]\n"
      "def helper(B, i):\n    return ct.load(B, index=(i, 0, 0), shape=(1, 2, 4))\n"
      "@ct.kernel\ndef k(A, B, C, D, n, T: ConstInt, s: float):\n"
      "    offs = ct.arange(T, dtype=ct.int32)\n"
      "    t = ct.gather(A, offs)\n"
      "    u = helper(B, 0)\n"
      "    ct.store(C, index=(0, 0), tile=t)\n"
      "    m = ct.num_tiles(D, axis=0, shape=(4, 4, 4, 4))\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.items[0].message;
  ASSERT_EQ(ps.size(), 7u);
  EXPECT_EQ(ps[0].kind, ParamKind::Kind::Array);
  EXPECT_EQ(ps[0].rank, 1);
  EXPECT_EQ(ps[1].rank, 3) << "rank found through the helper";
  EXPECT_EQ(ps[2].rank, 2);
  EXPECT_EQ(ps[3].rank, 4);
  EXPECT_EQ(ps[4].kind, ParamKind::Kind::Scalar);
  EXPECT_EQ(ps[5].kind, ParamKind::Kind::Constexpr);
  EXPECT_EQ(ps[6].scalar_annotation, "float");
}

TEST(Params, UnknownRankNamesTheParameterAndTheFix) {
  Diagnostics d;
  params("import cuda.tile as ct\n@ct.kernel\ndef k(A, n):\n    m = A.shape[0] + n\n", d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_NE(d.items[0].message.find("'A'"), std::string::npos);
  EXPECT_NE(d.items[0].message.find("array_ranks"), std::string::npos);
  EXPECT_EQ(d.items[0].line, 3);
  Diagnostics d2;
  auto ps = params("import cuda.tile as ct\n@ct.kernel\ndef k(A, n):\n    m = A.shape[0] + n\n", d2, {{"k.A", 2}});
  EXPECT_FALSE(d2.has_errors());
  EXPECT_EQ(ps[0].rank, 2);
}

TEST(Params, ConflictingRanksAreAnError) {
  Diagnostics d;
  params("import cuda.tile as ct\n@ct.kernel\ndef k(A):\n    a = ct.load(A, index=(0,), shape=(4,))\n"
         "    b = ct.load(A, index=(0, 0), shape=(4, 4))\n", d);
  ASSERT_TRUE(d.has_errors());
  EXPECT_NE(d.items[0].message.find("different ranks"), std::string::npos);
}

}  // namespace
}  // namespace c2t::sema
