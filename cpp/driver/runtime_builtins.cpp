#include "driver/runtime_builtins.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "host/runtime.h"
#include "sema/ast_util.h"
#include "sema/bindings.h"
#include "syntax/parser.h"

namespace c2t::driver {

namespace {

// Python 3.11's builtins (dir(builtins) less dunders, None, True and False, which cannot be bound).
const std::set<std::string_view> kBuiltins = {
      "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
      "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
      "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
      "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
      "ExceptionGroup", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
      "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
      "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
      "ModuleNotFoundError", "NameError", "NotADirectoryError", "NotImplemented", "NotImplementedError",
      "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
      "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
      "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit",
      "TabError", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
      "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
      "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin",
      "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
      "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
      "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
      "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
      "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit",
      "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
      "super", "tuple", "type", "vars", "zip",
};

// Builtins a star import of these modules rebinds (their __all__ / public names; torch 2.x, NumPy 2.x).
const std::map<std::string_view, std::set<std::string_view>> kStarShadows = {
    {"torch", {"abs", "all", "any", "bool", "compile", "complex", "float", "int", "max", "min", "pow", "range",
               "round", "sum"}},
    {"numpy", {"abs", "all", "any", "bool", "divmod", "max", "min", "pow", "round", "sum"}},
    {"math", {"pow"}},
};

using syntax::Node;

// Calls bind(name, node) for every builtin's name the module's own scope binds; a star import of a
// module in kStarShadows binds the builtins it shadows (node: the ImportFrom).
template <class Bind>
void module_bindings(const Node* module, Bind&& bind) {
  sema::for_each_binding(module, [&](std::string_view name, const Node* at, bool module_level) {
    if (!module_level) return;
    if (name != "*") {
      if (kBuiltins.count(name)) bind(name, at);
    } else if (at->is("ImportFrom") && sema::import_level(at) == 0) {
      if (auto it = kStarShadows.find(at->str("module")); it != kStarShadows.end())
        for (auto shadowed : it->second) bind(shadowed, at);
    }
  });
}

// The builtins the generated code reads: Name loads in the host runtime block and the launchers.
std::set<std::string> generated_reads(const std::string& code) {
  std::set<std::string> out;
  syntax::ParseResult pr = syntax::parse(code, "<converted>");
  if (!pr.ok()) return out;  // never: the emitter's output parses (tests/test_*: every output is imported)
  int first = 0, last = 0;  // the runtime block's lines
  if (auto b = code.find(host::kRuntimeBeginMarker); b != std::string::npos)
    if (auto e = code.find(host::kRuntimeEndMarker, b); e != std::string::npos) {
      first = 1 + (int)std::count(code.begin(), code.begin() + b, '\n');
      last = 1 + (int)std::count(code.begin(), code.begin() + e, '\n');
    }
  auto reads = [&](const Node* n) {
    sema::walk(n, [&](const Node* m) {
      if (m->is("Name") && m->child("ctx") && m->child("ctx")->is("Load") && kBuiltins.count(m->str("id")))
        out.insert(std::string(m->str("id")));
      return true;
    });
  };
  for (const Node* st : sema::nodes_of(pr.tree.root, "body"))
    if ((st->lineno >= first && st->lineno <= last) ||
        (st->is("FunctionDef") && st->str("name").rfind("launch_", 0) == 0))
      reads(st);
  return out;
}

}  // namespace

bool check_runtime_builtins(const syntax::Node* module, const std::string& code, Diagnostics& diags) {
  std::set<std::string> bound;
  module_bindings(module, [&](std::string_view name, const Node*) { bound.insert(std::string(name)); });
  if (bound.empty()) return true;  // the common case: no parse of the output
  std::set<std::string> read = generated_reads(code);
  // Per binding (in source order), the builtins it replaces that the generated code reads.
  std::vector<std::pair<const Node*, std::vector<std::string>>> hits;
  std::set<std::string> said;
  module_bindings(module, [&](std::string_view name, const Node* at) {
    std::string id(name);
    if (!read.count(id) || !said.insert(id).second) return;
    if (hits.empty() || hits.back().first != at) hits.push_back({at, {}});
    hits.back().second.push_back(id);
  });
  for (auto& [at, names] : hits) {
    bool star = at->is("ImportFrom");
    std::string list;
    for (auto& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
    diags.error(at->has_pos ? at->lineno : 0, at->has_pos ? at->col_offset : 0,
                (star ? "'*' cannot be converted: this import replaces the builtins " + list
                      : list + " cannot be converted: this module-level binding replaces the builtin " + list) +
                    ", which the converted module's host runtime and launchers read through the module's globals; " +
                    (star ? "import the names you need instead of *" : "rename it"));
  }
  bool ok = hits.empty();
  return ok;
}

}  // namespace c2t::driver
