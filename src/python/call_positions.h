// Where a function's parameters sit among a call's arguments. A method's first parameter (`self`,
// `cls`) is bound by the call's receiver, so parameter i is argument i - 1; a `@staticmethod`
// binds none (`self.timestep_embedding(t, dim)` hands `dim` its second parameter, minRF's
// TimestepEmbedder). O(decorators).
#pragma once

#include <string_view>

#include "python/semantic_model.h"
#include "python/syntax.h"

namespace stoker::python {

inline bool is_static_method(const Function& fn, std::string_view src) {
  if (fn.klass < 0) return false;
  Node p = parent(fn.node);
  if (!is(p, "decorated_definition")) return false;
  for (Node d : named_children(p)) {
    if (!is(d, "decorator")) continue;
    std::string_view t = text(d, src);
    while (!t.empty() && (t.front() == '@' || t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
    if (t == "staticmethod") return true;
  }
  return false;
}

// The parameters a call's positional arguments skip: 1 for a method that binds its instance or
// class first, 0 for a function or a static method.
inline int bound_params(const Function& fn, std::string_view src) {
  return fn.klass >= 0 && !is_static_method(fn, src) ? 1 : 0;
}

}  // namespace stoker::python
