#pragma once
// The field names each named node type of the tree-sitter-python grammar may give its children,
// generated at build time from the grammar's node-types.json (cmake/embed_node_fields.cmake);
// python::ChildIndex asks tree-sitter for those fields only.
#include <cstddef>

namespace stoker::python {
struct NodeTypeFields {
  const char* type;
  const char* fields;  // space-separated
};
extern const NodeTypeFields kNodeTypeFields[];
extern const size_t kNodeTypeFieldsCount;
}  // namespace stoker::python
