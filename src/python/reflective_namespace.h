// The argparse namespace of a class built by name: ReChorus's runners and models declare their
// own flags in a static method handed the program's parser (`parse_runner_args(parser)`, the
// `add_model_specific_args(parent_parser)` convention), and `main.py` builds the class it picks by
// `eval(...)` with the parsed namespace, so no call site reaches `__init__(self, args)`. Such a
// parameter reads the flags this module declares (their defaults, joined with this module's
// stores), as a namespace handed in by a resolved call would.
#pragma once

#include "python/syntax.h"

namespace stoker::python {

class SemanticModel;

// Parameter `pi` of function `f` is one: `f` is the `__init__` of a class of this module, the
// parameter is not variadic and has no default, and a static or class method of the same class
// calls `add_argument` on one of its own parameters and returns it. The caller checks that no
// call site here or in another module hands the parameter anything. O(calls of the module).
bool reflective_namespace_param(const SemanticModel& m, int f, int pi);

// `v` is the node of such a parameter (what param_values gives it), so a namespace value.
bool reflective_namespace_node(const SemanticModel& m, Node v);

}  // namespace stoker::python
