// Lowerer: array parameters that are not one plain array -- lists of arrays
// (`As[g]`, `len(As)`) and arrays used with several ranks.
#include "lower/lowerer.h"

namespace c2t::lower {

using sema::VKind;
using syntax::Node;

LVal Lowerer::array_use_view(LVal v, const Node* use) {
  const ArrayVal& a = *v.array;
  auto it = a.use_ranks ? a.use_ranks->find(use) : decltype(a.use_ranks->end()){};
  bool shows_rank = a.use_ranks && it != a.use_ranks->end();
  // One rank (every use in a Constant branch, sema ParamKind::lower_ranks_allowed):
  // any use needs that rank.
  int r = shows_rank ? it->second : a.ranks.size() == 1 ? a.ranks[0] : -1;
  if (r == -1) {
    std::string rs;
    for (int r : a.ranks) rs += (rs.empty() ? "" : " and ") + std::to_string(r);
    unsupported(use, "array used with several ranks",
                "array '" + a.display + "' is used with ranks " + rs +
                    " (in branches a Constant selects), and this use does not show which rank it needs; use it "
                    "directly as the array of ct.load/ct.store/ct.gather/ct.scatter/ct.num_tiles, or only its "
                    ".dtype");
    return {};
  }
  v.node = use;
  if (r < 0) return v;  // `.dtype`: the same for every rank
  // The use is valid only in specializations where the array has rank r:
  // cuTile rejects the others when compiling them, Triton does so here (a
  // static_assert in a branch a constexpr removes is never evaluated).
  if (!in_conditional_expression())  // (an arm's statements run whichever arm is taken)
    emit(TStmt::expr(tl_call("static_assert",
                             {compare("==", name(a.ndim_param), lit_int(r)),
                              lit_str(a.display + " is used here as a " + std::to_string(r) + "-d array")})));
  auto view = std::make_shared<ArrayVal>(a);
  view->rank = r;
  view->shape.resize(r);
  view->strides.resize(r);
  view->ranks.clear();
  view->ndim_param.clear();
  view->use_ranks.reset();
  view->rank_view_of = view->kernel_param;  // still the parameter's memory (lower/k_major.h)
  view->kernel_param.clear();  // no TMA descriptor: it would be built for every rank
  v.array = view;
  v.info.rank = r;
  return v;
}

LVal Lowerer::array_rank_value(const ArrayVal& a, const Node* at) {
  if (a.ndim_param.empty()) return constant(sema::ConstValue::integer(a.rank), at);
  // Several ranks: the rank constexpr the launcher passes (tensor.dim()), so
  // `if len(A.shape) == 2:` is a branch Triton folds per specialization.
  LVal v;
  v.node = at;
  v.info.kind = VKind::Constexpr;
  v.info.dtype = sema::DType::concrete("int32");
  v.info.sign = sema::Sign::NonNeg;
  v.expr = name(a.ndim_param);
  return v;
}

LVal Lowerer::array_list_len(const LVal& list, const Node* at) {
  LVal v;
  v.node = at;
  v.info.kind = VKind::Scalar;
  v.info.dtype = sema::DType::concrete("int32");  // cuTile: the list length is an int32
  v.info.sign = sema::Sign::NonNeg;
  v.expr = list.list->length;
  return v;
}

LVal Lowerer::array_list_item(const LVal& list, const Node* index, const Node* at) {
  const ArrayListVal& l = *list.list;
  if (index->is("Slice")) {
    unsupported(at, "list slice", "slicing a list of arrays is not supported in tile code (cuTile indexes it only)");
    return {};
  }
  LVal idx = eval(index);
  if (!idx.ok()) return {};
  // cuTile: the index is an integer scalar or 0-d tile (ops.py getitem_list_impl).
  bool int_ok = (idx.info.kind == VKind::Scalar || idx.info.kind == VKind::Constexpr) && !idx.info.is_bool;
  if (idx.info.dtype.known() && idx.info.dtype.is_int() == std::optional<bool>(false)) int_ok = false;
  if (idx.info.cval && idx.info.cval->kind != sema::ConstValue::Kind::Int) int_ok = false;
  if (!int_ok) {
    error(index, "a list of arrays is indexed with an integer scalar in tile code");
    return {};
  }
  // Element g is words [g * W, (g + 1) * W) of the table, W = 1 + 2 * rank.
  TExprPtr base;
  if (idx.info.cval) {
    long long g = idx.info.cval->i;
    if (g < 0) {  // no wrap-around: cuTile reads the table at the index as given
      error(index, "a negative index into a list of arrays is out of bounds in cuTile (lists do not wrap around)");
      return {};
    }
    base = g == 0 ? l.table : binop("+", l.table, lit_int(g * l.words()));
  } else {
    base = binop("+", l.table, binop("*", idx.expr, lit_int(l.words())));
  }
  // Named after the assignment target when `x = As[g]` is the whole right-hand side.
  std::string hint = is_assign_rhs(at) ? name_hint(l.display + "_item") : l.display + "_item";
  auto words = bind(hint + "_words", base);
  auto word = [&](int k) { return tl_call("load", {k == 0 ? words : binop("+", words, lit_int(k))}); };
  auto a = std::make_shared<ArrayVal>();
  a->display = hint;
  a->rank = l.rank;
  a->int64_index = l.int64_index;
  a->list_param = l.kernel_param;
  // What the launcher found of every element's word k (ArrayListVal::facts, a constexpr: Triton
  // keeps one branch) is told to Triton: `tl.multiple_of(..., 16)`, and the literal 1 for a stride
  // of 1 (any dimension's: a list of transposed views is contiguous along its first).
  auto bit = [&](int k) { return binop("&", l.facts, lit_int(1LL << k)); };
  auto hinted = [&](const std::string& n, TExprPtr raw, int k) {
    auto r = bind(n + "_raw", raw);
    return bind(n, ifexp(bit(k), tl_call("multiple_of", {r, lit_int(16)}), r));
  };
  a->ptr = hinted(hint + "_ptr", method(word(0), "to", {attr(l.first, "dtype")}), 0);
  // Shapes and strides are stored as int64 and read at the list's index
  // dtype (int32 unless IndexedWithInt64), as cuTile does; the launcher
  // rejects int32 lists whose values do not fit.
  auto index_word = [&](int k) {
    return l.int64_index ? word(k) : method(word(k), "to", {tl_attr("int32")});
  };
  for (int k = 0; k < l.rank; ++k) a->shape.push_back(hinted(hint + "_shape_" + std::to_string(k), index_word(1 + k), 1 + k));
  for (int k = 0; k < l.rank; ++k) {
    // Stride k: 1 where every element's is (Triton then sees contiguous offsets along k), else a
    // multiple of 16 where every element's is.
    std::string n = hint + "_stride_" + std::to_string(k);
    int word = 1 + l.rank + k;
    auto r = bind(n + "_raw", index_word(word));
    auto multiple = ifexp(bit(word), tl_call("multiple_of", {r, lit_int(16)}), r);
    a->strides.push_back(bind(n, ifexp(bit(l.unit_stride_bit(k)), lit_int(1), multiple)));
  }
  a->dtype = list.info.dtype;
  LVal v;
  v.node = at;
  v.info.kind = VKind::Array;
  v.info.rank = a->rank;
  v.info.dtype = a->dtype;
  v.array = a;
  return v;
}

}  // namespace c2t::lower
