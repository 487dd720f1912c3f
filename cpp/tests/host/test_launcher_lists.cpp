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
  // The runtime's _c2t_array_list checks the elements (one rank, dtype and device; int32 shapes
  // and strides, cuTile's default index dtype) and makes the table and facts.
  EXPECT_TRUE(has(s, "    _c2t_As, _c2t_As_table, _c2t_As_facts = _c2t_array_list(\"As\", As, 2, int32=True)\n")) << s;
  EXPECT_TRUE(has(s, "        _c2t_As_table, len(_c2t_As), _c2t_As[0], _c2t_As_facts,\n"
                     "        out, out_shape_0, out_shape_1, out_stride_0")) << s;
}

// A fixed-rank array's extents and strides: one tensor call each, unpacked
// into locals named like the kernel's parameters (which also rejects another
// rank); inline where a parameter already has such a name.
TEST(LauncherLists, FixedRankArraysUnpackExtentsAndStrides) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, T: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(T, T)))\n");
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(has(s, "    try:\n        x_shape_0, x_shape_1 = x.shape\n        x_stride_0, x_stride_1 = x.stride()\n")) << s;
  // Another rank: a ValueError naming the ranks the kernel takes.
  EXPECT_TRUE(has(s, "    except ValueError:\n        raise ValueError(\"launch_k: the kernel takes arrays of rank x: 2, "
                     "out: 2; \"\n                         f\"got x: {x.dim()}, out: {out.dim()}\") from None\n")) << s;
  EXPECT_TRUE(has(s, "        x, x_shape_0, x_shape_1, x_stride_0, x_stride_1,\n"
                     "        out, out_shape_0, out_shape_1, out_stride_0, out_stride_1,\n")) << s;
  std::string taken = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, x_stride_1: ct.Constant[int]):\n"
      "    ct.store(x, index=(0, 0), tile=ct.zeros((x_stride_1, 4), dtype=ct.float32))\n");
  ASSERT_FALSE(taken.empty());
  EXPECT_FALSE(has(taken, "= x.shape\n")) << taken;
  EXPECT_TRUE(has(taken, "        x, x.shape[0], x.shape[1], x.stride(0), x.stride(1),\n        x_stride_1,\n")) << taken;
}

// A row walked in tiles (a loop over ct.cdiv(N, TILE) around a TILE-wide tile)
// sizes the warps by the row, not the tile; loops over a plain count (rows, time
// steps) and while loops do not.
TEST(LauncherLists, WarpsOfARowWalkedInTiles) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, N: ct.Constant[int], TILE: ct.Constant[int]):\n"
      "    num_tiles = ct.cdiv(N, TILE)\n"
      "    for j in range(0, num_tiles):\n"
      "        ct.store(out, index=(j,), tile=ct.load(x, index=(j,), shape=(TILE,)))\n");
  ASSERT_FALSE(s.empty());
  EXPECT_TRUE(has(s, "_c2t_num_warps(lambda: (), lambda: (TILE * triton.cdiv(N, TILE), TILE))")) << s;
  for (const char* loop : {"    for j in range(N):\n", "    for j in range(ct.cdiv(N, 16)):\n",
                           "    j = 0\n    while j < N:\n",
                           "    for r in range(ct.cdiv(N, TILE)):\n      for j in range(ct.cdiv(N, TILE)):\n"}) {
    std::string t = launcher_of(std::string("import cuda.tile as ct\n"
                                            "@ct.kernel\ndef k(x, out, N: ct.Constant[int], TILE: ct.Constant[int]):\n") +
                                loop + "        ct.store(out, index=(0,), tile=ct.load(x, index=(0,), shape=(TILE,)))\n");
    ASSERT_FALSE(t.empty()) << loop;
    EXPECT_TRUE(has(t, "_c2t_num_warps(lambda: (), lambda: (TILE,))")) << loop << t;
  }
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

// fp8 product operands (lower/k_major.h): the launcher hands each read-only operand parameter to
// the runtime's _c2t_k_major with its layouts, per constexpr branch, before the list tables are
// made (a copy is then what the table describes) and before the native launch.
TEST(LauncherLists, KMajorOperandsBeforeTablesAndNativeLaunch) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(As, Bs, Cs, T: ct.Constant[int], TB: ct.Constant[bool]):\n"
      "    for g in range(len(As)):\n"
      "        Ai = As[g]\n        Bi = Bs[g]\n        Ci = Cs[g]\n"
      "        a = ct.load(Ai, (0, 0), shape=(T, T))\n"
      "        if TB:\n            b = ct.transpose(ct.load(Bi, (0, 0), shape=(T, T)))\n"
      "        else:\n            b = ct.load(Bi, (0, 0), shape=(T, T))\n"
      "        ct.store(Ci, (0, 0), tile=ct.mma(a, b, ct.zeros((T, T), dtype=ct.float32)))\n");
  ASSERT_FALSE(s.empty());
  // Each layout names the product's other operand and its other axis (A's M rows for B).
  const std::string b = "    Bs = _c2t_k_major(Bs, ((1, 0, As, 0) if TB else None), ((0, 1, As, 0) if not TB else None))\n";
  EXPECT_TRUE(has(s, "    As = _c2t_k_major(As, (1, 0))\n")) << s;
  EXPECT_TRUE(has(s, b)) << s;
  EXPECT_FALSE(has(s, "Cs = _c2t_k_major")) << s;  // stored to
  ASSERT_NE(s.find("_c2t_array_list(\"Bs\""), std::string::npos) << s;
  ASSERT_NE(s.find("_c2t_run_native("), std::string::npos) << s;
  EXPECT_LT(s.find(b), s.find("_c2t_array_list(\"Bs\"")) << s;
  EXPECT_LT(s.find(b), s.find("_c2t_run_native(")) << s;
}

// A reused launch is one native call from the launcher (runtime _c2t_run_native): the launcher's
// own arguments with one expand code each (src/cutile2triton/_fast_launch.c), after the options
// and before any array is read; only where every parameter is one the native launch expands.
TEST(LauncherLists, NativeReuseTakesTheLaunchersArguments) {
  std::string s = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, HAVE: ct.Constant[int]):\n"
      "    if HAVE:\n"
      "        ct.store(x, index=(0, 0), tile=ct.zeros((4, 4), dtype=ct.float32))\n"
      "    ct.store(out, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))\n");
  ASSERT_FALSE(s.empty());
  // x: rank at most 2 (128 + 2), out: rank 1, HAVE: as is.
  const std::string call = "    native_args = (x, out, HAVE)\n"
                           "    if _c2t_run_native(k, grid, native_args, options, b\"\\x82\\x01\\x00\") is not None:\n"
                           "        return";
  EXPECT_TRUE(has(s, call)) << s;
  EXPECT_LT(s.find("options.pop(\"use_tma\", None)"), s.find(call)) << s;
  EXPECT_LT(s.find("options[\"num_warps\"] = "), s.find(call)) << s;
  EXPECT_LT(s.find(call), s.find("if x.dim() > 2:")) << s;
  // A kernel with a descriptor path: only on the pointer path chosen by default, its flag first.
  std::string t = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, T: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(T, T)))\n");
  ASSERT_FALSE(t.empty());
  // (The flag among the caller's options too: the launch itself raises, a keyword given twice.)
  EXPECT_TRUE(has(t, "    native_args = (x, out, T) if use_tma in (False, \"tuned\") and \"USE_TMA\" not in options else None\n"
                     "    if native_args is not None and _c2t_run_native(k, grid, native_args, "
                     "{\"USE_TMA\": False, **options}, b\"\\x02\\x02\\x00\") is not None:\n")) << t;
  // The same arguments go on to _c2t_run_kernel: a kernel with a tuning search's choices is launched
  // natively only for the exact shape of an earlier launch (runtime _c2t_run_native, _c2t_shape_key).
  EXPECT_TRUE(has(t, "        _c2t_shape=native_args,\n    )\n")) << t;
  std::string v = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(native_args, out, T: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(native_args, index=(0, 0), shape=(T, T)))\n");
  EXPECT_TRUE(has(v, "    native_args_ = (native_args, out, T) if ")) << v;
  EXPECT_TRUE(has(v, "        _c2t_shape=native_args_,\n")) << v;
  // A list of arrays: its table is made (or found) first, then goes as it is with its length, first
  // array and facts (runtime _c2t_array_list).
  std::string l = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(As, out, T: ct.Constant[int]):\n    for g in range(len(As)):\n"
      "        ct.store(out, index=(g, 0), tile=ct.load(As[g], index=(0, 0), shape=(T, T)))\n");
  const std::string list_call =
      "    native_args = (_c2t_As_table, len(_c2t_As), _c2t_As[0], _c2t_As_facts, out, T) if use_tma in (False, "
      "\"tuned\") and \"USE_TMA\" not in options else None\n"
      "    if native_args is not None and _c2t_run_native(k, grid, native_args, {\"USE_TMA\": False, **options}, "
      "b\"\\x00\\x00\\x00\\x00\\x02\\x00\") is not None:\n";
  EXPECT_TRUE(has(l, list_call)) << l;
  EXPECT_LT(l.find("_c2t_As, _c2t_As_table, _c2t_As_facts = _c2t_array_list("), l.find(list_call)) << l;
  // Parameters the launcher expands otherwise: no native call.
  for (const char* src : {
           "@ct.kernel\ndef k(OUT, MODE: ct.Constant[int]):\n    if MODE == 0:\n"
           "        ct.store(OUT, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))\n    else:\n"
           "        ct.store(OUT, index=(0, 0, 0), tile=ct.zeros((4, 4, 4), dtype=ct.float32))\n"}) {
    std::string u = launcher_of(std::string("import cuda.tile as ct\n") + src);
    ASSERT_FALSE(u.empty()) << src;
    EXPECT_FALSE(has(u, "_c2t_run_native")) << u;
  }
  // Ranks beyond what an expand code holds (64 here): no native call (and no code computed for them).
  for (int rank : {65, 300}) {
    std::string idx, shp;
    for (int d = 0; d < rank; ++d) idx += "0, ", shp += "1, ";
    std::string u = launcher_of("import cuda.tile as ct\n@ct.kernel\ndef k(x, y):\n    t = ct.load(x, index=(" + idx +
                                "), shape=(" + shp + "))\n    ct.store(y, index=(" + idx + "), tile=t)\n");
    ASSERT_FALSE(u.empty()) << rank;
    EXPECT_FALSE(has(u, "_c2t_run_native")) << rank;
  }
}

// The default path (use_tma="tuned": pointers) checks the descriptor preconditions only while a
// tuning search times the kernel or has chosen options for it, or where the runtime's spill step may
// choose descriptors (_c2t_spill_tma_open: a kernel with tl.dot at the launcher rule's warps), and
// then tells _c2t_run_kernel its flag's name (runtime kTune and kRunKernel, tests/test_tma_search.py,
// tests/test_spill_warps.py); an explicit use_tma=False never does. The local's name steps aside for a
// kernel parameter of that name.
TEST(LauncherLists, DefaultPointerPathOffersTheDescriptorPathToTheSearch) {
  std::string t = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, T: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(T, T)))\n");
  ASSERT_FALSE(t.empty());
  EXPECT_TRUE(has(t, "def launch_k(grid, x, out, T, use_tma=\"tuned\", **options):")) << t;
  EXPECT_TRUE(has(t, "    if use_tma == \"tuned\":  # pointers, or descriptors a tuning search or the spill step chose\n"
                     "        use_tma, use_tma_fits = False, _c2t_stage_probe is not None or k in _c2t_tuned_options or "
                     "_c2t_spill_tma_open(k, options)\n"
                     "    else:\n        use_tma_fits = use_tma is None\n    if use_tma_fits:\n")) << t;
  // Descriptors the launcher chose itself are marked, for _c2t_run_kernel's fallback to pointers.
  EXPECT_TRUE(has(t, "        if use_tma is None:\n            use_tma = use_tma_fits\n            if use_tma:\n"
                     "                options[\"_c2t_tma_auto\"] = \"USE_TMA\"\n    if use_tma:\n"))
      << t;
  EXPECT_TRUE(has(t, "        USE_TMA=use_tma,\n        **options,\n"
                     "        **({\"_c2t_tma\": \"USE_TMA\"} if use_tma_fits and not use_tma else {}),\n"
                     "        _c2t_shape=native_args,\n    )\n")) << t;
  std::string u = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(use_tma_fits, out, T: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(use_tma_fits, index=(0, 0), shape=(T, T)))\n");
  ASSERT_FALSE(u.empty());
  EXPECT_TRUE(has(u, "        use_tma_fits_ = use_tma is None\n")) << u;
  EXPECT_TRUE(has(u, "for t, inner, nan in ((use_tma_fits, T, False), (out, T, False))")) << u;
}

// Tile dimensions given as constexpr parameters are checked to be powers of two before the launch
// (after the native reuse), in the kernel's parameter order, under the launcher's local names.
TEST(LauncherLists, TileDimensionParametersAreChecked) {
  std::string t = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, grid: ct.Constant[int], T: ct.Constant[int], N: ct.Constant[int]):\n"
      "    ct.store(out, index=(0, 0), tile=ct.load(x, index=(0, 0), shape=(T, grid)) * N)\n");
  ASSERT_FALSE(t.empty());
  EXPECT_TRUE(has(t, "    _c2t_check_tile_dims(\"k\", (\"grid\", grid_), (\"T\", T))\n")) << t;
  EXPECT_LT(t.find("_c2t_run_native("), t.find("_c2t_check_tile_dims(")) << t;
  std::string u = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out):\n"
      "    ct.store(out, index=(0,), tile=ct.load(x, index=(0,), shape=(16,)))\n");
  EXPECT_FALSE(has(u, "_c2t_check_tile_dims")) << "literal shapes: checked when converting";
  // Tiles only in branches a Constant selects: another specialization may pass any value there
  // (cuTile and Triton compile only the branch taken).
  std::string v = launcher_of(
      "import cuda.tile as ct\n"
      "@ct.kernel\ndef k(x, out, MODE: ct.Constant[int], A: ct.Constant[int], B: ct.Constant[int], C: ct.Constant[int]):\n"
      "    if MODE == 0:\n"
      "        ct.store(out, index=(0,), tile=ct.load(x, index=(0,), shape=(A,)))\n"
      "    else:\n"
      "        ct.store(out, index=(0,), tile=ct.load(x, index=(0,), shape=(B,)))\n"
      "    ct.store(out, index=(0,), tile=ct.load(x, index=(0,), shape=(C,)))\n");
  ASSERT_FALSE(v.empty());
  EXPECT_TRUE(has(v, "    _c2t_check_tile_dims(\"k\", (\"C\", C))\n")) << v;
}

}  // namespace
}  // namespace c2t::host
