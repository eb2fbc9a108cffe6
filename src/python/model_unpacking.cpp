// Unpacking and elements: whether the value an unpacking target takes (`x, y = f()`, a tuple
// parameter) is a CUDA tensor, and which elements of a tuple or list expression are CUDA tensors
// (elements_cuda). Split from model_devices.cpp at 1,892 lines in session 31.
#include "python/call_positions.h"
#include "python/model_internal.h"

#include <cctype>
#include <functional>
#include <map>

#include "python/frameworks.h"
#include "python/types.h"
#include "python/types_detail.h"

namespace stoker::python {

using namespace model_detail;

namespace {

// The tuple pattern of `a, b = value` that an unpacking binding's target sits in, or null.
Node unpacking_pattern(const Binding& b) {
  Node pattern = parent(b.target);
  if ((!is(pattern, "pattern_list") && !is(pattern, "tuple_pattern")) || !is(parent(pattern), "assignment"))
    return Node{};
  return pattern;
}

// A tensor by another module's types that is not known to be on the CPU (kind and device of an
// element of FunctionFacts::ret_elems).
bool device_tensor_fact(int kind, int device) {
  return kind == static_cast<int>(AbstractType::Kind::Tensor) && device != static_cast<int>(TypeDevice::Cpu);
}

// The receiver of a method call (`self.model.bpr_loss(...)`) is a module on CUDA.
bool cuda_module_receiver(const SemanticModel& m, Node call) {
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  Node recv = field(fn, "object");
  if (!m.is_cuda(recv)) return false;
  if (m.is_module(recv)) return true;
  AbstractType t = m.types().type_of(recv);
  return t.kind == AbstractType::Kind::Module;
}

}  // namespace

std::optional<bool> SemanticModel::unpacked_param_cuda(const Binding& b) const {
  Node v = unparen(b.value);
  if (!is(v, "identifier") || is_null(unpacking_pattern(b))) return std::nullopt;
  auto bindings = lookup(text(v), start(v));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param) return std::nullopt;
  const Binding& p = *bindings[0];
  const Function& fn = functions_[p.function];
  const Param& param = fn.params[p.param_index];
  if (param.is_variadic) return std::nullopt;
  size_t i = static_cast<size_t>(b.unpack_index);
  bool known = false, cuda = false;
  // Other modules' call sites: the taint of each element of the tuple they pass.
  if (const ArgFacts* ext = ext_param(p.function, p.param_index, fact::kCuda); ext && ext->passed) {
    if (ext->elems_mixed || i >= ext->elem_cuda.size()) return std::nullopt;
    known = true;
    cuda = ext->elem_cuda[i] != 0;
  }
  // This module's call sites: the element of the tuple display each passes.
  int position = p.param_index - bound_params(fn);
  if (position < 0) return std::nullopt;
  for (int ci : callers(p.function)) {
    Node a = unparen(argument(calls_[ci].call, param.keyword_only ? -1 : position, param.name));
    if (is_null(a)) continue;
    if ((!is(a, "tuple") && !is(a, "list")) || i >= named_count(a)) return std::nullopt;
    Node e = named_child(a, static_cast<uint32_t>(i));
    if (is(e, "list_splat")) return std::nullopt;
    known = true;
    cuda = cuda || is_cuda_impl(e);
  }
  if (!known) return std::nullopt;
  return cuda;
}

namespace {
// Does the function's body yield (a generator: unpacking iterates it)? Not counting nested
// functions, lambdas and classes; O(body).
bool has_yield(Node function) {
  std::vector<Node> stack{field(function, "body")};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (is_null(n)) continue;
    if (is(n, "yield")) return true;
    if (is(n, "function_definition") || is(n, "lambda") || is(n, "class_definition")) continue;
    for (Node c : named_children(n)) stack.push_back(c);
  }
  return false;
}
}  // namespace

std::optional<bool> SemanticModel::unpacked_return_cuda(const Binding& b) const {
  Node v = unparen(b.value);
  Node pattern = unpacking_pattern(b);
  if (!is(v, "call") || is_null(pattern)) return std::nullopt;
  for (Node c : named_children(pattern))
    if (!is(c, "identifier")) return std::nullopt;  // starred or nested: positions do not line up
  size_t i = static_cast<size_t>(b.unpack_index);
  auto targets = callees(v);
  if (targets.empty()) {
    // A function of another module whose every return is a tuple display of this arity: that
    // element's taint there (`loss, logs = compute_loss(...)`, logs a dict of `.item()` floats).
    const FunctionFacts* ext = ext_callee_of(v, fact::kReturnsCuda);
    if (!ext || ext->ret_elem_cuda.size() != named_count(pattern)) return std::nullopt;
    if (ext->ret_elem_cuda[i] != 0) return true;
    // A method of a CUDA module (`loss, reg = self.model.bpr_loss(...)`, the model moved in
    // another module): an element its types give as a tensor not known to be on the CPU (joined
    // over the classes of a table, `register.MODELS[...]`) is on the module's device; the
    // callee's module judged its taint where the instance's device is not known.
    const FunctionFacts* rt = ext->method ? ext_callee_of(v, fact::kReturnType) : nullptr;
    return rt && i < rt->ret_elems.size() && device_tensor_fact(rt->ret_elems[i].first, rt->ret_elems[i].second) &&
           cuda_module_receiver(*this, v);
  }
  bool cuda = false, any_returns = false;
  for (int f : targets) {
    // A target that returns nothing (None, which no tuple unpacking takes) among others: not the
    // one whose tuple is unpacked (a vectorized env's `step` running `step_async`, then
    // `step_wait`: data/frameworks.txt `runs`).
    if (targets.size() > 1 && functions_[f].returns.empty() && !has_yield(functions_[f].node)) continue;
    any_returns = true;
    // Host with this call's own arguments (return dependence): every element is.
    if (auto at_site = site_return_cuda(f, v); at_site.has_value() && !*at_site) continue;
    const auto& returns = functions_[f].returns;
    if (returns.empty()) return std::nullopt;
    for (Node r : returns) {
      r = unparen(r);
      if ((!is(r, "tuple") && !is(r, "expression_list")) || named_count(r) != named_count(pattern))
        return std::nullopt;
      for (Node e : named_children(r))
        if (is(e, "list_splat")) return std::nullopt;
      Node e = unparen(named_child(r, static_cast<uint32_t>(i)));
      // A parameter handed back (`return gen_seq, scores` of a step that writes into gen_seq):
      // its taint is its callers' arguments, which may be this very target; the whole call decides.
      if (is(e, "identifier"))
        for (const Binding* pb : lookup(text(e), start(e)))
          if (pb->kind == Binding::Kind::Param && pb->function == f) return std::nullopt;
      cuda = cuda || is_cuda_impl(e);
    }
  }
  if (!any_returns) return std::nullopt;
  return cuda;
}

namespace {
// Joins one candidate's elements into `acc` (the shortest prefix, each element OR-ed); false
// when the candidate's are not known.
bool join_elements(std::vector<char>& acc, bool& first, const std::vector<char>& e) {
  if (e.empty()) return false;
  if (first) {
    acc = e;
    first = false;
    return true;
  }
  if (e.size() < acc.size()) acc.resize(e.size());
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<char>(acc[i] | e[i]);
  return true;
}
}  // namespace

std::vector<char> SemanticModel::elements_cuda(Node expr) const { return elements_cuda_impl(expr, 0); }

// O(candidates) per level, at most 4 levels of names, parameters and calls.
std::vector<char> SemanticModel::elements_cuda_impl(Node expr, int depth) const {
  expr = unparen(expr);
  if (is_null(expr) || depth > 4) return {};
  auto k = kind(expr);
  if (k == "tuple" || k == "list" || k == "expression_list") {
    std::vector<char> out;
    for (Node e : named_children(expr)) {
      if (is(e, "comment")) continue;
      if (is(e, "list_splat") || out.size() == kMaxTupleElements) return {};
      out.push_back(is_cuda_impl(e) ? 1 : 0);
    }
    return out;
  }
  std::vector<char> acc;
  bool first = true;
  if (k == "identifier") {
    std::pair<int, std::string> key{scope_at(start(expr)), std::string(text(expr))};
    if (appends_.count(key) || subscript_stores_.count(key)) return {};  // a list filled elsewhere
    auto bindings = lookup(text(expr), start(expr));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
    for (const Binding* b : bindings) {
      std::vector<char> e;
      if (b->is_plain_assign()) e = elements_cuda_impl(b->value, depth + 1);
      else if (b->kind == Binding::Kind::Param) e = param_elements_cuda(*b, depth + 1);
      // A binding whose value is not CUDA at all has no CUDA element, whatever its arity (the
      // host batch of `for batch in batchs:` before `batch = to_device(batch, device)`).
      if (e.empty() && b->kind != Binding::Kind::Param && !binding_is_cuda(*b)) continue;
      if (!join_elements(acc, first, e)) return {};
    }
    return first ? std::vector<char>{} : acc;
  }
  if (k != "call") return {};
  auto targets = callees(expr);
  if (targets.empty()) {
    // Another module's function whose every return is a tuple display.
    const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsCuda);
    if (!ext || ext->ret_elem_cuda.empty() || ext->ret_elem_cuda.size() > kMaxTupleElements) return {};
    return std::vector<char>(ext->ret_elem_cuda.begin(), ext->ret_elem_cuda.end());
  }
  for (int f : targets) {
    auto e = returned_elements_cuda(f);
    if (!join_elements(acc, first, std::vector<char>(e.begin(), e.end()))) return {};
  }
  return acc;
}

std::vector<char> SemanticModel::param_elements_cuda(const Binding& p, int depth) const {
  std::pair<int, int> key{p.function, p.param_index};
  if (auto it = param_elems_cache_.find(key); it != param_elems_cache_.end()) return it->second;
  param_elems_cache_[key] = {};  // in progress: a cycle answers unknown
  const Function& fn = functions_[p.function];
  const Param& param = fn.params[p.param_index];
  if (param.is_variadic) return {};
  std::vector<char> acc;
  bool first = true;
  // Other modules' call sites: the elements of the tuples they pass.
  if (const ArgFacts* ext = ext_param(p.function, p.param_index, fact::kCuda); ext && ext->passed)
    if (ext->elems_mixed || !join_elements(acc, first, ext->elem_cuda)) return {};
  // This module's call sites.
  int position = p.param_index - bound_params(fn);
  if (position < 0) return {};
  for (int ci : callers(p.function)) {
    Node a = unparen(argument(calls_[ci].call, param.keyword_only ? -1 : position, param.name));
    if (is_null(a)) continue;
    if (!join_elements(acc, first, elements_cuda_impl(a, depth + 1))) return {};
  }
  if (first) return {};
  param_elems_cache_[key] = acc;
  return acc;
}

}  // namespace stoker::python
