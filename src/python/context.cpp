#include "python/context.h"

#include "python/lambdas.h"
#include "python/model_internal.h"

namespace stoker::python {

std::string backticked(std::string_view code) { return "`" + std::string(code) + "`"; }

Diagnostic& Context::report(std::string_view code, Node at, std::string message) {
  // Code under a guard known never to hold does not run: nothing there is reported
  // (rules.md, Clarifications: a guard resolving to False silences what it guards). The
  // caller still gets a diagnostic to fill in, which is dropped.
  // So is code after `if cond: continue` (break, return, raise) whose `cond` is known True.
  // So is the body of a generator whose generator object nothing draws (generator_never_drawn).
  if (frame_ && (model_.guards_dead(frame_->guards) || model_.after_taken_exit(at) || model_.in_undrawn_generator(at))) {
    dropped_ = Diagnostic{};
    return dropped_;
  }
  Diagnostic d;
  d.code = std::string(code);
  d.message = std::move(message);
  d.file = file_.path;
  d.range = range(at);
  const RuleInfo* info = RuleRegistry::builtin().find(code);
  d.severity = info ? info->severity : Severity::Warning;
  out_.push_back(std::move(d));
  return out_.back();
}

namespace {

// Inside the message of an `assert` (`assert ok, f"grad {p.grad}"`): evaluated only when the
// assertion fails, which ends the run, so at most once.
bool in_assert_message(Node at) {
  Node below = at;
  for (Node n = parent(at); !is_null(n); below = n, n = parent(n)) {
    if (is(n, "assert_statement")) return named_count(n) >= 2 && same(named_child(n, 1), below);
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "block")) return false;
  }
  return false;
}

// Inside a `raise` statement (`raise TypeError(f"cannot type {data}")`): the exception is built
// only to be raised, which ends the run (rules.md, Clarifications: statements on a path that ends
// the run run at most once), so at most once. Not across a nested function or lambda.
bool in_raise_statement(Node at) {
  for (Node n = parent(at); !is_null(n); n = parent(n)) {
    if (is(n, "raise_statement")) return true;
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda") || is(n, "block")) return false;
  }
  return false;
}

}  // namespace

Diagnostic* Context::report_in_hot_context(std::string_view code, Node at, std::string message) {
  HotContext h = hot();
  // The body of a lambda applied where it is written (`map(lambda t: t.cpu(), xs)`, or bound to a
  // name applied next to it): it runs where its definition runs (lambdas.h; rec30).
  if (!h.hot && frame_ && frame_->lambda_depth == 1) {
    Node lambda = enclosing_lambda(at);
    if (!is_null(lambda) && !lambda_applications(model_, lambda).empty()) {
      WalkFrame outside = *frame_;
      outside.lambda_depth = 0;
      h = model_.hot_context(outside, 0);
    }
  }
  if (!h.hot || h.once_per_epoch) return nullptr;
  if (in_assert_message(at) || in_raise_statement(at)) return nullptr;
  // In an out-of-memory handler: recovery from a failure, not per step (rules/SY004.md).
  if (model_detail::in_oom_handler(at, model_.src())) return nullptr;
  if (h.every > kAmortizedSilentAbove) return nullptr;
  Diagnostic& d = report(code, at, std::move(message));
  if (&d == &dropped_) return nullptr;
  if (h.every != 0) {
    d.severity = Severity::Info;
    d.facts.push_back({"amortize_every", h.every > 0 ? std::to_string(h.every) : "unknown"});
    d.message += h.every > 0 ? " (runs every " + std::to_string(h.every) + " steps)" : " (runs every N steps)";
  } else if (h.flag_guarded) {
    d.severity = Severity::Info;
    d.message += " (behind a configuration flag)";
    d.facts.push_back({"flag_guarded", "true"});
  }
  if (!h.via_call && !h.via_module.empty()) d.message += " (called per step from " + h.via_module + ")";
  if (h.via_call) {
    d.related.push_back({file_.path, range(*h.via_call), "reached from the training loop through this call"});
  } else if (h.loop >= 0) {
    Node loop = model_.loops()[h.loop].node;
    d.related.push_back({file_.path, TextRange{start(loop), start(loop) + 3}, "in this hot loop"});
  }
  return &d;
}

Edit Context::insert_keyword_argument(Node call, std::string_view kv) const {
  Node args = field(call, "arguments");
  // Insert after the last argument (before a trailing comma, if any) or inside empty parens.
  auto children = named_children(args);
  Node last{};
  for (auto c : children)
    if (!is(c, "comment")) last = c;
  if (is_null(last)) return Edit{{start(args) + 1, start(args) + 1}, std::string(kv)};
  return Edit{{end(last), end(last)}, ", " + std::string(kv)};
}

}  // namespace stoker::python
