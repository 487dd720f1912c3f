// Which grid-stride loops may prefetch (lower/loop_pipelining.h): a prefetched
// load runs before the earlier iterations' stores, so a loop that reads what it
// writes, or synchronizes through atomics, must not.
#include <gtest/gtest.h>

#include "lower/loop_pipelining.h"

namespace c2t::lower {
namespace {

MemoryAccess load(std::vector<std::string> arrays, ConstexprBranches b = {}) {
  MemoryAccess a;
  a.arrays = std::move(arrays);
  a.load = true;
  a.branch = std::move(b);
  return a;
}

MemoryAccess store(std::vector<std::string> arrays, ConstexprBranches b = {}) {
  MemoryAccess a = load(std::move(arrays), std::move(b));
  a.load = false;
  a.write = true;
  return a;
}

TEST(LoopPipelining, LoadsOfOtherArraysThanTheStoredOnesPrefetch) {
  MemoryEffects fx{{load({"x_ptr"}), store({"out_ptr"})}, 0};
  EXPECT_TRUE(may_prefetch(fx, 0, 0));
}

TEST(LoopPipelining, NoLoadsOrAnMmaOrAnAtomicDoNot) {
  EXPECT_FALSE(may_prefetch(MemoryEffects{{store({"out_ptr"})}, 0}, 0, 0));
  EXPECT_FALSE(may_prefetch(MemoryEffects{{load({"x_ptr"})}, 1}, 0, 1));  // Triton pipelines tl.dot loops itself
  MemoryAccess atomic = store({"total_ptr"});
  atomic.atomic = true;
  EXPECT_FALSE(may_prefetch(MemoryEffects{{load({"x_ptr"}), atomic}, 0}, 0, 0));
}

TEST(LoopPipelining, ReadingWhatTheLoopWritesDoesNot) {
  EXPECT_FALSE(may_prefetch(MemoryEffects{{load({"acc_ptr"}), load({"x_ptr"}), store({"acc_ptr"})}, 0}, 0, 0));
  // An unknown array (a helper's) on either side could be the same one.
  EXPECT_FALSE(may_prefetch(MemoryEffects{{load({}), store({"out_ptr"})}, 0}, 0, 0));
  EXPECT_FALSE(may_prefetch(MemoryEffects{{load({"x_ptr"}), store({})}, 0}, 0, 0));
}

TEST(LoopPipelining, DifferentBranchesOfOneConstexprIfNeverMeet) {
  // if COMPUTE: store(stat) else: load(stat) -- as TileGym's persistent layer norm.
  MemoryEffects fx{{load({"x_ptr"}), store({"stat_ptr"}, {{1, true}}), load({"stat_ptr"}, {{1, false}}),
                    store({"out_ptr"})}, 0};
  EXPECT_TRUE(may_prefetch(fx, 0, 0));
  // The same branch, or branches of different ifs, may both run.
  fx.accesses[2].branch = {{1, true}};
  EXPECT_FALSE(may_prefetch(fx, 0, 0));
  fx.accesses[2].branch = {{2, false}};
  EXPECT_FALSE(may_prefetch(fx, 0, 0));
}

TEST(LoopPipelining, LoadsOnlyUnderARuntimeIfDoNotCount) {
  // `if row != skip: load ...` in the loop: Triton's pipeliner leaves such loads alone.
  MemoryAccess guarded = load({"x_ptr"});
  guarded.runtime_ifs = 1;
  EXPECT_FALSE(may_prefetch(MemoryEffects{{guarded, store({"out_ptr"})}, 0}, 0, 0, 0));
  // One load outside the if is enough; a loop that is itself under an if counts from there.
  EXPECT_TRUE(may_prefetch(MemoryEffects{{guarded, load({"w_ptr"}), store({"out_ptr"})}, 0}, 0, 0, 0));
  EXPECT_TRUE(may_prefetch(MemoryEffects{{guarded, store({"out_ptr"})}, 0}, 0, 0, 1));
}

TEST(LoopPipelining, OnlyTheLoopBodysAccessesCount) {
  // Before the loop (index < first): the kernel stored acc once; the loop only reads it.
  MemoryEffects fx{{store({"acc_ptr"}), load({"acc_ptr"}), store({"out_ptr"})}, 0};
  EXPECT_TRUE(may_prefetch(fx, 1, 0));
  EXPECT_FALSE(may_prefetch(fx, 0, 0));
}

TEST(LoopPipelining, HelperAccessesBecomeUnknownAtTheCallSitesBranch) {
  MemoryEffects helper{{load({"q_ptr"}, {{7, true}})}, 2, 1};
  MemoryEffects fx;
  add_helper_effects(fx, helper, {{1, false}}, 0);
  ASSERT_EQ(fx.accesses.size(), 1u);
  EXPECT_TRUE(fx.accesses[0].arrays.empty());
  EXPECT_EQ(fx.accesses[0].branch, (ConstexprBranches{{1, false}}));
  EXPECT_EQ(fx.dots, 2);
  EXPECT_EQ(fx.pipelined_loops, 1);  // a helper's K loop is the calling kernel's pipelined loop
}

TEST(LoopPipelining, ArraysAreKeyedByThePointerParametersTheirPointerMentions) {
  // A slice's pointer (x_ptr + offset) is x's; a name that is no pointer parameter is not a key.
  std::set<std::string> params{"x_ptr", "y_ptr"};
  auto sliced = binop("+", name("x_ptr"), binop("*", name("start"), name("x_stride_0")));
  EXPECT_EQ(pointer_params_in(sliced, params), (std::vector<std::string>{"x_ptr"}));
  EXPECT_TRUE(pointer_params_in(name("local_ptr"), params).empty());
}

}  // namespace
}  // namespace c2t::lower
