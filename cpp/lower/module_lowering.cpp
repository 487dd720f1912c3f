#include "lower/module_lowering.h"

#include <algorithm>
#include <functional>
#include <set>

#include "lower/lambda_lift.h"
#include "lower/prelude.h"
#include "support/suggest.h"
#include "sema/ast_util.h"

namespace c2t::lower {

using sema::nodes_of;
using sema::VKind;
using syntax::Node;

ModuleLowering::ModuleLowering(const sema::ModuleInfo& mi, const LowerOptions& opts, Diagnostics& diags)
    : mi_(mi), opts_(opts), diags_(diags) {}

namespace {

// Where constant `name` of kernel `k`, read at launch, comes from, in words (diagnostics, the analyze report).
std::string launch_constant_origin(const sema::ModuleInfo& mi, const sema::KernelInfo& k, const std::string& name) {
  if (k.factory_constants.count(name)) return "a name of the factory function '" + std::string(k.factory->str("name")) + "'";
  if (auto imp = mi.imported_values.find(name); imp != mi.imported_values.end())
    return "a name imported from another module (" + imp->second + ")";
  return "a module-level value the module computes when it runs";
}

}  // namespace

LoweredModule ModuleLowering::run() {
  LoweredModule out;
  // Functions reachable from kernels are compiled as @triton.jit helpers. If
  // host code also uses one, the helper gets a `_jit` name so the host keeps
  // the plain function (host_used_).
  std::set<std::string, std::less<>> reach;
  std::vector<const Node*> todo;
  for (auto& k : mi_.kernels) todo.push_back(k.def);
  while (!todo.empty()) {
    const Node* f = todo.back();
    todo.pop_back();
    for (std::string_view id : sema::name_ids(f)) {
      std::string n(id);
      auto it = mi_.functions.find(n);
      if (it != mi_.functions.end() && !reach.count(n) && !mi_.kernel_by_def(it->second)) {
        reach.insert(n);
        todo.push_back(it->second);
      }
    }
  }
  for (auto* st : reach.empty() ? std::vector<const Node*>() : nodes_of(mi_.module, "body")) {
    if (st->is("FunctionDef") && (reach.count(std::string(st->str("name"))) || mi_.kernel_by_def(st))) continue;
    sema::walk(st, [&](const Node* x) {
      if (x->is("Name"))
        if (auto it = reach.find(x->str("id")); it != reach.end()) host_used_.insert(*it);
      return true;
    });
  }

  for (auto& k : mi_.kernels) {
    out.reports.emplace_back();
    KernelReport& rep = out.reports.back();
    current_report_ = &rep;
    rep.name = k.name;
    rep.line = k.def->lineno;
    size_t errors_before = diags_.items.size();
    auto params = sema::classify_kernel_params(mi_, k, opts_.array_ranks, diags_);
    // An array_ranks entry "k.param" naming no parameter of this kernel is a typo the option would
    // otherwise ignore (entries for other modules' kernels are not this module's to judge).
    for (auto& [key, rank] : opts_.array_ranks) {
      if (key.rfind(k.name + ".", 0) != 0) continue;
      std::string pname = key.substr(k.name.size() + 1);
      if (std::none_of(params.begin(), params.end(), [&](const sema::ParamKind& p) { return p.name == pname; }))
        diags_.warning(k.def->lineno, k.def->col_offset, "array rank option '" + key + "=" + std::to_string(rank) +
                                                             "': kernel '" + k.name + "' has no parameter '" + pname + "'");
    }
    for (auto& p : params) {
      ParamReport pr;
      pr.name = p.name;
      pr.rank = p.rank;
      pr.kind = p.kind == sema::ParamKind::Kind::Array ? "array"
                : p.kind == sema::ParamKind::Kind::Constexpr ? "constexpr"
                : p.kind == sema::ParamKind::Kind::ArrayList ? "array_list"
                : p.kind == sema::ParamKind::Kind::Tuple ? "tuple" : "scalar";
      if (p.launch_constant) {
        pr.kind = "launch_constant";
        rep.notes.push_back("'" + p.name + "' has no value at conversion (" + launch_constant_origin(mi_, k, p.name) +
                            "): a constexpr parameter of the Triton kernel, which the launcher passes as the value "
                            "it has at launch");
      }
      rep.params.push_back(pr);
    }
    LoweredKernel lk;
    for (auto& [opt, node] : k.options) {
      // num_worker_warps: the warps that run the tile code, Triton's num_warps (runtime_host_apis.cpp
      // _c2t_launch_options does the same for hints given at launch).
      auto c = opt == "num_worker_warps" ? mi_.fold(node) : std::nullopt;
      if (c && c->kind == sema::ConstValue::Kind::Int && c->i > 0 && c->i <= 1024) {
        // Triton's num_warps must be a power of two: the next one up (warps only change speed).
        int warps = 1;
        while (warps < c->i) warps *= 2;
        lk.worker_warps = warps;
        rep.notes.push_back("kernel option num_worker_warps=" + std::to_string(c->i) + " is the launch's default num_warps" +
                            (warps != c->i ? " (as " + std::to_string(warps) + ": Triton needs a power of two)" : ""));
        continue;
      }
      auto occ = opt == "occupancy" ? mi_.fold(node) : std::nullopt;
      if (occ && occ->kind == sema::ConstValue::Kind::Int && occ->i >= 1 && occ->i <= 32) {
        // cuTile's resident blocks per SM: Triton has no such option; the launch keeps room for
        // them in shared memory by choosing fewer pipeline stages (runtime _c2t_occupancy_start).
        lk.occupancy = static_cast<int>(occ->i);
        rep.notes.push_back("kernel option occupancy=" + std::to_string(occ->i) +
                            " chooses two pipeline stages where Triton's default three leave shared memory for fewer "
                            "blocks per SM");
        continue;
      }
      bool read_at_launch = false;  // the option names a value only the running module has (an import, ...)
      sema::walk(node, [&](const Node* n) {
        std::string id(n->is("Name") ? n->str("id") : "");
        read_at_launch = read_at_launch || mi_.runtime_globals.count(id) || mi_.imported_values.count(id) ||
                         (k.factory && k.factory_constants.count(id));
        return true;
      });
      if ((opt == "occupancy" || opt == "num_worker_warps") && read_at_launch) {
        // Said, not dropped silently (a ct.ByTarget value is a note, as other options Triton does not take).
        diags_.warning(node->lineno, node->col_offset,
                       "kernel option " + opt + " has no value at conversion, so cutile2triton does not apply it "
                       "(it applies options given as literals or module constants)");
        continue;
      }
      rep.notes.push_back("kernel option " + opt + " has no direct Triton equivalent and is not applied");
    }
    lk.info = &k;
    lk.params = params;
    bool param_errors = false;
    for (size_t i = errors_before; i < diags_.items.size(); ++i)
      param_errors = param_errors || diags_.items[i].severity == Severity::Error;
    if (!param_errors) {
      FunctionSpec spec;
      spec.def = k.def;
      spec.emitted_name = std::string(k.def->str("name"));
      spec.is_kernel = true;
      spec.kernel = &k;
      spec.kernel_params = params;
      Lowerer L(*this, spec);
      LoweredFunction f = L.run();
      note_launch_constants(k, errors_before);
      lk.fn = std::move(f.fn);
      lk.footprints = std::move(f.footprints);
      lk.tile_dims = std::move(f.tile_dims);
      lk.tma = std::move(f.tma);
      lk.tma_flag = f.tma_flag;
      if (!f.k_major.empty()) {  // only parameters the kernel just reads may be copied (k_major.h)
        std::set<std::string> arrays, lists, described;
        // An array with a TMA descriptor path: its descriptor takes the last stride as 1, which a
        // K-major copy of a K x N operand does not have (the launch may take either path). One read
        // through descriptors only transposed (order= moving its last axis) keeps the copy: the
        // descriptors do not make an fp8 operand K-major either, and a copied array fails the
        // launcher's descriptor checks, so that launch takes pointers (launcher.cpp k_major_source).
        for (auto& t : lk.tma)
          if (!t.permuted_only) described.insert(t.param);
        for (auto& p : params) {
          if (p.kind == sema::ParamKind::Kind::Array && !described.count(p.name)) arrays.insert(p.name);
          if (p.kind == sema::ParamKind::Kind::ArrayList) lists.insert(p.name);
        }
        lk.k_major = k_major_operands(f.k_major, load_only_params(mi_, k.def, arrays, lists));
      }
      lk.pipelined = f.effects.pipelined_loops > 0;
      lk.dots = f.effects.dots > 0;
      lk.ok = f.ok;
    }
    if (!lk.ok) out.ok = false;
    out.kernels.push_back(std::move(lk));
  }
  current_report_ = nullptr;
  for (auto& h : helpers_)
    if (h->ok) out.helpers.push_back(h.get());
  for (auto& p : prelude_) out.prelude.push_back(p);
  if (prelude_.count("_c2t_mma_scaled"))
    for (auto& k : out.kernels) k.e8m0_as_uint8 = true;
  return out;
}

HelperInstance* ModuleLowering::instantiate_helper(const Node* def, const std::vector<LVal>& args,
                                                   const std::vector<bool>& passed, const std::string& key,
                                                   const Node* call_site) {
  for (auto& h : helpers_) {
    if (h->def == def && h->key == key) {
      if (h->in_progress) {
        diags_.error(call_site->lineno, call_site->col_offset,
                     "recursive call of '" + std::string(def->str("name")) + "' (cuTile does not allow recursion)");
        return nullptr;
      }
      return h->ok ? h.get() : nullptr;
    }
  }
  auto inst = std::make_unique<HelperInstance>();
  inst->def = def;
  inst->key = key;
  inst->passed = passed;
  inst->param_args = args;
  std::string base(def->str("name"));
  auto mf = mi_.functions.find(base);
  if ((mf == mi_.functions.end() || mf->second != def) && base.rfind("_c2t_", 0) != 0) {
    // A def nested in a kernel or helper: named after it (`k_combine`), so it
    // never takes the name of a module-level function.
    if (auto* outer = module_function_containing(mi_, def)) base = std::string(outer->str("name")) + "_" + base;
  }
  if (host_used_.count(base)) base += "_jit";
  int n = ++helper_name_count_[base];
  inst->emitted_name = n == 1 ? base : base + "_" + std::to_string(n);
  inst->in_progress = true;
  HelperInstance* raw = inst.get();
  helpers_.push_back(std::move(inst));
  std::string name(def->str("name"));
  auto& hl = current_report_->helpers;
  if (std::find(hl.begin(), hl.end(), raw->emitted_name) == hl.end()) hl.push_back(raw->emitted_name);

  FunctionSpec spec;
  spec.def = def;
  spec.emitted_name = raw->emitted_name;
  spec.is_kernel = false;
  spec.helper_args = args;
  Lowerer L(*this, spec);
  LoweredFunction f = L.run();
  raw->fn = std::move(f.fn);
  raw->footprints = std::move(f.footprints);
  raw->effects = std::move(f.effects);
  raw->result = f.result;
  raw->has_result = f.has_result;
  raw->ok = f.ok;
  raw->in_progress = false;
  if (!raw->ok) {
    diags_.items.push_back({Severity::Note, call_site->lineno, call_site->col_offset,
                            "in the call of helper '" + name + "' here"});
    return nullptr;
  }
  return raw;
}

// An error on a line that reads a constant known only at launch (sema KernelInfo::launch_constants)
// most likely needed its value (a dtype, a rounding mode, a function): a note there says where the
// name comes from, once per name.
void ModuleLowering::note_launch_constants(const sema::KernelInfo& k, size_t errors_before) {
  if (k.launch_constants.empty()) return;
  std::set<std::string> names;
  for (auto* n : k.launch_constants) names.insert(std::string(n->str("id")));
  // Reads at or after an error's column on its line: within or beside the expression it names.
  std::map<int, int> error_at;  // line -> the leftmost error column there
  for (size_t i = errors_before; i < diags_.items.size(); ++i)
    if (auto& d = diags_.items[i]; d.severity == Severity::Error)
      error_at[d.line] = error_at.count(d.line) ? std::min(error_at[d.line], d.col) : d.col;
  std::set<std::string> noted;
  std::vector<Diagnostic> notes;
  for (auto* st : sema::nodes_of(k.def, "body"))
    sema::walk(st, [&](const Node* n) {
      auto at = error_at.find(n->lineno);
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Load") && names.count(std::string(n->str("id"))) &&
          at != error_at.end() && n->col_offset >= at->second && noted.insert(std::string(n->str("id"))).second)
        notes.push_back({Severity::Note, n->lineno, n->col_offset,
                         "'" + std::string(n->str("id")) + "' is " + launch_constant_origin(mi_, k, std::string(n->str("id"))) +
                             ": its value is known at launch, not here, so it is a constexpr of unknown value"});
      return true;
    });
  for (auto& d : notes) diags_.items.push_back(std::move(d));
}

// ---------------------------------------------------------------------------
// Helper calls (Lowerer side)

namespace {

std::string key_of(const LVal& v) {
  auto& i = v.info;
  switch (i.kind) {
    case VKind::Array: return "A" + std::to_string(v.array->rank) + (v.array->int64_index ? "L" : "");
    case VKind::RawMemory: return "R" + std::to_string(v.array->rank) + (v.array->int64_index ? "L" : "");
    case VKind::TiledView: {  // the tiling is compile-time: one specialization per tiling
      std::string k = "V" + std::to_string(v.array->rank) + (v.array->int64_index ? "L" : "") + ":" + v.tiled->padding;
      for (auto& d : v.tiled->tile_shape) k += "," + d.expr;
      k += "/";
      for (auto& d : v.tiled->steps) k += "," + d.expr;
      return k;
    }
    case VKind::ArrayList: return "L" + std::to_string(v.list->rank) + (v.list->int64_index ? "L" : "");
    case VKind::Scalar:
    case VKind::Tile: {
      std::string k = i.kind == VKind::Scalar ? "s" : i.shape.unknown_rank ? "t?" : "t" + std::to_string(i.shape.size());
      for (auto& d : i.shape) k += d.value ? "," + std::to_string(*d.value) : ",?";
      k += ":" + (i.dtype.known() ? i.dtype.name : std::string("?")) + (i.is_bool ? "b" : "");
      k += "/" + std::to_string((int)i.sign);
      return k;
    }
    case VKind::Constexpr:
      if (i.cval && !i.cval->is_number()) return "c=" + i.cval->python();
      return "c/" + std::to_string((int)i.sign);
    case VKind::DTypeV: return i.dtype.known() ? "d=" + i.dtype.name : "d";
    case VKind::Tuple: {
      std::string k = "(";
      for (auto& e : v.elems) k += key_of(e) + ";";
      return k + ")";
    }
    case VKind::Enum: return "e=" + (i.cval ? i.cval->s : std::string());
    case VKind::None: return "None";
    default: return "r=" + i.ref;
  }
}

bool is_passed(const LVal& v) {
  switch (v.info.kind) {
    case VKind::Array:
    case VKind::RawMemory:
    case VKind::TiledView:
    case VKind::ArrayList:
    case VKind::Scalar:
    case VKind::Tile: return true;
    case VKind::Constexpr: return !v.info.cval || v.info.cval->is_number();
    case VKind::DTypeV: return !v.info.dtype.known();
    case VKind::Tuple:
      for (auto& e : v.elems)
        if (e.info.is_runtime() || (e.info.kind == VKind::Constexpr && !e.info.cval)) return true;
      return false;
    default: return false;
  }
}

}  // namespace

LVal Lowerer::call_helper(const Node* call_node, const Node* def) {
  auto* args_node = def->child("args");
  std::string fname(def->str("name"));
  if (args_node->child("vararg") || args_node->child("kwarg")) {
    unsupported(call_node, "helper *args", "helper '" + fname + "' takes *args/**kwargs, which is not supported");
    return {};
  }
  std::vector<const Node*> params;
  for (auto* a : nodes_of(args_node, "posonlyargs")) params.push_back(a);
  for (auto* a : nodes_of(args_node, "args")) params.push_back(a);
  size_t n_positional = params.size();
  for (auto* a : nodes_of(args_node, "kwonlyargs")) params.push_back(a);
  std::vector<std::optional<LVal>> bound(params.size());
  auto args = nodes_of(call_node, "args");
  if (args.size() > n_positional) {
    error(call_node, "too many arguments in the call of '" + fname + "'");
    return {};
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k]->is("Starred")) {
      unsupported(args[k], "starred argument", "star-unpacking in helper calls is not supported");
      return {};
    }
    LVal v = eval(args[k]);
    if (!v.ok()) return {};
    bound[k] = v;
  }
  for (auto* kw : nodes_of(call_node, "keywords")) {
    std::string k(kw->str("arg"));
    size_t idx = params.size();
    for (size_t j = 0; j < params.size(); ++j)
      if (params[j]->str("arg") == k) idx = j;
    if (idx == params.size()) {
      std::vector<std::string_view> names;  // views into the module's syntax tree
      for (auto* p : params) names.push_back(p->str("arg"));
      error(kw, "'" + fname + "' got an unexpected keyword argument '" + k + "'" + did_you_mean(k, names, "", "'"));
      return {};
    }
    if (bound[idx]) {
      error(kw, "'" + fname + "' got multiple values for argument '" + k + "'");
      return {};
    }
    LVal v = eval(kw->child("value"));
    if (!v.ok()) return {};
    bound[idx] = v;
  }
  // Defaults (positional defaults align to the end of the positional list).
  auto defaults = nodes_of(args_node, "defaults");
  auto kw_defaults = args_node->list("kw_defaults");
  for (size_t j = 0; j < params.size(); ++j) {
    if (bound[j]) continue;
    const Node* d = nullptr;
    if (j < n_positional) {
      size_t first = n_positional - defaults.size();
      if (j >= first) d = defaults[j - first];
    } else {
      size_t kj = j - n_positional;
      if (kj < kw_defaults.size() && kw_defaults[kj].kind == syntax::Value::Kind::Node) d = kw_defaults[kj].node;
    }
    if (!d) {
      error(call_node, "missing argument '" + std::string(params[j]->str("arg")) + "' in the call of '" + fname + "'");
      return {};
    }
    auto c = module().fold(d);
    if (!c) {
      error(d, "the default value of a helper parameter must be a constant");
      return {};
    }
    bound[j] = constant(*c, d);
  }
  std::vector<LVal> vals;
  std::vector<bool> passed;
  std::string key;
  for (auto& b : bound) {
    vals.push_back(*b);
    passed.push_back(is_passed(*b));
    key += key_of(*b) + "|";
  }
  HelperInstance* inst = mod_.instantiate_helper(def, vals, passed, key, call_node);
  if (!inst) {
    failed_ = true;
    return {};
  }
  // Call arguments: arrays expand to pointer, shapes, strides.
  std::vector<TExprPtr> cargs;
  std::set<std::string> tiling_passed;
  for (size_t j = 0; j < vals.size(); ++j) {
    if (!passed[j]) continue;
    auto& v = vals[j];
    if (v.has_array_group()) {
      cargs.push_back(v.array->ptr);
      for (auto& s : v.array->shape) cargs.push_back(s);
      for (auto& s : v.array->strides) cargs.push_back(s);
      if (v.tiled)  // the view's constexpr extents, each once per call (setup_helper_params)
        for (auto& e : v.tiled->symbolic_exprs())
          if (tiling_passed.insert(e).second) cargs.push_back(lit(e));
    } else if (v.info.kind == VKind::ArrayList) {
      for (auto& a : v.list->args()) cargs.push_back(a);
    } else {
      cargs.push_back(v.expr);
    }
  }
  TExprPtr c = call(name(inst->emitted_name), cargs);
  // The helper's names in this function's texts: its constexpr parameters (for the result's
  // facts and its footprints) and, for footprints only, its tile parameters' extents (`q.shape[0]`).
  std::map<std::string, std::string> subst;
  for (size_t j = 0; j < vals.size(); ++j)
    if (vals[j].info.kind == VKind::Constexpr && vals[j].expr) subst[std::string(params[j]->str("arg"))] = source(vals[j].expr);
  std::map<std::string, std::string> fsub = subst;
  for (size_t j = 0; j < vals.size(); ++j) {
    if (vals[j].info.kind != VKind::Tile || vals[j].info.shape.unknown_rank) continue;
    for (size_t k = 0; k < vals[j].info.shape.size(); ++k) {
      const sema::Dim& d = vals[j].info.shape[k];
      fsub[std::string(params[j]->str("arg")) + ".shape[" + std::to_string(k) + "]"] = d.value ? std::to_string(*d.value) : d.expr;
    }
  }
  add_footprints(inst->footprints, fsub);
  add_helper_effects(inst->effects);
  if (!inst->has_result) {
    LVal none;
    none.info.kind = VKind::None;
    none.expr = c;
    return none;
  }
  LVal r = inst->result;
  r.node = call_node;
  // Result facts refer to the helper's names; keep what holds in the caller.
  std::function<void(LVal&, TExprPtr)> fix = [&](LVal& v, TExprPtr e) {
    v.expr = e;
    for (auto& d : v.info.shape) {
      if (d.value) continue;
      auto it = subst.find(d.expr);
      d.expr = it == subst.end() ? "" : it->second;
      if (d.expr.empty()) d.maybe_one = false;  // read back from the value (Lowerer::dim_expr)
    }
    if (v.info.dtype.kind != sema::DType::Kind::Concrete) v.info.dtype = sema::DType::dynamic();
    if (v.info.kind == VKind::Constexpr) {  // Triton 3.6 helpers return tensors
      v.info.kind = VKind::Scalar;
      v.info.cval.reset();
    }
    for (size_t k = 0; k < v.elems.size(); ++k) fix(v.elems[k], subscript(e, {lit_int((long long)k)}));
  };
  fix(r, c);
  if (r.info.kind == VKind::Tuple) {
    r.info.elems.clear();
    for (auto& e : r.elems) r.info.elems.push_back(e.info);
  }
  return r;
}

}  // namespace c2t::lower
