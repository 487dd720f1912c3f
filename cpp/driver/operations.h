// The cuTile operations the converter supports, as its registry holds them (lower/op_registry.h): for
// `cutile2triton ops` and the Python API's `operations()`, so that the list users read is the list the
// compiler uses.
#pragma once

#include <string>
#include <vector>

namespace c2t {

struct OperationInfo {
  std::string name;       // as written after `ct.` ("load"), or "Tile.astype" / "Array.tiled_view" for methods
  std::string family;     // the registry's grouping: "memory", "arith", "reduce", ...
  std::string signature;  // its parameters as a Python def lists them: "array, index, shape, *, order="
  std::string call;       // as written in cuTile code: "ct.load(array, index, ...)", "tile.astype(dtype, ...)"
  std::string triton;     // one line: what the Triton code does
};

/// Every registered operation, sorted by family then name.
std::vector<OperationInfo> supported_operations();

}  // namespace c2t
