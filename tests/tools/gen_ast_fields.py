#!/usr/bin/env python3
"""Prints the C++ field table of cpp/syntax/dump.cpp (kClasses).

Run with CPython 3.11 and pass the path of a CPython 3.12 interpreter:
    python3.11 tests/tools/gen_ast_fields.py /path/to/python3.12
For every concrete ast node class of either version: its `_fields` in each
version, space-separated (absent in a version: nullptr), which fields ast.dump() omits when None
(`getattr(cls, name, ...) is None`: the `?` fields), and whether the class has
`_attributes` (lineno, col_offset, end_lineno, end_col_offset).
"""
import json, subprocess, sys

PROBE = r'''
import ast, json
out = {}
deprecated = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis", "slice", "Index", "ExtSlice",
              "Suite", "AugLoad", "AugStore", "Param"}
for name in dir(ast):
    cls = getattr(ast, name)
    if not (isinstance(cls, type) and issubclass(cls, ast.AST)) or name in deprecated:
        continue
    subs = [c for c in cls.__subclasses__() if c.__name__ not in deprecated]
    if subs or cls is ast.AST or name.startswith("_"):
        continue
    out[name] = {"fields": list(cls._fields),
                 "optional": [f for f in cls._fields if getattr(cls, f, ...) is None],
                 "attrs": bool(cls._attributes)}
print(json.dumps(out))
'''

def probe(python):
    return json.loads(subprocess.run([python, "-c", PROBE], capture_output=True, check=True, text=True).stdout)

def main():
    v11 = probe(sys.executable)
    v12 = probe(sys.argv[1])
    for name in sorted(set(v11) | set(v12)):
        ref = v12.get(name) or v11[name]
        opt = sorted(set(v11.get(name, {}).get("optional", [])) | set(ref["optional"]))
        def fields(d):
            return '"%s"' % " ".join(d[name]["fields"]) if name in d else "nullptr"
        print('    {"%s", %s, %s, "%s", %s},' % (
            name, fields(v11), fields(v12), " ".join(opt), "true" if ref["attrs"] else "false"))

if __name__ == "__main__":
    main()
