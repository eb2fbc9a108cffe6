// Hotness: where code runs relative to the training step (hot contexts through loops and
// calls, across modules), and amortizing guards (`step % N`, once per epoch, flags).
#include "python/model_internal.h"

#include <algorithm>
#include <functional>

namespace stoker::python {

using namespace model_detail;

// ---------------------------------------------------------------------------------------
// Hot contexts and amortization.

void SemanticModel::apply_guards(HotContext& ctx, const std::vector<std::pair<Node, bool>>& guards, size_t from,
                                 Node hot_region) const {
  // `step % N`: the guarded code runs once every N steps (N unknown: -1; N = 1: every step).
  auto amortize = [&](Node modulo) {
    auto n = constant_int(field(modulo, "right"));
    if (n && *n == 1) return;
    ctx.every = n ? std::max(ctx.every, *n) : (ctx.every == 0 ? -1 : ctx.every);
  };
  // The bindings of a name in the scope it is read in (none: nullptr).
  auto bindings_of = [&](Node name) -> const std::vector<Binding>* {
    const auto& bindings = scopes_[scope_at(start(name))].bindings;
    auto it = bindings.find(std::string(text(name)));
    return it == bindings.end() ? nullptr : &it->second;
  };
  std::function<void(Node, bool)> apply = [&](Node cond, bool positive) {
    cond = unparen(cond);
    auto k = kind(cond);
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "and") {
      apply(field(cond, "left"), true);
      apply(field(cond, "right"), true);
      return;
    }
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "or") {
      // `i % 100 == 99 or i == 0`: amortized when each side is amortized or runs once; the
      // period is the shortest side's.
      HotContext outer = ctx, sides[2];
      Node parts[2] = {field(cond, "left"), field(cond, "right")};
      for (int i = 0; i < 2; ++i) {
        ctx = HotContext{};
        apply(parts[i], true);
        sides[i] = ctx;
      }
      ctx = outer;
      auto rare = [](const HotContext& h) { return h.every != 0 || h.once_per_epoch; };
      if (!rare(sides[0]) || !rare(sides[1])) return;
      if (sides[0].once_per_epoch && sides[1].once_per_epoch) {
        ctx.once_per_epoch = true;
        return;
      }
      long long every = 0;
      for (const auto& h : sides) {
        if (h.once_per_epoch && h.every == 0) continue;
        if (h.every < 0 || every < 0) every = -1;
        else every = every == 0 ? h.every : std::min(every, h.every);
      }
      ctx.every = every > 0 ? std::max(ctx.every, every) : (ctx.every == 0 ? -1 : ctx.every);
      return;
    }
    if (k == "not_operator") {
      Node arg = unparen(field(cond, "argument"));
      if (is(arg, "binary_operator") && text(field(arg, "operator")) == "%") {
        if (positive) amortize(arg);  // `not i % N`: once every N steps
        return;
      }
      apply(arg, !positive);
      return;
    }
    if (!positive) {
      // The else branch of a condition that always holds never runs (`if use_cuda: ... else:`).
      if (k == "identifier" || k == "attribute") {
        auto c = constant(cond);
        if (c && c->kind == Value::Kind::Bool && c->b) ctx.once_per_epoch = true;
      }
      return;
    }
    if (k == "comparison_operator") {
      auto parts = named_children(cond);
      std::string_view op = text(ts_node_child(cond, 1));
      if (parts.size() == 2 && op == "==") {
        Node l = unparen(parts[0]), r = unparen(parts[1]);
        if (is(r, "binary_operator") && text(field(r, "operator")) == "%") std::swap(l, r);
        if (is(l, "binary_operator") && text(field(l, "operator")) == "%") {
          amortize(l);
          return;
        }
        // step == 0, batch_idx == 0: one step per epoch or run
        if (is(l, "identifier") && is(r, "integer")) ctx.once_per_epoch = true;
        if (is(r, "identifier") && is(l, "integer")) ctx.once_per_epoch = true;
        // `step == max_steps - 1`, `i == len(loader) - 1`: the hot loop's counter against a
        // bound that does not change in the loop (names other than the counter, attributes,
        // integers, `len(...)`, `+`/`-`): the last (or one chosen) step.
        Node loop_stmt = is_null(hot_region) ? Node{} : parent(hot_region);  // the body's loop
        if (!is_null(loop_stmt) && is(loop_stmt, "for_statement")) {
          Node target = unparen(field(loop_stmt, "left"));
          if (is(target, "pattern_list") || is(target, "tuple_pattern")) {
            auto parts_t = named_children(target);
            target = parts_t.empty() ? Node{} : unparen(parts_t.front());
          }
          std::string_view counter = is(target, "identifier") ? text(target) : std::string_view{};
          std::function<bool(Node, int)> fixed = [&](Node e, int depth) -> bool {
            e = unparen(e);
            if (depth > 8 || is_null(e)) return false;
            if (is(e, "integer")) return true;
            if (is(e, "identifier")) {
              if (text(e) == counter) return false;
              // Assigned in the loop: it may change every step.
              if (const auto* bindings = bindings_of(e))
                for (const Binding& x : *bindings)
                  if (!is_null(x.target) && contains(hot_region, x.target)) return false;
              return true;
            }
            if (is(e, "attribute")) return true;
            if (is(e, "binary_operator")) {
              std::string_view o = text(field(e, "operator"));
              return (o == "+" || o == "-") && fixed(field(e, "left"), depth + 1) &&
                     fixed(field(e, "right"), depth + 1);
            }
            if (is(e, "call") && text(field(e, "function")) == "len") return true;
            return false;
          };
          if (!counter.empty()) {
            if (is(l, "identifier") && text(l) == counter && fixed(r, 0)) ctx.once_per_epoch = true;
            if (is(r, "identifier") && text(r) == counter && fixed(l, 0)) ctx.once_per_epoch = true;
          }
        }
      }
      // `if features is None: features = ...`: a lazy initialization, once.
      if (parts.size() == 2 && op == "is" && ts_node_child_count(cond) == 3 && is(unparen(parts[1]), "none")) {
        Node name = unparen(parts[0]);
        Node owner = parent(cond);
        while (is(owner, "parenthesized_expression")) owner = parent(owner);
        Node branch = field(owner, "consequence");
        if ((is(name, "identifier") || is(name, "attribute")) && !is_null(branch) &&
            assigned_within(text(name), branch))
          ctx.once_per_epoch = true;
      }
      return;
    }
    if (k == "identifier" || k == "attribute") {
      auto c = constant(cond);
      if (c && c->kind == Value::Kind::Bool) {
        if (!c->b) ctx.once_per_epoch = true;  // never runs at all
        return;
      }
      // A first-iteration flag: set False inside the hot region.
      if (k == "identifier" && !is_null(hot_region)) {
        // Every node under the guard asks: decided once per (condition, hot region).
        auto [memo, fresh] = first_iteration_flag_.try_emplace({cond.id, hot_region.id}, false);
        const auto* bindings = bindings_of(cond);
        if (fresh && bindings)
          for (const auto& b : *bindings)
            if (b.kind == Binding::Kind::Assign && contains(hot_region, b.target) && is(unparen(b.value), "false"))
              memo->second = true;
        if (memo->second) {
          ctx.once_per_epoch = true;
          return;
        }
        // `last_step = step == max_steps - 1` assigned once in the hot region, then
        // `if step % 250 == 0 or last_step:`: the comparison decides.
        if (bindings && bindings->size() == 1) {
          const Binding& b = bindings->front();
          Node v = unparen(b.value);
          if (b.kind == Binding::Kind::Assign && b.unpack_index < 0 && contains(hot_region, b.target) &&
              b.at < start(cond) && is(v, "comparison_operator")) {
            apply(v, true);
            return;
          }
        }
      }
      // A configuration flag (`args.x`, `cfg.x`, `self.x`) whose value is unknown.
      if (k == "attribute") ctx.flag_guarded = true;
    }
  };
  for (size_t i = from; i < guards.size(); ++i) {
    if (branch_ends_run(guards[i].first, guards[i].second)) ctx.once_per_epoch = true;  // at most once
    apply(guards[i].first, guards[i].second);
  }
}

// Does the branch an if-condition guards (the consequence, or the else body for a negative
// guard) end the run: its last statement a `raise`, `sys.exit()`, `exit()`, `quit()`, `os._exit()`?
bool SemanticModel::branch_ends_run(Node condition, bool positive) const {
  Node owner = parent(condition);
  Node block{};
  if (positive) {
    block = field(owner, "consequence");
  } else if (is(owner, "if_statement")) {
    for (Node c : named_children(owner))
      if (is(c, "else_clause")) block = field(c, "body");
  }
  if (!is(block, "block") || !named_count(block)) return false;
  Node last = named_child(block, named_count(block) - 1);
  if (is(last, "raise_statement")) return true;
  if (!is(last, "expression_statement") || !named_count(last)) return false;
  Node call = unparen(named_child(last, 0));
  if (!is(call, "call")) return false;
  const std::string& q = callee_name(call);
  return q == "sys.exit" || q == "builtins.exit" || q == "builtins.quit" || q == "os._exit" || q == "os.abort";
}

HotContext SemanticModel::frame_hot_context(int function, const std::vector<int>& loops,
                                            const std::vector<std::pair<Node, bool>>& guards,
                                            const std::vector<uint32_t>& guard_loop_depth, int lambda_depth) const {
  HotContext ctx;
  if (lambda_depth > 0) return ctx;
  // The innermost hot loop decides: guards inside it amortize. A hot loop nested under a
  // step-counter guard (an evaluation loop run every N steps) still runs a step per iteration.
  for (size_t i = loops.size(); i-- > 0;) {
    if (loops_[loops[i]].kind != LoopKind::Hot) continue;
    ctx.hot = true;
    ctx.loop = loops[i];
    size_t from = 0;
    while (from < guards.size() && guard_loop_depth[from] <= i) ++from;
    apply_guards(ctx, guards, from, loops_[loops[i]].body);
    return ctx;
  }
  if (function >= 0 && hot_function_.size() > static_cast<size_t>(function) && hot_function_[function].hot) {
    ctx = hot_function_[function];
    ctx.loop = -1;
    apply_guards(ctx, guards, 0, Node{});
  }
  return ctx;
}

HotContext SemanticModel::hot_context(const WalkFrame& frame, uint32_t) const {
  return frame_hot_context(frame.function, frame.loops, frame.guards, frame.guard_loop_depth, frame.lambda_depth);
}

void SemanticModel::compute_hot_functions() {
  hot_function_.assign(functions_.size(), HotContext{});
  std::vector<int> work;
  for (int f = 0; f < static_cast<int>(functions_.size()); ++f)
    if (is_step_hook(f)) {
      hot_function_[f].hot = true;
      work.push_back(f);
    }
  // Called per step from another module.
  for (int f = 0; facts_ && f < static_cast<int>(functions_.size()); ++f) {
    if (hot_function_[f].hot) continue;
    const IncomingCalls* in = facts_->incoming(local_name(f), fact::kHot);
    if (!in || !in->hot) continue;
    HotContext& h = hot_function_[f];
    h.hot = true;
    h.every = in->every;
    h.once_per_epoch = in->once_per_epoch;
    h.flag_guarded = in->flag_guarded;
    h.via_module = in->via;
    work.push_back(f);
  }
  // Seed with call sites in hot loops, then propagate through hot functions.
  // What the call runs: its callees and the closures it hands to a helper that calls them.
  auto visit_site = [&](int ci) {
    const CallSite& cs = calls_[ci];
    HotContext site = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!site.hot) return;
    for (int c : runs_by_call_[ci]) {
      HotContext& h = hot_function_[c];
      bool was_hot = h.hot;
      if (!h.hot) {
        h = site;
        h.via_call = cs.call;
        h.via_module.clear();
        h.loop = -1;
      } else {
        // Reached unamortized from anywhere: the function runs every step.
        if (site.every == 0) h.every = 0;
        if (!site.once_per_epoch) h.once_per_epoch = false;
        if (!site.flag_guarded) h.flag_guarded = false;
        if (!h.via_call && !is_step_hook(c)) h.via_call = cs.call;
      }
      if (!was_hot) work.push_back(c);
    }
  };
  for (size_t ci = 0; ci < calls_.size(); ++ci) visit_site(static_cast<int>(ci));
  for (size_t guard = 0; !work.empty() && guard < 10000; ++guard) {
    int f = work.back();
    work.pop_back();
    for (int ci : calls_by_caller_[f]) visit_site(ci);
  }
}

}  // namespace stoker::python
