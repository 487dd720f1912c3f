// Software pipelining of grid-stride ("persistent") loops: which loops may be
// emitted as `tl.range(start, stop, step, num_stages=3)`.
//
// Why: Triton pipelines loads across loop iterations by default only in loops
// with a tl.dot; a loop without one prefetches the next iterations' loads
// (cp.async into shared memory) only when marked with num_stages (Triton's
// fused-softmax tutorial does this for its row loop). cuTile kernels that walk
// rows with `for r in range(ct.bid(0), n, ct.num_blocks(0))` were latency-bound
// without it: measured on an H200 (BENCHMARKS.md, "Grid-stride loops"), TileGym's
// softmax 4096x1024 bf16 10.9 -> 8.0 us, persistent layernorm 128000x256
// 69.8 -> 43.8 us, rows of 16384 unchanged; num_stages=2 gained nothing, 4 no
// more than 3.
//
// When it would be wrong: a prefetched load runs before the earlier
// iterations' stores, so a loop that loads an array it also stores to (an
// accumulator in global memory), or that synchronizes with other programs
// through atomics, keeps a plain range.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lower/triton_ast.h"

namespace c2t::lower {

class OpCall;
struct OpEntry;

/// One memory operation of tile code: the pointer parameters it addresses
/// (empty = unknown, e.g. inside a helper) and whether it loads or writes.
/// Constexpr-if branches an access lies in: (if id, then-branch?) from the
/// outermost in; accesses in different branches of one such `if` are never
/// both in one specialization (a kernel that stores Mean in one and gathers it
/// in the other still prefetches).
using ConstexprBranches = std::vector<std::pair<int, bool>>;

struct MemoryAccess {
  std::vector<std::string> arrays;
  ConstexprBranches branch;
  bool load = false;
  bool write = false;   // store, scatter, atomic
  bool atomic = false;  // an atomic, or a load/store with memory_order=
  int runtime_ifs = 0;  // runtime `if`s around it (Triton's pipeliner leaves loads under one alone)
};

/// What a stretch of tile code does that decides pipelining: its memory
/// operations and tl.dot count, appended in order (a loop reads its body's
/// stretch from the sizes before and after lowering it).
struct MemoryEffects {
  std::vector<MemoryAccess> accesses;
  int dots = 0;
  // Loops Triton software-pipelines (num_stages applies): a `for` over a range with a tl.dot in
  // its body, or a prefetching grid-stride loop. The runtime's tuning search tries more stages
  // for kernels that have one (host/runtime_tune.cpp, _c2t_exhaustive_search).
  int pipelined_loops = 0;
};

/// The pointer parameters (of `pointer_params`) that the pointer expression `ptr` mentions: the
/// arrays an access may touch.
std::vector<std::string> pointer_params_in(const TExprPtr& ptr, const std::set<std::string>& pointer_params);

/// Records the memory operation `entry` lowered at `c` (nothing for other
/// operations). `pointer_params`: the function's pointer parameter names; an
/// access is keyed by those its array's pointer expression mentions.
void record_memory_effect(MemoryEffects& fx, const OpCall& c, const OpEntry& entry,
                          const std::set<std::string>& pointer_params, const ConstexprBranches& branch,
                          int runtime_ifs);

/// Adds a called helper's effects at a call site in `branch`; its arrays
/// become unknown (one helper instance serves call sites with different arrays).
void add_helper_effects(MemoryEffects& fx, const MemoryEffects& helper, const ConstexprBranches& branch,
                        int runtime_ifs);

/// Whether a loop whose body did `body[first_access..]` with `dots` tl.dot
/// calls, inside `runtime_ifs` runtime `if`s itself, may prefetch: it has a load
/// outside any runtime `if` of its own (Triton does not pipeline the others: a
/// loop whose loads all sit under `if row != skip:` gets no async copy, sm_90
/// compile), no tl.dot (Triton pipelines those loops itself) and no atomic,
/// and writes no array it loads (nor any unknown array while loading) unless
/// the two are in different branches of a constexpr `if`.
bool may_prefetch(const MemoryEffects& body, size_t first_access, int dots, int runtime_ifs = 0);

/// Pipeline stages of a prefetching grid-stride loop (measured, see above): the
/// default of the kernel's constexpr parameter kPrefetchStagesParam, which the
/// runtime's shared-memory retry (host/runtime) lowers with num_stages, since
/// three buffers of a long row can exceed a block's shared memory.
constexpr int kGridStrideStages = 3;
constexpr const char* kPrefetchStagesParam = "C2T_PREFETCH_STAGES";

}  // namespace c2t::lower
