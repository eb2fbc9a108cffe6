// Lambdas applied where they are written: `map(lambda t: t.cpu(), xs)`, or `f = lambda t: ...`
// then `map(f, xs)` / `f(x)` next to it (set AH PaLM-rlhf-pytorch ppo.py's `detach_to_cpu_`,
// rec30). Their bodies run where they are applied, once per element, and their parameters take
// the elements (or the arguments) they are applied to.
#pragma once

#include <vector>

#include "python/semantic_model.h"

namespace stoker::python {

// The innermost lambda whose body holds `n` (not crossing a function or class definition), or null.
Node enclosing_lambda(Node n);

// Where the lambda is applied, when that is where it is written: the calls that run its body
// (`map(<lambda>, ...)`/`filter(<lambda>, ...)` with it as the first argument; for a lambda bound
// to a plain name by an assignment in a function, the name's every use in that function is such a
// call's first argument or the callee of a call, and each lies in the same innermost loop body as
// the assignment and in no nested definition, lambda or comprehension). Empty when it may run
// elsewhere (stored, handed to another function, a `key=`, a callback). O(the function's identifiers).
std::vector<Node> lambda_applications(const SemanticModel& m, Node lambda);

// The expressions that give parameter `name` of the lambda its values at its applications, with
// `elements` set when the parameter takes their elements (a `map`/`filter` iterable) rather than
// the expression itself (a direct call's argument). Empty when some application cannot be read
// (a splat, a keyword, a missing argument) or the lambda is not applied where written.
struct LambdaSource {
  Node expr{};
  bool elements = false;
};
std::vector<LambdaSource> lambda_param_sources(const SemanticModel& m, Node lambda, std::string_view name);

}  // namespace stoker::python
