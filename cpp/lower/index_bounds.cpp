#include "lower/index_bounds.h"

#include <cstdlib>
#include <utility>

#include "lower/lowerer.h"
#include "lower/ops_common.h"
#include "lower/value.h"

namespace c2t::lower::index_bounds {

using sema::VKind;

namespace {

// An operand as bounds: an index tile's facts, or a stable scalar as both of its bounds.
struct Bounds {
  TExprPtr lo, hi;
  bool runtime = false;
  bool tile = false;
  long long offset = 0;
  bool lo_nonneg = false;
  bool maybe_unsigned = false;
};

// Constants whose sum with an arange cannot reach 2**31 (a Triton tile has at most 2**20
// elements): with such constants only, the bounds are Python ints the tile's int32 elements equal.
constexpr long long kSmallConstant = 1LL << 30;

// A scalar whose dtype Triton combines with an int32 tile as with an int32 scalar: a constexpr,
// an int32 or int64 value, or a scalar kernel parameter (Triton types an int argument as int32,
// int64 or uint64, a float one as fp32). Not narrower ints: `python int + int16` stays int16 where
// `int32 tile + int16` is int32.
bool combines_as_tile_does(const Lowerer& L, const LVal& v) {
  if (v.info.kind == VKind::Constexpr) {  // an int: a float one compares with the tile in fp32, not float64
    if (v.info.cval) return v.info.cval->kind == sema::ConstValue::Kind::Int;
    return is_name(v.expr) && (L.is_int_constexpr(v.expr->text) || L.is_positive_constexpr(v.expr->text));
  }
  if (v.info.dtype.known()) return v.info.dtype.is("int32") || v.info.dtype.is("int64");
  return L.is_scalar_param(v.expr);  // (not annotated float: that dtype is known)
}

// Whether `e` computes the same value wherever in the function it is evaluated after its operands
// were bound: number literals, names bound once (Lowerer::stable_name), and arithmetic of those and
// of tl.program_id / tl.num_programs.
bool stable_expr(const Lowerer& L, const TExprPtr& e) {
  if (!e) return false;
  switch (e->kind) {
    case TExpr::Kind::Const:  // a number, not raw text (a composite tile dimension may name anything)
      return dim_kind(e->text) == DimKind::Literal;
    case TExpr::Kind::Name:
      return L.stable_name(e->text);
    case TExpr::Kind::BinOp:
    case TExpr::Kind::UnaryOp:
      for (auto& x : e->args)
        if (!stable_expr(L, x)) return false;
      return true;
    case TExpr::Kind::Call: {
      std::string fn = e->args.empty() ? "" : source(e->args[0]);
      if (fn != "tl.program_id" && fn != "tl.num_programs") return false;
      for (size_t k = 1; k < e->args.size(); ++k)
        if (e->args[k]->kind != TExpr::Kind::Const) return false;
      return e->kwargs.empty();
    }
    default:
      return false;
  }
}

std::optional<Bounds> bounds_of(const Lowerer& L, const LVal& v) {
  if (v.info.kind == VKind::Tile) {
    const IndexFacts* f = facts(v);
    if (!f || !f->lo) return std::nullopt;
    return Bounds{f->lo, f->hi, f->runtime, true, f->offset, f->lo_nonneg, f->maybe_unsigned};
  }
  if ((v.info.kind != VKind::Scalar && v.info.kind != VKind::Constexpr) || !v.expr || v.info.is_bool) return std::nullopt;
  if (!stable_expr(L, v.expr) || !combines_as_tile_does(L, v)) return std::nullopt;
  bool param = v.info.kind == VKind::Scalar && !v.info.dtype.known();  // an int argument: int32, int64 or uint64
  return Bounds{v.expr, v.expr, v.info.kind == VKind::Scalar, false, 0, ops::proven_nonneg(v), param};
}

bool small_constant(const LVal& v) {
  return v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Int && std::llabs(v.info.cval->i) < kSmallConstant;
}

// first/last + s (or s + first/last, s first), first/last - s.
TExprPtr shift(const TExprPtr& bound, const TExprPtr& s, bool sub, bool scalar_first) {
  if (is_const(bound, "0")) return sub ? unary("-", s) : s;
  if (sub) return binop("-", bound, s);
  return scalar_first ? binop("+", s, bound) : binop("+", bound, s);
}

void add_term(std::vector<TExprPtr>& terms, TExprPtr t) {
  std::string text = source(t);
  for (auto& x : terms)
    if (source(x) == text) return;
  terms.push_back(std::move(t));
}

}  // namespace

std::shared_ptr<IndexFacts> arange(const Lowerer& L, const TExprPtr& last) {
  if (!stable_expr(L, last)) return nullptr;
  auto f = std::make_shared<IndexFacts>();
  f->lo = lit_int(0);
  f->hi = last;
  f->lo_nonneg = true;
  return f;
}

std::shared_ptr<IndexFacts> all_true() {
  auto f = std::make_shared<IndexFacts>();
  f->all_true.emplace();
  return f;
}

std::shared_ptr<IndexFacts> shifted(const Lowerer& L, const std::string& op, const LVal& a, const LVal& b) {
  if (op != "add" && op != "sub") return nullptr;
  bool tile_first = a.info.kind == VKind::Tile;
  const LVal& t = tile_first ? a : b;
  const LVal& s = tile_first ? b : a;
  if (t.info.kind != VKind::Tile || s.info.kind == VKind::Tile) return nullptr;
  if (!tile_first && op == "sub") return nullptr;  // s - tile runs downwards
  auto tb = bounds_of(L, t), sb = bounds_of(L, s);
  if (!tb || !sb) return nullptr;
  // Before any runtime value joins, the bounds are Python ints: only small constants keep them
  // equal to the tile's int32 elements (a constexpr near 2**31 would wrap there, not here).
  long long offset = 0;
  if (!tb->runtime && !sb->runtime) {
    if (!small_constant(s)) return nullptr;
    offset = tb->offset + (op == "sub" ? -s.info.cval->i : s.info.cval->i);  // arange + 2**30 + 2**30 wraps
    if (std::llabs(offset) >= kSmallConstant) return nullptr;
  }
  // (A scalar parameter of no known dtype may be a float: (first + i) rounded is still ascending,
  // its ends computed alike, so the facts hold there too.)
  auto f = std::make_shared<IndexFacts>();
  bool sub = op == "sub";
  f->lo = shift(tb->lo, s.expr, sub, !tile_first);
  f->hi = shift(tb->hi, s.expr, sub, !tile_first);
  f->runtime = tb->runtime || sb->runtime;
  f->offset = offset;
  f->lo_nonneg = tb->lo_nonneg && !sub && sb->lo_nonneg;
  f->maybe_unsigned = tb->maybe_unsigned || sb->maybe_unsigned;
  return f;
}

std::shared_ptr<IndexFacts> compared(const Lowerer& L, const std::string& op, const LVal& a, const LVal& b) {
  if (op != "less" && op != "less_equal" && op != "greater" && op != "greater_equal") return nullptr;
  if (a.info.kind != VKind::Tile && b.info.kind != VKind::Tile) return nullptr;
  auto x = bounds_of(L, a), y = bounds_of(L, b);
  if (!x || !y) return nullptr;
  // Every element of x op y holds when it holds between x's extreme and y's opposite one.
  TExprPtr test;
  if (op == "less") test = compare("<", x->hi, y->lo);
  else if (op == "less_equal") test = compare("<=", x->hi, y->lo);
  else if (op == "greater") test = compare(">", x->lo, y->hi);
  else test = compare(">=", x->lo, y->hi);
  auto f = std::make_shared<IndexFacts>();
  f->all_true.emplace();
  add_term(*f->all_true, test);
  // ... and an index tile's extremes are its first and last elements: no wrap between them, and,
  // where the other operand may be uint64 (a scalar parameter of 2**63 or more, or a tile shifted
  // by one), no negative element, which would convert to the largest unsigned values.
  for (const Bounds* o : {&*x, &*y})
    if (o->tile && o->runtime) add_term(*f->all_true, compare("<=", o->lo, o->hi));
  for (const auto& [tile, other] : {std::pair{&*x, &*y}, std::pair{&*y, &*x}})
    if (tile->tile && other->maybe_unsigned && !tile->lo_nonneg) add_term(*f->all_true, compare(">=", tile->lo, lit_int(0)));
  return f;
}

std::shared_ptr<IndexFacts> conjunction(const LVal& a, const LVal& b) {
  const IndexFacts *fa = facts(a), *fb = facts(b);
  if (!fa || !fb || !fa->all_true || !fb->all_true) return nullptr;
  auto f = std::make_shared<IndexFacts>();
  f->all_true = *fa->all_true;
  for (auto& t : *fb->all_true) add_term(*f->all_true, t);
  return f;
}

std::shared_ptr<IndexFacts> merged_under(const TExprPtr& cond, const IndexFacts* a, const IndexFacts* b) {
  if (!a || !b || a->offset != b->offset || a->lo_nonneg != b->lo_nonneg || a->maybe_unsigned != b->maybe_unsigned || !a->lo != !b->lo || a->all_true.has_value() != b->all_true.has_value()) return nullptr;
  auto pick = [&](const TExprPtr& x, const TExprPtr& y) { return source(x) == source(y) ? x : ifexp(cond, x, y); };
  auto f = std::make_shared<IndexFacts>();
  if (a->lo) {
    f->lo = pick(a->lo, b->lo);
    f->hi = pick(a->hi, b->hi);
    f->runtime = a->runtime || b->runtime;
    f->offset = a->offset;
    f->lo_nonneg = a->lo_nonneg;
    f->maybe_unsigned = a->maybe_unsigned;
  }
  if (a->all_true) {
    auto has = [](const std::vector<TExprPtr>& terms, const TExprPtr& t) {
      std::string text = source(t);
      for (auto& x : terms)
        if (source(x) == text) return true;
      return false;
    };
    f->all_true.emplace();
    for (auto& t : *a->all_true) add_term(*f->all_true, has(*b->all_true, t) ? t : ifexp(cond, t, lit("True")));
    for (auto& t : *b->all_true)
      if (!has(*a->all_true, t)) add_term(*f->all_true, ifexp(cond, lit("True"), t));
  }
  return f;
}

TExprPtr all_true_test(const LVal& mask) {
  const IndexFacts* f = facts(mask);
  if (!f || !f->all_true || f->all_true->empty()) return nullptr;
  TExprPtr test;
  for (auto& t : *f->all_true) test = test ? binop("&", test, t) : t;
  return test;
}

const IndexFacts* facts(const LVal& v) {
  return v.index && v.expr && v.index->of == v.expr ? v.index.get() : nullptr;
}

void attach(LVal& r, std::shared_ptr<IndexFacts> f) {
  if (f && r.expr) f->of = r.expr;
  r.index = f && r.expr ? std::move(f) : nullptr;
}

void carry(LVal& r, const LVal& x) {
  const IndexFacts* f = facts(x);
  attach(r, f ? std::make_shared<IndexFacts>(*f) : nullptr);
}

bool pure_expr(const TExprPtr& e) {
  if (!e) return false;
  switch (e->kind) {
    case TExpr::Kind::Name:
    case TExpr::Kind::Const:
    case TExpr::Kind::Attr:
      return true;
    case TExpr::Kind::BinOp:
    case TExpr::Kind::UnaryOp:
    case TExpr::Kind::Compare:
    case TExpr::Kind::List:
    case TExpr::Kind::Tuple:
    case TExpr::Kind::Subscript:
    case TExpr::Kind::Slice:
      for (auto& x : e->args)
        if (!pure_expr(x)) return false;
      return true;
    case TExpr::Kind::Call: {
      std::string fn = e->args.empty() ? "" : source(e->args[0]);
      if (fn != "tl.full" && fn != "tl.zeros" && fn != "tl.arange" && fn != "tl.expand_dims") return false;
      for (size_t k = 1; k < e->args.size(); ++k)
        if (!pure_expr(e->args[k])) return false;
      return e->kwargs.empty();
    }
    default:
      return false;
  }
}

}  // namespace c2t::lower::index_bounds
