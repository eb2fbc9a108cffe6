// Argparse helpers shared by the namespace tests of a call's callee (model_argparse.cpp) and of a
// function's summary (semantic_project.cpp).
#pragma once

#include <functional>

#include "python/semantic_model.h"

namespace stoker::python::model_detail {

// `return self.options` in a method of a class every store of whose `options` (`self.options =
// ...` in any of its methods, monodepth2's `parse()`: `self.options = self.parser.parse_args()`)
// assigns values that `is_namespace` takes for namespaces. A store through a tuple target or an
// augmented assignment, or none at all, is not one. O(nodes of the class) per return.
bool returns_self_namespace(const SemanticModel& m, Node ret, const std::function<bool(const Value&)>& is_namespace);

// The value node of the last `X.set_defaults(dest=value)` of the module (in source order, as
// argparse applies them: a later one wins), or null. O(calls).
Node last_set_default(const SemanticModel& m, std::string_view dest);

// A parser default set by `set_defaults` overrides an `add_argument` default written before it;
// an `add_argument(..., default=...)` written after it sets its own (argparse takes
// `set_defaults`' value only for an argument declared without `default=`).
inline bool set_default_applies(Node set_value, Node add_argument_call, bool explicit_default) {
  return !is_null(set_value) && (!explicit_default || start(add_argument_call) < start(set_value));
}

}  // namespace stoker::python::model_detail
