// Unit tests of the launchers of kernels with a list of arrays (the int64
// table of cuTile's ListConstraint layout, built and checked on the host)
// and with an array whose rank a Constant chooses (padded shape/stride slots
// plus the actual rank as a constexpr).
#include <gtest/gtest.h>

#include "host/launcher.h"
#include "lower/module_lowering.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t::host {
namespace {

std::string launcher_of(const std::string& src) {
  auto pr = syntax::parse(src, "m.py");
  EXPECT_TRUE(pr.ok());
  Diagnostics d;
  auto mi = sema::analyze_module(pr.tree.root, d);
  lower::LowerOptions lo;
  lower::ModuleLowering ml(mi, lo, d);
  auto lm = ml.run();
  EXPECT_FALSE(d.has_errors());
  if (lm.kernels.empty() || !lm.kernels[0].ok) return "";
  return launcher_source(lm.kernels[0]);
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(LauncherLists, TableLengthAndFirstArrayInKernelOrder) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(As, out, T: ct.Constant[int]):\n"
      "    for g in range(len(As)):\n"
      "        ct.store(out, index=(g, 0), tile=ct.load(As[g], index=(0, 0), shape=(T, T)))\n");
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(has(s, "    import torch\n")) << s;
  // all elements: one rank, dtype and device; int32 shapes/strides (cuTile's default index dtype)
  EXPECT_TRUE(has(s, "if not all(t.dim() == 2 and t.dtype == _c2t_As[0].dtype and t.device == _c2t_As[0].device"))
      << s;
  EXPECT_TRUE(has(s, "-2**31 <= v < 2**31")) << s;
  EXPECT_TRUE(has(s, "an empty list of arrays")) << s;
  // (pointer, shapes, strides) per element, as int64 on the elements' device
  EXPECT_TRUE(has(s, "_c2t_As_table = torch.tensor([v for t in _c2t_As for v in (t.data_ptr(), *t.shape, *t.stride())],"))
      << s;
  EXPECT_TRUE(has(s, "dtype=torch.int64, device=_c2t_As[0].device)")) << s;
  EXPECT_TRUE(has(s, "        _c2t_As_table, len(_c2t_As), _c2t_As[0],\n        out, out.shape[0]")) << s;
}

TEST(LauncherLists, RankChosenByAConstant) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(OUT, MODE: ct.Constant[int]):\n"
      "    if MODE == 0:\n"
      "        ct.store(OUT, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))\n"
      "    else:\n"
      "        ct.store(OUT, index=(0, 0, 0), tile=ct.zeros((4, 4, 4), dtype=ct.float32))\n");
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(has(s, "if OUT.dim() not in (1, 3):")) << s;
  EXPECT_TRUE(has(s, "OUT, *OUT.shape, *[1] * (3 - OUT.dim()), *OUT.stride(), *[0] * (3 - OUT.dim()), OUT.dim(),"))
      << s;
}

}  // namespace
}  // namespace c2t::host
