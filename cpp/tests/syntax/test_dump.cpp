// Tests of dump() (cpp/syntax/dump.cpp). Trees are built by hand; the expected
// strings are CPython's own ast.dump() output (3.11.7 and 3.12.1) for the
// source quoted above each tree.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "syntax/parser.h"

namespace c2t::syntax {
namespace {

using Fields = std::vector<std::pair<std::string_view, Value>>;

struct Builder {
  Tree tree;
  Node* node(std::string_view type, Fields fields, std::vector<int> pos = {}) {
    Node* n = tree.make(type);
    n->fields.assign(std::make_move_iterator(fields.begin()), std::make_move_iterator(fields.end()));
    if (pos.size() == 4) {
      n->has_pos = true;
      n->lineno = pos[0];
      n->col_offset = pos[1];
      n->end_lineno = pos[2];
      n->end_col_offset = pos[3];
    }
    return n;
  }
  Node* name(std::string id, const char* ctx, std::vector<int> pos) {
    return node("Name", {{"id", Value::str(std::move(id))}, {"ctx", Value::of(node(ctx, {}))}}, pos);
  }
  static Value constant(Value::Kind k, std::string text = "", double x = 0) {
    Value v;
    v.kind = k;
    v.text = std::move(text);
    v.number = x;
    return v;
  }
  Node* cnst(Value v, std::vector<int> pos, Value kind = Value::null()) {
    return node("Constant", {{"value", std::move(v)}, {"kind", std::move(kind)}}, pos);
  }
  Node* module(std::vector<Value> body) {
    return node("Module", {{"body", Value::list(std::move(body))}, {"type_ignores", Value::list()}});
  }
};

std::string dump_v(const Node* n, int minor, bool attrs) {
  DumpOptions o;
  o.python_minor = minor;
  o.include_attributes = attrs;
  return dump(n, o);
}

// x = None
TEST(Dump, AssignNoneConstant) {
  Builder b;
  Node* none = b.cnst(Value::null(), {1, 4, 1, 8});
  none->get("value")->is_null_constant = true;
  Node* assign = b.node("Assign",
                        {{"targets", Value::list({Value::of(b.name("x", "Store", {1, 0, 1, 1}))})},
                         {"value", Value::of(none)},
                         {"type_comment", Value::null()}},
                        {1, 0, 1, 8});
  Node* m = b.module({Value::of(assign)});
  const char* with_attrs =
      "Module(body=[Assign(targets=[Name(id='x', ctx=Store(), lineno=1, col_offset=0, end_lineno=1, "
      "end_col_offset=1)], value=Constant(value=None, lineno=1, col_offset=4, end_lineno=1, end_col_offset=8), "
      "lineno=1, col_offset=0, end_lineno=1, end_col_offset=8)], type_ignores=[])";
  EXPECT_EQ(dump_v(m, 11, true), with_attrs);
  EXPECT_EQ(dump_v(m, 12, true), with_attrs);
  EXPECT_EQ(dump_v(m, 11, false),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=None))], type_ignores=[])");
  // Default options: 3.11 with attributes.
  EXPECT_EQ(dump(m), with_attrs);
}

// def f(a: int, *, b=u'it\'s') -> None:
//     global g, h
TEST(Dump, FunctionDefFieldsPerVersion) {
  Builder b;
  Node* arg_a = b.node("arg", {{"arg", Value::str("a")},
                               {"annotation", Value::of(b.name("int", "Load", {1, 9, 1, 12}))},
                               {"type_comment", Value::null()}},
                       {1, 6, 1, 12});
  Node* arg_b = b.node("arg", {{"arg", Value::str("b")}, {"annotation", Value::null()}, {"type_comment", Value::null()}},
                       {1, 17, 1, 18});
  Node* args = b.node("arguments", {{"posonlyargs", Value::list()},
                                    {"args", Value::list({Value::of(arg_a)})},
                                    {"vararg", Value::null()},
                                    {"kwonlyargs", Value::list({Value::of(arg_b)})},
                                    {"kw_defaults", Value::list({Value::of(b.cnst(Value::str("it's"), {1, 19, 1, 27},
                                                                                  Value::str("u")))})},
                                    {"kwarg", Value::null()},
                                    {"defaults", Value::list()}});
  Node* glob = b.node("Global", {{"names", Value::list({Value::str("g"), Value::str("h")})}}, {2, 4, 2, 15});
  // Fields deliberately stored out of order: the dumper must use CPython's.
  Node* f = b.node("FunctionDef", {{"type_params", Value::list()},
                                   {"returns", Value::of(b.cnst(Value::null(), {1, 32, 1, 36}))},
                                   {"name", Value::str("f")},
                                   {"args", Value::of(args)},
                                   {"body", Value::list({Value::of(glob)})},
                                   {"decorator_list", Value::list()},
                                   {"type_comment", Value::null()}},
                   {1, 0, 2, 15});
  Node* m = b.module({Value::of(f)});
  EXPECT_EQ(dump_v(m, 11, false),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
            "annotation=Name(id='int', ctx=Load()))], kwonlyargs=[arg(arg='b')], kw_defaults=[Constant(value=\"it's\", "
            "kind='u')], defaults=[]), body=[Global(names=['g', 'h'])], decorator_list=[], returns=Constant(value=None))], "
            "type_ignores=[])");
  EXPECT_EQ(dump_v(m, 12, false),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', "
            "annotation=Name(id='int', ctx=Load()))], kwonlyargs=[arg(arg='b')], kw_defaults=[Constant(value=\"it's\", "
            "kind='u')], defaults=[]), body=[Global(names=['g', 'h'])], decorator_list=[], returns=Constant(value=None), "
            "type_params=[])], type_ignores=[])");
  EXPECT_EQ(dump_v(m, 12, true),
            "Module(body=[FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='a', annotation=Name(id='int', "
            "ctx=Load(), lineno=1, col_offset=9, end_lineno=1, end_col_offset=12), lineno=1, col_offset=6, end_lineno=1, "
            "end_col_offset=12)], kwonlyargs=[arg(arg='b', lineno=1, col_offset=17, end_lineno=1, end_col_offset=18)], "
            "kw_defaults=[Constant(value=\"it's\", kind='u', lineno=1, col_offset=19, end_lineno=1, end_col_offset=27)], "
            "defaults=[]), body=[Global(names=['g', 'h'], lineno=2, col_offset=4, end_lineno=2, end_col_offset=15)], "
            "decorator_list=[], returns=Constant(value=None, lineno=1, col_offset=32, end_lineno=1, end_col_offset=36), "
            "type_params=[], lineno=1, col_offset=0, end_lineno=2, end_col_offset=15)], type_ignores=[])");
}

// from . import y
TEST(Dump, OptionalFieldOmittedWhenNone) {
  Builder b;
  Node* alias = b.node("alias", {{"name", Value::str("y")}, {"asname", Value::null()}}, {1, 14, 1, 15});
  Node* imp = b.node("ImportFrom", {{"module", Value::null()},
                                    {"names", Value::list({Value::of(alias)})},
                                    {"level", Value::integer(1)}},
                     {1, 0, 1, 15});
  Node* m = b.module({Value::of(imp)});
  EXPECT_EQ(dump_v(m, 11, true),
            "Module(body=[ImportFrom(names=[alias(name='y', lineno=1, col_offset=14, end_lineno=1, end_col_offset=15)], "
            "level=1, lineno=1, col_offset=0, end_lineno=1, end_col_offset=15)], type_ignores=[])");
}

// {**d, 1: b'\x00"', 2: 1.5, 3: 2j, 4: ...}
TEST(Dump, ConstantReprsAndNoneInLists) {
  Builder b;
  using K = Value::Kind;
  std::vector<Value> keys = {Value::null()};
  for (int i = 1; i <= 4; ++i) keys.push_back(Value::of(b.cnst(Value::integer(i), {})));
  std::vector<Value> values = {
      Value::of(b.name("d", "Load", {})),
      Value::of(b.cnst(Builder::constant(K::Bytes, std::string("\0\"", 2)), {})),
      Value::of(b.cnst(Builder::constant(K::Float, "", 1.5), {})),
      Value::of(b.cnst(Builder::constant(K::Complex, "", 2.0), {})),
      Value::of(b.cnst(Builder::constant(K::Ellipsis), {})),
  };
  Node* dict = b.node("Dict", {{"keys", Value::list(keys)}, {"values", Value::list(values)}});
  Node* m = b.module({Value::of(b.node("Expr", {{"value", Value::of(dict)}}))});
  EXPECT_EQ(dump_v(m, 11, false),
            "Module(body=[Expr(value=Dict(keys=[None, Constant(value=1), Constant(value=2), Constant(value=3), "
            "Constant(value=4)], values=[Name(id='d', ctx=Load()), Constant(value=b'\\x00\"'), Constant(value=1.5), "
            "Constant(value=2j), Constant(value=Ellipsis)]))], type_ignores=[])");
  Node* t = b.cnst(Builder::constant(K::True), {});
  Node* f = b.cnst(Builder::constant(K::False), {});
  EXPECT_EQ(dump_v(t, 11, false), "Constant(value=True)");
  EXPECT_EQ(dump_v(f, 12, false), "Constant(value=False)");
  Node* big = b.cnst(Builder::constant(K::Int, "123456789012345678901234567890"), {});
  EXPECT_EQ(dump_v(big, 11, false), "Constant(value=123456789012345678901234567890)");
  // repr() refuses ints above sys.int_info.default_max_str_digits.
  Node* huge = b.cnst(Builder::constant(K::Int, std::string(4301, '7')), {});
  EXPECT_EQ(dump_v(huge, 11, false).rfind("error:", 0), 0u);
}

// type T = int
TEST(Dump, TypeAliasOnlyIn312) {
  Builder b;
  Node* alias = b.node("TypeAlias", {{"name", Value::of(b.name("T", "Store", {1, 5, 1, 6}))},
                                     {"type_params", Value::list()},
                                     {"value", Value::of(b.name("int", "Load", {1, 9, 1, 12}))}},
                       {1, 0, 1, 12});
  Node* m = b.module({Value::of(alias)});
  EXPECT_EQ(dump_v(m, 12, false),
            "Module(body=[TypeAlias(name=Name(id='T', ctx=Store()), type_params=[], value=Name(id='int', ctx=Load()))], "
            "type_ignores=[])");
  EXPECT_EQ(dump_v(m, 12, true),
            "Module(body=[TypeAlias(name=Name(id='T', ctx=Store(), lineno=1, col_offset=5, end_lineno=1, "
            "end_col_offset=6), type_params=[], value=Name(id='int', ctx=Load(), lineno=1, col_offset=9, end_lineno=1, "
            "end_col_offset=12), lineno=1, col_offset=0, end_lineno=1, end_col_offset=12)], type_ignores=[])");
  EXPECT_EQ(dump_v(m, 11, false).rfind("error:", 0), 0u);
}

// class C[T]: pass -- non-empty type_params cannot be shown as 3.11.
TEST(Dump, TypeParamsRejectedFor311) {
  Builder b;
  Node* tv = b.node("TypeVar", {{"name", Value::str("T")}, {"bound", Value::null()}}, {1, 8, 1, 9});
  Node* cls = b.node("ClassDef", {{"name", Value::str("C")},
                                  {"bases", Value::list()},
                                  {"keywords", Value::list()},
                                  {"body", Value::list({Value::of(b.node("Pass", {}, {1, 12, 1, 16}))})},
                                  {"decorator_list", Value::list()},
                                  {"type_params", Value::list({Value::of(tv)})}},
                     {1, 0, 1, 16});
  EXPECT_EQ(dump_v(cls, 12, false),
            "ClassDef(name='C', bases=[], keywords=[], body=[Pass()], decorator_list=[], type_params=[TypeVar(name='T')])");
  EXPECT_EQ(dump_v(cls, 11, false).rfind("error:", 0), 0u);
  // With no type parameters the 3.11 form simply has no such field.
  cls->get("type_params")->items.clear();
  EXPECT_EQ(dump_v(cls, 11, false), "ClassDef(name='C', bases=[], keywords=[], body=[Pass()], decorator_list=[])");
}

TEST(Dump, StringReprQuoting) {
  Builder b;
  EXPECT_EQ(dump_v(b.cnst(Value::str("a'b\"c\n"), {}), 11, false), "Constant(value='a\\'b\"c\\n')");
  EXPECT_EQ(dump_v(b.cnst(Value::str("\xc3\xa9"), {}), 11, false), "Constant(value='\xc3\xa9')");
}

TEST(Dump, BadInput) {
  EXPECT_EQ(dump(nullptr).rfind("error:", 0), 0u);
  Builder b;
  Node* p = b.node("Pass", {}, {1, 0, 1, 4});
  DumpOptions o;
  o.python_minor = 10;
  EXPECT_EQ(dump(p, o).rfind("error:", 0), 0u);
  EXPECT_EQ(dump(p), "Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=4)");
}

}  // namespace
}  // namespace c2t::syntax
