#include "sema/ast_util.h"

#include <algorithm>

namespace c2t::sema {

NodeList nodes_of(const Node* n, std::string_view field) {
  NodeList out;
  if (!n) return out;
  for (auto& v : n->list(field))
    if (v.kind == Value::Kind::Node && v.node) out.push_back(v.node);
  return out;
}

std::vector<std::string_view> name_ids(const Node* n) {
  std::vector<std::string_view> out;
  walk(n, [&](const Node* x) {
    if (x->is("Name")) out.push_back(x->str("id"));
    return true;
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {
bool dotted_into(const Node* e, std::string& out) {
  if (!e) return false;
  if (e->is("Name")) {
    out += e->str("id");
    return true;
  }
  if (e->is("Attribute")) {
    if (!dotted_into(e->child("value"), out)) return false;
    out += '.';
    out += e->str("attr");
    return true;
  }
  return false;
}
}  // namespace

std::optional<std::string> dotted_name(const Node* e) {
  std::string out;
  if (!dotted_into(e, out)) return std::nullopt;
  return out;
}

const Node* dotted_base(const Node* e) {
  while (e && e->is("Attribute")) e = e->child("value");
  return e && e->is("Name") ? e : nullptr;
}

const Node* call_kwarg(const Node* call, std::string_view name) {
  for (auto* kw : nodes_of(call, "keywords"))
    if (kw->str("arg") == name) return kw->child("value");
  return nullptr;
}

const Node* call_arg(const Node* call, size_t i) {
  auto args = nodes_of(call, "args");
  return i < args.size() ? args[i] : nullptr;
}

bool is_str_constant(const Node* e) {
  if (!e || !e->is("Constant")) return false;
  auto* v = e->get("value");
  return v && v->kind == Value::Kind::Str;
}

const Node* docstring_node(const Node* def) {
  auto body = nodes_of(def, "body");
  if (body.empty() || !body[0]->is("Expr")) return nullptr;
  auto* v = body[0]->child("value");
  return is_str_constant(v) ? v : nullptr;
}

std::string_view name_id(const Node* e) {
  return e && e->is("Name") ? e->str("id") : std::string_view();
}

bool is_cutile_package(std::string_view m) {
  for (std::string_view pkg : {"cuda.tile", "cuda.tile_experimental"})
    if (m == pkg || (m.size() > pkg.size() && m.substr(0, pkg.size()) == pkg && m[pkg.size()] == '.')) return true;
  return false;
}

std::vector<const Node*> param_nodes(const Node* args) {
  std::vector<const Node*> out;
  if (!args) return out;
  for (auto* a : nodes_of(args, "posonlyargs")) out.push_back(a);
  for (auto* a : nodes_of(args, "args")) out.push_back(a);
  if (auto* a = args->child("vararg")) out.push_back(a);
  for (auto* a : nodes_of(args, "kwonlyargs")) out.push_back(a);
  if (auto* a = args->child("kwarg")) out.push_back(a);
  return out;
}

int import_level(const Node* st) {
  auto* v = st->get("level");
  return v && v->kind == Value::Kind::Int ? std::stoi(v->text) : 0;
}

namespace {
const Node* deeper(const Node* n, int depth, int limit) {
  if (!n) return nullptr;
  if (depth > limit) return n;
  for (auto& f : n->fields) {
    const Value& v = f.second;
    if (v.kind == Value::Kind::Node) {
      if (auto* d = deeper(v.node, depth + 1, limit)) return d;
    } else if (v.kind == Value::Kind::List) {
      for (auto& item : v.items)
        if (item.kind == Value::Kind::Node)
          if (auto* d = deeper(item.node, depth + 1, limit)) return d;
    }
  }
  return nullptr;
}
}  // namespace

const Node* first_deeper_than(const Node* n, int limit) { return deeper(n, 0, limit); }

}  // namespace c2t::sema
