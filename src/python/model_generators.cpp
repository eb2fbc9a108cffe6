// Loader generators: functions whose yields hand out a loader's batches as they come (`yield from
// loader`, `for b in loader: yield b`), alone or inside `while True:` (guided-diffusion's
// `load_data`, set BF; session 38). A call of one is a loader of the same batches.
#include <algorithm>

#include "python/model_internal.h"
#include "python/types.h"

namespace stoker::python {

using namespace model_detail;

namespace {

// The iterable whose elements the yield `y` hands out unchanged: X of `yield from X`, or X of the
// `for t in X:` whose whole body is `yield t` (comments aside; t a plain name). `site` receives the
// `yield` or that `for` statement. Null for any other yield.
Node yielded_iterable(const SemanticModel& m, Node y, bool from, Node& site) {
  if (is_null(y)) return Node{};
  Node yield_node = parent(y);
  while (!is_null(yield_node) && !is(yield_node, "yield")) yield_node = parent(yield_node);
  if (is_null(yield_node)) return Node{};
  if (from) {
    site = yield_node;
    return unparen(y);
  }
  Node v = unparen(y);
  if (!is(v, "identifier")) return Node{};
  Node stmt = parent(yield_node);
  if (!is(stmt, "expression_statement") || named_count(stmt) != 1) return Node{};
  Node block = parent(stmt);
  if (!is(block, "block")) return Node{};
  for (Node k : named_children(block))
    if (!is(k, "comment") && !same(k, stmt)) return Node{};
  Node loop = parent(block);
  if (!is(loop, "for_statement") || !same(field(loop, "body"), block) || !is_null(field(loop, "alternative")))
    return Node{};
  Node target = unparen(field(loop, "left"));
  if (!is(target, "identifier") || m.text(target) != m.text(v)) return Node{};
  site = loop;
  return unparen(field(loop, "right"));
}

}  // namespace

std::vector<std::pair<Node, Node>> SemanticModel::yielded_loaders(int f) const {
  std::vector<std::pair<Node, Node>> out;
  if (f < 0 || static_cast<size_t>(f) >= functions_.size() || !types_) return out;
  // Its yields (value, is `yield from`; not those of nested definitions), at most kMaxCandidates
  // + 1, memoized per function.
  const auto& ys = types_->yields(f);
  if (ys.empty() || ys.size() > kMaxCandidates) return out;
  for (const auto& [y, from] : ys) {
    Node site{};
    Node x = yielded_iterable(*this, y, from, site);
    if (is_null(x)) return {};
    // A parameter: the callers' loader, a pass-through generator (yields_param).
    if (is(x, "identifier"))
      for (const Binding* b : lookup(text(x), start(x)))
        if (b->kind == Binding::Kind::Param) return {};
    // A cycle through this question (the loader is what a call of f gives) answers no.
    if (!is_loader_impl(x)) return {};
    out.emplace_back(site, x);
  }
  return out;
}

bool SemanticModel::loader_generator_call(Node call) const {
  call = unparen(call);
  if (!is(call, "call") || callee_name(call) == "builtins.iter") return false;
  for (int f : callees(call))
    if (!yielded_loaders(f).empty()) return true;
  if (!callees(call).empty()) return false;
  const FunctionFacts* ext = ext_callee_of(call, fact::kReturnsLoader);
  return ext && ext->returns_loader;
}

int SemanticModel::loader_reyielded(Node loader_call, bool* inside) const {
  if (inside) *inside = false;
  if (is_null(loader_call) || !types_) return -1;
  int out = -1;
  const int built_in = function_at(start(loader_call));
  for (size_t g = 0; g < functions_.size(); ++g) {
    for (const auto& [site, x] : yielded_loaders(static_cast<int>(g))) {
      bool holds = false;
      for (Node o : loader_origins(x)) holds = holds || same(o, loader_call);
      if (!holds) continue;
      out = std::max(out, 0);
      if (inside && built_in == static_cast<int>(g)) *inside = true;
      // A loop of the generator around the site (the generator's own: nested definitions have
      // their own yields) that does not contain the construction: every pass of it iterates the
      // same loader again.
      for (Node p = parent(site); !is_null(p) && !same(p, functions_[g].node); p = parent(p))
        if ((is(p, "while_statement") || is(p, "for_statement")) && !contains(p, loader_call)) {
          out = 1;
          break;
        }
    }
  }
  return out;
}

bool SemanticModel::generator_never_drawn(int f) const {
  if (f < 0 || static_cast<size_t>(f) >= functions_.size()) return false;
  return memo("never-drawn:" + std::to_string(f), [&]() -> int {
    Node def = functions_[f].node;
    if (text(def).find("yield") == std::string_view::npos) return 0;
    // A generator: a `yield` of its own body, not of a nested scope.
    bool generator = false;
    std::vector<Node> stack{field(def, "body")};
    while (!stack.empty() && !generator) {
      Node n = stack.back();
      stack.pop_back();
      if (is_null(n) || is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
      if (is(n, "yield")) generator = true;
      for (Node c : named_children(n)) stack.push_back(c);
    }
    if (!generator) return 0;
    // Defined in a function (a module-level one may be imported and drawn by other modules).
    Node outer = parent(def);
    while (!is_null(outer) && !is(outer, "function_definition")) {
      if (is(outer, "class_definition")) return 0;
      outer = parent(outer);
    }
    if (is_null(outer) || is(parent(def), "decorated_definition")) return 0;
    Node name_node = field(def, "name");
    std::string_view name = text(name_node);
    // A plain mention that reads the identifier (not `x.name`, not a keyword's name).
    auto reads = [&](Node u) {
      Node pa = parent(u);
      if (is(pa, "attribute") && same(field(pa, "attribute"), u)) return false;
      if (is(pa, "keyword_argument") && same(field(pa, "name"), u)) return false;
      return true;
    };
    int calls = 0;
    bool ok = for_each_identifier(outer, false, [&](Node u) {
      if (text(u) != name || same(u, name_node) || !reads(u)) return true;
      Node call = parent(u);
      if (!is(call, "call") || !same(field(call, "function"), u)) return false;  // handed on
      Node p = parent(call);
      while (is(p, "parenthesized_expression")) p = parent(p);
      if (!is(p, "assignment") || !same(unparen(field(p, "right")), call)) return false;
      Node left = field(p, "left");
      if (!is(left, "identifier") || !is(parent(p), "expression_statement")) return false;
      std::string_view var = text(left);
      // Nothing in the enclosing function reads the generator object (nested scopes included).
      bool unread = for_each_identifier(outer, false, [&](Node v) {
        return text(v) != var || same(v, left) || !reads(v);
      });
      if (!unread) return false;
      ++calls;
      return true;
    });
    return ok && calls > 0 ? 1 : 0;
  }) != 0;
}

bool SemanticModel::in_undrawn_generator(Node at) const {
  for (Node p = parent(at); !is_null(p); p = parent(p)) {
    if (!is(p, "function_definition")) continue;
    int f = function_at(start(field(p, "body")));
    if (f >= 0 && same(functions_[f].node, p) && generator_never_drawn(f)) return true;
  }
  return false;
}

}  // namespace stoker::python
