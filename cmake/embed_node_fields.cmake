# Writes a C++ source listing, for every named node type of the tree-sitter-python grammar that
# has fields, the names of the fields its children may carry (from the grammar's
# node-types.json): python::ChildIndex asks tree-sitter for those fields only.
file(READ ${NODE_TYPES} json)
string(JSON n LENGTH "${json}")
math(EXPR last "${n} - 1")
set(rows "")
foreach(i RANGE ${last})
  string(JSON named GET "${json}" ${i} named)
  if(NOT named)
    continue()
  endif()
  string(JSON fields ERROR_VARIABLE no_fields GET "${json}" ${i} fields)
  if(no_fields)
    continue()
  endif()
  string(JSON nf LENGTH "${fields}")
  if(nf EQUAL 0)
    continue()
  endif()
  string(JSON type GET "${json}" ${i} type)
  set(names "")
  math(EXPR lf "${nf} - 1")
  foreach(j RANGE ${lf})
    string(JSON name MEMBER "${fields}" ${j})
    string(APPEND names " ${name}")
  endforeach()
  string(APPEND rows "    {\"${type}\", \"${names}\"},\n")
endforeach()
if(rows STREQUAL "")
  message(FATAL_ERROR "${NODE_TYPES}: no node type with fields")
endif()
set(body "// Generated from the tree-sitter-python grammar's node-types.json by cmake/embed_node_fields.cmake.
// Do not edit.
#include \"python/node_fields.h\"

namespace stoker::python {
const NodeTypeFields kNodeTypeFields[] = {
${rows}};
const size_t kNodeTypeFieldsCount = sizeof(kNodeTypeFields) / sizeof(kNodeTypeFields[0]);
}  // namespace stoker::python
")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
