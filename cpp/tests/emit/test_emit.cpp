// Unit tests of stage emit: precedence-aware printing and line layout, and
// golden tests of the emitted Triton text for each cuTile operation
// (golden/ops/<name>.py -> golden/ops/<name>.triton; regenerate with
// C2T_UPDATE_GOLDEN=1 after checking the diff).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>

#include "emit/printer.h"
#include "lower/module_lowering.h"
#include "lower/prelude.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t::emit {
namespace {

using namespace c2t::lower;

TEST(Printer, MinimalParentheses) {
  auto a = name("a"), b = name("b"), c = name("c");
  EXPECT_EQ(print_expr(binop("*", binop("+", a, b), c)), "(a + b) * c");
  EXPECT_EQ(print_expr(binop("+", a, binop("*", b, c))), "a + b * c");
  EXPECT_EQ(print_expr(binop("-", a, binop("-", b, c))), "a - (b - c)");
  EXPECT_EQ(print_expr(binop("&", compare("<", a, b), compare(">=", b, c))), "(a < b) & (b >= c)");
  EXPECT_EQ(print_expr(unary("-", binop("+", a, b))), "-(a + b)");
  EXPECT_EQ(print_expr(method(binop("+", a, b), "to", {tl_attr("float32")})), "(a + b).to(tl.float32)");
  EXPECT_EQ(print_expr(attr(lit_int(1), "real")), "(1).real");
  EXPECT_EQ(print_expr(subscript(name("x"), {full_slice(), lit("None")})), "x[:, None]");
  EXPECT_EQ(print_expr(tuple({a})), "(a,)");
  EXPECT_EQ(print_expr(ifexp(a, b, c)), "b if a else c");
  EXPECT_EQ(print_expr(binop("**", binop("**", a, b), c)), "(a ** b) ** c");
}

TEST(Printer, LongCallsBreakOneArgumentPerLine) {
  std::vector<TExprPtr> args;
  for (int i = 0; i < 12; ++i) args.push_back(name("argument_number_" + std::to_string(i)));
  TStmt s = TStmt::assign(name("r"), method(tl_call("load", args), "to", {tl_attr("float32")}));
  std::string out = print_stmts({s}, 4);
  EXPECT_EQ(out.substr(0, 18), "    r = tl.load(\n ");
  EXPECT_NE(out.find("        argument_number_11,\n    ).to(tl.float32)\n"), std::string::npos) << out;
  for (auto& line : std::vector<std::string>{}) (void)line;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(line.size(), 100u) << line;
}

TEST(Printer, LongIndexedCallsBreakTheCall) {
  // `tl.load(...)[:, None]` (a loaded vector made a column): the call breaks, its index follows the parenthesis.
  std::vector<TExprPtr> args;
  for (int i = 0; i < 12; ++i) args.push_back(name("argument_number_" + std::to_string(i)));
  TStmt s = TStmt::assign(name("r"), subscript(tl_call("load", args), {full_slice(), lit("None")}));
  std::string out = print_stmts({s}, 4);
  EXPECT_EQ(out.substr(0, 18), "    r = tl.load(\n ");
  EXPECT_NE(out.find("        argument_number_11,\n    )[:, None]\n"), std::string::npos) << out;
}

TEST(Printer, LongOperatorChainsOneOperandPerLine) {
  // As black lays them out; the chain's operands keep the parentheses their precedence needs.
  auto long_name = [](int i) { return name("a_rather_long_operand_name_number_" + std::to_string(i)); };
  TExprPtr chain = compare("<", long_name(0), name("n"));
  for (int i = 1; i < 4; ++i) chain = binop("&", chain, compare(">=", long_name(i), lit_int(0)));
  EXPECT_EQ(print_stmts({TStmt::assign(name("m"), chain)}, 4),
            "    m = (\n"
            "        (a_rather_long_operand_name_number_0 < n)\n"
            "        & (a_rather_long_operand_name_number_1 >= 0)\n"
            "        & (a_rather_long_operand_name_number_2 >= 0)\n"
            "        & (a_rather_long_operand_name_number_3 >= 0)\n"
            "    )\n");
  // `**` groups from the right: (a ** b) ** c is not a chain and stays as the flat printer has it.
  TExprPtr pow = binop("**", binop("**", long_name(0), long_name(1)), long_name(2));
  EXPECT_EQ(print_stmts({TStmt::assign(name("p"), pow)}, 4), "    p = " + print_expr(pow) + "\n");
  EXPECT_NE(print_expr(pow).find("(a_rather_long_operand_name_number_0 ** "), std::string::npos);
}

TEST(Printer, FunctionsWithDocstringsAndElif) {
  TFunction f;
  f.decorators = {"triton.jit"};
  f.name = "k";
  f.params = {{"x_ptr", "", nullptr}, {"N", "tl.constexpr", lit_int(4)}};
  f.docstring = "Doc.";
  TStmt inner{TStmt::Kind::If};
  inner.value = name("c2");
  inner.body = {TStmt::pass()};
  TStmt outer{TStmt::Kind::If};
  outer.value = name("c1");
  outer.body = {TStmt::ret(nullptr)};
  outer.orelse = {inner};
  f.body = {outer};
  EXPECT_EQ(print_function(f),
            "@triton.jit\ndef k(x_ptr, N: tl.constexpr = 4):\n    \"\"\"Doc.\"\"\"\n    if c1:\n        return\n"
            "    elif c2:\n        pass\n");
}

// ---- golden tests per operation -------------------------------------------

std::string golden_dir() {
  std::string f = __FILE__;
  return f.substr(0, f.rfind('/')) + "/../golden/ops";
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Everything the lowering generates for a module, in output order.
std::string emit_module(const std::string& src, const std::string& file, std::string& errors) {
  auto pr = syntax::parse(src, file);
  if (!pr.ok()) {
    errors = pr.diags.render_all(file, src);
    return "";
  }
  Diagnostics d;
  auto mi = sema::analyze_module(pr.tree.root, d);
  LowerOptions opts;
  ModuleLowering ml(mi, opts, d);
  auto lm = ml.run();
  errors = d.render_all(file, pr.source->text());
  std::string out = prelude_source(lm.prelude);
  for (auto* h : lm.helpers) out += (out.empty() ? "" : "\n\n") + print_function(h->fn);
  for (auto& k : lm.kernels)
    if (k.ok) out += (out.empty() ? "" : "\n\n") + print_function(k.fn);
  return out;
}

std::vector<std::string> golden_cases() {
  std::vector<std::string> out;
  if (DIR* dir = opendir(golden_dir().c_str())) {
    while (auto* e = readdir(dir)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.substr(n.size() - 3) == ".py") out.push_back(n.substr(0, n.size() - 3));
    }
    closedir(dir);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Golden, EmittedTritonPerOperation) {
  auto cases = golden_cases();
  ASSERT_GE(cases.size(), 20u) << "golden cases missing in " << golden_dir();
  bool update = std::getenv("C2T_UPDATE_GOLDEN") != nullptr;
  for (auto& c : cases) {
    std::string in = golden_dir() + "/" + c + ".py";
    std::string errors;
    std::string got = emit_module(read(in), c + ".py", errors);
    EXPECT_EQ(errors.find("error"), std::string::npos) << c << ":\n" << errors;
    std::string want_path = golden_dir() + "/" + c + ".triton";
    if (update) {
      std::ofstream(want_path, std::ios::binary) << got;
      continue;
    }
    std::string want = read(want_path);
    EXPECT_EQ(got, want) << "golden mismatch for " << c << " (C2T_UPDATE_GOLDEN=1 regenerates)";
  }
}

}  // namespace
}  // namespace c2t::emit
