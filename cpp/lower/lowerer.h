// Lowering of one cuTile function (a kernel or a helper specialization) to a
// Triton function (stage lower).
//
// The Lowerer walks the cuTile AST in program order, keeping an environment
// name -> LVal. Each expression becomes a Triton expression plus its sema
// facts (shape, dtype, sign, compile-time value); statements the lowering of
// an operation needs (offset and mask computations) are emitted before the
// statement being lowered. cuTile operations are looked up in the op
// registry (op_registry.h), one entry per operation.
//
// Compile-time folding happens here too: an `if` whose condition is known at
// conversion time (literals, module constants) lowers only the live branch,
// so names in dead code are never resolved (cuTile does not type-check dead
// constant branches; reference/cutile_api.md §1.11).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lower/footprint.h"
#include "lower/k_major.h"
#include "lower/loop_pipelining.h"
#include "lower/options.h"
#include "lower/report.h"
#include "lower/triton_ast.h"
#include "lower/value.h"
#include "sema/module_scope.h"
#include "sema/params.h"
#include "support/diagnostics.h"

namespace c2t::lower {

class ModuleLowering;

/// How a function is instantiated.
struct FunctionSpec {
  const syntax::Node* def = nullptr;
  std::string emitted_name;
  bool is_kernel = false;
  const sema::KernelInfo* kernel = nullptr;        // kernels
  std::vector<sema::ParamKind> kernel_params;      // kernels
  std::vector<LVal> helper_args;                   // helpers: the bound argument of each parameter
};

/// A device-side tensor descriptor a kernel creates when its USE_TMA flag is
/// set; the host launcher sets the flag only after checking the TMA
/// preconditions on the actual tensor (lower/tma.h).
struct TmaRequirement {
  std::string param;        // cuTile array parameter
  std::string desc;         // the descriptor's name in the kernel
  std::string inner_block;  // last block extent: an int literal or a constexpr parameter name
  bool nan_padding = false; // padding_option="nan": floating-point dtypes only
  /// Every access through it is a load whose order= moves the last axis (read in memory order and
  /// permuted): the parameter may still be copied K-major (lower/k_major.h), which then takes pointers.
  bool permuted_only = true;
};

struct LoweredFunction {
  TFunction fn;
  std::vector<TileFootprint> footprints;
  /// The footprints' dim texts (in the kernel's own code, not its helpers') outside branches of ifs
  /// on a Constant: dimensions every specialization's tiles have (the launcher checks them).
  std::vector<std::string> tile_dims;
  MemoryEffects effects;            // memory operations and tl.dot calls (loop_pipelining.h)
  std::vector<TmaRequirement> tma;  // kernels: descriptors behind the flag
  std::string tma_flag;             // kernels: name of the constexpr flag ("" = no TMA path)
  std::vector<KMajorUse> k_major;   // kernels: matrix-product operands loaded from parameters (k_major.h)
  LVal result;          // helpers: template of the returned value (exprs unused)
  bool has_result = false;
  bool ok = true;
};

class Lowerer {
 public:
  Lowerer(ModuleLowering& mod, FunctionSpec spec);
  LoweredFunction run();

  // ---- services used by op lowerings -------------------------------------
  /// Lowers an expression (cached per node is NOT done: call once per use).
  LVal eval(const syntax::Node* e);
  /// Appends a statement at the current insertion point.
  void emit(TStmt s);
  /// Whether an arm of a conditional expression (or a later operand of and/or) is being lowered:
  /// statements emitted now run whichever arm is taken, so checks that hold for one arm only
  /// (tl.static_assert) must not be emitted.
  bool in_conditional_expression() const { return conditional_expr_depth_ > 0; }
  /// Emits `<fresh name> = value` and returns the name.
  TExprPtr bind(const std::string& hint, TExprPtr value);
  /// Makes `v.expr` a plain name (binding it to a fresh temporary if needed).
  TExprPtr as_name(LVal& v, const std::string& hint);
  /// A name not used anywhere in the function being generated.
  std::string fresh(const std::string& hint);

  void error(const syntax::Node* at, const std::string& msg);
  /// The expression `n` as written in the source, when it fits on one line and in `max_len`
  /// bytes (for diagnostics that name the user's operands); `fallback` otherwise, or without source.
  std::string source_text(const syntax::Node* n, const std::string& fallback, size_t max_len = 24) const;
  void warn(const syntax::Node* at, const std::string& msg);
  /// An error for a construct or operation the converter does not support;
  /// also recorded in the analysis report.
  void unsupported(const syntax::Node* at, const std::string& what, const std::string& msg);
  bool failed() const { return failed_; }

  const sema::ModuleInfo& module() const;
  ModuleLowering& mod() { return mod_; }
  const LowerOptions& options() const;
  KernelReport& report();
  /// Requests a prelude helper (prelude.h) and returns its name.
  std::string prelude(const std::string& helper);
  /// Records that the kernel used cuTile operation `op` (for the report).
  void note_op(const std::string& op);
  /// Records a tile of `shape` for the launcher's num_warps choice (footprint.h).
  void note_footprint(const sema::Shape& shape, bool dot, const sema::Dim* depth = nullptr);
  /// Notes the operands of a possibly-fp8 tl.dot x @ y that are a kernel parameter's tile as loaded
  /// (LVal::origin): which array axes carry K and the other matrix dimension, and the other
  /// operand's (k_major.h).
  void note_k_major(const LVal& x, const LVal& y);
  /// (parameter, branch taken when it is true) for a constexpr-if condition that is a bare
  /// constexpr kernel parameter or its `not`; nullopt otherwise.
  std::optional<std::pair<std::string, bool>> constexpr_param_test(const TExprPtr& cond, bool then) const;
  /// The branches of ifs on a Constant being lowered, as constexpr_param_test gives them, into
  /// `out`; false when one is not a bare parameter (or its `not`).
  bool constexpr_branch_conds(std::vector<std::pair<std::string, bool>>& out) const;
  /// Adds a called helper's footprints in this function's texts (map_footprints).
  void add_footprints(const std::vector<TileFootprint>& fps, const std::map<std::string, std::string>& subst);
  /// Adds a called helper's memory operations and tl.dot calls (loop_pipelining.h).
  void add_helper_effects(const MemoryEffects& fx) {
    c2t::lower::add_helper_effects(effects_, fx, constexpr_branch_, runtime_ifs_);
  }
  /// Whether this function both loads and stores tiles of `array` (ct.load/ct.store or a tiled
  /// view's load/store), under its own name or another one (an in-place update: access_plan.h,
  /// `interior`).
  bool updated_in_place(const ArrayVal& array) const;
  /// Whether this function assigns `id` (a rebound parameter no longer holds its argument).
  bool rebound(const std::string& id) const;
  /// A tile extent as a footprint names it (a literal, a parameter, `p.shape[k]` of a tile
  /// parameter `p` in its source name); nullopt for anything else, or what this function rebinds.
  std::optional<std::string> footprint_dim(const std::string& e) const;
  /// The trip count of `range(stop)` / `range(0, stop)` as footprint texts
  /// (TileFootprint::trips): a name bound to no value in this function (a
  /// parameter), an int literal, ct.cdiv(a, b) of those, or a local bound once,
  /// at the function's top level, to one of these. nullopt otherwise.
  std::optional<LoopTrip> constexpr_trip(const syntax::Node* stop, int depth = 0) const;

  /// A compile-time constant as a value (Triton literal for numbers).
  LVal constant(const sema::ConstValue& c, const syntax::Node* at);
  /// Triton expression of a dtype. For DType::Dynamic, `like` (a value of
  /// that dtype) is bound to a name and `like.dtype` is used.
  TExprPtr dtype_expr(const sema::DType& dt, LVal* like = nullptr);
  /// Triton expression of one tile dimension of `v` (`v.shape[k]` when the
  /// dimension is only known to Triton).
  TExprPtr dim_expr(LVal& v, size_t k);
  /// An expression for a symbolic dimension text.
  static TExprPtr dim_to_expr(const sema::Dim& d);
  /// Converts a compile-time shape argument (int or tuple of ints / constexpr
  /// names) to dims; nullopt + diagnostic if it is not compile-time.
  std::optional<sema::Shape> shape_arg(LVal& v, const syntax::Node* at, const std::string& what);
  /// A compile-time integer argument (axis, ...).
  std::optional<long long> const_int(LVal& v, const syntax::Node* at, const std::string& what);
  /// The name of a constexpr parameter used as a tile dimension is positive.
  bool is_positive_constexpr(const std::string& name) const { return positive_constexprs_.count(name) > 0; }
  /// A kernel or helper parameter annotated ct.Constant[int] (an alias of it too): an int in every specialization.
  bool is_int_constexpr(const std::string& name) const { return int_constexpr_params_.count(name) > 0; }
  /// Whether `name` is one of the kernel's ct.Constant parameters (any annotation).
  bool is_constexpr_param(const std::string& name) const { return constexpr_params_.count(name) > 0; }
  bool is_kernel() const { return spec_.is_kernel; }
  /// Whether a loop body is being lowered (a runtime or unrolled loop).
  bool in_loop() const { return loop_depth_ > 0; }
  /// Whether a runtime `if` inside the innermost loop is being lowered (its condition may already
  /// confine what it guards to some iterations).
  bool in_runtime_if_of_loop() const { return runtime_ifs_ > ifs_at_loop_; }
  /// Whether the Triton name `id` holds one value from its binding on, wherever it is read: a
  /// parameter or temporary never assigned, a local bound once, or a loop variable bound by its
  /// loop alone (within one iteration). Index bounds (index_bounds.h) may mention only such names.
  bool stable_name(const std::string& id) const;
  /// True for a runtime scalar parameter of the function (Triton turns an int
  /// argument equal to 1 into a constexpr, so `.to()` on it fails: use tl.cast).
  bool is_scalar_param(const TExprPtr& e) const { return is_name(e) && scalar_params_.count(e->text) > 0; }
  const std::string& function_name() const { return spec_.emitted_name; }
  /// `id`, which a lambda or nested def of this function reads from outside it, in words for a
  /// diagnostic: "'x' of the enclosing function", or what module-level name or kernel constant it is.
  std::string captured_name_words(const std::string& id) const;

  /// A readable base name for temporaries of the expression being lowered
  /// (the assignment target when there is one), or `dflt`.
  std::string name_hint(const std::string& dflt) const { return hint_.empty() ? dflt : hint_; }
  /// True when `n` is the whole right-hand side of the assignment being
  /// lowered (so a value needs no temporary to stay readable).
  bool is_assign_rhs(const syntax::Node* n) const { return n && n == rhs_; }
  /// The permutation to fold into the ct.load call `load` (tile axis k of the
  /// result is tile axis perm[k] of the load as written), when the load's
  /// statement is `X = ct.load(...)` and the next one `X = ct.permute(X, perm)`
  /// (lower_block); the caller then applies it and the permute is not emitted.
  /// Why: the tile is loaded in the permuted order (pointer arithmetic) rather
  /// than loaded and permuted: on the H200, Triton 3.6 pipelined TileGym's bmm
  /// with transpose_a (a (1, K, M) tile permuted for tl.dot, 128x256 tiles,
  /// 8 warps, 3 stages) into wrong results; the folded load was right
  /// (BENCHMARKS.md, "A permuted load"). `rank` is the loaded tile's: axes
  /// of another length are not taken (the permute is lowered, and diagnosed).
  std::optional<std::vector<int>> take_load_permutation(const syntax::Node* load, size_t rank) {
    if (!fold_permute_ || fold_permute_->first != load || fold_permute_->second.size() != rank) return std::nullopt;
    fold_applied_ = true;
    return fold_permute_->second;
  }

  /// TMA (lower/tma.cpp): the descriptor for a tile access of `array` with
  /// block `block` (tile-axis order) through `order`, created once at the top
  /// of the kernel under the USE_TMA flag; nullptr (and the reason in *why)
  /// when the site must stay on the pointer path.
  TExprPtr tma_descriptor(const ArrayVal& array, const std::vector<int>& order, const sema::Shape& block,
                          const std::string& padding, std::string* why, bool permuted = false);
  /// The kernel's constexpr TMA flag (created with the first descriptor).
  TExprPtr tma_flag() const { return name(tma_flag_); }
  /// Redirects emit() into `block` until pop_block() (to build if/else bodies).
  void push_block(std::vector<TStmt>* block) { out_.push_back(block); }
  void pop_block() { out_.pop_back(); }

  /// Calls a helper function (plain `def` in the module) from tile code.
  LVal call_helper(const syntax::Node* call, const syntax::Node* def);

  // ---- array parameters beyond one plain array (array_params.cpp) --------
  /// `v` (an array used with several ranks, ArrayVal::ranks) as used at Name
  /// node `use`: a view of the rank that use shows (sema ParamKind::use_ranks),
  /// after a `tl.static_assert(<ndim constexpr> == rank)`; unchanged for a
  /// `.dtype` use. Error when the use shows no rank.
  LVal array_use_view(LVal v, const syntax::Node* use);
  /// `list[index]` of a list of arrays (cuTile ops.py getitem_list_impl): the
  /// element's pointer, shapes and strides loaded from the list's table;
  /// `index` is an integer scalar (runtime or constant >= 0). Out-of-range
  /// runtime indices are undefined behaviour, as in cuTile.
  LVal array_list_item(const LVal& list, const syntax::Node* index, const syntax::Node* at);
  /// The rank of an array (`len(A.shape)`, `A.ndim`): a constant, or the rank
  /// constexpr of an array used with several ranks.
  LVal array_rank_value(const ArrayVal& a, const syntax::Node* at);
  /// `len(list)`: the list's runtime length (int32 scalar).
  LVal array_list_len(const LVal& list, const syntax::Node* at);

 private:
  friend class StmtLowering;
  // statements
  void lower_block(const std::vector<const syntax::Node*>& stmts);
  std::optional<std::pair<const syntax::Node*, std::vector<int>>> load_then_permute(const syntax::Node* s,
                                                                                    const syntax::Node* next);
  void lower_stmt(const syntax::Node* s, const std::vector<const syntax::Node*>& rest, bool& stop);
  void lower_assign(const syntax::Node* s);
  void lower_aug_assign(const syntax::Node* s);
  void lower_if(const syntax::Node* s, const std::vector<const syntax::Node*>& rest, bool& consumed_rest);
  void check_loop_carried(const std::map<std::string, LVal>& before, const std::map<std::string, LVal>& after,
                          const syntax::Node* loop);
  void forget_one_branch_names(const syntax::Node* s, const std::set<std::string>& before_names,
                               const std::map<std::string, LVal>& then_env, const std::map<std::string, LVal>& else_env,
                               const std::vector<const syntax::Node*>& body,
                               const std::vector<const syntax::Node*>& orelse);
  void lower_for(const syntax::Node* s);
  void lower_while(const syntax::Node* s);
  void lower_return(const syntax::Node* s);
  void assign_target(const syntax::Node* target, LVal value, const syntax::Node* stmt);
  void bind_name(const std::string& id, LVal value, const syntax::Node* at);
  std::vector<TStmt> lower_nested(const std::vector<const syntax::Node*>& stmts);
  /// `constexpr_cond`: the condition when the paths are the branches of an `if` on a constexpr;
  /// `dtype_cond`: that condition bound to a name before the `if`, when a name's dtype differs
  /// between the branches: it then keeps both, chosen by it (sema::DType::select).
  void merge_envs(const std::map<std::string, LVal>& a, const std::map<std::string, LVal>& b,
                  const TExprPtr& constexpr_cond = nullptr, const TExprPtr& dtype_cond = nullptr);
  /// Names bound to different arrays on the two paths of an `if` (`X = As[0]`
  /// / `X = As[1]`, a slice along either axis chosen by a Constant): each
  /// differing pointer/shape/stride gets one fresh name assigned at the end of
  /// both branches, and both environments then hold that one array.
  void unify_branch_arrays(std::map<std::string, LVal>& a, std::map<std::string, LVal>& b,
                           std::vector<TStmt>& body_a, std::vector<TStmt>& body_b);
  void widen_loop_carried(const syntax::Node* loop);
  /// While a loop body is lowered: one more loop level, and the runtime ifs outside it
  /// (in_runtime_if_of_loop); restored on leaving, early returns included.
  struct LoopBodyScope {
    Lowerer& L;
    int ifs_outside;
    explicit LoopBodyScope(Lowerer& l) : L(l), ifs_outside(l.ifs_at_loop_) {
      ++L.loop_depth_;
      L.ifs_at_loop_ = L.runtime_ifs_;
    }
    ~LoopBodyScope() {
      --L.loop_depth_;
      L.ifs_at_loop_ = ifs_outside;
    }
    LoopBodyScope(const LoopBodyScope&) = delete;
    LoopBodyScope& operator=(const LoopBodyScope&) = delete;
  };
  /// Records `param` as an int constexpr (is_int_constexpr) when `annotation` is ct.Constant[int].
  void note_int_constexpr(const std::string& param, const syntax::Node* annotation);
  /// Emits the author's comments above and beside statement `s` (source_comments.h), each once.
  void emit_source_comments(const syntax::Node* s);
  /// Drops the index facts (index_bounds.h) of the names `loop`'s body assigns: at the top of an
  /// iteration they hold the previous one's values, which facts computed then may not describe.
  void forget_index_facts(const syntax::Node* loop);

  // expressions
  LVal eval_name(const syntax::Node* e);
  LVal eval_attribute(const syntax::Node* e);
  // A cuda.tile name (`q` without the module: "float32", "PaddingMode.ZERO", "exp") written at
  // `at`: its constant's value, else a reference to the operation. Used as a value, a name
  // cuda.tile lacks is an error here; `called`, the call reports it as an unknown operation.
  LVal cutile_value(const std::string& q, const syntax::Node* at, bool called);
  LVal eval_call(const syntax::Node* e);
  LVal eval_binop(const syntax::Node* e);
  LVal eval_unaryop(const syntax::Node* e);
  LVal eval_compare(const syntax::Node* e);
  /// ct.static_iter helpers (lowerer.cpp): the elements of an iterable known at conversion, binding a
  /// loop or comprehension target to one, and whether a loop body subscripts with its variable.
  std::optional<std::vector<LVal>> static_sequence(const syntax::Node* iterable);
  bool bind_static_target(const syntax::Node* target, const LVal& v);
  bool indexes_a_tuple(const std::vector<const syntax::Node*>& body, const std::string& var) const;
  LVal static_comprehension(const syntax::Node* comp);
  /// One call of a registry operation (`self`: the tile of a method call): bound, lowered, effects recorded.
  LVal lower_op(const OpEntry& entry, const std::string& name, const syntax::Node* call, const LVal* self);
  const std::pair<const std::string, sema::ModuleInfo::UserEnum>* user_enum_named(const syntax::Node* n) const;
  /// A runtime scalar or a compile-time number (tuple comparisons, eval_compare).
  bool is_scalar_like(const LVal& v) const;
  /// Element-wise `left == right` of two tuples of scalars, and-ed; with `any`, scalar `left` against
  /// each element of tuple `right`, or-ed (`a in (0, 2)`).
  LVal tuple_equal(const LVal& left, const LVal& right, bool any, const syntax::Node* e);
  LVal eval_boolop(const syntax::Node* e);
  LVal eval_ifexp(const syntax::Node* e);
  LVal eval_subscript(const syntax::Node* e);
  LVal eval_builtin_call(const std::string& fn, const syntax::Node* call);
  LVal attribute_of(LVal base, const std::string& attr, const syntax::Node* at);

  void prescan();
  /// The value of kernel parameter `p` (adding its Triton parameters).
  LVal kernel_param_value(const sema::ParamKind& p);
  /// A list-of-arrays parameter `pname` of the function being lowered, as the launcher or a caller
  /// passes it (ArrayListVal: table, length, first array, constexpr facts): adds the parameters,
  /// names them in `l`; returns the elements' dtype (the first array's).
  sema::DType add_list_params(ArrayListVal& l, const std::string& pname);
  void setup_kernel_params();
  void setup_helper_params();

  ModuleLowering& mod_;
  FunctionSpec spec_;
  TFunction fn_;
  std::map<std::string, LVal> env_;
  std::vector<std::vector<TStmt>*> out_;
  std::set<std::string, std::less<>> used_names_;  // (string_view lookups: no copy per Name node)
  std::map<std::string, int> fresh_counter_;
  std::map<std::string, int> assign_count_;   // how often each local is (re)bound
  std::map<std::string, int> for_target_count_;  // how many `for` loops bind each name
  std::set<std::string> positive_constexprs_;
  std::set<std::string> scalar_params_;
  std::vector<LVal> returns_;
  int loop_depth_ = 0;
  int ifs_at_loop_ = 0;  // runtime_ifs_ where the innermost loop's body began
  // Trip counts of the enclosing range loops (constexpr_trip; nullopt: not compile-time).
  std::vector<std::optional<LoopTrip>> loop_trips_;
  // Names whose assignment failed with a reported error: their uses are not
  // diagnosed again (lower_assign, eval_name).
  std::set<std::string> undiagnosed_names_;
  // Names a runtime `if` bound on one path only, and that `if` (forget_one_branch_names): reading
  // one before it is bound again is an error (eval_name).
  std::map<std::string, const syntax::Node*> one_branch_names_;
  // Expressions that evaluated to a float4_e2m1fn tile (kept as 4-bit codes in
  // uint8, ops_convert.cpp): only shape operations, ct.astype to fp4 and
  // ct.pack_to_bytes may consume them (check_fp4_use).
  std::set<const syntax::Node*> fp4_nodes_;
  bool check_fp4_use(const syntax::Node* e);
  std::vector<std::string> break_flags_;  // per enclosing loop: its break flag ("" = no break)
  std::string hint_;
  const syntax::Node* rhs_ = nullptr;
  std::optional<std::pair<const syntax::Node*, std::vector<int>>> fold_permute_;  // take_load_permutation
  bool fold_applied_ = false;
  bool failed_ = false;
  // TMA descriptors: creation statements (hoisted to the top of the kernel),
  // one per (array, block, padding) key, and what the launcher must check.
  std::string tma_flag_;
  std::vector<TStmt> tma_setup_;
  std::map<std::string, std::string> tma_desc_names_;
  std::vector<TmaRequirement> tma_reqs_;
  std::vector<TileFootprint> footprints_;
  std::vector<std::string> tile_dims_;  // LoweredFunction::tile_dims
  int constexpr_if_depth_ = 0;          // branches of ifs on a Constant being lowered
  int conditional_expr_depth_ = 0;      // arms of `x if c else y` / later operands of and/or being lowered
  MemoryEffects effects_;                     // for pipelining grid-stride loops (lower_for)
  std::set<std::string> pointer_params_;      // emitted pointer parameters (array bases)
  std::string prefetch_param_;                // constexpr stages of prefetching loops ("" = none)
  std::set<std::string> tile_loaded_, tile_stored_;  // names tile loads/stores start from (prescan)
  /// The pointer parameters the arrays in `v` (a tuple's too) are addressed from.
  void array_keys(const LVal& v, std::vector<std::string>& out) const;
  ConstexprBranches constexpr_branch_;        // the constexpr-if branches being lowered
  // The same branches' conditions as (constexpr parameter, branch taken when true), nullopt for a
  // condition that is not a bare parameter or its `not` (KMajorUse::conds).
  std::vector<std::optional<std::pair<std::string, bool>>> k_major_conds_;
  std::vector<KMajorUse> k_major_;
  int constexpr_ifs_ = 0;                     // ids for them
  int runtime_ifs_ = 0;                       // runtime `if` branches being lowered
  // ct.static_iter bodies being lowered: a constexpr `if` there may test the
  // unrolled loop's variable, so both its branches run in one specialization.
  int static_iter_depth_ = 0;
  std::set<std::string> constexpr_params_;
  std::set<std::string> int_constexpr_params_;  // annotated ct.Constant[int] (note_int_constexpr)
  std::set<int> comment_lines_;  // source comments emitted (emit_source_comments): a body lowered twice keeps one copy
  std::map<std::string, std::string> tile_param_alias_;  // emitted name -> source name of a rebound tile parameter
};

}  // namespace c2t::lower
