// The cuTile operation registry: one entry per cuTile operation, mapping its
// name (as written after `ct.`, or "Tile.<method>" / "Array.<method>" for
// methods, or the operator's function name for Python operators) to the
// function that lowers a call of it, plus metadata for reports and docs.
//
// Entries live in small files per operation family (ops_*.cpp); each file
// exposes a register_*_ops(Registry&) function called once from
// op_registry.cpp (explicit registration: static-initialiser registration
// would be dropped by the linker from a static library).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lower/value.h"
#include "syntax/ast.h"

namespace c2t::lower {

class Lowerer;

/// One call of a cuTile operation with its arguments bound to the entry's
/// parameter list (positional, keyword, defaults), evaluated on demand.
class OpCall {
 public:
  OpCall(Lowerer& L, const syntax::Node* node, std::string op) : L(L), node(node), op(std::move(op)) {}
  Lowerer& L;
  const syntax::Node* node;   // the Call (or BinOp/UnaryOp/Compare) node, for diagnostics
  std::string op;

  /// True when the argument was given (or has a value pre-bound).
  bool has(const std::string& param) const { return values_.count(param) || nodes_.count(param); }
  /// The evaluated argument; a diagnostic + Unknown value if it is missing.
  LVal& arg(const std::string& param);
  /// The argument's value if it was evaluated (or pre-bound), else nullptr; never evaluates.
  const LVal* evaluated(const std::string& param) const {
    auto it = values_.find(param);
    return it == values_.end() ? nullptr : &it->second;
  }
  /// The source node of an argument (nullptr if pre-bound or absent).
  const syntax::Node* arg_node(const std::string& param) const;
  /// Extra positional arguments collected by a `*name` parameter.
  std::vector<const syntax::Node*> varargs;

  void bind_node(const std::string& param, const syntax::Node* n) { nodes_[param] = n; }
  void bind_value(const std::string& param, LVal v) { values_[param] = std::move(v); }
  /// Where to report problems with `param` (its node, else the call).
  const syntax::Node* at(const std::string& param) const;

 private:
  std::map<std::string, const syntax::Node*> nodes_;
  std::map<std::string, LVal> values_;
};

using LowerFn = std::function<LVal(OpCall&)>;

struct OpParam {
  std::string name;
  bool required = true;
  bool keyword_only = false;
  bool varargs = false;
};

struct OpEntry {
  std::string name;      // "load", "Tile.astype", "add"
  std::string family;    // "memory", "arith", ...
  std::vector<OpParam> params;
  LowerFn lower;
  std::string triton;    // one-line description of the Triton lowering
};

class Registry {
 public:
  /// `signature` lists parameters like a Python def: "array, index, shape, *,
  /// order=, padding_mode=" ('=' marks optional, '*' starts keyword-only,
  /// '*name' collects extra positionals, '/' is ignored).
  void add(std::string name, std::string family, std::string signature, LowerFn fn, std::string triton);
  const OpEntry* find(const std::string& name) const;
  const std::map<std::string, OpEntry>& entries() const { return entries_; }

 private:
  std::map<std::string, OpEntry> entries_;
};

/// The registry with every supported cuTile operation.
const Registry& registry();

/// Binds a Call node's arguments to `entry`'s parameters. Unknown keywords,
/// missing required arguments and surplus positionals are diagnosed.
/// `self` (methods) is pre-bound to the first parameter.
bool bind_call(OpCall& c, const OpEntry& entry, const syntax::Node* call, const LVal* self);

// Family registration functions (one per ops_*.cpp file).
void register_grid_ops(Registry& r);
void register_memory_ops(Registry& r);
void register_gather_ops(Registry& r);
void register_adv_index_ops(Registry& r);
void register_atomic_ops(Registry& r);
void register_factory_ops(Registry& r);
void register_convert_ops(Registry& r);
void register_arith_ops(Registry& r);
void register_math_ops(Registry& r);
void register_reduce_ops(Registry& r);
void register_custom_reduce_ops(Registry& r);  // ct.reduce / ct.scan
void register_insert_ops(Registry& r);          // ct.insert / Tile.insert / ct.astile
void register_shape_ops(Registry& r);
void register_mma_ops(Registry& r);
void register_debug_ops(Registry& r);
void register_view_atomic_ops(Registry& r);    // their atomics
void register_view_ops(Registry& r);           // Array.get_raw_memory / Array.tiled_view and their methods

}  // namespace c2t::lower
