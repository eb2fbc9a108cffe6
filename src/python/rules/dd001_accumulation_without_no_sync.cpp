// DD001: DDP gradient accumulation that all-reduces on every micro-step.
#include <algorithm>
#include <optional>

#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
bool has_modulo(const Context& ctx, Node n) {
  return any_node(n, [&](Node x) { return is(x, "binary_operator") && ctx.text(field(x, "operator")) == "%"; });
}
void identifiers(const Context& ctx, Node n, std::vector<std::string_view>& out) {
  any_node(n, [&](Node x) {
    if (is(x, "identifier")) out.push_back(ctx.text(x));
    return false;
  });
}
bool has_multiline_string(const Context& ctx, Node n) {
  return any_node(n, [&](Node x) { return is(x, "string") && ctx.text(x).find('\n') != std::string_view::npos; });
}

// The optimizer step of the micro-step loop, when it runs only on some micro-steps (`if (i + 1)
// % accum == 0:`): its call, its period (0 unknown) and the accumulation condition with its
// polarity. Null call when the loop steps on every micro-step or has no step.
struct AccumulationStep {
  Node call{};
  long long every = 0;
  Node condition{};
  bool polarity = true;
};
// The period of `cond` holding with `polarity`: N for `i % N == K` / `not i % N` (true) and
// `i % N != K` / `i % N` (false); 0 when unknown.
long long accumulation_period(const Context& ctx, Node cond, bool polarity) {
  const auto& m = ctx.model();
  cond = unparen(cond);
  auto modulo_period = [&](Node mod) -> long long {
    mod = unparen(mod);
    if (!is(mod, "binary_operator") || ctx.text(field(mod, "operator")) != "%") return 0;
    auto n = m.constant_int(field(mod, "right"));
    return n && *n > 1 ? *n : 0;
  };
  while (is(cond, "not_operator")) {
    cond = unparen(field(cond, "argument"));
    polarity = !polarity;
  }
  if (is(cond, "comparison_operator") && named_count(cond) == 2) {
    std::string_view op = ctx.text(ts_node_child(cond, 1));
    if ((op == "==" && polarity) || (op == "!=" && !polarity)) {
      long long n = modulo_period(named_child(cond, 0));
      return n ? n : modulo_period(named_child(cond, 1));
    }
    return 0;
  }
  if (!polarity) return modulo_period(cond);  // `if i % N:` else-branch
  return 0;
}

// The innermost guard inside `loop` (of the call site) whose condition has a `%`.
std::optional<std::pair<Node, bool>> modulo_guard(const Context& ctx, const CallSite& cs) {
  for (size_t g = cs.guards.size(); g-- > 0;) {
    if (cs.guard_loop_depth[g] < cs.loops.size()) break;
    if (has_modulo(ctx, cs.guards[g].first)) return cs.guards[g];
  }
  return std::nullopt;
}

// Can a step under `step_guards` follow a backward under `backward_guards` in the same
// iteration? Each condition the backward is under (inside the loop, other than an accumulation
// condition with a `%`) must hold for the step too: a step in the other branch of
// `if accum > 1: ... else: ...` belongs to the other way of training.
bool same_branch(const Context& ctx, const WalkFrame& backward, const CallSite& step) {
  for (size_t g = 0; g < backward.guards.size(); ++g) {
    if (backward.guard_loop_depth[g] < backward.loops.size()) continue;
    const auto& [cond, polarity] = backward.guards[g];
    if (has_modulo(ctx, cond)) continue;
    bool found = false;
    for (const auto& sg : step.guards) found |= same(sg.first, cond) && sg.second == polarity;
    if (!found) return false;
  }
  return true;
}

AccumulationStep accumulation_step(const Context& ctx, int loop, int function) {
  const auto& m = ctx.model();
  for (int ci : m.calls_in_loop(loop)) {
    const CallSite& cs = m.calls()[ci];
    if (cs.caller != function || cs.loops.empty() || cs.loops.back() != loop) continue;
    if (method_name(ctx, cs.call) != "step") continue;
    if (!same_branch(ctx, ctx.frame(), cs)) continue;
    std::string recv(ctx.text(receiver(cs.call)));
    std::transform(recv.begin(), recv.end(), recv.begin(), [](unsigned char c) { return static_cast<char>(::tolower(c)); });
    if (recv.find("sched") != std::string::npos) continue;
    auto guard = modulo_guard(ctx, cs);
    if (!guard) return {};  // steps on every micro-step: no accumulation
    AccumulationStep out;
    out.call = cs.call;
    out.condition = guard->first;
    out.polarity = guard->second;
    out.every = accumulation_period(ctx, out.condition, out.polarity);
    return out;
  }
  return {};
}

// The documented rewrite as edits: the statements from the forward's through the backward's,
// under `with model.no_sync() if <not the step condition> else contextlib.nullcontext():`.
// Empty when the code is not in the simple shape (one block, the step after the backward,
// nothing multi-line that indentation would change).
std::vector<Edit> rewrite(const Context& ctx, Node forward, Node backward, const AccumulationStep& step) {
  const auto& m = ctx.model();
  std::string_view src = m.src();
  Node sf = enclosing_statement(forward), sb = enclosing_statement(backward);
  if (is_null(sf) || is_null(sb) || !same(parent(sf), parent(sb)) || start(sf) > start(sb)) return {};
  Node guard_stmt = parent(step.condition);
  while (!is_null(guard_stmt) && !is(guard_stmt, "if_statement")) guard_stmt = parent(guard_stmt);
  if (is_null(guard_stmt) || start(guard_stmt) < end(sb)) return {};
  // The statements to wrap: siblings from sf to sb.
  std::vector<Node> stmts;
  bool in = false;
  for (auto c : named_children(parent(sf))) {
    if (same(c, sf)) in = true;
    if (in) stmts.push_back(c);
    if (same(c, sb)) break;
  }
  std::vector<std::string_view> names;
  identifiers(ctx, step.condition, names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (Node s : stmts) {
    if (has_multiline_string(ctx, s)) return {};
    for (auto n : names)
      if (m.assigned_within(n, s)) return {};
  }
  uint32_t line = start(sf);
  while (line > 0 && src[line - 1] != '\n') --line;
  std::string indent(src.substr(line, start(sf) - line));
  if (indent.find_first_not_of(' ') != std::string::npos) return {};  // tabs or code before it
  Node fn = unparen(field(forward, "function"));
  if (!is(fn, "identifier") && !is(fn, "attribute")) return {};
  Node cond = unparen(step.condition);
  std::string skip;  // the condition under which the micro-step does not step
  if (!step.polarity) {
    skip = std::string(ctx.text(cond));
  } else if (is(cond, "comparison_operator") && named_count(cond) == 2 &&
             ctx.text(ts_node_child(cond, 1)) == "==") {
    skip = std::string(ctx.text(named_child(cond, 0))) + " != " + std::string(ctx.text(named_child(cond, 1)));
  } else {
    skip = "not (" + std::string(ctx.text(cond)) + ")";
  }
  std::vector<Edit> edits;
  if (!name_is_bound(ctx, "contextlib", start(sf))) edits.push_back(add_import(ctx, "contextlib"));
  edits.push_back(Edit{{line, line},
                       indent + "with " + std::string(ctx.text(fn)) + ".no_sync() if " + skip +
                           " else contextlib.nullcontext():\n    "});
  for (uint32_t i = start(sf); i < end(sb); ++i)
    if (src[i] == '\n' && i + 1 < end(sb) && src[i + 1] != '\n' && src[i + 1] != '\r')
      edits.push_back(Edit{{i + 1, i + 1}, "    "});
  return edits;
}
}  // namespace

void dd001_accumulation_without_no_sync(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || method_name(ctx, call) != "backward") return;
  HotContext h = ctx.hot();
  if (!h.hot || h.via_call || h.loop < 0 || h.every != 0 || h.once_per_epoch) return;
  int function = ctx.frame().function;
  Node loop_node = m.loops()[h.loop].node;
  // Manual control of DDP's synchronization.
  if (m.memo("dd001:manual", [&] { return m.src().find("require_backward_grad_sync") != std::string_view::npos; }))
    return;
  // The forward of a DDP model before the backward, in the same loop.
  Node forward{};
  for (int ci : m.calls_in_loop(h.loop)) {
    const CallSite& cs = m.calls()[ci];
    if (cs.caller != function || start(cs.call) >= start(call)) continue;
    if (!is_null(ddp_construction(m, field(cs.call, "function")))) forward = cs.call;
  }
  if (is_null(forward)) return;
  AccumulationStep step = accumulation_step(ctx, h.loop, function);
  if (is_null(step.call)) return;
  if (!is_null(enclosing_no_sync(ctx, forward, loop_node))) return;
  // A backward under the step's own condition is the synchronizing micro-step.
  for (const auto& [cond, polarity] : ctx.frame().guards)
    if (same(cond, step.condition) && polarity == step.polarity) return;
  std::string model_text(ctx.text(field(forward, "function")));
  std::string period = step.every > 0 ? std::to_string(step.every) : "N";
  bool backward_only = !is_null(enclosing_no_sync(ctx, call, loop_node));
  Diagnostic* d = nullptr;
  if (backward_only) {
    d = &ctx.report("DD001", forward,
                    "Only `backward()` is under `no_sync()`: DDP decides in the forward whether the backward "
                    "all-reduces, so every micro-step still all-reduces the gradients though the optimizer steps "
                    "once every " + period + "; put the forward inside `" + model_text + ".no_sync()` too");
  } else {
    d = &ctx.report("DD001", call,
                    "`" + std::string(ctx.text(field(call, "function"))) +
                        "()` all-reduces the gradients of the DistributedDataParallel model `" + model_text +
                        "` on every micro-step, though the optimizer steps once every " + period +
                        "; run the forward and backward of the other micro-steps under `" + model_text +
                        ".no_sync()`");
    d->related.push_back({ctx.file().path, range(forward), "the forward of the DDP model"});
  }
  d->related.push_back({ctx.file().path, range(step.call), "the optimizer steps here, once every " + period + " micro-steps"});
  if (step.every > 0) d->facts.push_back({"accumulate_every", std::to_string(step.every)});
  d->fix = Fix{"Run the non-final micro-steps, forward and backward, under `" + model_text + ".no_sync()`",
               Applicability::DisplayOnly, {}};
  if (!backward_only) d->fix->edits = rewrite(ctx, forward, call, step);
}

}  // namespace stoker::python::rules
