// isinstance narrowing: the bindings a use sees past an `isinstance` or `torch.is_tensor` test
// (`isinstance_narrowing`). Split from model_devices.cpp at 1,803 lines in session 28.
#include "python/model_internal.h"

#include <functional>

namespace stoker::python {

using namespace model_detail;

// isinstance tests (branch rec18b). `if isinstance(x, np.ndarray): return x` hands back a NumPy
// array whatever its callers pass; `if isinstance(y, torch.Tensor): y = y.cpu().numpy()` (no
// else) leaves the binding before it reaching later uses only when y is not a tensor (OGB's
// Evaluator converts torch inputs to NumPy first), as does an early exit on the tensor test (`if
// torch.is_tensor(o): return o.item()`, then `as_numpy(o)`: sweep20 class N, TabSurvey's stg
// utils). Indexed once from the `isinstance` and `torch.is_tensor` calls, so a question costs
// O(tests of that name).

namespace {

// The conjuncts of an if condition (`a and b and c`), or its disjuncts (`a or b`) with `op` "or".
void conjuncts(Node cond, std::string_view src, std::vector<Node>& out, int depth = 0, std::string_view op = "and") {
  cond = unparen(cond);
  if (depth < 8 && is(cond, "boolean_operator") && text(field(cond, "operator"), src) == op) {
    conjuncts(field(cond, "left"), src, out, depth + 1, op);
    conjuncts(field(cond, "right"), src, out, depth + 1, op);
    return;
  }
  out.push_back(cond);
}

// Does the block always leave at its end (its last statement a `return`, `raise`, `continue` or
// `break`)? Every path through it then leaves before the statement after the if.
bool block_exits(Node block) {
  Node last{};
  for (Node st : named_children(block))
    if (!is(st, "comment")) last = st;
  return is(last, "return_statement") || is(last, "raise_statement") || is(last, "continue_statement") ||
         is(last, "break_statement");
}

}  // namespace

SemanticModel::Narrowing SemanticModel::isinstance_narrowing(Node use, const Binding& b) const {
  if (!isinstance_ifs_built_) {
    isinstance_ifs_built_ = true;
    // A class argument: "host" (NumPy arrays and scalars, builtin scalars: never a tensor),
    // "tensor" (torch.Tensor) or "" (anything else, lists and tuples included: they may hold
    // CUDA tensors).
    auto names_torch = [&](Node id) {
      if (!is(id, "identifier")) return false;
      for (const Binding* ib : lookup(text(id), start(id)))
        if (ib->kind == Binding::Kind::Import && ib->qualified == "torch") return true;
      return false;
    };
    auto class_kind = [&](Node t, auto&& self, int depth) -> std::string_view {
      t = unparen(t);
      if (is(t, "tuple")) {
        std::string_view all;
        for (Node c : named_children(t)) {
          std::string_view ck = depth < 2 ? self(c, self, depth + 1) : std::string_view{};
          if (ck.empty() || (!all.empty() && ck != all)) return {};
          all = ck;
        }
        return all;
      }
      const std::string& q = qualified_name(t);
      if (q == "torch.Tensor" ||
          (q.empty() && is(t, "attribute") && text(field(t, "attribute")) == "Tensor" && names_torch(field(t, "object"))))
        return "tensor";
      static const std::set<std::string, std::less<>> host = {
          "numpy.ndarray", "numpy.generic", "numpy.number", "numpy.integer", "numpy.floating", "numpy.bool_",
          "builtins.int", "builtins.float", "builtins.str", "builtins.bool", "numbers.Number", "numbers.Real"};
      if (host.count(q)) return "host";
      if (is(t, "identifier") && q.empty() && lookup(text(t), start(t)).empty()) {
        std::string_view w = text(t);
        if (w == "int" || w == "float" || w == "str" || w == "bool" || w == "bytes") return "host";
      }
      return {};
    };
    for (const CallSite& cs : calls_) {
      Node call = cs.call;
      Node fn = unparen(field(call, "function"));
      // `torch.is_tensor(x)`: a tensor test, read only as an early exit (below).
      bool is_tensor_call = is(fn, "attribute") && text(field(fn, "attribute")) == "is_tensor" &&
                            named_count(field(call, "arguments")) == 1 && callee_name(call) == "torch.is_tensor";
      if (!is_tensor_call && (!is(fn, "identifier") || text(fn) != "isinstance")) continue;
      Node subject = unparen(argument(call, 0, ""));
      if (!is(subject, "identifier") || (!is_tensor_call && qualified_name(fn) != "builtins.isinstance")) continue;
      // The if statement (or elif clause) whose condition holds the call as a conjunct.
      Node up = parent(call);
      while (!is_null(up) && (is(up, "boolean_operator") || is(up, "parenthesized_expression"))) up = parent(up);
      std::string_view ck0 = is_tensor_call ? std::string_view("tensor") : class_kind(argument(call, 1, ""), class_kind, 0);
      // `g.item() if isinstance(g, torch.Tensor) else g` (a disjunction holding the test too): in
      // the else branch the name is not a tensor, as in the body of a host test.
      if (is(up, "conditional_expression") && named_count(up) == 3 && ck0 == "tensor") {
        std::vector<Node> alternatives;
        conjuncts(named_child(up, 1), src_, alternatives, 0, "or");
        bool disjunct = false;
        for (Node c : alternatives) disjunct |= same(c, call);
        auto& blocks = isinstance_ifs_[std::string(text(subject))].host_blocks;
        if (disjunct && blocks.size() < 16) blocks.push_back(named_child(up, 2));
        continue;
      }
      if (!is(up, "if_statement") && !is(up, "elif_clause")) continue;
      Node cond = field(up, "condition");
      std::vector<Node> parts;
      conjuncts(cond, src_, parts);
      bool conjunct = false;
      for (Node c : parts) conjunct |= same(c, call);
      std::string_view ck = ck0;
      if (ck.empty()) continue;
      std::string name(text(subject));
      Node body = field(up, "consequence");
      // At most kMaxTests tests of one name are kept (a question costs O(tests of its name));
      // past that the later ones narrow nothing.
      constexpr size_t kMaxTests = 16;
      // An early exit: an if statement with no else whose condition is the tensor test or a
      // disjunction holding it (`isinstance(o, Variable) or torch.is_tensor(o)`) and whose body
      // always leaves (`if torch.is_tensor(o): return o.item()`). Past it, in its block, the name
      // is not a tensor, as past a conversion.
      if (ck == "tensor" && is(up, "if_statement") && is_null(field(up, "alternative")) && block_exits(body)) {
        std::vector<Node> alternatives;
        conjuncts(cond, src_, alternatives, 0, "or");
        bool disjunct = false;
        for (Node c : alternatives) disjunct |= same(c, call);
        auto& convs = isinstance_ifs_[name].tensor_conversions;
        if (disjunct && convs.size() < kMaxTests) convs.push_back(up);
        continue;
      }
      if (!conjunct || is_tensor_call) continue;
      if (ck == "host") {
        auto& blocks = isinstance_ifs_[name].host_blocks;
        if (blocks.size() < kMaxTests) blocks.push_back(body);
        continue;
      }
      // A conversion: an if statement with no else whose condition is the tensor test (and
      // `torch is not None`-style availability tests), whose body rebinds the name by a
      // statement of its own.
      if (!is(up, "if_statement") || !is_null(field(up, "alternative"))) continue;
      bool only_availability = true;
      for (Node c : parts) {
        if (same(c, call)) continue;
        bool available = is(c, "comparison_operator") && named_count(c) == 2 &&
                         text(c).find(" is not ") != std::string_view::npos && names_torch(unparen(named_child(c, 0))) &&
                         is(unparen(named_child(c, 1)), "none");
        only_availability &= available;
      }
      if (!only_availability) continue;
      bool rebinds = false;
      for (Node st : named_children(body)) {
        if (!is(st, "expression_statement")) continue;
        Node a = named_child(st, 0);
        if (is(a, "assignment") && is(field(a, "left"), "identifier") && text(field(a, "left")) == name) rebinds = true;
      }
      if (auto& convs = isinstance_ifs_[name].tensor_conversions; rebinds && convs.size() < kMaxTests) convs.push_back(up);
    }
  }
  if (isinstance_ifs_.empty()) return Narrowing::None;
  auto it = isinstance_ifs_.find(std::string(text(use)));
  if (it == isinstance_ifs_.end()) return Narrowing::None;
  uint32_t at = start(use);
  int scope = scope_at(at);
  // The use inside the body of a host test, the binding made before the test.
  for (Node body : it->second.host_blocks) {
    Node test = parent(body);
    Node whole = is(test, "elif_clause") ? parent(test) : test;
    if (start(body) <= at && at < end(body) && b.at < start(whole) && scope_at(start(body)) == scope)
      return Narrowing::Host;
  }
  // The binding before a conversion whose enclosing block also holds the use, after it.
  for (Node conv : it->second.tensor_conversions) {
    Node block = parent(conv);
    if (b.at < start(conv) && end(conv) <= at && start(block) <= at && at < end(block) &&
        scope_at(start(conv)) == scope)
      return Narrowing::NotTensor;
  }
  return Narrowing::None;
}

}  // namespace stoker::python
