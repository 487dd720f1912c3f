// Lowerer: expressions.
#include <cmath>
#include <map>

#include "lower/cutile_names.h"
#include "lower/lambda_lift.h"
#include "lower/lowerer.h"
#include "lower/module_lowering.h"
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "support/suggest.h"
#include "sema/ast_util.h"

namespace c2t::lower {

using sema::nodes_of;
using sema::VKind;
using syntax::Node;

namespace {

// A cuda.tile name used as a value that cuda.tile does not have (ct.float33, ct.PaddingMode.ZEROS):
// said where it is written, with what was probably meant, instead of later as "expected a dtype" or
// "padding_mode must be a ct.PaddingMode member". Real names lowered elsewhere pass.
bool reject_unknown_cutile_name(Lowerer& L, const std::string& q, const Node* at) {
  auto dot = q.find('.');
  if (dot == std::string::npos) {
    if (is_cutile_public_name(q)) return false;
    L.error(at, "ct." + q + " is not a cuTile name (cuda.tile has no such name)" +
                    did_you_mean(q, cutile_public_names(), "ct."));
    return true;
  }
  std::string head = q.substr(0, dot), member = q.substr(dot + 1);
  auto members = sema::ModuleInfo::enum_members(head);
  if (members.empty()) return false;
  std::string all;
  for (auto m : members) all += (all.empty() ? "" : ", ") + std::string(m);
  L.error(at, "ct." + head + " has no member " + member + did_you_mean(member, members, "") + " (its members: " +
                  all + ")");
  return true;
}

const char* binop_entry(std::string_view op) {
  if (op == "Add") return "add";
  if (op == "Sub") return "sub";
  if (op == "Mult") return "mul";
  if (op == "Div") return "truediv";
  if (op == "FloorDiv") return "floordiv";
  if (op == "Mod") return "mod";
  if (op == "Pow") return "pow";
  if (op == "BitAnd") return "bitwise_and";
  if (op == "BitOr") return "bitwise_or";
  if (op == "BitXor") return "bitwise_xor";
  if (op == "LShift") return "bitwise_lshift";
  if (op == "RShift") return "bitwise_rshift";
  if (op == "MatMult") return "matmul";
  return nullptr;
}

const char* compare_entry(std::string_view op) {
  if (op == "Lt") return "less";
  if (op == "LtE") return "less_equal";
  if (op == "Gt") return "greater";
  if (op == "GtE") return "greater_equal";
  if (op == "Eq") return "equal";
  if (op == "NotEq") return "not_equal";
  return nullptr;
}

bool is_builtin(const std::string& n) {
  static const char* names[] = {"range", "min", "max", "abs", "len", "float", "int", "bool", "print",
                                "divmod", "tuple", "getattr", "isinstance"};
  for (auto* b : names)
    if (n == b) return true;
  return false;
}

}  // namespace

LVal Lowerer::eval(const Node* e) {
  if (!e) return {};
  LVal v;
  std::string_view t = e->type;
  if (t == "Constant") {
    auto c = sema::const_eval(e, [](const Node*) { return std::nullopt; });
    if (!c) {
      unsupported(e, "literal", "this literal is not supported in tile code");
      return {};
    }
    v = constant(*c, e);
  } else if (t == "Name") {
    v = eval_name(e);
  } else if (t == "Attribute") {
    v = eval_attribute(e);
  } else if (t == "Call") {
    v = eval_call(e);
  } else if (t == "BinOp") {
    v = eval_binop(e);
  } else if (t == "UnaryOp") {
    v = eval_unaryop(e);
  } else if (t == "Compare") {
    v = eval_compare(e);
  } else if (t == "BoolOp") {
    v = eval_boolop(e);
  } else if (t == "IfExp") {
    v = eval_ifexp(e);
  } else if (t == "Subscript") {
    v = eval_subscript(e);
  } else if (t == "Tuple" || t == "List") {
    std::vector<LVal> elems;
    for (auto* x : nodes_of(e, "elts")) {
      if (x->is("Starred")) {
        LVal inner = eval(x->child("value"));
        if (!inner.ok()) return {};
        if (inner.info.kind != VKind::Tuple) {
          error(x, "only tuples can be star-unpacked in tile code");
          return {};
        }
        for (auto& el : inner.elems) elems.push_back(el);
        continue;
      }
      elems.push_back(eval(x));
      if (!elems.back().ok()) return {};
    }
    v = make_tuple(std::move(elems));
    // A tuple of constants is itself a constant.
    bool all_const = true;
    std::vector<sema::ConstValue> cs;
    for (auto& el : v.elems) {
      all_const = all_const && el.info.cval.has_value();
      if (el.info.cval) cs.push_back(*el.info.cval);
    }
    if (all_const) v.info.cval = sema::ConstValue::tuple(cs);
  } else if (t == "Lambda") {
    // A function value (lambda_lift.h): called like a helper, or lifted to a
    // @triton.jit combine function by ct.reduce / ct.scan. `self` keeps the
    // Lambda node (v.node is overwritten by the use site) and the function
    // that defines it (captures are read there only). The ref names the
    // lambda's position: helper specializations keyed by it stay distinct.
    v.info.kind = VKind::Function;
    v.info.ref = "<lambda:" + std::to_string(e->lineno) + ":" + std::to_string(e->col_offset) + ">";
    v.self = std::make_shared<LVal>();
    v.self->node = e;
    v.self->info.ref = function_name();
  } else if (t == "JoinedStr") {
    unsupported(e, "f-string", "f-strings are not supported in tile code");
    return {};
  } else {
    // Python's own words for the expression (ast node names such as ListComp read as jargon).
    static const std::map<std::string_view, std::string_view> kWords = {
        {"ListComp", "list comprehensions"}, {"SetComp", "set comprehensions"},
        {"DictComp", "dict comprehensions"}, {"GeneratorExp", "generator expressions"},
        {"Set", "set displays"},            {"Dict", "dict displays"},
        {"Await", "await expressions"},     {"Yield", "yield expressions"},
        {"YieldFrom", "yield from expressions"}, {"NamedExpr", "assignment expressions (:=)"},
        {"Starred", "starred expressions (*x)"}};
    auto w = kWords.find(t);
    std::string what = w != kWords.end() ? std::string(w->second) : "'" + std::string(t) + "' expressions";
    unsupported(e, std::string(t), what + " are not supported in tile code");
    return {};
  }
  if (v.ok() && !v.node) v.node = e;
  if (v.ok() && !fp4_nodes_.empty() && !check_fp4_use(e)) return {};
  if (v.ok() && v.info.kind == VKind::Tile && v.info.dtype.is("float4_e2m1fn")) fp4_nodes_.insert(e);
  return v;
}

// cuTile's float4_e2m1fn is a restricted float: no arithmetic, no
// comparisons (cutile_api.md §1 item 10). Triton has no fp4 dtype, so fp4
// tiles are uint8 tiles of 4-bit codes here, and any use that would read
// them as numbers (arithmetic, stores, casts from fp4, bitcasts) is refused
// rather than computed on the codes.
bool Lowerer::check_fp4_use(const Node* e) {
  const Node* bad = nullptr;
  auto child_is_fp4 = [&](const Node* c) { return c && fp4_nodes_.count(c); };
  bool allowed = false;
  if (e->is("Tuple") || e->is("List")) {
    allowed = true;
  } else if (e->is("Attribute")) {
    std::string a(e->str("attr"));
    allowed = a == "reshape" || a == "permute" || a == "transpose" || a == "astype" || a == "shape" ||
              a == "dtype" || a == "ndim";
  } else if (e->is("Call")) {
    auto* fn = e->child("func");
    if (auto q = module().cutile_name(fn))
      allowed = *q == "reshape" || *q == "permute" || *q == "transpose" || *q == "astype" || *q == "pack_to_bytes";
    else if (fn->is("Name") && module().functions.count(std::string(fn->str("id"))))
      allowed = true;  // a helper: its own operations are checked when it is lowered
  }
  if (allowed) return true;
  for (auto& f : e->fields) {
    if (f.second.kind == syntax::Value::Kind::Node && child_is_fp4(f.second.node)) bad = f.second.node;
    else if (f.second.kind == syntax::Value::Kind::List)
      for (auto& it : f.second.items)
        if (it.kind == syntax::Value::Kind::Node) {
          if (child_is_fp4(it.node)) bad = it.node;
          // keyword arguments: keyword(value=...)
          if (it.node->is("keyword") && child_is_fp4(it.node->child("value"))) bad = it.node->child("value");
        }
    if (bad) break;
  }
  if (!bad) return true;
  unsupported(bad, "float4_e2m1fn use",
              "this use of a float4_e2m1fn tile is not supported: Triton has no fp4 dtype, so cutile2triton keeps "
              "fp4 tiles as 4-bit codes and only reshapes, permutes, transposes or packs them (ct.pack_to_bytes)");
  return false;
}

std::string Lowerer::captured_name_words(const std::string& id) const {
  if (const sema::KernelInfo* k = spec_.is_kernel ? module().kernel_by_def(spec_.def) : nullptr)
    for (auto* n : k->launch_constants)
      if (n->str("id") == id) return "'" + id + "', a constant the kernel reads at launch (a constexpr parameter of it)";
  if (module().runtime_globals.count(id) || module().imported_values.count(id))
    return "'" + id + "', a module-level name with no value at conversion (a kernel's own body reads such a name "
           "at launch, as a constexpr parameter)";
  return "'" + id + "' of the enclosing function";
}

LVal Lowerer::eval_name(const Node* e) {
  std::string id(e->str("id"));
  auto it = env_.find(id);
  if (it != env_.end()) {
    LVal v = it->second;
    v.node = e;
    if (v.array && !v.array->ranks.empty()) return array_use_view(std::move(v), e);  // array_params.cpp
    return v;
  }
  if (auto ob = one_branch_names_.find(id); ob != one_branch_names_.end()) {
    error(e, "'" + id + "' is assigned on only one path of the `if` at line " + std::to_string(ob->second->lineno) +
                 ", so it is undefined here when the other path is taken (cuTile rejects this too); assign it "
                 "before the `if` or in every branch");
    return {};
  }
  auto& mi = module();
  auto c = mi.constants.find(id);
  if (c != mi.constants.end()) return constant(c->second, e);
  if (auto q = mi.cutile_name(e)) return cutile_value(*q, e, false);
  LVal v;
  v.node = e;
  if (mi.ct_modules.count(id)) { v.info.kind = VKind::Module; v.info.ref = "ct"; return v; }
  if (mi.math_modules.count(id)) { v.info.kind = VKind::Module; v.info.ref = "math"; return v; }
  if (mi.numpy_modules.count(id)) { v.info.kind = VKind::Module; v.info.ref = "numpy"; return v; }
  if (mi.torch_modules.count(id)) { v.info.kind = VKind::Module; v.info.ref = "torch"; return v; }
  if (mi.operator_modules.count(id)) { v.info.kind = VKind::Module; v.info.ref = "operator"; return v; }
  if (auto op = mi.operator_names.find(id); op != mi.operator_names.end()) {
    v.info.kind = VKind::CtFunc;  // a Python function named by reference (ct.reduce combine functions)
    v.info.ref = "operator." + op->second;
    return v;
  }
  if (auto r = mi.rebound_by_import.find(id); r != mi.rebound_by_import.end()) {
    error(e, "function '" + id + "' is rebound by the import at line " + std::to_string(r->second) +
                 ", so Python calls the imported one, which is not in this file");
    return {};
  }
  auto f = mi.functions.find(id);
  if (f != mi.functions.end()) {
    v.info.kind = VKind::Function;
    v.info.ref = id;
    return v;
  }
  if (is_builtin(id)) {
    v.info.kind = VKind::Builtin;
    v.info.ref = id;
    return v;
  }
  auto imp = mi.imported_values.find(id);
  if (mi.runtime_globals.count(id) || imp != mi.imported_values.end()) {
    // A kernel's own reads of such a name as a value (its lambdas' too) are constants read at launch,
    // parameters by now (sema KernelInfo::launch_constants). Left: a read before the kernel assigns the
    // name, reads by helpers and nested defs, and imported names called or taken attributes of: functions,
    // classes or modules whose definitions were not copied in (driver/splice.h), "not defined" below.
    bool binds = spec_.is_kernel && spec_.def && sema::kernel_own_names(spec_.def).count(id);
    bool as_value = !spec_.def || !sema::names_not_read_as_values(spec_.def).count(e);
    std::string what = imp != mi.imported_values.end()
                           ? "'" + id + "' is imported from another module (" + imp->second + ")"
                           : "module global '" + id + "' has no value at conversion (the module computes it when it runs)";
    if (binds) {
      error(e, "'" + id + "' is read here before this kernel assigns it: the kernel's own '" + id +
                   "' hides the module-level one (Python's scoping), so it has no value yet");
      return {};
    }
    if (as_value || imp == mi.imported_values.end()) {
      error(e, what + "; a kernel's body reads such a name at launch, as a constexpr parameter, but " +
                   (spec_.is_kernel || !spec_.def ? std::string("a nested function")
                                                  : "helper '" + std::string(spec_.def->str("name")) + "'") +
                   " cannot: pass it as an argument");
      return {};
    }
  }
  if (mi.assigned_more_than_once.count(id)) {
    error(e, "module global '" + id + "' is assigned more than once, so its value is not a compile-time constant");
    return {};
  }
  if (undiagnosed_names_.count(id)) {  // its assignment's error was reported
    failed_ = true;
    return {};
  }
  std::string why;
  if (auto m = mi.imported_modules.find(id); m != mi.imported_modules.end())
    why = "; '" + id + "' is a module the file imports, and tile code reads attributes of cuda.tile, math, numpy "
          "and torch only: import the value itself (`from " + m->second + " import NAME`), which a kernel reads "
          "at launch";
  else if (!mi.star_imports.empty())
    why = "; the star import from '" + mi.star_imports.front().first + "' at line " +
          std::to_string(mi.star_imports.front().second) +
          " may bind it, but which names it binds is known only when the module runs: import the name itself";
  error(e, "name '" + id + "' is not defined in tile code (not a local, parameter, module constant or function)" + why);
  return {};
}

LVal Lowerer::cutile_value(const std::string& q, const Node* at, bool called) {
  if (!called) {
    if (auto cv = sema::ModuleInfo::cutile_constant(q)) return constant(*cv, at);
    if (reject_unknown_cutile_name(*this, q, at)) return {};
  }
  LVal v;
  v.node = at;
  v.info.kind = VKind::CtFunc;
  v.info.ref = q;
  return v;
}

// The module-level Enum class a Name names (sema::ModuleInfo::user_enums), unless a local shadows it.
const std::pair<const std::string, sema::ModuleInfo::UserEnum>* Lowerer::user_enum_named(const Node* n) const {
  if (!n->is("Name") || env_.count(std::string(n->str("id")))) return nullptr;
  auto it = module().user_enums.find(std::string(n->str("id")));
  return it == module().user_enums.end() ? nullptr : &*it;
}

LVal Lowerer::eval_attribute(const Node* e) {
  // ct.<name>, RMd.APPROX, ... resolve statically.
  if (auto q = module().cutile_name(e)) return cutile_value(*q, e, false);
  auto* base_node = e->child("value");
  // A member of a module-level Enum class (sema::ModuleInfo::user_enums).
  if (auto en = user_enum_named(base_node)) {
    if (auto m = en->second.member(en->first, std::string(e->str("attr")))) return constant(*m, e);
    error(e, "enum " + en->first + " has no member " + std::string(e->str("attr")) + " known at conversion");
    return {};
  }
  LVal base = eval(base_node);
  if (!base.ok()) return {};
  return attribute_of(std::move(base), std::string(e->str("attr")), e);
}

LVal Lowerer::attribute_of(LVal base, const std::string& a, const Node* at) {
  LVal v;
  v.node = at;
  auto method = [&](const std::string& qual) {
    v.info.kind = VKind::Method;
    v.info.ref = qual;
    v.self = std::make_shared<LVal>(base);
    return v;
  };
  switch (base.info.kind) {
    case VKind::Module: {
      if (base.info.ref == "operator") {
        v.info.kind = VKind::CtFunc;
        v.info.ref = "operator." + a;
        return v;
      }
      if (base.info.ref == "math" || base.info.ref == "numpy" || base.info.ref == "torch") {
        auto cv = module().fold(at);
        if (cv) return constant(*cv, at);
        if (base.info.ref != "math")
          if (auto* d = sema::find_dtype(a)) return constant(sema::ConstValue::dtype(std::string(d->name)), at);
        v.info.kind = VKind::CtFunc;
        v.info.ref = base.info.ref + "." + a;
        return v;
      }
      break;
    }
    case VKind::Array: {
      auto& arr = *base.array;
      if (a == "dtype") {
        v.info.kind = VKind::DTypeV;
        v.info.dtype = arr.dtype;
        v.expr = dtype_expr(arr.dtype);
        return v;
      }
      if (a == "shape" || a == "strides") {
        std::vector<LVal> elems;
        for (int k = 0; k < arr.rank; ++k) {
          LVal el;
          el.node = at;
          el.info.kind = VKind::Scalar;
          el.info.dtype = sema::DType::concrete(arr.int64_index ? "int64" : "int32");
          el.info.sign = a == "shape" ? sema::Sign::NonNeg : sema::Sign::Unknown;
          el.expr = a == "shape" ? arr.shape[k] : arr.strides[k];
          elems.push_back(el);
        }
        return make_tuple(std::move(elems));
      }
      if (a == "ndim") return array_rank_value(arr, at);
      if (a == "slice") return method("Array.slice");
      if (a == "get_raw_memory") return method("Array.get_raw_memory");
      if (a == "tiled_view") return method("Array.tiled_view");
      unsupported(at, "Array." + a, "Array." + a + " is not supported yet");
      return {};
    }
    case VKind::RawMemory:
    case VKind::TiledView: {
      bool raw = base.info.kind == VKind::RawMemory;
      const char* cls = raw ? "RawArrayMemory." : "TiledView.";
      if (a == "dtype") {
        v.info.kind = VKind::DTypeV;
        v.info.dtype = base.array->dtype;
        v.expr = dtype_expr(base.array->dtype);
        return v;
      }
      if (!raw && (a == "tile_shape" || a == "traversal_steps")) {
        std::vector<LVal> elems;
        for (auto& d : a == "tile_shape" ? base.tiled->tile_shape : base.tiled->steps) {
          LVal el;
          el.node = at;
          el.info.kind = VKind::Constexpr;
          el.info.sign = sema::Sign::Pos;
          if (d.value) el.info.cval = sema::ConstValue::integer(*d.value);
          el.expr = dim_to_expr(d);
          elems.push_back(el);
        }
        return make_tuple(std::move(elems));
      }
      if (registry().find(cls + a)) return method(cls + a);
      unsupported(at, cls + a, std::string(cls) + a + " is not supported");
      return {};
    }
    case VKind::Tile:
    case VKind::Scalar:
    case VKind::Constexpr: {
      if (a == "dtype") {
        v.info.kind = VKind::DTypeV;
        v.info.dtype = base.info.dtype;
        if (base.info.kind == VKind::Constexpr && base.info.cval) {
          error(at, "a Python number has no dtype until it meets a typed value");
          return {};
        }
        v.expr = dtype_expr(base.info.dtype, &base);
        if (!v.info.dtype.known() && v.info.dtype.kind != sema::DType::Kind::Symbolic && v.expr)
          v.info.dtype = sema::DType::symbolic(source(v.expr));
        return v;
      }
      if (a == "shape") {
        std::vector<LVal> elems;
        for (size_t k = 0; k < base.info.shape.size(); ++k) {
          LVal el;
          el.node = at;
          el.info.kind = VKind::Constexpr;
          el.info.sign = sema::Sign::Pos;
          auto& d = base.info.shape[k];
          if (d.value) el.info.cval = sema::ConstValue::integer(*d.value);
          el.expr = dim_expr(base, k);
          elems.push_back(el);
        }
        return make_tuple(std::move(elems));
      }
      if (a == "ndim") return constant(sema::ConstValue::integer((long long)base.info.shape.size()), at);
      static const char* methods[] = {"astype", "reshape", "permute", "transpose", "item", "extract", "insert"};
      for (auto* m : methods)
        if (a == m) return method(std::string("Tile.") + m);
      unsupported(at, "Tile." + a, "Tile." + a + " is not supported");
      return {};
    }
    case VKind::DTypeV:
      if (a == "bitwidth" && base.info.dtype.desc())
        return constant(sema::ConstValue::integer(base.info.dtype.desc()->bits), at);
      break;
    case VKind::Enum:
      if (a == "name" && base.info.cval) {
        auto s = base.info.cval->s;
        return constant(sema::ConstValue::str(s.substr(s.find('.') + 1)), at);
      }
      break;
    default: break;
  }
  error(at, "unsupported attribute '" + a + "'");
  return {};
}

// One call of registry operation `name` (ct.<name>, a Tile method with `self`, builtin print()): its
// arguments bound to the entry's signature, lowered, and its memory effect recorded for pipelining.
LVal Lowerer::lower_op(const OpEntry& entry, const std::string& name, const Node* call, const LVal* self) {
  OpCall c(*this, call, name);
  if (!bind_call(c, entry, call, self)) return {};
  note_op(name);
  LVal r = entry.lower(c);
  if (r.ok()) record_memory_effect(effects_, c, entry, pointer_params_, constexpr_branch_, runtime_ifs_);
  if (r.ok() && !r.node) r.node = call;
  return r;
}

LVal Lowerer::eval_call(const Node* e) {
  auto* fn_node = e->child("func");
  // `Color(i)`: the member of a module-level Enum class with that value, i known at conversion.
  if (auto en = user_enum_named(fn_node)) {
    auto args = nodes_of(e, "args");
    LVal v = args.size() == 1 && nodes_of(e, "keywords").empty() ? eval(args[0]) : LVal{};
    if (args.size() == 1 && !v.ok()) return {};
    if (!v.info.cval) {
      error(e, en->first + "(value) in tile code needs one value known at conversion");
      return {};
    }
    const sema::ConstValue& want = *v.info.cval;
    for (auto& [n, val] : en->second.members)
      if (val.is_number() && want.is_number() ? val.as_double() == want.as_double() : val == want)
        return constant(*en->second.member(en->first, n), e);
    error(e, want.python() + " is not a value of enum " + en->first);
    return {};
  }
  LVal fn;
  if (auto q = module().cutile_name(fn_node); q && !sema::ModuleInfo::cutile_constant(*q))
    fn = cutile_value(*q, fn_node, true);  // an unknown name is said below, as an operation
  else
    fn = eval(fn_node);
  if (!fn.ok()) return {};
  const auto& reg = registry();
  if (fn.info.kind == VKind::CtFunc) {
    const std::string& q = fn.info.ref;
    // dtype constructors: ct.int64(x), ct.float32(0.0)
    if (auto* d = sema::find_dtype(q); d && q.find('.') == std::string::npos) {
      auto args = nodes_of(e, "args");
      if (args.size() != 1 || !nodes_of(e, "keywords").empty()) {
        error(e, "ct." + q + "() takes exactly one argument");
        return {};
      }
      note_op(q);
      LVal x = eval(args[0]);
      if (!x.ok()) return {};
      return ops::cast_to(*this, x, sema::DType::concrete(std::string(d->name)), e);
    }
    if (q.rfind("math.", 0) == 0 || q.rfind("numpy.", 0) == 0 || q.rfind("torch.", 0) == 0) {
      // math.<f>(constants) folds; anything else is host-only code.
      auto cv = module().fold(e);
      if (cv) return constant(*cv, e);
      unsupported(e, q, q + "() is not supported in tile code (use the ct.* equivalent)");
      return {};
    }
    const OpEntry* entry = reg.find(q);
    if (!entry) {
      unsupported(e, "ct." + q,
                  is_cutile_public_name(q)
                      ? "ct." + q + " is a cuTile operation that cutile2triton does not support yet"
                      : "ct." + q + " is not a cuTile operation (cuda.tile has no such name)" +
                            did_you_mean(q, cutile_public_names(), "ct."));
      return {};
    }
    return lower_op(*entry, q, e, nullptr);
  }
  if (fn.info.kind == VKind::Method) {
    const OpEntry* entry = reg.find(fn.info.ref);
    if (!entry) {
      unsupported(e, fn.info.ref, fn.info.ref + "() is not supported");
      return {};
    }
    return lower_op(*entry, fn.info.ref, e, fn.self.get());
  }
  if (fn.info.kind == VKind::Function && fn.info.ref.rfind("<lambda", 0) == 0) {
    const Node* def = lambda_as_def(fn.self->node);
    if (auto* cap = first_capture(module(), def)) {
      unsupported(cap, "lambda capture",
                  "this lambda uses " + captured_name_words(std::string(cap->str("id"))) + "; lambdas that capture variables are not supported "
                  "(Triton jit functions have no closures)");
      return {};
    }
    return call_helper(e, def);
  }
  if (fn.info.kind == VKind::Function && fn.info.ref.rfind("<def", 0) == 0) {
    // A def nested in tile code (bound by Lowerer::lower_stmt): a helper like
    // a module-level one, unless it reads variables of the enclosing function.
    const Node* def = fn.self->node;
    if (auto* cap = first_capture(module(), def)) {
      unsupported(cap, "closure",
                  "nested function '" + std::string(def->str("name")) + "' uses " + captured_name_words(std::string(cap->str("id"))) +
                      "; closures are not supported (Triton jit functions have none): "
                      "pass it as an argument");
      return {};
    }
    return call_helper(e, def);
  }
  if (fn.info.kind == VKind::Function) {
    auto it = module().functions.find(fn.info.ref);
    if (module().kernel_by_def(it->second)) {
      error(e, "kernel '" + fn.info.ref + "' cannot be called from tile code");
      return {};
    }
    return call_helper(e, it->second);
  }
  if (fn.info.kind == VKind::Builtin) return eval_builtin_call(fn.info.ref, e);
  if (fn.info.kind == VKind::DTypeV && fn.info.dtype.known()) {
    // dtype constructors: ct.int64(x), ct.float32(0.25), np.float32(1.0)
    auto args = nodes_of(e, "args");
    if (args.size() != 1 || !nodes_of(e, "keywords").empty()) {
      error(e, "a dtype constructor takes exactly one argument");
      return {};
    }
    note_op(fn.info.dtype.name);
    LVal x = eval(args[0]);
    if (!x.ok()) return {};
    return ops::cast_to(*this, x, fn.info.dtype, e);
  }
  error(e, "this value is not callable in tile code");
  return {};
}

// `tuple(expr for target in ct.static_iter(it) if cond)` (cutile-python's test_tuple_comprehension): a
// tuple built at conversion over an iterable known then (static_sequence), one generator, conditions
// known at conversion; the comprehension's names are its own (restored afterwards).
LVal Lowerer::static_comprehension(const Node* comp) {
  auto gens = nodes_of(comp, "generators");
  if (gens.size() != 1 || (gens[0]->get("is_async") && gens[0]->get("is_async")->text == "1")) {
    unsupported(comp, "comprehension", "a tuple comprehension in tile code takes one for clause");
    return {};
  }
  const Node* it = gens[0]->child("iter");
  auto q = it->is("Call") ? module().cutile_name(it->child("func")) : std::nullopt;
  if (q && *q == "static_iter") {
    note_op("static_iter");
    it = sema::call_arg(it, 0);
    if (!it) {
      error(gens[0]->child("iter"), "ct.static_iter takes one iterable");
      return {};
    }
  }
  auto seq = static_sequence(it);
  if (!seq) return {};
  auto saved = env_;
  std::vector<LVal> out;
  bool ok = true;
  for (auto& el : *seq) {
    if (!(ok = bind_static_target(gens[0]->child("target"), el))) break;
    bool keep = true;
    for (auto* cond : nodes_of(gens[0], "ifs")) {
      LVal c = eval(cond);
      auto t = c.ok() && c.info.cval ? c.info.cval->truthy() : std::nullopt;
      if (!t) {
        if (c.ok()) error(cond, "a condition of a tuple comprehension in tile code must be known at conversion");
        ok = false;
        break;
      }
      keep = keep && *t;
    }
    if (!ok) break;
    if (!keep) continue;
    LVal v = eval(comp->child("elt"));
    if (!(ok = v.ok())) break;
    out.push_back(v);
  }
  env_ = std::move(saved);
  if (!ok) return {};
  return make_tuple(std::move(out));
}

LVal Lowerer::eval_builtin_call(const std::string& fn, const Node* call) {
  if (fn == "tuple" && nodes_of(call, "args").size() == 1 && nodes_of(call, "keywords").empty() &&
      (nodes_of(call, "args")[0]->is("GeneratorExp") || nodes_of(call, "args")[0]->is("ListComp")))
    return static_comprehension(nodes_of(call, "args")[0]);
  if (fn == "print")  // cuTile compiles builtin print() in tile code as ct.print (_stub.py print)
    if (const OpEntry* entry = registry().find("print")) return lower_op(*entry, "print", call, nullptr);
  auto args = nodes_of(call, "args");
  if (!nodes_of(call, "keywords").empty()) {
    error(call, fn + "() with keyword arguments is not supported in tile code");
    return {};
  }
  // len(A.shape) / len(A.strides): the array's rank, part of its type in
  // cuTile; for an array used with several ranks, the rank constexpr.
  if (fn == "len" && args.size() == 1 && args[0]->is("Attribute") &&
      (args[0]->str("attr") == "shape" || args[0]->str("attr") == "strides")) {
    LVal base = eval(args[0]->child("value"));
    if (!base.ok()) return {};
    if (base.info.kind == VKind::Array) return array_rank_value(*base.array, call);
  }
  std::vector<LVal> vals;
  for (auto* a : args) {
    vals.push_back(eval(a));
    if (!vals.back().ok()) return {};
  }
  // Fold on constants first (Python semantics).
  bool all_const = true;
  for (auto& v : vals) all_const = all_const && v.info.cval.has_value();
  if (all_const && fn != "print") {
    auto cv = sema::const_eval(call, [&](const Node* n) -> std::optional<sema::ConstValue> {
      for (size_t k = 0; k < args.size(); ++k)
        if (args[k] == n) return vals[k].info.cval;
      return std::nullopt;
    });
    if (cv) return constant(*cv, call);
  }
  if ((fn == "min" || fn == "max") && vals.size() == 2) {
    note_op(fn == "min" ? "minimum" : "maximum");
    return ops::minmax(*this, fn == "min" ? "minimum" : "maximum", vals[0], vals[1], false, call);
  }
  if (fn == "abs" && vals.size() == 1) return ops::unary_arith(*this, "abs", vals[0], call);
  if (fn == "len" && vals.size() == 1 && vals[0].info.kind == VKind::ArrayList) return array_list_len(vals[0], call);
  if (fn == "len" && vals.size() == 1 && vals[0].info.kind == VKind::Tuple)
    return constant(sema::ConstValue::integer((long long)vals[0].elems.size()), call);
  if ((fn == "float" || fn == "int" || fn == "bool") && vals.size() == 1) {
    return ops::cast_to(*this, vals[0], sema::DType::concrete(fn == "float" ? "float32" : fn == "int" ? "int32" : "bool_"), call);
  }
  if (fn == "divmod" && vals.size() == 2) {
    LVal q = ops::binary(*this, "floordiv", vals[0], vals[1], call);
    LVal r = ops::binary(*this, "mod", vals[0], vals[1], call);
    if (!q.ok() || !r.ok()) return {};
    return make_tuple({q, r});
  }
  if (fn == "range") {
    error(call, "range() can only be used as the iterable of a for loop in tile code");
    return {};
  }
  unsupported(call, fn, "builtin " + fn + "() is not supported in tile code");
  return {};
}

LVal Lowerer::eval_binop(const Node* e) {
  auto op = e->child("op")->type;
  const char* entry = binop_entry(op);
  if (!entry) {
    unsupported(e, std::string(op), "operator " + std::string(op) + " is not supported");
    return {};
  }
  LVal a = eval(e->child("left"));
  if (!a.ok()) return {};
  LVal b = eval(e->child("right"));
  if (!b.ok()) return {};
  // Tuple concatenation / repetition are compile-time.
  if (a.info.kind == VKind::Tuple && b.info.kind == VKind::Tuple && std::string_view(entry) == "add") {
    std::vector<LVal> elems = a.elems;
    elems.insert(elems.end(), b.elems.begin(), b.elems.end());
    LVal t = make_tuple(std::move(elems));
    if (a.info.cval && b.info.cval) t.info.cval = sema::const_binop("Add", *a.info.cval, *b.info.cval);
    return t;
  }
  if (std::string_view(entry) == "matmul") {
    note_op("matmul");
    return ops::matmul(*this, a, b, e);
  }
  note_op(entry);
  return ops::binary(*this, entry, a, b, e);
}

LVal Lowerer::eval_unaryop(const Node* e) {
  auto op = e->child("op")->type;
  LVal a = eval(e->child("operand"));
  if (!a.ok()) return {};
  if (op == "UAdd") return a;
  if (op == "USub") return ops::unary_arith(*this, "negative", a, e);
  if (op == "Invert") return ops::unary_arith(*this, "bitwise_not", a, e);
  return ops::logical_not(*this, a, e);
}

bool Lowerer::is_scalar_like(const LVal& v) const {
  return v.info.kind == VKind::Scalar || v.info.kind == VKind::Constexpr || (v.info.cval && v.info.cval->is_number());
}

// `left == right` element by element (any: `left` against each element of `right`, or-ed) as a runtime
// bool; elements are scalars or compile-time values.
LVal Lowerer::tuple_equal(const LVal& left, const LVal& right, bool any, const Node* e) {
  LVal acc;
  for (size_t j = 0; j < right.elems.size(); ++j) {
    LVal a = any ? left : left.elems[j];
    LVal b = right.elems[j];
    note_op("equal");
    LVal eq = ops::binary(*this, "equal", a, b, e);
    if (!eq.ok()) return {};
    acc = j == 0 ? eq : ops::logical_andor(*this, any ? "or" : "and", acc, eq, e);
    if (!acc.ok()) return {};
  }
  return acc;
}

LVal Lowerer::eval_compare(const Node* e) {
  auto ops_ = nodes_of(e, "ops");
  auto rights = nodes_of(e, "comparators");
  LVal left = eval(e->child("left"));
  if (!left.ok()) return {};
  std::vector<LVal> parts;
  for (size_t k = 0; k < ops_.size(); ++k) {
    LVal right = eval(rights[k]);
    if (!right.ok()) return {};
    std::string_view op = ops_[k]->type;
    LVal r;
    if (op == "Is" || op == "IsNot" || op == "In" || op == "NotIn") {
      // compile-time only (x is None, membership in constant tuples)
      std::optional<bool> res;
      auto lc = left.info.cval, rc = right.info.cval;
      if (!lc && left.info.kind == VKind::None) lc = sema::ConstValue::none();
      if (!rc && right.info.kind == VKind::None) rc = sema::ConstValue::none();
      bool l_none = left.info.kind == VKind::None, r_none = right.info.kind == VKind::None;
      const LVal& other = l_none ? right : left;
      // A constexpr whose value only Triton knows (a Constant parameter, a constant read at launch) may
      // be None: `X is None` stays a constexpr test, which Triton decides per specialization.
      bool unknown_constexpr = (op == "Is" || op == "IsNot") && l_none != r_none &&
                               other.info.kind == VKind::Constexpr && !other.info.cval && other.expr;
      if (!unknown_constexpr && (op == "Is" || op == "IsNot") && l_none != r_none)
        res = op == "IsNot";
      else if (lc && rc) res = sema::const_compare(op, *lc, *rc);
      if (unknown_constexpr) {
        r.info.kind = VKind::Constexpr;
        r.info.is_bool = true;
        r.expr = compare(op == "Is" ? "is" : "is not", other.expr, lit("None"));
        r.node = e;
      } else if (!res && (op == "In" || op == "NotIn") && right.info.kind == VKind::Tuple && !right.elems.empty() &&
                 is_scalar_like(left)) {
        // `a in (0, 2)` on a runtime scalar: (a == 0) or (a == 2) (cutile-python's test_tuple).
        r = tuple_equal(left, right, /*any=*/true, e);
        if (r.ok() && op == "NotIn") r = ops::logical_not(*this, r, e);
      } else if (!res) {
        error(ops_[k], "'" + std::string(op) + "' needs values known at compile time in tile code");
        return {};
      } else {
        r = constant(sema::ConstValue::boolean(*res), e);
      }
    } else if (left.info.kind == VKind::DTypeV || right.info.kind == VKind::DTypeV) {
      r = ops::compare_dtypes(*this, op == "Eq" ? "equal" : "not_equal", left, right, e);
      if (op != "Eq" && op != "NotEq") {
        error(ops_[k], "dtypes can only be compared with == and !=");
        return {};
      }
    } else if ((left.info.kind == VKind::Tuple || right.info.kind == VKind::Tuple) && (op == "Eq" || op == "NotEq")) {
      // Tuples (shapes, tile_shape, traversal_steps) compare element by element
      // at compile time; constexpr elements only Triton knows give a constexpr
      // expression (`(TM == SH) and (TN == SW)`).
      if (left.info.kind != right.info.kind || left.elems.size() != right.elems.size()) {
        r = constant(sema::ConstValue::boolean(op == "NotEq"), e);
      } else if (left.info.cval && right.info.cval) {
        bool eq = *left.info.cval == *right.info.cval;
        r = constant(sema::ConstValue::boolean(op == "Eq" ? eq : !eq), e);
      } else {
        std::vector<TExprPtr> eqs;
        for (size_t j = 0; j < left.elems.size(); ++j) {
          const LVal &a = left.elems[j], &b = right.elems[j];
          if (a.info.kind != VKind::Constexpr || b.info.kind != VKind::Constexpr || !a.expr || !b.expr) {
            eqs.clear();
            break;
          }
          eqs.push_back(compare("==", a.expr, b.expr));
        }
        if (!eqs.empty() || left.elems.empty()) {
          TExprPtr all = eqs.empty() ? lit("True") : eqs.size() == 1 ? eqs[0] : boolop("and", eqs);
          r.info.kind = VKind::Constexpr;
          r.info.is_bool = true;
          r.expr = op == "Eq" ? all : unary("not ", all);
          r.node = e;
        } else {
          // Runtime scalars among the elements (`(a, b) == (0, 0)` on block ids, cutile-python's
          // test_tuple): the `and` of the elements' equalities, a runtime bool.
          for (size_t j = 0; j < left.elems.size(); ++j)
            if (!is_scalar_like(left.elems[j]) || !is_scalar_like(right.elems[j])) {
              error(ops_[k], "tuples in tile code compare element by element only scalars and compile-time values");
              return {};
            }
          r = tuple_equal(left, right, /*any=*/false, e);
          if (r.ok() && op == "NotEq") r = ops::logical_not(*this, r, e);
        }
      }
    } else if (left.info.kind == VKind::Enum || right.info.kind == VKind::Enum) {
      if (!left.info.cval || !right.info.cval || (op != "Eq" && op != "NotEq")) {
        error(ops_[k], "enum members can only be compared with == and != against other members");
        return {};
      }
      bool eq = *left.info.cval == *right.info.cval;
      r = constant(sema::ConstValue::boolean(op == "Eq" ? eq : !eq), e);
    } else {
      const char* entry = compare_entry(op);
      note_op(entry);
      r = ops::binary(*this, entry, left, right, e);
    }
    if (!r.ok()) return {};
    parts.push_back(r);
    left = right;
  }
  if (parts.size() == 1) return parts[0];
  // Chained comparison a < b < c == (a < b) and (b < c); Triton rejects chains.
  LVal acc = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) acc = ops::logical_andor(*this, "and", acc, parts[k], e);
  return acc;
}

LVal Lowerer::eval_boolop(const Node* e) {
  std::string op = e->child("op")->is("And") ? "and" : "or";
  auto values = nodes_of(e, "values");
  LVal acc = eval(values[0]);
  if (!acc.ok()) return {};
  for (size_t k = 1; k < values.size(); ++k) {
    // Python short-circuit on values known now: the rest is not evaluated.
    if (acc.info.cval) {
      auto t = acc.info.cval->truthy();
      if (t && (op == "and" ? !*t : *t)) return acc;
      if (t) { acc = eval(values[k]); if (!acc.ok()) return {}; continue; }
    }
    ++conditional_expr_depth_;
    LVal next = eval(values[k]);
    --conditional_expr_depth_;
    if (!next.ok()) return {};
    acc = ops::logical_andor(*this, op, acc, next, e);
    if (!acc.ok()) return {};
  }
  return acc;
}

LVal Lowerer::eval_ifexp(const Node* e) {
  LVal c = eval(e->child("test"));
  if (!c.ok()) return {};
  if (c.info.cval) {
    if (auto t = c.info.cval->truthy()) return eval(*t ? e->child("body") : e->child("orelse"));
  }
  ++conditional_expr_depth_;  // both arms are lowered; only one runs
  LVal a = eval(e->child("body"));
  LVal b = eval(e->child("orelse"));
  --conditional_expr_depth_;
  if (!a.ok() || !b.ok()) return {};
  if (c.info.kind == VKind::Tile) {
    error(e->child("test"), "the condition of a conditional expression must be a scalar");
    return {};
  }
  if (!c.expr) {
    error(e->child("test"), "unsupported condition");
    return {};
  }
  LVal r = a;
  r.node = e;
  r.origin.reset();  // either arm's value: not one parameter's tile (lower/k_major.h)
  if (a.info.kind == VKind::DTypeV && b.info.kind == VKind::DTypeV) {
    // compile-time dtype selection; Triton folds the constexpr condition.
    r.info.dtype = sema::DType::select(source(c.expr), a.info.dtype, b.info.dtype);
    auto ta = dtype_expr(a.info.dtype), tb = dtype_expr(b.info.dtype);
    if (!ta || !tb) {
      error(e, "cannot express this dtype selection in Triton");
      return {};
    }
    r.expr = ifexp(c.expr, ta, tb);
    return r;
  }
  if (!a.expr || !b.expr) {
    unsupported(e, "conditional expression", "this conditional expression is not supported in tile code");
    return {};
  }
  if (a.info.kind == VKind::Constexpr && b.info.kind == VKind::Constexpr && c.info.kind == VKind::Constexpr) {
    r.info.cval.reset();
    r.info.sign = sema::sign_join(a.info.sign, b.info.sign);
  } else {
    r.info.kind = a.info.kind == VKind::Tile || b.info.kind == VKind::Tile ? VKind::Tile : VKind::Scalar;
    if (b.info.kind == VKind::Tile) r.info.shape = b.info.shape;
    if (a.info.kind == VKind::Tile && b.info.kind == VKind::Tile) {
      // Arms whose shapes sema names differently (`ct.transpose(a) if T else a`): only Triton knows
      // which one a specialization takes, so those dimensions are left to it (`x.shape[k]`), not
      // named after the else arm.
      const sema::Shape &sa = a.info.shape, &sb = b.info.shape;
      if (sa.unknown_rank || sb.unknown_rank || sa.size() != sb.size()) {
        r.info.shape = sema::Shape::unknown();
      } else {
        for (size_t k = 0; k < sa.size(); ++k)
          if (!sa[k].same(sb[k])) r.info.shape[k] = sema::Dim{};
      }
    }
    r.info.cval.reset();
    r.info.sign = sema::sign_join(a.info.sign, b.info.sign);
    if (!a.info.dtype.same(b.info.dtype) && !(a.info.dtype.known() && b.info.dtype.known() && a.info.dtype.name == b.info.dtype.name))
      r.info.dtype = a.info.cval ? b.info.dtype : b.info.cval ? a.info.dtype : sema::DType::dynamic();
  }
  r.expr = ifexp(c.expr, a.expr, b.expr);
  return r;
}

LVal Lowerer::eval_subscript(const Node* e) {
  LVal base = eval(e->child("value"));
  if (!base.ok()) return {};
  auto* sl = e->child("slice");
  if (base.info.kind == VKind::Tuple) {
    if (sl->is("Slice")) {
      auto bound = [&](const char* f, long long dflt) -> std::optional<long long> {
        auto* n = sl->child(f);
        if (!n) return dflt;
        LVal v = eval(n);
        return const_int(v, n, "a tuple slice bound");
      };
      long long n = (long long)base.elems.size();
      auto step = bound("step", 1);
      if (!step || *step == 0) return {};
      auto lo = bound("lower", *step > 0 ? 0 : n - 1), hi = bound("upper", *step > 0 ? n : -n - 1);
      if (!lo || !hi) return {};
      auto norm = [&](long long x) { return x < 0 ? x + n : x; };
      std::vector<LVal> out;
      long long a = norm(*lo), b = norm(*hi);
      if (*step > 0) for (long long k = std::max(0LL, a); k < std::min(n, b); k += *step) out.push_back(base.elems[k]);
      else for (long long k = std::min(n - 1, a); k > std::max(-1LL, b); k += *step) out.push_back(base.elems[k]);
      return make_tuple(std::move(out));
    }
    LVal idx = eval(sl);
    auto k = const_int(idx, sl, "a tuple index");
    if (!k) return {};
    long long n = (long long)base.elems.size(), i = *k < 0 ? *k + n : *k;
    if (i < 0 || i >= n) {
      error(sl, "tuple index out of range");
      return {};
    }
    LVal r = base.elems[i];
    r.node = e;
    return r;
  }
  if (base.info.kind == VKind::ArrayList) return array_list_item(base, sl, e);  // array_params.cpp
  if (base.info.kind == VKind::Array) {
    error(e, "arrays are not directly subscriptable in tile code; use ct.load / ct.gather");
    return {};
  }
  if (base.info.kind == VKind::Tile || base.info.kind == VKind::Scalar) return ops::newaxis_subscript(*this, base, sl, e);
  error(e, "this value cannot be subscripted in tile code");
  return {};
}

}  // namespace c2t::lower
