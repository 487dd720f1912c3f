// Building blocks shared by the op families (ops_*.cpp): value constructors,
// dtype rules (cuTile promotion vs Triton's), and the lowering of the Python
// operators, which several registry entries and the expression walker share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lower/lowerer.h"
#include "lower/value.h"

namespace c2t::lower {
class OpCall;
/// Resolves an `order=` argument ("C", "F" or a permutation tuple) for
/// rank n: tile axis k reads array axis order[k] (cuTile §2.3).
std::optional<std::vector<int>> order_arg(OpCall& c, int n);
}  // namespace c2t::lower

namespace c2t::lower::ops {

/// A runtime value: Tile when `shape` is non-empty, else Scalar.
LVal make_value(TExprPtr expr, sema::Shape shape, sema::DType dtype, sema::Sign sign = sema::Sign::Unknown);
/// The "no value" result of a statement-like operation (store, scatter...);
/// `stmt_expr` is emitted as an expression statement by the caller.
LVal make_none(TExprPtr stmt_expr);

/// Shape of a value as a tile (empty for scalars and constants).
sema::Shape shape_of(const LVal& v);
/// A tile shape as Triton's list of extents (`[TM, 64]`).
TExprPtr shape_list(const sema::Shape& s);
/// `e`, a tile of shape `from`, as shape `to` (row-major, the same element count): a vector made a row
/// or column, `e[None, :]` / `e[:, None]` (tl.expand_dims: the result keeps the parent's layout), else
/// tl.reshape (which Triton folds with the tl.reshape of a store's squeeze, access_plan.h; an
/// expand_dims it does not). Why: Triton 3.6 on sm_100a gave `tl.reshape(m, [1, N])` of a row reduction
/// of a tcgen05 accumulator a layout holding every element in every thread, and the tile broadcast
/// against it then held 2048 fp32 values per thread: flashinfer's paged decode kernel sat in LLVM for
/// minutes and sm_90a spilled (cutile2triton BENCHMARKS.md, s37).
TExprPtr reshaped(TExprPtr e, const sema::Shape& from, const sema::Shape& to);
/// `v` (a number, scalar or tile) as a tile of exactly `want` (cuTile's
/// broadcast_to: leading unit axes, then extents): a Python number becomes
/// tl.full of `elem`, a lower-rank tile gets None axes first (Triton's
/// tl.broadcast_to and its atomics need equal ranks); `v` itself when it has
/// the shape already or `want` is empty (a scalar target).
TExprPtr broadcast_value(Lowerer& L, const LVal& v, const sema::Shape& want, const sema::DType& elem);
bool is_number_like(const LVal& v);   // Scalar / Tile / Constexpr number
/// For the value a store writes: "" when it is number-like, else what it is instead, as the tail of
/// "<op> stores a tile or a scalar" (", not None (ct.printf and ct.store return None)", ", not an array").
std::string not_a_stored_value(const LVal& v);
bool is_loose(const LVal& v);         // compile-time number (cuTile "loosely typed constant")

/// Result dtype of a binary arithmetic operation under cuTile's promotion
/// rules (reference/cutile_api.md §2.4): loose constants adopt the other
/// operand's dtype when the category allows, else float32; concrete dtypes
/// follow the promotion table; unknown stays Dynamic (Triton agrees with
/// cuTile on every combination cuTile accepts, except where noted by callers).
sema::DType promote(const LVal& a, const LVal& b);

/// Python operators and their ct.* function forms. `op` is the registry name
/// ("add", "floordiv", "less", ...). `rounding` is a RoundingMode member
/// name ("APPROX") or "" for the default.
LVal binary(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at, const std::string& rounding = "");
LVal unary_arith(Lowerer& L, const std::string& op, LVal a, const syntax::Node* at);
LVal minmax(Lowerer& L, const std::string& op, LVal a, LVal b, bool propagate_nan, const syntax::Node* at);
LVal logical_not(Lowerer& L, LVal a, const syntax::Node* at);
LVal logical_andor(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at);
LVal compare_dtypes(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at);
LVal where(Lowerer& L, LVal c, LVal a, LVal b, const syntax::Node* at);

/// x.astype(dtype): numeric conversion (cuTile `astype`, §3.8).
LVal cast_to(Lowerer& L, LVal x, const sema::DType& to, const syntax::Node* at, const std::string& rounding = "");
/// Expression of `x` converted to dtype `to` for use as an operand (no
/// bookkeeping): literals stay literals, Scalars of kernel parameters use
/// tl.cast (an int argument equal to 1 is a constexpr in Triton, H9).
TExprPtr convert_expr(Lowerer& L, LVal& x, const std::string& triton_dtype);

/// `x[None, :]`-style subscripts on tiles (only new axes are allowed).
LVal newaxis_subscript(Lowerer& L, LVal base, const syntax::Node* slice, const syntax::Node* at);
/// `x @ y` / ct.matmul.
LVal matmul(Lowerer& L, LVal a, LVal b, const syntax::Node* at);

/// The RoundingMode member of a `rounding_mode=` argument ("" when None).
std::optional<std::string> rounding_arg(Lowerer& L, LVal& v, const syntax::Node* at);
/// True if the expression is provably >= 0 (sign analysis or literal).
bool proven_nonneg(const LVal& v);
/// A signed integer dtype narrower than 32 bits (int8, int16): its sums and products wrap at values
/// index arithmetic reaches, so they keep no sign fact (ops_arith.cpp, may_wrap).
bool narrow_int(const sema::DType& dt);

/// Gives each extent of tile `v` known only to Triton (empty text: a helper's result, branches that
/// disagree) the text that reads it back from the value (`t.shape[k]`, naming v.expr), for lowerings
/// that print extents (ct.cat's, ct.insert's, shape ops'; ops_shape.cpp).
void fill_extents(Lowerer& L, LVal& v);

// ---- axis arguments (reductions, scans, shape ops; ops_reduce.cpp) ----
/// A single axis argument `p` of a tile of rank `rank` given as an integer known at conversion time (a
/// literal, or a constant the converter folds to one): counted from 0, a negative one wrapped by the rank.
/// A diagnostic (at the argument) and nullopt when it is not such an integer or out of range.
std::optional<long long> axis_arg(OpCall& c, const std::string& p, int rank);
/// The same for one axis value `v` (an element of an axis tuple), reported at `at`.
std::optional<long long> axis_value(OpCall& c, LVal& v, const syntax::Node* at, int rank);
/// The axis argument `p` when it is a constexpr known only per specialization (`ct.sum(x, axis=AX)`,
/// AX a ct.Constant[int]; with `allow_tuple`, the one-element tuple `(AX,)` too, as sum/prod/max/min take
/// axis tuples): the expression Triton takes as its axis;
/// nullptr for any other argument. A
/// kernel parameter annotated other than ct.Constant[int] gets a diagnostic (`ok` false): it could be
/// None or a tuple at launch, which changes the result's rank.
TExprPtr constexpr_axis(OpCall& c, const std::string& p, bool& ok, bool allow_tuple = false);
/// A scan's `reverse` flag `p` as Triton takes it: True/False for a constant bool (nullptr when false,
/// Triton's default), or the constexpr's name for a ct.Constant parameter (`reverse=REVERSE`, cutile-python's
/// test_scan; the result's shape does not depend on it). A diagnostic and `ok` false otherwise.
TExprPtr scan_reverse_flag(OpCall& c, const std::string& p, bool& ok);
/// `axis`, wrapped when negative (`AX + rank if AX < 0 else AX`, static in Triton): Triton's interpreter
/// does not wrap tl.reduce's and tl.associative_scan's axes, compiled Triton does.
TExprPtr wrapped_axis(const TExprPtr& axis, int rank);
/// The shape of a reduction along constexpr `axis` of a tile of shape `in` whose extents print as `dims`
/// (Lowerer::dim_expr): each extent a Triton constexpr conditional on the axis, `AX % rank` counted from
/// 0 for any valid AX. Without keepdims extent k is the input's k before the axis and k + 1 from it on;
/// with keepdims extent k is 1 at the axis (sema::Dim::maybe_one).
sema::Shape shape_along_constexpr_axis(const sema::Shape& in, const std::vector<TExprPtr>& dims, const TExprPtr& axis,
                                       bool keep);

}  // namespace c2t::lower::ops
