// Index bounds: what the converter knows about integer tiles built from ct.arange and about the
// comparison masks made of them, so that `ct.where(mask, x, y)` inside a loop skips its select
// on the iterations where every element of `mask` is true.
//
// Why: attention kernels mask the scores on every iteration (window edge, causal diagonal,
// sequence end) though only one or two key blocks per query block need it. cuTile's compiler
// makes that cheap; Triton computes and applies the 64 x 128 mask each time. On the H200,
// TileGym's SWA attention went from 0.68x to 0.87x of cuTile at 4096 tokens (0.67-0.75x to
// 0.76-0.94x over 512-16384 tokens) with the select behind such a test
// (benchmarks/gpu/swa_variants.py, BENCHMARKS.md "SWA attention's masks").
//
// Exactness: the test is a sufficient condition, computed from scalars exactly as the tile's
// first and last elements are (same operations, same operands, so the same dtypes and the same
// wrap-around), and the guarded form returns `x` itself only when every element of the mask is
// true, where tl.where would return `x` too. An index tile here is `ct.arange(n)` (int32, step
// 1) plus or minus stable scalars: its elements are first + i for i = 0..n-1 modulo the dtype's
// width, so its smallest and largest elements are its first and last unless the sum wrapped,
// which `first <= last` rules out (tested along with the comparison whenever a runtime value is
// involved); against a value Triton may type as uint64 (an int argument of 2**63 or more) the
// first element must also be >= 0 unless sign facts show it. The guarded form evaluates x in one
// arm, y and the mask in the other: it is emitted only where all three are pure expressions
// (pure_expr), so no effect is skipped or moved.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lower/triton_ast.h"

namespace c2t::lower {

class Lowerer;
struct LVal;

struct IndexFacts {
  // The Triton expression these facts describe: an LVal's facts count only while its `expr` is
  // this one (index_bounds::facts), so an operation that derives a new value by copying an LVal
  // and changing its expression (negation, a cast, a helper's result) drops them by itself.
  TExprPtr of;  // (held: an expression freed and another made at its address cannot take them)
  // An integer tile whose elements are first + i, i = 0 .. count - 1 (any layout): scalar
  // expressions of its first (`lo`) and last (`hi`) element. Null for a bool tile.
  TExprPtr lo, hi;
  bool runtime = false;  // lo/hi involve a runtime scalar (an int32 sum may wrap)
  long long offset = 0;  // while not runtime: the constants added so far (their sum must stay small)
  bool lo_nonneg = false;  // the first element is >= 0 (sign facts)
  bool maybe_unsigned = false;  // shifted by a scalar parameter Triton may type as uint64 (2**63 or more)
  // A bool tile: scalar conditions whose conjunction implies that every element is true (empty:
  // always, as for ct.full(shape, True)); nullopt when nothing is known.
  std::optional<std::vector<TExprPtr>> all_true;
};

namespace index_bounds {

/// The facts of `v` if they describe its current expression, else null.
const IndexFacts* facts(const LVal& v);

/// Attaches `f` (null: none) to `r`'s expression.
void attach(LVal& r, std::shared_ptr<IndexFacts> f);

/// `r` holds `x`'s elements (reshaped, expanded, broadcast, or `x` bound to a name): x's facts,
/// attached to r's expression.
void carry(LVal& r, const LVal& x);

/// `tl.arange(0, n)` as ct.arange(n) lowers it (int32, no start or step): first 0, last n - 1
/// (`last`); null when `last` is not a stable expression.
std::shared_ptr<IndexFacts> arange(const Lowerer& L, const TExprPtr& last);

/// A bool tile known to be all true (ct.full(shape, True)).
std::shared_ptr<IndexFacts> all_true();

/// The facts of `a op b` for op "add" or "sub" (null when unknown): an index tile plus or minus a
/// stable scalar, or a stable scalar plus an index tile.
std::shared_ptr<IndexFacts> shifted(const Lowerer& L, const std::string& op, const LVal& a, const LVal& b);

/// The facts of the tile comparison `a op b` (op "less", "less_equal", "greater",
/// "greater_equal"; null for others): each operand an index tile or a stable scalar, one a tile.
std::shared_ptr<IndexFacts> compared(const Lowerer& L, const std::string& op, const LVal& a, const LVal& b);

/// The facts of `a & b` of two bool tiles: every element of both true.
std::shared_ptr<IndexFacts> conjunction(const LVal& a, const LVal& b);

/// The facts of a name bound to `a` (its facts(), or null) on the `then` path of an `if` on the constexpr condition `cond`
/// and to `b` on the other: each bound or condition that differs becomes `x if cond else y`,
/// which Triton folds per specialization, visiting the arm taken only (so a name bound on one
/// path alone stays out of the other's code). Null when one side knows nothing.
std::shared_ptr<IndexFacts> merged_under(const TExprPtr& cond, const IndexFacts* a, const IndexFacts* b);

/// The scalar test that every element of `mask` is true (its conditions joined by `&`), or null.
TExprPtr all_true_test(const LVal& mask);

/// Whether evaluating `e` later, or not at all, changes nothing: names, literals, arithmetic,
/// comparisons and subscripts of those, tl.full / tl.zeros / tl.arange / tl.expand_dims of them.
/// The guarded form evaluates x in one arm and y and the mask in the other, where the statement has
/// them: it is emitted only when all three are such expressions (an effect of y would run only
/// when the test fails; bound before the statement, x or y would move past its earlier effects).
bool pure_expr(const TExprPtr& e);

}  // namespace index_bounds
}  // namespace c2t::lower
