// Small read-only helpers over the generic syntax tree (syntax/ast.h), used by
// every later stage: typed field access, call-argument lookup, dotted names.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syntax/ast.h"

namespace c2t::sema {

using syntax::Node;
using syntax::Value;

/// The nodes of one list field: a small vector (no heap allocation up to 8
/// items) that converts to std::vector where one is needed. nodes_of runs
/// ~100,000 times per corpus conversion; a std::vector each was ~2% of it.
class NodeList {
 public:
  using value_type = const Node*;
  using const_iterator = const Node* const*;
  using iterator = const_iterator;
  using size_type = size_t;

  void push_back(const Node* x) {
    if (size_ < kInline) {
      inline_[size_] = x;
    } else {
      if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(x);
    }
    ++size_;
  }
  const Node* const* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Node* operator[](size_t i) const { return data()[i]; }
  const Node* front() const { return data()[0]; }
  const Node* back() const { return data()[size_ - 1]; }
  operator std::vector<const Node*>() const { return std::vector<const Node*>(begin(), end()); }

 private:
  static constexpr size_t kInline = 8;
  const Node* inline_[kInline] = {};
  std::vector<const Node*> heap_;  // all items, once there are more than kInline
  size_t size_ = 0;
};

/// Nodes of a list field (non-node items skipped).
NodeList nodes_of(const Node* n, std::string_view field);

/// The `id`s of every Name node under `n` (including `n`), sorted (byte order,
/// as std::set<std::string> would iterate) and without duplicates. The views
/// point into the tree. (A std::set<std::string> per statement was ~4% of a
/// whole conversion: one allocation per inserted name.)
std::vector<std::string_view> name_ids(const Node* n);

/// "a.b.c" for a chain of Attribute/Name nodes, std::nullopt otherwise.
std::optional<std::string> dotted_name(const Node* e);

/// The Name node at the base of a chain of Attribute/Name nodes (`a` of
/// `a.b.c`), nullptr when `e` is no such chain (exactly when dotted_name gives
/// nullopt). Cheap: builds no string.
const Node* dotted_base(const Node* e);

/// Keyword argument `name` of a Call node, or nullptr.
const Node* call_kwarg(const Node* call, std::string_view name);

/// Positional argument `i` of a Call node, or nullptr (Starred arguments count as positions).
const Node* call_arg(const Node* call, size_t i);

/// True for Constant nodes holding a str (docstrings, string literals).
bool is_str_constant(const Node* e);

/// The docstring of a FunctionDef/Module body (first statement a str constant), or nullptr.
const Node* docstring_node(const Node* def);

/// The `id` of a Name node, or "" for anything else.
std::string_view name_id(const Node* e);

/// Whether dotted module name `m` is cuTile's: cuda.tile, cuda.tile_experimental (cutile-python's
/// experimental package: autotune_launch, ...) or a module of either. An import of one has no place in
/// converted code (the converted module must run without cuTile).
bool is_cutile_package(std::string_view m);

/// Every parameter (`arg` node) of a def's or lambda's `args` node, in signature order: positional-only,
/// positional, *args, keyword-only, **kwargs. Empty for nullptr.
std::vector<const Node*> param_nodes(const Node* args);

/// The relative level of an ImportFrom node (the dots of `from ..pkg import x`):
/// 0 for an absolute import, or when the field is missing (Import nodes).
int import_level(const Node* st);

/// The first node (pre-order) nested more than `limit` levels below `n`
/// (`n` is level 0), or nullptr. Later stages recurse once per level with
/// large frames; the driver rejects deeper functions up front (driver/convert.cpp).
const Node* first_deeper_than(const Node* n, int limit);

/// Every node below `n` (pre-order, including `n`), following Node fields and
/// lists; `visit(node)` returns false to skip that node's children. A template
/// (not std::function) because the lowering and host passes walk every
/// function body several times: the indirect call per node was ~5% of a
/// whole conversion (callgrind, TileGym corpus).
template <class Visit>
void walk(const Node* n, Visit&& visit) {
  if (!n || !visit(n)) return;
  for (auto& f : n->fields) {
    const Value& v = f.second;
    if (v.kind == Value::Kind::Node) {
      walk(v.node, visit);
    } else if (v.kind == Value::Kind::List) {
      for (auto& item : v.items)
        if (item.kind == Value::Kind::Node) walk(item.node, visit);
    }
  }
}

}  // namespace c2t::sema
