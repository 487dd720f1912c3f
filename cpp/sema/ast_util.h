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

/// Nodes of a list field (non-node items skipped).
std::vector<const Node*> nodes_of(const Node* n, std::string_view field);

/// "a.b.c" for a chain of Attribute/Name nodes, std::nullopt otherwise.
std::optional<std::string> dotted_name(const Node* e);

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

/// Every node below `n` (pre-order, including `n`), following Node fields and lists.
void walk(const Node* n, const std::function<bool(const Node*)>& visit);

}  // namespace c2t::sema
