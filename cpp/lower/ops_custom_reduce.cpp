// ct.reduce / ct.scan with a user combine function (cuTile §3.9-3.10,
// _stub.py reduce/scan; usage: cutile-python test/test_reduction.py,
// test_scan.py).
//
//   ct.reduce(x, axis, func, identity, keepdims=False)
//     -> tl.reduce(x, axis, <func lifted>, keep_dims=...)
//   ct.scan(x, axis, func, identity, reverse=False)
//     -> tl.associative_scan(x, axis, <func lifted>, reverse=...)
//
// `x` is a tile or a tuple of tiles (broadcast to one shape: Triton needs
// equal shapes); `func` takes 2N 0-d values and returns N. It may be a lambda
// (lambda_lift.h) or a module-level function; either is lowered as a helper
// specialization whose parameters are 0-d values of the tiles' dtypes, i.e. a
// module-level @triton.jit function (what tl.reduce requires). `identity` is
// checked but not needed: Triton reduces and scans only real elements, and a
// true identity does not change a result.
//
// A lambda may capture runtime scalars of the enclosing function: Triton's
// combine function receives only the combined values, so each captured
// scalar becomes one more operand (broadcast to the tiles' shape) that the
// lifted function passes through (lambda_as_combine_def; exact, since every
// element of that operand is the captured value).
//
// Diagnosed like cuTile (reduction/scan body restrictions): loops, `if`
// statements and memory operations in the body; plus what is not lowered:
// captures that are not runtime scalars (tiles, compile-time values), nested
// `def`s, ct.* functions as `func`, combine results that are not 0-d or whose
// dtype differs from the input's.
#include <algorithm>
#include <map>
#include <set>

#include "lower/lambda_lift.h"
#include "lower/module_lowering.h"
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "sema/ast_util.h"

namespace c2t::lower {

namespace {

// cuTile calls with memory effects (rejected in reduction bodies by cuTile).
bool has_memory_effect(const std::string& q) {
  static const std::set<std::string> ops = {
      "load", "store", "gather", "scatter", "load_advanced_indexing", "store_advanced_indexing",
      "printf", "print", "assert_", "atomic_add", "atomic_and", "atomic_cas", "atomic_max",
      "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor"};
  return ops.count(q) > 0;
}

// The body restrictions of a combine function; false + diagnostic if broken.
bool check_body(OpCall& c, const syntax::Node* def, const std::string& what) {
  bool ok = true;
  for (auto* st : sema::nodes_of(def, "body")) {
    sema::walk(st, [&](const syntax::Node* n) {
      if (!ok) return false;
      if (n->is("For") || n->is("While") || n->is("AsyncFor")) {
        c.L.error(n, "loops inside a " + what + " combine function are not supported (cuTile rejects them too)");
        ok = false;
      } else if (n->is("If")) {
        c.L.error(n, "branching inside a " + what + " combine function is not supported (cuTile rejects it too; use "
                     "ct.where)");
        ok = false;
      } else if (n->is("FunctionDef") || n->is("Lambda")) {
        c.L.unsupported(n, "nested function", "functions nested in a " + what + " combine function are not supported");
        ok = false;
      } else if (n->is("Call")) {
        auto q = c.L.module().cutile_name(n->child("func"));
        if (q && has_memory_effect(*q)) {
          c.L.error(n, "operations with memory effects (ct." + *q + ") are not supported inside a " + what +
                           " combine function (cuTile rejects them too)");
          ok = false;
        }
      }
      return ok;
    });
  }
  return ok;
}

// Checks `identity`: a constant number, or a tuple of `n` constant numbers.
bool check_identity(OpCall& c, size_t n) {
  LVal& id = c.arg("identity");
  if (!id.ok()) return false;
  std::vector<LVal> items = id.info.kind == sema::VKind::Tuple ? id.elems : std::vector<LVal>{id};
  bool ok = items.size() == n || (n == 1 && id.info.kind != sema::VKind::Tuple);
  for (auto& it : items) ok = ok && it.info.cval && (it.info.cval->is_number() || it.info.cval->kind == sema::ConstValue::Kind::Bool);
  if (!ok)
    c.L.error(c.at("identity"), "identity must be " + std::string(n == 1 ? "a constant number" :
                                 "a tuple of " + std::to_string(n) + " constant numbers (one per tile)"));
  return ok;
}

// The combine function: its def node (a module-level function, or a lambda
// lifted with lambda_lift.h) and the runtime scalars a lambda captures from
// the enclosing function (passed as extra broadcast operands).
struct Combine {
  const syntax::Node* def = nullptr;
  std::vector<LVal> captured;
};

// Parameter count check: 2N values (cuTile: "the function takes 2N tiles").
bool check_arity(OpCall& c, const syntax::Node* def, size_t n, const std::string& what) {
  auto* a = def->child("args");
  size_t got = sema::nodes_of(a, "posonlyargs").size() + sema::nodes_of(a, "args").size();
  bool extras = a->child("vararg") || a->child("kwarg") || !sema::nodes_of(a, "kwonlyargs").empty() ||
                !sema::nodes_of(a, "defaults").empty();
  if (got == 2 * n && !extras) return true;
  size_t required = got - std::min(got, sema::nodes_of(a, "defaults").size());
  bool callable = required <= 2 * n && (got >= 2 * n || a->child("vararg"));  // as cuTile would call it
  if (!callable)
    c.L.error(c.at("func"), "the " + what + " combine function must take " + std::to_string(2 * n) +
                                " parameters (two values of each of the " + std::to_string(n) + " tiles), it takes " +
                                std::to_string(got));
  else
    c.L.unsupported(c.at("func"), what + " combine signature",
                    "cutile2triton converts " + what + " combine functions with exactly " + std::to_string(2 * n) +
                        " plain positional parameters: no defaults, *args, keyword-only parameters or **kwargs");
  return false;
}

std::optional<Combine> combine_def(OpCall& c, const std::string& what, size_t n) {
  LVal& f = c.arg("func");
  if (!f.ok()) return std::nullopt;
  if (f.info.kind == sema::VKind::Function && f.info.ref.rfind("<lambda", 0) == 0) {
    const syntax::Node* lambda = f.self->node;
    const syntax::Node* def = lambda_as_def(lambda);
    if (!check_arity(c, def, n, what) || !check_body(c, def, what)) return std::nullopt;
    Combine out;
    std::vector<std::string> names;
    for (auto* cap : captured_names(c.L.module(), def)) {
      std::string id(cap->str("id"));
      if (f.self->info.ref != c.L.function_name()) {  // the lambda was passed in from another function
        c.L.unsupported(cap, what + " capture",
                        "the " + what + " combine function captures '" + id + "' of the function that defines it, "
                        "which is not the one calling ct." + what + "; this is not supported");
        return std::nullopt;
      }
      LVal v = c.L.eval(cap);
      if (!v.ok()) return std::nullopt;
      if (v.info.kind != sema::VKind::Scalar) {
        c.L.unsupported(cap, what + " capture",
                        "the " + what + " combine function captures " + c.L.captured_name_words(id) + ", which "
                        "is not a runtime scalar; only runtime scalars can be captured (they become extra operands "
                        "of the Triton " + what + ")");
        return std::nullopt;
      }
      names.push_back(id);
      out.captured.push_back(v);
    }
    out.def = lambda_as_combine_def(lambda, n, names);
    return out;
  }
  if (f.info.kind == sema::VKind::Function && f.info.ref.rfind("<def", 0) == 0) {
    const syntax::Node* def = f.self->node;
    if (!check_arity(c, def, n, what) || !check_body(c, def, what)) return std::nullopt;
    if (auto* cap = first_capture(c.L.module(), def)) {
      c.L.unsupported(cap, what + " capture",
                      "the nested " + what + " combine function '" + std::string(def->str("name")) + "' reads " +
                          c.L.captured_name_words(std::string(cap->str("id"))) + "; write it as a lambda (lambdas "
                          "may capture runtime scalars) or pass the value in the tiles");
      return std::nullopt;
    }
    return Combine{def, {}};
  }
  if (f.info.kind == sema::VKind::Function) {
    auto it = c.L.module().functions.find(f.info.ref);
    if (it != c.L.module().functions.end() && !c.L.module().kernel_by_def(it->second)) {
      if (!check_arity(c, it->second, n, what) || !check_body(c, it->second, what)) return std::nullopt;
      return Combine{it->second, {}};
    }
  }
  if (f.info.kind == sema::VKind::CtFunc) {
    // Binary functions named by reference: operator.add (Python's operator
    // module) and cuTile's elementwise ct.add / ct.maximum ... become
    // `def _c2t_<name>(a, b): return <a op b>`.
    static const std::map<std::string, std::string> binops = {
        {"add", "a + b"}, {"sub", "a - b"}, {"mul", "a * b"}, {"truediv", "a / b"}, {"floordiv", "a // b"},
        {"mod", "a % b"}, {"pow", "a ** b"}, {"and_", "a & b"}, {"or_", "a | b"}, {"xor", "a ^ b"},
        {"lshift", "a << b"}, {"rshift", "a >> b"}};
    static const std::map<std::string, std::string> ct_binops = {
        {"add", "a + b"}, {"sub", "a - b"}, {"mul", "a * b"}, {"truediv", "a / b"}, {"floordiv", "a // b"},
        {"mod", "a % b"}, {"pow", "a ** b"}, {"bitwise_and", "a & b"}, {"bitwise_or", "a | b"},
        {"bitwise_xor", "a ^ b"}, {"bitwise_lshift", "a << b"}, {"bitwise_rshift", "a >> b"},
        {"maximum", "max"}, {"minimum", "min"}};
    const std::string& ref = f.info.ref;
    std::string expr, fname;
    if (ref.rfind("operator.", 0) == 0) {
      auto it = binops.find(ref.substr(9));
      if (it != binops.end()) expr = it->second, fname = "_c2t_operator_" + ref.substr(9);
    } else if (auto it = ct_binops.find(ref); it != ct_binops.end()) {
      expr = it->second, fname = "_c2t_ct_" + ref;
      if (expr == "max" || expr == "min") {  // ct.maximum / ct.minimum need the module's cuda.tile name
        const auto& mods = c.L.module().ct_modules;
        auto m = std::find_if(mods.begin(), mods.end(), [](const std::string& s) { return s.find('.') == std::string::npos; });
        expr = m == mods.end() ? "" : *m + "." + ref + "(a, b)";
      }
    }
    const syntax::Node* def = expr.empty() || n != 1 ? nullptr : binary_combine_def(fname, expr, c.at("func"));
    if (!def) {
      c.L.unsupported(c.at("func"), what + " function reference",
                      (ref.rfind("operator.", 0) == 0 ? ref : "ct." + ref) + " as a " + what +
                          " combine function is not supported" + (n != 1 ? " for tuples of tiles" : "") +
                          "; write `lambda a, b: ...` instead");
      return std::nullopt;
    }
    return Combine{def, {}};
  }
  c.L.error(c.at("func"), "the combine function of ct." + what + " must be a lambda or a module-level function");
  return std::nullopt;
}

LVal custom(OpCall& c, const std::string& what) {
  LVal& x = c.arg("x");
  if (!x.ok()) return {};
  bool multi = x.info.kind == sema::VKind::Tuple;
  std::vector<LVal> tiles = multi ? x.elems : std::vector<LVal>{x};
  if (tiles.empty()) {
    c.L.error(c.at("x"), "ct." + what + " needs at least one tile");
    return {};
  }
  sema::Shape shape;
  for (size_t k = 0; k < tiles.size(); ++k) {
    auto& t = tiles[k];
    if (t.info.kind != sema::VKind::Tile) {
      c.L.error(c.at("x"), "ct." + what + " takes a tile or a tuple of tiles");
      return {};
    }
    if (t.info.shape.unknown_rank) {
      c.L.unsupported(c.at("x"), what + " unknown rank",
                      "ct." + what + " of a tile whose rank is chosen by a constexpr is not supported");
      return {};
    }
    auto b = k == 0 ? std::optional<sema::Shape>(t.info.shape) : sema::broadcast_shapes(shape, t.info.shape);
    if (!b) {
      c.L.error(c.at("x"), "the tiles of ct." + what + " cannot be broadcast to one shape");
      return {};
    }
    shape = *b;
  }
  int rank = (int)shape.size();
  if (!c.has("axis") || c.arg("axis").info.kind == sema::VKind::None) {
    c.L.error(c.at("axis"), "ct." + what + " needs an integer constant axis");
    return {};
  }
  bool axis_ok = true;
  TExprPtr sym_axis = ops::constexpr_axis(c, "axis", axis_ok);  // a ct.Constant[int]: known per specialization
  if (!axis_ok) return {};
  long long ax = 0;
  if (!sym_axis) {
    auto axv = ops::axis_arg(c, "axis", rank);
    if (!axv) return {};
    ax = *axv;
  }
  const char* flag = what == "reduce" ? "keepdims" : "reverse";
  bool flag_on = false;
  TExprPtr reverse;  // a scan's reverse given by a ct.Constant (ops::scan_reverse_flag)
  if (what == "scan") {
    bool rev_ok = true;
    reverse = ops::scan_reverse_flag(c, flag, rev_ok);
    if (!rev_ok) return {};
  } else if (c.has(flag)) {
    LVal& v = c.arg(flag);
    if (!v.info.cval || v.info.cval->kind != sema::ConstValue::Kind::Bool) {
      if (v.ok()) c.L.error(c.at(flag), std::string(flag) + " must be a constant bool");
      return {};
    }
    flag_on = v.info.cval->b;
  }
  if (!check_identity(c, tiles.size())) return {};
  auto comb = combine_def(c, what, tiles.size());
  if (!comb) return {};
  const size_t n_cap = comb->captured.size();

  // Operands: broadcast to the common shape (Triton needs equal shapes).
  std::vector<TExprPtr> dims;
  for (auto& d : shape) {
    if (!d.value && d.expr.empty()) {
      c.L.unsupported(c.at("x"), what + " tuple shape", "the tiles of ct." + what + " need shapes known by name");
      return {};
    }
    dims.push_back(Lowerer::dim_to_expr(d));
  }
  auto same_shape = [&](const sema::Shape& a) {
    if (a.size() != shape.size()) return false;
    for (size_t k = 0; k < a.size(); ++k)
      if (!a[k].same(shape[k])) return false;
    return true;
  };
  std::vector<TExprPtr> operands;
  for (auto& t : tiles) {
    TExprPtr e = t.expr;
    if (!same_shape(t.info.shape)) {
      if ((int)t.info.shape.size() < rank) {
        std::vector<TExprPtr> padded(rank - t.info.shape.size(), lit_int(1));
        for (auto& d : t.info.shape) padded.push_back(Lowerer::dim_to_expr(d));
        e = tl_call("reshape", {e, list(padded)});
      }
      e = tl_call("broadcast_to", {e, list(dims)});
    }
    operands.push_back(e);
  }
  // A captured scalar may be a Python int on the GPU (an int argument equal
  // to 1 is specialized as a constexpr, H9), which tl.broadcast_to rejects;
  // tl.full takes both.
  for (auto& v : comb->captured) {
    TExprPtr dt = c.L.dtype_expr(v.info.dtype);
    operands.push_back(dt ? tl_call("full", {list(dims), v.expr, dt}) : tl_call("broadcast_to", {v.expr, list(dims)}));
  }

  // The combine function: a helper specialization over 0-d values (a then b).
  std::vector<LVal> args;
  std::string key = "combine:";  // shared by reduce and scan
  std::vector<LVal> values = tiles;
  values.insert(values.end(), comb->captured.begin(), comb->captured.end());
  for (int half = 0; half < 2; ++half)
    for (auto& t : values) {
      LVal s = ops::make_value(nullptr, {}, t.info.dtype);
      s.info.is_bool = t.info.is_bool;
      args.push_back(s);
      if (half == 0) key += (t.info.dtype.known() ? t.info.dtype.name : "?") + (t.info.is_bool ? "b" : "") + ";";
    }
  HelperInstance* inst =
      c.L.mod().instantiate_helper(comb->def, args, std::vector<bool>(args.size(), true), key, c.node);
  if (!inst) return {};
  bool tuple_out = multi || n_cap > 0;
  std::vector<LVal> results;
  if (inst->has_result) results = inst->result.info.kind == sema::VKind::Tuple && tuple_out
                                       ? inst->result.elems : std::vector<LVal>{inst->result};
  if (n_cap > 0 && results.size() == tiles.size() + n_cap) results.resize(tiles.size());
  bool ok = inst->has_result && results.size() == tiles.size();
  for (size_t k = 0; ok && k < results.size(); ++k) {
    auto& r = results[k];
    ok = r.info.kind == sema::VKind::Scalar || r.info.kind == sema::VKind::Constexpr;
    auto& want = tiles[k].info.dtype;
    if (ok && r.info.dtype.known() && want.known() && r.info.dtype.name != want.name) {
      c.L.error(c.at("func"), "the " + what + " combine function returns " + r.info.dtype.name + " for a " +
                                  want.name + " tile (its results must keep the tiles' dtypes)");
      return {};
    }
  }
  if (!ok) {
    c.L.error(c.at("func"), "the " + what + " combine function must return " +
                                (tiles.size() == 1 ? std::string("one 0-d value") :
                                 "a tuple of " + std::to_string(tiles.size()) + " 0-d values"));
    return {};
  }

  TExprPtr in = tuple_out ? tuple(operands) : operands[0];
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (flag_on) kw.push_back({"keep_dims", lit("True")});
  if (reverse) kw.push_back({"reverse", reverse});
  TExprPtr axis = sym_axis ? ops::wrapped_axis(sym_axis, rank) : lit_int(ax);
  TExprPtr e = tl_call(what == "reduce" ? "reduce" : "associative_scan", {in, axis, name(inst->emitted_name)}, kw);
  sema::Shape out = shape;
  if (what == "reduce" && sym_axis) {
    out = ops::shape_along_constexpr_axis(shape, dims, sym_axis, flag_on);
  } else if (what == "reduce") {
    if (flag_on) out[ax] = sema::Dim::known(1);
    else out.erase(out.begin() + ax);
  }
  auto value_of = [&](TExprPtr ex, const LVal& t) {
    LVal v = ops::make_value(ex, out, t.info.dtype);
    v.info.is_bool = t.info.is_bool;
    return v;
  };
  if (!tuple_out) return value_of(e, tiles[0]);
  if (!multi) return value_of(subscript(e, {lit_int(0)}), tiles[0]);
  TExprPtr r = c.L.bind(c.L.name_hint(what == "reduce" ? "red" : "scan"), e);
  std::vector<LVal> elems;
  for (size_t k = 0; k < tiles.size(); ++k) elems.push_back(value_of(subscript(r, {lit_int((long long)k)}), tiles[k]));
  return make_tuple(std::move(elems));
}

}  // namespace

void register_custom_reduce_ops(Registry& r) {
  r.add("reduce", "reduce", "x, /, axis, func, identity, *, keepdims=", [](OpCall& c) { return custom(c, "reduce"); },
        "tl.reduce(x, axis, combine, keep_dims=...) with the lambda / function lifted to a @triton.jit helper");
  r.add("scan", "scan", "x, /, axis, func, identity, *, reverse=", [](OpCall& c) { return custom(c, "scan"); },
        "tl.associative_scan(x, axis, combine, reverse=...) with the lambda / function lifted to a @triton.jit helper");
}

}  // namespace c2t::lower
