// Loader options per call site (docs/architecture.md, "Loader options per call site"): the values
// the call sites whose loaders feed training hand a factory's parameter, and loaders rebuilt per
// pass of another module's loop.
#include <string>
#include <vector>

#include "python/call_positions.h"
#include "python/semantic_model.h"

namespace stoker::python {

std::optional<std::vector<Value>> SemanticModel::site_use_values(Node expr, bool epoch) const {
  Node e = unparen(expr);
  if (!is(e, "identifier")) return std::nullopt;
  auto bindings = lookup(text(e), start(e));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function < 0)
    return std::nullopt;
  int f = bindings[0]->function, pi = bindings[0]->param_index;
  const Function& fn = functions_[f];
  const Param& p = fn.params[pi];
  if (p.is_variadic || pi < bound_params(fn)) return std::nullopt;
  std::vector<Value> out;
  bool any = false, defaulted = false;
  // Call sites in other modules (ArgFacts::fed_values / epoch_values).
  if (const ArgFacts* a = facts_ ? ext_param(f, pi, fact::kUseValues) : nullptr) {
    bool passed = epoch ? a->epoch_passed : a->fed_passed;
    defaulted = epoch ? a->epoch_defaulted : a->fed_defaulted;
    any = passed || defaulted;
    if (passed) out = to_values(epoch ? a->epoch_values : a->fed_values);
  }
  // Call sites here whose result a name holds (`train_loader = make_loader(...)`) that a hot loop
  // here iterates (through enumerate/tqdm/iter) or that is handed to another module's function
  // iterating it hot: per epoch when that loop runs in another loop (or its function in one), or
  // the other module's parameter is iterated per epoch.
  auto holds = [&](Node x, Node call) {
    x = unparen(x);
    for (int depth = 0; depth < 3 && is(x, "call"); ++depth) {
      Node fnode = unparen(field(x, "function"));
      std::string_view last = is(fnode, "attribute") ? text(field(fnode, "attribute")) : text(fnode);
      if (last != "enumerate" && last != "tqdm" && last != "iter") return false;
      x = unparen(named_child(field(x, "arguments"), 0));
    }
    if (!is(x, "identifier")) return false;
    auto bs = lookup(text(x), start(x));
    if (bs.size() > kMaxCandidates) return false;
    for (const Binding* b : bs)
      if (b->is_plain_assign() && same(unparen(b->value), call)) return true;
    return false;
  };
  auto used = [&](Node call) {
    // A loader generator's call whose generator object `next()` draws from once per step
    // (`data = load_data(...)`, `batch, cond = next(data)` in the training loop): not per epoch.
    if (!epoch && drawn_per_step(call)) return true;
    for (const auto& l : loops_) {
      if (l.kind != LoopKind::Hot || !is(l.node, "for_statement") || !holds(field(l.node, "right"), call)) continue;
      if (!epoch || l.parent_loop >= 0 || function_called_in_loop(l.function)) return true;
    }
    if (!facts_) return false;
    return each_external_hot_argument([&](size_t ci, const ParamSummary& hp, Node arg) {
      return holds(arg, call) && (!epoch || hot_param_per_epoch(ci, hp, arg));
    });
  };
  int position = pi - bound_params(fn);
  for (int ci : callers(f)) {
    Node call = calls_[ci].call;
    if (!used(call)) continue;
    any = true;
    Node a = argument(call, p.keyword_only ? -1 : position, p.name);
    if (!is_null(a)) {
      for (const Value& v : values(a)) out.push_back(v);
      continue;
    }
    bool splat = false;
    for (Node c : named_children(field(call, "arguments"))) splat |= is(c, "list_splat") || is(c, "dictionary_splat");
    if (splat) out.push_back(Value::unknown());
    else defaulted = true;
  }
  if (!any) return std::nullopt;
  if (defaulted) {
    if (is_null(p.default_value)) out.push_back(Value::unknown());
    else
      for (const Value& v : values(p.default_value)) out.push_back(v);
  }
  return out;
}

std::optional<std::string> SemanticModel::rebuilt_by_other_modules(int f) const {
  if (!facts_ || f < 0) return std::nullopt;
  std::string name = local_name(f);
  if (name.empty()) return std::nullopt;
  const IncomingCalls* in = facts_->incoming(name, fact::kRebuilt);
  if (!in || !in->rebuilt) return std::nullopt;
  return in->rebuilt_via;
}

void SemanticModel::rebuild_context(const CallSite& cs, bool& rebuilds, bool& if_caller) const {
  rebuilds = if_caller = false;
  if (cs.lambda_depth > 0) return;
  // An argument that reads a name (or `self.x`) the loop assigns changes from pass to pass (a
  // fold's split, the epoch's data): rebuilding what the call builds is then the point.
  auto changes_in = [&](Node region) {
    std::vector<Node> stack{field(cs.call, "arguments")};
    for (size_t work = 0; !stack.empty(); ++work) {
      if (work > 512) return true;
      Node n = stack.back();
      stack.pop_back();
      if (is(n, "identifier")) {
        if (assigned_within(text(n), region)) return true;
        continue;
      }
      if (is(n, "attribute")) {
        Node obj = field(n, "object");
        if (text(obj) == "self" && assigned_within("self." + std::string(text(field(n, "attribute"))), region))
          return true;
        stack.push_back(obj);
        continue;
      }
      if (is(n, "keyword_argument")) {
        stack.push_back(field(n, "value"));
        continue;
      }
      for (Node c : named_children(n)) stack.push_back(c);
    }
    return false;
  };
  // A loop that stores into an argument's object (`cfg.TEST.NUM_ENSEMBLE_VIEWS = num_view` before
  // `construct_loader(cfg, "test")`, SlowFast's loop over views) hands a changed object each pass.
  auto mutates_argument = [&](Node region) {
    std::vector<Node> stack{field(region, "body")};
    for (size_t work = 0; !stack.empty(); ++work) {
      if (work > 4096) return true;
      Node n = stack.back();
      stack.pop_back();
      if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) continue;
      if (is(n, "assignment") || is(n, "augmented_assignment")) {
        Node root = field(n, "left");
        bool stored_in = false;
        while (is(root, "attribute") || is(root, "subscript")) {
          stored_in = true;
          root = unparen(is(root, "attribute") ? field(root, "object") : field(root, "value"));
        }
        if (stored_in && is(root, "identifier") && text(root) != "self") {
          std::vector<Node> args{field(cs.call, "arguments")};
          while (!args.empty()) {
            Node a = args.back();
            args.pop_back();
            if (is(a, "identifier") && text(a) == text(root)) return true;
            for (Node c : named_children(a)) args.push_back(c);
          }
        }
      }
      for (Node c : named_children(n)) stack.push_back(c);
    }
    return false;
  };
  // A guard inside the loop that holds on one pass of it: `X == K` (also inside `and`) with X the
  // loop's target or a name the loop only increments (`n_epochs += 1`) and K an integer, or a
  // name or `self` attribute the loop does not assign (`if self.curriculum > 0 and n_epochs ==
  // self.curriculum: self.tr_set, ... = load_dataset(...)`, set AJ End-to-end-ASR-Pytorch
  // bin/train_asr.py:91: the loaders are rebuilt once, when curriculum learning ends).
  auto once_per_loop = [&](const Loop& l) {
    std::string_view target;
    if (is(l.node, "for_statement") && is(unparen(field(l.node, "left")), "identifier"))
      target = text(unparen(field(l.node, "left")));
    // The loop's target, or a name the loop only increments with `+= <int>` and stores nowhere
    // else (step_counter over the loop's bindings; `self` attributes are not counters here).
    auto counter = [&](Node e) {
      if (!is(e, "identifier")) return false;
      if (!target.empty() && text(e) == target) return true;
      return step_counter(e, l.node, l.node);
    };
    auto fixed = [&](Node e) {
      if (is(e, "integer")) return true;
      if (is(e, "identifier")) return !counter(e) && !assigned_within(text(e), l.node);
      if (is(e, "attribute") && text(unparen(field(e, "object"))) == "self")
        return !assigned_within("self." + std::string(text(field(e, "attribute"))), l.node) &&
               !assigned_within(std::string(text(e)), l.node);
      return false;
    };
    for (const auto& [cond, positive] : cs.guards) {
      if (!positive || !contains(field(l.node, "body"), cond)) continue;
      std::vector<Node> parts{cond};
      for (size_t work = 0; !parts.empty() && work < 64; ++work) {
        Node c = unparen(parts.back());
        parts.pop_back();
        if (is(c, "boolean_operator") && text(field(c, "operator")) == "and") {
          parts.push_back(field(c, "left"));
          parts.push_back(field(c, "right"));
          continue;
        }
        if (!is(c, "comparison_operator") || named_count(c) != 2 || ts_node_child_count(c) != 3 ||
            text(ts_node_child(c, 1)) != "==")
          continue;
        Node a = unparen(named_child(c, 0)), b = unparen(named_child(c, 1));
        if ((counter(a) && fixed(b)) || (counter(b) && fixed(a))) return true;
      }
    }
    return false;
  };
  for (auto it = cs.loops.rbegin(); it != cs.loops.rend(); ++it) {
    const Loop& l = loops_[*it];
    if (l.kind == LoopKind::Setup || l.comprehension) continue;
    if (changes_in(l.node) || mutates_argument(l.node)) continue;
    if (once_per_loop(l)) continue;
    rebuilds = true;
    return;
  }
  if (cs.loops.empty() && cs.caller >= 0) if_caller = true;
}

}  // namespace stoker::python
