// Lambdas applied where they are written (lambdas.h).
#include "python/lambdas.h"

namespace stoker::python {

namespace {
bool mapping_builtin(const SemanticModel& m, Node call) {
  const std::string& q = m.callee_name(call);
  return q == "builtins.map" || q == "builtins.filter";
}

// The innermost loop body (a for/while statement's) holding `n` within its definition, or the
// definition itself; null at a nested definition, lambda or comprehension on the way.
Node innermost_region(Node n, bool& crossed) {
  crossed = false;
  for (Node p = parent(n); !is_null(p); p = parent(p)) {
    auto k = kind(p);
    if (k == "for_statement" || k == "while_statement" || k == "function_definition" || k == "module") return p;
    if (k == "lambda" || k == "class_definition" || k == "list_comprehension" || k == "generator_expression" ||
        k == "set_comprehension" || k == "dictionary_comprehension") {
      crossed = true;
      return p;
    }
  }
  return Node{};
}

// The parameter names of a lambda, in order (plain identifiers; a default or splat: its name,
// flagged by `plain` false).
std::vector<std::pair<std::string_view, bool>> lambda_params(const SemanticModel& m, Node lambda) {
  std::vector<std::pair<std::string_view, bool>> out;
  for (Node p : named_children(field(lambda, "parameters"))) {
    if (is(p, "identifier")) out.push_back({m.text(p), true});
    else if (Node nm = field(p, "name"); !is_null(nm)) out.push_back({m.text(nm), false});
    else if (named_count(p) > 0 && is(named_child(p, 0), "identifier")) out.push_back({m.text(named_child(p, 0)), false});
  }
  return out;
}
}  // namespace

Node enclosing_lambda(Node n) {
  for (Node p = parent(n); !is_null(p); p = parent(p)) {
    if (is(p, "lambda")) return p;
    if (is(p, "function_definition") || is(p, "class_definition")) return Node{};
  }
  return Node{};
}

std::vector<Node> lambda_applications(const SemanticModel& m, Node lambda) {
  std::vector<Node> out;
  Node p = parent(lambda);
  while (is(p, "parenthesized_expression")) p = parent(p);
  // `map(lambda t: ..., xs)`.
  if (is(p, "argument_list") && is(parent(p), "call") && mapping_builtin(m, parent(p)) &&
      same(unparen(m.argument(parent(p), 0, "")), lambda)) {
    out.push_back(parent(p));
    return out;
  }
  // `f = lambda t: ...` in a function, applied next to it.
  if (!is(p, "assignment") || !same(unparen(field(p, "right")), lambda) || !is(field(p, "left"), "identifier"))
    return out;
  Node target = field(p, "left");
  bool crossed = false;
  Node region = innermost_region(p, crossed);
  if (is_null(region) || crossed || is(region, "module")) return out;
  Node fn = region;  // the function, or the module for a loop at module level
  while (!is_null(parent(fn)) && !is(fn, "function_definition")) fn = parent(fn);
  std::string_view name = m.text(target);
  Node walked = is(fn, "function_definition") ? field(fn, "body") : fn;  // a definition root is not entered
  bool ok = for_each_identifier(walked, true, [&](Node u) {
    if (m.text(u) != name || same(u, target)) return true;
    Node up = parent(u);
    if (is(up, "attribute") && same(field(up, "attribute"), u)) return true;  // `x.f`
    if (is(up, "keyword_argument") && same(field(up, "name"), u)) return true;
    // Rebound elsewhere in the function: not only this lambda.
    if ((is(up, "assignment") && same(field(up, "left"), u)) || is(up, "pattern_list") || is(up, "tuple_pattern"))
      return false;
    bool c = false;
    if (!same(innermost_region(u, c), region) || c) return false;
    if (is(up, "call") && same(field(up, "function"), u)) {
      out.push_back(up);
      return true;
    }
    if (is(up, "argument_list") && is(parent(up), "call") && mapping_builtin(m, parent(up)) &&
        same(unparen(m.argument(parent(up), 0, "")), u)) {
      out.push_back(parent(up));
      return true;
    }
    return false;
  });
  if (!ok) out.clear();
  return out;
}

std::vector<LambdaSource> lambda_param_sources(const SemanticModel& m, Node lambda, std::string_view name) {
  std::vector<LambdaSource> out;
  auto params = lambda_params(m, lambda);
  int index = -1;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].first == name) index = params[i].second ? static_cast<int>(i) : -2;
  if (index < 0) return out;
  auto apps = lambda_applications(m, lambda);
  for (Node call : apps) {
    bool map = mapping_builtin(m, call);  // `map(f, xs)`: elements; `f(x)`: the argument
    Node args = field(call, "arguments");
    for (Node a : named_children(args))
      if (is(a, "list_splat") || is(a, "dictionary_splat") || is(a, "keyword_argument")) return {};
    Node src = map ? m.argument(call, index + 1, "") : m.argument(call, index, "");
    if (is_null(src)) return {};
    out.push_back({src, map});
  }
  return out;
}

}  // namespace stoker::python
