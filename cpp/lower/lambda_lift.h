// Lambdas in tile code (cuTile allows them, mainly as ct.reduce / ct.scan
// combine functions, reference/cutile_api.md §4). A lambda is lowered like a
// helper function: this builds the equivalent `def _c2t_lambda(<args>):
// return <body>` node, which ModuleLowering::instantiate_helper then lifts to
// a module-level @triton.jit function (Triton's tl.reduce /
// tl.associative_scan need a module-level jit function).
#pragma once

#include <string>
#include <vector>

#include "sema/module_scope.h"
#include "syntax/ast.h"

namespace c2t::lower {

/// The FunctionDef node equivalent to `lambda` (a "Lambda" node); stable for
/// the lifetime of the lambda's tree, the same node for the same lambda (so
/// helper specializations are shared). Positions are the lambda body's.
const syntax::Node* lambda_as_def(const syntax::Node* lambda);

/// Like lambda_as_def, for a lambda that reads `captured` runtime values of
/// the enclosing function, lifted as the combine function of tl.reduce /
/// tl.associative_scan over `n_values` tiles followed by one operand per
/// captured name (the value broadcast to the tiles' shape):
///   def _c2t_lambda(a_1..a_n, c_1..c_m, b_1..b_n, _c2t_cap_1.._c2t_cap_m):
///       return (<body>, c_1, ..., c_m)        # (*<body>, ...) when n > 1
/// Every element of a captured operand is the captured value, so combining
/// with it and passing it through is exact.
const syntax::Node* lambda_as_combine_def(const syntax::Node* lambda, size_t n_values,
                                          const std::vector<std::string>& captured);

/// Names the body of `def` (a FunctionDef or a lambda's def) reads that are
/// neither its parameters nor bound inside it: candidates for captured
/// variables of an enclosing function. In source order, without duplicates.
std::vector<const syntax::Node*> free_name_loads(const syntax::Node* def);

/// The first name `def` reads that only an enclosing function can bind (not
/// a parameter or local of `def`, not a module constant, function, module or
/// builtin): a captured variable, or nullptr. Triton's jit functions have no
/// closures, and the combine function of tl.reduce receives only the reduced
/// values, so captures are diagnosed at this name.
const syntax::Node* first_capture(const sema::ModuleInfo& mi, const syntax::Node* def);
/// The module-level function (mi.functions) whose definition contains `n`
/// (a nested def, a lambda, any node), or nullptr.
const syntax::Node* module_function_containing(const sema::ModuleInfo& mi, const syntax::Node* n);
/// Every such name (its first read), in source order.
std::vector<const syntax::Node*> captured_names(const sema::ModuleInfo& mi, const syntax::Node* def);

/// The FunctionDef of `def <name>(a, b): return <expr>`, for combine
/// functions named by reference (`operator.add`, `ct.maximum`), lifted like a
/// lambda, with every node at the position of `at` (the reference, for
/// diagnostics). Synthesized once per thread and site and kept; nullptr if
/// `expr` does not parse.
const syntax::Node* binary_combine_def(const std::string& name, const std::string& expr, const syntax::Node* at);

}  // namespace c2t::lower
