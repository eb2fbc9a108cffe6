// The shape of a loop's body that the loop passes and the hotness pass both read: a body that
// runs at most once (a test of the first batch, a throughput probe that returns after one pass).
#pragma once

#include <vector>

#include "python/syntax.h"

namespace stoker::python {

// A loop body whose last statement is an unconditional `break` or `return`, with no `continue`
// anywhere in it (which could skip that last statement on some passes): the body runs at most
// once, so it is no hot or epoch loop for the code in it. O(body) only when the last statement
// ends the loop.
inline bool body_runs_once(Node body) {
  if (!is(body, "block")) return false;
  auto kids = named_children(body);
  if (kids.empty()) return false;
  Node last = kids[kids.size() - 1];
  if (!is(last, "break_statement") && !is(last, "return_statement")) return false;
  std::vector<Node> stack{body};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "continue_statement")) return false;
    for_each_named_child(n, [&](Node c) {
      stack.push_back(c);
      return true;
    });
  }
  return true;
}

// `n` (a binding's target) runs on every pass of the loop whose body is `body`: no branch, loop,
// try, with, function or lambda between them. DL004's model built per pass and the loop passes'
// forward of a module built in the pass (model_loops.cpp) ask it. O(depth).
inline bool unconditional_in(Node n, Node body) {
  for (Node p = parent(n); !is_null(p) && !same(p, body); p = parent(p)) {
    auto k = kind(p);
    if (k == "if_statement" || k == "elif_clause" || k == "else_clause" || k == "for_statement" ||
        k == "while_statement" || k == "try_statement" || k == "with_statement" || k == "function_definition" ||
        k == "lambda")
      return false;
  }
  return true;
}

}  // namespace stoker::python
