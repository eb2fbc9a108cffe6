// TX003: the same value moved to the GPU on every step.
#include "python/call_positions.h"
#include "python/rules/common.h"
#include "python/types.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace stoker::python::rules {

namespace {

// A name or `self.` attribute the receiver reads: its key ("x", "self.x"), or empty.
std::string part_key(const Context& ctx, Node n) {
  n = unparen(n);
  if (is(n, "identifier")) return std::string(ctx.text(n));
  if (is(n, "attribute") && ctx.text(unparen(field(n, "object"))) == "self")
    return "self." + std::string(ctx.text(field(n, "attribute")));
  return {};
}

// Parameter `b` of the hot function keeps one value across the steps when every call site of
// the function in this module is in a loop that does not rebind the name it passes there (`def
// train_step(model, labels, idx_train)` called as `train_step(model, labels, idx_train)` in an
// epoch loop over the split built before it: full-batch graph training). The caller checks that
// the function is not hot through another module's calls. O(call sites).
bool param_invariant_across_steps(const SemanticModel& m, const Binding& b) {
  const Function& fn = m.functions()[b.function];
  const Param& p = fn.params[b.param_index];
  int position = b.param_index - bound_params(fn);
  if (position < 0 || p.is_variadic) return false;
  const auto& callers = m.callers(b.function);
  if (callers.empty()) return false;
  for (int ci : callers) {
    const CallSite& cs = m.calls()[ci];
    if (cs.loops.empty() || cs.lambda_depth > 0) return false;
    Node a = m.argument(cs.call, p.keyword_only ? -1 : position, p.name);
    if (is(a, "keyword_argument")) a = field(a, "value");
    a = unparen(a);
    if (!is(a, "identifier")) return false;
    const Loop& loop = m.loops()[cs.loops.back()];
    if (m.assigned_within(m.text(a), loop.node)) return false;
    for (const Binding* ab : m.lookup(m.text(a), start(a)))
      if (ab->kind == Binding::Kind::LoopTarget) return false;
  }
  return true;
}

// `self.inv_freq` that a method of the same class registers as a buffer or a parameter
// (`self.register_buffer("inv_freq", t)`, open_clip's rotary embedding): it moves with the
// module, so a `.to(device)` of it in the forward finds it on the device (no copy). O(calls).
bool module_state_attribute(const Context& ctx, Node recv, int function) {
  const auto& m = ctx.model();
  recv = unparen(recv);
  if (!is(recv, "attribute") || ctx.text(unparen(field(recv, "object"))) != "self" || function < 0) return false;
  int klass = m.functions()[function].klass;
  if (klass < 0) return false;
  std::string_view name = ctx.text(field(recv, "attribute"));
  for (const CallSite& cs : m.calls()) {
    if (cs.caller < 0 || m.functions()[cs.caller].klass != klass) continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute") || ctx.text(unparen(field(fn, "object"))) != "self") continue;
    std::string_view meth = ctx.text(field(fn, "attribute"));
    std::string registered;
    if ((meth == "register_buffer" || meth == "register_parameter") &&
        string_literal_value(unparen(m.argument(cs.call, 0, "name")), m.src(), registered) && registered == name)
      return true;
  }
  return false;
}

// `self.U` that a method run from `region` rebinds: a `self.m(...)` call there resolved to a
// method whose body stores the attribute, or calls (through `self.`, at most 3 methods deep)
// one that does. The attribute then changes inside the loop, as a store written in the region
// does (svdiff's SVDLinear.forward runs `self.perform_svd()`, which recomputes `self.U, self.S,
// self.Vh` from the module's weight, on the module's device, when the `done_svd` latch is down:
// set BH). At most 16 methods looked at; O(calls) each.
// Whether `body` stores `key` ("self.U"): an assignment to it, alone or as an element of a tuple
// target (`self.U, self.S, self.Vh = torch.linalg.svd(w)`), or an augmented one. At most 4,096
// nodes walked (more: false).
bool stores_attribute(const SemanticModel& m, std::string_view key, Node body) {
  std::vector<Node> stack{body};
  for (int budget = 4096; !stack.empty() && budget > 0; --budget) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "assignment") || is(n, "augmented_assignment")) {
      Node l = unparen(field(n, "left"));
      std::vector<Node> targets{l};
      if (is(l, "pattern_list") || is(l, "tuple_pattern") || is(l, "list_pattern")) targets = named_children(l);
      for (Node t : targets)
        if (is(unparen(t), "attribute") && m.text(unparen(t)) == key) return true;
    }
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return false;
}

bool rebound_by_called_method(const SemanticModel& m, std::string_view key, Node region) {
  std::vector<Node> regions{region};
  std::vector<int> seen;
  for (size_t i = 0; i < regions.size() && i < 4; ++i) {
    Node r = regions[i];
    for (const CallSite& cs : m.calls()) {
      if (!contains(r, cs.call)) continue;
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute") || m.text(unparen(field(fn, "object"))) != "self") continue;
      for (int f : m.callees(cs.call)) {
        if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
        if (seen.size() >= 16) return false;
        seen.push_back(f);
        Node body = field(m.functions()[f].node, "body");
        if (m.assigned_within(key, body) || stores_attribute(m, key, body)) return true;
        regions.push_back(body);
      }
    }
  }
  return false;
}

// An argument of a reshape or conversion that is the same on every step: an integer (a literal,
// `-1`, a name every binding of which is one), `True`/`False`/`None`, or a tuple or list of them.
bool constant_operand(const SemanticModel& m, Node a) {
  a = unparen(a);
  if (is(a, "keyword_argument")) a = unparen(field(a, "value"));
  if (is(a, "integer") || is(a, "true") || is(a, "false") || is(a, "none")) return true;
  if (is(a, "unary_operator")) return is(unparen(field(a, "argument")), "integer");
  if (is(a, "tuple") || is(a, "list")) {
    if (named_count(a) > 8) return false;
    for (Node e : named_children(a))
      if (!constant_operand(m, e)) return false;
    return true;
  }
  return is(a, "identifier") && m.constant_int(a).has_value();
}

// The value a move's receiver reshapes or converts, the other arguments constant: `w` of
// `torch.squeeze(w, 1)`, `mask.float().unsqueeze(0)` (the same values on every step when `w` does
// not change). The receiver itself when it is no such call. At most 8 calls deep.
Node reshaped_value(const SemanticModel& m, Node recv) {
  static const std::set<std::string, std::less<>> functions = {
      "torch.squeeze", "torch.unsqueeze", "torch.flatten", "torch.reshape", "torch.transpose", "torch.permute",
      "torch.t"};
  static const std::set<std::string, std::less<>> methods = {
      "squeeze", "unsqueeze", "flatten", "reshape", "view", "transpose", "permute", "t", "contiguous",
      "float", "double", "half", "long", "int", "bool", "clone", "detach"};
  recv = unparen(recv);
  for (int depth = 0; depth < 8 && is(recv, "call"); ++depth) {
    Node args = field(recv, "arguments");
    if (!is(args, "argument_list")) break;
    Node fn = unparen(field(recv, "function"));
    const std::string& q = m.callee_name(recv);
    std::vector<Node> operands = named_children(args);
    Node value{};
    if (functions.count(q)) {
      if (operands.empty() || is(operands[0], "keyword_argument") || is(operands[0], "list_splat")) break;
      value = operands[0];
      operands.erase(operands.begin());
    } else if (is(fn, "attribute") && methods.count(m.text(field(fn, "attribute"))) && q.empty()) {
      // A method of a value, not a module's function (`np.reshape(...)`: a qualified name).
      value = field(fn, "object");
    } else {
      break;
    }
    bool constant = true;
    for (Node a : operands) constant = constant && constant_operand(m, a);
    if (!constant) break;
    recv = unparen(value);
  }
  return recv;
}

}  // namespace

void tx003_loop_invariant_transfer(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) return;
  Node moved = receiver(call);
  // What the receiver reshapes or converts (`torch.squeeze(w, 1).to(device)`: `w`), or itself.
  Node recv = reshaped_value(m, moved);
  // The names the receiver reads: itself, or for `labels[idx_train]` (the rows of a name at an
  // index name: full-batch graph training gathers the split's targets per step) the value and
  // the index.
  std::vector<std::pair<std::string, Node>> parts;
  std::string key = part_key(ctx, recv);
  if (!key.empty()) {
    parts.emplace_back(key, recv);
  } else if (is(recv, "subscript") && named_count(recv) == 2) {
    Node value = unparen(field(recv, "value"));
    Node index = unparen(field(recv, "subscript"));
    std::string vk = part_key(ctx, value);
    if (vk.empty() || !is(index, "identifier")) return;
    parts.emplace_back(vk, value);
    parts.emplace_back(std::string(ctx.text(index)), index);
    key = std::string(ctx.text(recv));
  }
  if (key.empty() || m.is_batch_value(recv) || (!same(moved, recv) && m.is_batch_value(moved))) return;
  // `x = x.to(device)`: the first step moves it; every later `.to` finds it there (no copy).
  if (Node p = parent(call); is(p, "assignment") && same(field(p, "right"), call) && ctx.text(field(p, "left")) == ctx.text(recv))
    return;
  // Already on the GPU (`.to` returns the tensor itself), or a module (moved in place once;
  // later calls copy nothing).
  if (m.is_cuda(recv) || m.is_module(recv) || (!same(moved, recv) && m.is_cuda(moved))) return;
  // A mapping of tensors with a `to` of its own (a tokenizer's encoding into tensors, a
  // BatchEncoding: types.h `tensors` on a host container, which no list or dict has a `to` for)
  // moves its tensors in place and hands back the same object: from the first step on they are
  // on the device, and later calls copy nothing (finetune-hf-vits' evaluation sample, set BJ).
  if (same(moved, recv)) {
    AbstractType rt = m.types().type_of(recv);
    if (rt.kind == AbstractType::Kind::HostContainer && rt.tensors) return;
  }
  HotContext h = ctx.hot();
  if (!h.hot) return;
  // A buffer or parameter the class registers (a scan of the file's calls: after the hot test).
  if (module_state_attribute(ctx, recv, ctx.frame().function)) return;
  // The function's body: its parameters are bound by its signature, outside it.
  Node region = h.loop >= 0 ? m.loops()[h.loop].node : field(m.functions()[ctx.frame().function].node, "body");
  for (const auto& [k, n] : parts) {
    if (m.assigned_within(k, region)) return;
    if (k.rfind("self.", 0) == 0 && rebound_by_called_method(m, k, region)) return;
    // Parameters of a hot function change from call to call, unless every call passes the
    // same value on every step (a subscript's parts only).
    for (const auto* b : m.lookup(k, start(n))) {
      if (b->kind == Binding::Kind::LoopTarget) return;
      if (b->kind == Binding::Kind::Param && (parts.size() == 1 || h.loop >= 0 || !h.via_module.empty() ||
                                                   !param_invariant_across_steps(m, *b)))
        return;
    }
  }
  Diagnostic* d = ctx.report_in_hot_context(
      "TX003", call, "`" + key + "` does not change inside the loop but is moved to the GPU on every step; move it once before the loop");
  if (d) d->fix = Fix{"Move it to the device once, before the loop", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
