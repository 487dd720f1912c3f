// The Python abstract syntax tree produced by the parser (stage 1: syntax).
//
// The tree mirrors CPython's `ast` module exactly: every node has the CPython
// class name as `type` ("FunctionDef", "Name", "Load", "Add", ...) and its
// fields under CPython's field names, in CPython's `_fields` order for Python
// 3.12 (a superset of 3.11: 3.12 adds `type_params` and the TypeAlias /
// TypeVar / ParamSpec / TypeVarTuple nodes). The dumper (dump.h) prints the
// field set of the Python version it is asked for.
//
// Positions follow CPython: `lineno`/`end_lineno` are 1-based lines,
// `col_offset`/`end_col_offset` are 0-based UTF-8 byte offsets within the line.
// Nodes without `_attributes` in CPython (expr_context, operators, arguments,
// comprehension, match_case, withitem, Module ...) have `has_pos == false`.
//
// A generic representation (type name + named fields) keeps the parser, the
// dumper and the later stages decoupled: each stage reads the fields it needs
// with `child()`, `list()`, `str()`.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace c2t::syntax {

struct Node;

/// One field value, as CPython would store it on the node.
struct Value {
  enum class Kind : uint8_t {
    Null,      // Python None (absent optional field, or the constant None)
    Node,      // an AST node
    List,      // a Python list (of nodes, or of identifiers for Global/Nonlocal names)
    Str,       // str: identifiers, type comments, str constants; `text` is UTF-8
    Bytes,     // bytes constant; `text` holds the raw bytes
    Int,       // int: `text` holds the decimal digits (arbitrary size, leading '-' if negative)
    Float,     // float: `number`
    Complex,   // complex with zero real part (an imaginary literal): `number` is the imaginary part
    True,
    False,
    Ellipsis,
  };
  Kind kind = Kind::Null;
  Node* node = nullptr;        // Kind::Node
  std::vector<Value> items;    // Kind::List
  std::string text;            // Str / Bytes / Int
  double number = 0;           // Float / Complex
  bool is_null_constant = false;  // Kind::Null that stands for the constant `None` (Constant.value)

  static Value null() { return {}; }
  static Value of(Node* n) { Value v; if (n) { v.kind = Kind::Node; v.node = n; } return v; }
  static Value str(std::string s) { Value v; v.kind = Kind::Str; v.text = std::move(s); return v; }
  static Value integer(long long i) { Value v; v.kind = Kind::Int; v.text = std::to_string(i); return v; }
  static Value list(std::vector<Value> xs = {}) { Value v; v.kind = Kind::List; v.items = std::move(xs); return v; }
};

/// An AST node. Owned by the `Tree` (arena) that created it.
struct Node {
  Node() = default;
  /// A node whose field vector allocates from `arena` (the Tree's: see Tree::make).
  explicit Node(std::pmr::memory_resource* arena) : fields(arena) {}

  std::string_view type;  // CPython class name; points to static storage
  bool has_pos = false;   // CPython `_attributes` present
  int lineno = 0, col_offset = 0, end_lineno = 0, end_col_offset = 0;
  std::pmr::vector<std::pair<std::string_view, Value>> fields;  // CPython field order (3.12)

  /// Field lookup by name; nullptr when the node has no such field.
  const Value* get(std::string_view name) const {
    for (auto& f : fields) if (f.first == name) return &f.second;
    return nullptr;
  }
  Value* get(std::string_view name) {
    for (auto& f : fields) if (f.first == name) return &f.second;
    return nullptr;
  }
  /// The same for a string literal, the usual case: its length is a constant,
  /// so the comparison compiles to a few word compares instead of a memcmp
  /// call (memcmp was the top symbol of a whole conversion's profile).
  template <size_t N>
  const Value* get(const char (&name)[N]) const {
    for (auto& f : fields)
      if (f.first.size() == N - 1 && std::memcmp(f.first.data(), name, N - 1) == 0) return &f.second;
    return nullptr;
  }
  template <size_t N>
  Value* get(const char (&name)[N]) {
    return const_cast<Value*>(static_cast<const Node*>(this)->get(name));
  }
  /// The node stored in field `name`, or nullptr (absent, None or not a node).
  template <class Name>
  Node* child(const Name& name) const {
    auto* v = get(name);
    return v && v->kind == Value::Kind::Node ? v->node : nullptr;
  }
  /// The list stored in field `name` (empty if absent).
  template <class Name>
  const std::vector<Value>& list(const Name& name) const {
    static const std::vector<Value> empty;
    auto* v = get(name);
    return v && v->kind == Value::Kind::List ? v->items : empty;
  }
  /// The string stored in field `name` ("" if absent or not a str).
  template <class Name>
  std::string_view str(const Name& name) const {
    auto* v = get(name);
    return v && v->kind == Value::Kind::Str ? std::string_view(v->text) : std::string_view();
  }
  bool is(std::string_view t) const { return type == t; }
  /// Gives this node `from`'s source span (for nodes later stages synthesize).
  void set_pos(const Node& from) {
    has_pos = true;
    lineno = from.lineno;
    col_offset = from.col_offset;
    end_lineno = from.end_lineno;
    end_col_offset = from.end_col_offset;
  }
  template <size_t N>
  bool is(const char (&t)[N]) const {
    return type.size() == N - 1 && std::memcmp(type.data(), t, N - 1) == 0;
  }
};

/// Owns every node of one parse. Nodes never move (stable pointers). Nodes and
/// their field vectors are carved from one arena freed with the tree: a heap
/// allocation per node was the parser's hot spot once, and a heap block per
/// field vector (plus its free) ~4% of a whole conversion (callgrind).
class Tree {
 public:
  Tree() = default;
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  Tree(Tree&& o) noexcept : root(o.root), arena_(std::move(o.arena_)), nodes_(std::move(o.nodes_)) { o.nodes_.clear(); }
  // The old nodes go before the old arena they live in.
  Tree& operator=(Tree&& o) noexcept {
    if (this != &o) {
      destroy_nodes();
      nodes_ = std::move(o.nodes_);
      o.nodes_.clear();
      arena_ = std::move(o.arena_);
      root = o.root;
    }
    return *this;
  }
  ~Tree() { destroy_nodes(); }

  Node* make(std::string_view type) {
    if (!arena_) arena_ = std::make_unique<std::pmr::monotonic_buffer_resource>(32768);
    void* at = arena_->allocate(sizeof(Node), alignof(Node));
    nodes_.push_back(nullptr);  // may throw: before the node exists
    Node* n = new (at) Node(arena_.get());
    nodes_.back() = n;
    n->type = type;
    return n;
  }
  Node* root = nullptr;  // a "Module" node
  size_t size() const { return nodes_.size(); }

 private:
  void destroy_nodes() {
    for (Node* n : nodes_) n->~Node();  // the values' own strings and lists
    nodes_.clear();
  }
  std::unique_ptr<std::pmr::monotonic_buffer_resource> arena_;
  std::vector<Node*> nodes_;  // every node, to run its destructor
};

}  // namespace c2t::syntax
