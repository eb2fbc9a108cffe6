// Point lookups in a parsed tree (parser.cpp).
#pragma once

#include "python/syntax.h"

namespace stoker::python {

// The smallest node around byte `at` below `root`, anonymous tokens included: what
// ts_node_descendant_for_byte_range(root, at, at) answers (the first child ending after `at`,
// while it starts at or before `at`, down to a leaf). With an
// index installed (ChildIndex) each level is a binary search over the node's children instead of
// tree-sitter's scan of every child before it: O(depth x log(children)) rather than O(depth x
// children), the module's statements included.
Node descendant_at(Node root, uint32_t at);

}  // namespace stoker::python
