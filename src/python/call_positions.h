// Where a function's parameters sit among a call's arguments. A method's first parameter (`self`,
// `cls`) is bound by the call's receiver, so parameter i is argument i - 1; a `@staticmethod`
// binds none (`self.timestep_embedding(t, dim)` hands `dim` its second parameter, minRF's
// TimestepEmbedder). O(1): the decorators are read once, in collect() (Function::static_method).
#pragma once

#include "python/semantic_model.h"

namespace stoker::python {

// The parameters a call's positional arguments skip: 1 for a method that binds its instance or
// class first, 0 for a function or a static method. Parameter pi is the receiver when
// pi < bound_params(fn).
inline int bound_params(const Function& fn) { return fn.klass >= 0 && !fn.static_method ? 1 : 0; }

}  // namespace stoker::python
