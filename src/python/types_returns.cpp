#include <algorithm>
#include <set>
#include <string>

#include "python/call_positions.h"
#include "python/model_internal.h"
#include "python/project_facts.h"
#include "python/semantic_model.h"
#include "python/types.h"
#include "python/types_detail.h"

// Return dependence: how what a function returns depends on its parameters (types.h
// ReturnDependence), so that a call is typed with its own arguments. A helper such as
// `default(v, d)` or `xyxy2xywh(x)` called with CUDA tensors at one site and host values at
// another returns a host value at the second site, where the context-free join over the sites
// would say "may be CUDA". Split from types.cpp by concern (issue 10's layout).

namespace stoker::python {

using Kind = AbstractType::Kind;
using namespace type_detail;

namespace {

// A chain of locals, each an operator or call over the next (a box IoU helper's `iou - (rho2 / c2
// + v * alpha)` back to its parameters: 17 steps); the steps below bound the work.
constexpr int kMaxDepth = 32;
// dependence() steps left for the function whose return is being read (return_dependence sets it;
// a nested function's reading has its own and gives the caller's back): the depth bounds a chain,
// this bounds the fan-out (binary operators, a name's bindings, `torch.cat([...])`'s elements).
constexpr int kMaxDependenceSteps = 2048;
thread_local int dependence_steps = 0;
constexpr size_t kMaxFixedNodes = 16;
constexpr size_t kMaxReturns = 16;

// Tensor methods whose result is a tensor on the receiver's device (given host arguments).
const std::set<std::string, std::less<>>& device_preserving_methods() {
  static const std::set<std::string, std::less<>> s = {
      "clone", "detach", "contiguous", "float", "double", "half", "bfloat16", "long", "int", "bool", "byte",
      "view", "reshape", "view_as", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "t", "expand",
      "repeat", "abs", "sqrt", "exp", "log", "sigmoid", "softmax", "log_softmax", "sum", "mean", "max", "min",
      "clamp", "clamp_", "neg", "round", "floor", "ceil", "type_as", "zero_", "fill_", "mul", "div", "add", "sub",
      "prod", "argmax", "argmin", "cumsum", "norm", "pow", "any", "all", "sign", "tanh", "relu"};
  return s;
}

// Methods that put values into the container they are called on.
const std::set<std::string, std::less<>>& mutating_methods() {
  static const std::set<std::string, std::less<>> s = {"append", "extend", "insert", "update", "add",
                                                        "setdefault", "appendleft", "extendleft", "__setitem__"};
  return s;
}

// torch functions whose result is a tensor on the device of their tensor arguments, given no
// `device=` (`torch.max(a[:, None, :2], b[:, :2])`, `torch.cat([x, y])`): host numbers, dims and
// strings among the arguments do not move it.
const std::set<std::string, std::less<>>& device_following_functions() {
  static const std::set<std::string, std::less<>> s = {
      "abs", "add", "argmax", "argmin", "atan", "atan2", "bmm", "cat", "ceil", "clamp", "cos", "cumsum", "div",
      "exp", "flatten", "floor", "log", "matmul", "max", "maximum", "mean", "min", "minimum", "mm", "mul", "neg",
      "pow", "prod", "reshape", "round", "sigmoid", "sin", "sqrt", "squeeze", "stack", "sub", "sum", "tanh",
      "transpose", "unsqueeze", "where"};
  return s;
}

bool arithmetic(std::string_view op) {
  return op == "+" || op == "-" || op == "*" || op == "/" || op == "//" || op == "%" || op == "**" || op == "@";
}

// The type of an argument of that type once moved: a module (its class kept) or a tensor on
// CUDA; anything else unknown.
AbstractType moved_type(const AbstractType& t) {
  if (t.kind == Kind::Module) {
    AbstractType m = t;
    m.device = TypeDevice::Cuda;
    return m;
  }
  if (t.kind == Kind::Tensor || t.kind == Kind::ModuleMember) return AbstractType::of(Kind::Tensor, TypeDevice::Cuda);
  return AbstractType::unknown();
}

bool has_splat(Node call) {
  for (Node a : named_children(field(call, "arguments")))
    if (is(a, "list_splat") || is(a, "dictionary_splat")) return true;
  return false;
}

}  // namespace

AbstractType TypeInference::host_join(const AbstractType& a, const AbstractType& b) {
  AbstractType j = join(a, b);
  if (j.kind != Kind::Unknown || a.kind == Kind::Unknown || b.kind == Kind::Unknown) return j;
  if (cuda_answer(a) != CudaAnswer::Host || cuda_answer(b) != CudaAnswer::Host) return j;
  return a.kind == Kind::Tensor || b.kind == Kind::Tensor ? AbstractType::of(Kind::Tensor, TypeDevice::Cpu)
                                                          : AbstractType::of(Kind::Host);
}

AbstractType TypeInference::device_of(const AbstractType& t) {
  switch (t.kind) {
    case Kind::Bottom:
    case Kind::None: return AbstractType::bottom();
    case Kind::Tensor:
    case Kind::ModuleMember: return AbstractType::of(Kind::Tensor, t.device);
    case Kind::HostContainer:
      return AbstractType::of(Kind::Tensor, t.device == TypeDevice::Cpu ? TypeDevice::Cpu : t.device);
    case Kind::HostScalar:
    case Kind::Host: return AbstractType::of(Kind::Tensor, TypeDevice::Cpu);
    case Kind::Module: return t;
    default: return AbstractType::unknown();
  }
}

AbstractType TypeInference::use_type(Node argument, bool device) const {
  AbstractType t = value(argument, Path{});
  return device ? device_of(t) : t;
}

bool TypeInference::mentions_parameters(Node expr, int function, int depth) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  if (depth > 4) return true;
  const Function& fn = m_.functions()[function];
  bool found = false;
  auto visit = [&](auto&& self, Node n) -> void {
    if (found) return;
    std::string_view k = kind(n);
    if (k == "lambda" || k == "list_comprehension" || k == "dictionary_comprehension" ||
        k == "set_comprehension" || k == "generator_expression") {
      found = true;  // their own variables: not followed
      return;
    }
    if (k == "identifier") {
      Node p = parent(n);
      if (is(p, "attribute") && same(field(p, "attribute"), n)) return;
      if (is(p, "keyword_argument") && same(field(p, "name"), n)) return;
      for (const Binding* b : visible(m_, n)) {
        if (b->kind == Binding::Kind::Param && b->function == function) {
          if (b->param_index < bound_params(fn)) continue;  // self: the instance, not an argument
          found = true;
        } else if (m_.scope_at(b->at) == fn.scope) {
          if (b->kind != Binding::Kind::Assign || mentions_parameters(b->value, function, depth + 1)) found = true;
        }
        if (found) return;
      }
      return;
    }
    for (Node c : named_children(n)) self(self, c);
  };
  visit(visit, expr);
  return found;
}

bool TypeInference::stable_local(const Binding& b, int function) const {
  // A local assigned once or more (plain assignments), whose value no statement of the function
  // changes: nothing is appended to it or stored into it, and it is not handed to a call, except
  // when it is an array (a tensor or numpy array from a torch/numpy call or a tensor method),
  // whose item stores and callees keep it on its device.
  auto array_valued = [&](auto&& self, Node v) -> bool {
    v = unparen(v);
    if (is(v, "conditional_expression")) {
      auto parts = named_children(v);
      return parts.size() == 3 && self(self, parts[0]) && self(self, parts[2]);
    }
    if (!is(v, "call")) return false;
    Node fn = unparen(field(v, "function"));
    const std::string& q = m_.qualified_name(fn);
    if (starts_with(q, "torch.") || starts_with(q, "numpy.")) return !starts_with(q, "torch.nn.");
    return is(fn, "attribute") && q.empty() && device_preserving_methods().count(text(field(fn, "attribute"), m_.src()));
  };
  bool array = array_valued(array_valued, b.value);
  const Function& fn = m_.functions()[function];
  std::string_view name = text(b.target, m_.src());
  if (!is(b.target, "identifier")) return false;
  bool stable = true;
  auto visit = [&](auto&& self, Node n) -> void {
    if (!stable) return;
    if (is(n, "identifier") && text(n, m_.src()) == name && m_.scope_at(start(n)) == fn.scope) {
      Node p = parent(n);
      if (is(p, "attribute") && same(field(p, "object"), n)) {
        Node call = parent(p);
        if (is(call, "call") && same(unparen(field(call, "function")), p) &&
            mutating_methods().count(text(field(p, "attribute"), m_.src())))
          stable = false;
      } else if (is(p, "subscript") && same(field(p, "value"), n)) {
        Node a = parent(p);
        if ((is(a, "assignment") || is(a, "augmented_assignment")) && same(field(a, "left"), p) && !array) stable = false;
      } else if ((is(p, "argument_list") || (is(p, "keyword_argument") && same(field(p, "value"), n))) && !array) {
        stable = false;
      }
      return;
    }
    for (Node c : named_children(n)) self(self, c);
  };
  visit(visit, field(fn.node, "body"));
  return stable;
}

bool TypeInference::items_moved_to_cuda(Node use, int scope) const {
  std::string_view name = text(use, m_.src());
  for (Node sv : item_stores({scope, std::string(name)})) {
    Node st = parent(sv);
    if (!is(st, "assignment") || start(st) >= start(use) || !m_.elementwise_store(st)) continue;
    // The item itself moved: `batch[k].to(device)`, `batch[k].cuda()`.
    Node v = unparen(sv);
    Node fn = is(v, "call") ? unparen(field(v, "function")) : Node{};
    if (!is(fn, "attribute")) continue;
    Node item = unparen(field(fn, "object"));
    if (!is(item, "subscript") || text(item, m_.src()) != text(unparen(field(st, "left")), m_.src())) continue;
    std::string_view meth = text(field(fn, "attribute"), m_.src());
    Node dev = meth == "to" ? m_.argument(v, 0, "device") : Node{};
    if (meth == "cuda") return true;
    if (meth != "to" || is_null(dev)) continue;
    // A device that may be CUDA, or one not resolved (`model.device` of a model built by name)
    // that is a device by its type, as `.to(dev)` reads it in the taint (not a dtype).
    SemanticModel::DeviceKind d = m_.device_kind(dev);
    if (d == SemanticModel::DeviceKind::Cuda || (d == SemanticModel::DeviceKind::Unknown && value(dev, Path{}).kind == Kind::Device))
      return true;
  }
  return false;
}

bool TypeInference::dependence(Node expr, int function, bool device, int depth, ReturnDependence& out) const {
  expr = unparen(expr);
  if (is_null(expr) || depth > kMaxDepth || --dependence_steps < 0) return false;
  const Function& fn = m_.functions()[function];
  auto add_fixed = [&](const AbstractType& t, Node node) {
    AbstractType f = device ? device_of(t) : t;
    if (f.kind == Kind::Unknown) return false;
    out.fixed = host_join(out.fixed, f);
    if (!is_null(node) && cuda_answer(f) != CudaAnswer::Host) {
      if (out.fixed_nodes.size() >= kMaxFixedNodes) return false;
      out.fixed_nodes.push_back(node);
    }
    return true;
  };
  AbstractType t = value(expr, Path{});
  std::string_view k = kind(expr);
  // Host by its own operation, whatever the arguments (`v is not None`, `np.zeros_like(x)`,
  // `"%d" % n`). Names, branches and arithmetic are followed below instead: their context-free
  // type is only what the parameters' joined types make of them.
  bool formatting = k == "binary_operator" && text(field(expr, "operator"), m_.src()) == "%" &&
                    value(field(expr, "left"), Path{}).kind == Kind::HostScalar;
  bool structural = !formatting && (k == "identifier" || k == "conditional_expression" ||
                                    k == "unary_operator" || k == "binary_operator");
  if (!structural && cuda_answer(t) == CudaAnswer::Host && !is(expr, "call")) return add_fixed(t, Node{});
  if (k == "identifier") {
    auto bindings = visible(m_, expr);
    if (bindings.empty()) return false;
    for (const Binding* b : bindings) {
      // `if isinstance(data, np.ndarray): return data`: a host value whatever the argument.
      switch (m_.isinstance_narrowing(expr, *b)) {
        case SemanticModel::Narrowing::Host:
          if (!add_fixed(AbstractType::of(Kind::Host), Node{})) return false;
          continue;
        case SemanticModel::Narrowing::NotTensor: continue;
        default: break;
      }
      if (b->kind == Binding::Kind::Param && b->function == function) {
        if (b->param_index < bound_params(fn)) {
          if (!add_fixed(t, expr)) return false;  // self
          continue;
        }
        if (b->param_index < 0 || fn.params[b->param_index].is_variadic) return false;
        // `for c in batch: batch[c] = batch[c].to(device)` before `return batch`: the container
        // handed in with its items moved to CUDA (ReChorus's `utils.batch_to_gpu`), not the
        // host batch the caller passed.
        ReturnDependence::Use use{b->param_index, device};
        if (items_moved_to_cuda(expr, fn.scope)) use = ReturnDependence::Use{b->param_index, false, false, true};
        if (std::find(out.uses.begin(), out.uses.end(), use) == out.uses.end()) {
          if (out.uses.size() >= ReturnDependence::kMaxUses) return false;
          out.uses.push_back(use);
        }
      } else if (m_.scope_at(b->at) == fn.scope) {
        if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !stable_local(*b, function)) return false;
        if (!dependence(b->value, function, device, depth + 1, out)) return false;
      } else {
        return add_fixed(t, expr);  // bound outside the function: the same at every call
      }
    }
    return true;
  }
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    return parts.size() == 3 && dependence(parts[0], function, device, depth + 1, out) &&
           dependence(parts[2], function, device, depth + 1, out);
  }
  if (k == "unary_operator") return dependence(field(expr, "argument"), function, true, depth + 1, out);
  // `a[:, None, :2]`, `x[0]`: a part of the value, where it is, when every index is a host number,
  // a slice of them, None or `...`.
  if (k == "subscript") {
    Node value_node = field(expr, "value");
    bool host_index = true;
    for (Node i : named_children(expr)) {
      if (same(i, value_node) || is(i, "comment")) continue;
      std::vector<Node> parts{i};
      if (is(i, "slice")) parts = named_children(i);
      for (Node e : parts) {
        e = unparen(e);
        host_index = host_index && (is(e, "none") || is(e, "ellipsis") || is(e, "comment") ||
                                    value(e, Path{}).kind == Kind::HostScalar);
      }
    }
    if (host_index) return dependence(value_node, function, true, depth + 1, out);
  }
  if (k == "binary_operator" && arithmetic(text(field(expr, "operator"), m_.src()))) {
    // A host number does not move the result: `x * 2` is where x is.
    for (Node side : {field(expr, "left"), field(expr, "right")}) {
      if (value(side, Path{}).kind == Kind::HostScalar) continue;
      if (!dependence(side, function, true, depth + 1, out)) return false;
    }
    return true;
  }
  // `a < b`, `x == y`: a Python bool for host operands, a bool tensor on the device of tensor
  // ones (bboxes_iou's `(tl < br)`); host numbers do not move it. `is`/`in` give Python bools.
  if (k == "comparison_operator") {
    for (uint32_t i = 0; i < ts_node_child_count(expr); ++i) {
      Node c = ts_node_child(expr, i);
      if (ts_node_is_named(c)) continue;
      std::string_view op = text(c, m_.src());
      if (op.substr(0, 2) == "is" || op == "in" || op.substr(0, 3) == "not") return add_fixed(AbstractType::of(Kind::HostScalar), Node{});
    }
    for (Node side : named_children(expr)) {
      if (is(side, "comment") || value(side, Path{}).kind == Kind::HostScalar) continue;
      if (!dependence(side, function, true, depth + 1, out)) return false;
    }
    return true;
  }
  if (k == "call" && !has_splat(expr)) {
    Node callee = unparen(field(expr, "function"));
    // `d()` of a parameter (`default(v, d)`'s `d() if isfunction(d) else d`): what calling each
    // call's own argument gives (a lambda's body; nothing for a value that cannot be called).
    // The parameter of this function that `name` alone names, or null.
    auto own_param = [&](Node name) -> const Binding* {
      auto bindings = visible(m_, name);
      bool param = bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param && bindings[0]->function == function;
      return param ? bindings[0] : nullptr;
    };
    // Adds the call's use of parameter `b` (called, on_device; or moved to CUDA); false when it
    // cannot be one (self, *args) or the uses are full.
    auto add_called_use = [&](const Binding* b, bool on_device, bool moved) {
      if (b->param_index < 0 || fn.params[b->param_index].is_variadic || b->param_index < bound_params(fn))
        return false;
      ReturnDependence::Use use{b->param_index, on_device && !moved, !moved, moved};
      if (std::find(out.uses.begin(), out.uses.end(), use) == out.uses.end()) {
        if (out.uses.size() >= ReturnDependence::kMaxUses) return false;
        out.uses.push_back(use);
      }
      return true;
    };
    if (is(callee, "identifier") && named_count(field(expr, "arguments")) == 0)
      if (const Binding* b = own_param(callee)) return add_called_use(b, device, false);
    // `variable.cuda()`, `x.to("cuda")` of a parameter: the argument moved to CUDA.
    if (is(callee, "attribute") && is(unparen(field(callee, "object")), "identifier")) {
      std::string_view meth = text(field(callee, "attribute"), m_.src());
      Node dev = meth == "to" ? m_.argument(expr, 0, "device") : Node{};
      bool to_cuda = meth == "cuda" || (meth == "to" && !is_null(dev) && m_.device_kind(dev) == SemanticModel::DeviceKind::Cuda);
      if (const Binding* b = to_cuda ? own_param(unparen(field(callee, "object"))) : nullptr)
        return add_called_use(b, false, true);
    }
    const std::string& q = m_.qualified_name(callee);
    // `torch.zeros_like(x)`: a tensor on x's device.
    if (starts_with(q, "torch.") && q.size() > 5 && q.substr(q.size() - 5) == "_like" &&
        is_null(m_.argument(expr, -1, "device")))
      return dependence(m_.argument(expr, 0, "input"), function, true, depth + 1, out);
    // `torch.max(a, b)`, `torch.cat([x, y], 1)`: a tensor on the device of the tensor arguments
    // (each followed, the elements of a list or tuple display too); host numbers do not count.
    if (starts_with(q, "torch.") && q.find('.', 6) == std::string::npos &&
        device_following_functions().count(std::string_view(q).substr(6)) && is_null(m_.argument(expr, -1, "device")) &&
        is_null(m_.argument(expr, -1, "out"))) {
      for (Node a : named_children(field(expr, "arguments"))) {
        if (is(a, "comment")) continue;
        Node v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
        std::vector<Node> parts{v};
        if (is(v, "list") || is(v, "tuple")) parts = named_children(v);
        for (Node e : parts) {
          if (is(e, "comment") || value(e, Path{}).kind == Kind::HostScalar) continue;
          if (is(e, "list_splat") || !dependence(e, function, true, depth + 1, out)) return false;
        }
      }
      return true;
    }
    // `x.type(y.type())`: x converted to y's tensor type, so on y's device (x's when they agree);
    // `x.type(torch.float32)`: a dtype, x's device.
    if (is(callee, "attribute") && q.empty() && text(field(callee, "attribute"), m_.src()) == "type" &&
        named_count(field(expr, "arguments")) == 1) {
      Node a = unparen(m_.argument(expr, 0, "dtype"));
      Node af = is(a, "call") ? unparen(field(a, "function")) : Node{};
      if (is(af, "attribute") && text(field(af, "attribute"), m_.src()) == "type" && named_count(field(a, "arguments")) == 0)
        return dependence(field(callee, "object"), function, true, depth + 1, out) &&
               dependence(field(af, "object"), function, true, depth + 1, out);
      if (!is_null(a) && m_.device_kind(a) == SemanticModel::DeviceKind::NotDevice)
        return dependence(field(callee, "object"), function, true, depth + 1, out);
    }
    // `x.clone()`, `x.view(1, 4)`: a tensor on the receiver's device when every argument is host.
    if (is(callee, "attribute") && q.empty() && device_preserving_methods().count(text(field(callee, "attribute"), m_.src()))) {
      bool host_args = true;
      for (Node a : named_children(field(expr, "arguments"))) {
        if (is(a, "comment")) continue;
        Node v = is(a, "keyword_argument") ? field(a, "value") : a;
        host_args = host_args && cuda_answer(value(v, Path{})) == CudaAnswer::Host;
      }
      if (host_args) return dependence(field(callee, "object"), function, true, depth + 1, out);
    }
    // A function here with a known dependence: its own, through this call's arguments.
    auto targets = m_.callees(expr);
    if (targets.size() == 1 && targets[0] != function && class_of_callee(callee) < 0 &&
        value(callee, Path{}).kind != Kind::Module) {
      const ReturnDependence& d = return_dependence(targets[0]);
      if (!d.known && cuda_answer(t) == CudaAnswer::Host) return add_fixed(t, Node{});
      if (d.known) {
        AbstractType f = device ? device_of(d.fixed) : d.fixed;
        out.fixed = host_join(out.fixed, f);
        for (Node n : d.fixed_nodes) {
          if (out.fixed_nodes.size() >= kMaxFixedNodes) return false;
          out.fixed_nodes.push_back(n);
        }
        for (const auto& use : d.uses) {
          if (use.moved) return false;  // not composed
          Node a = site_argument(targets[0], use.param, expr);
          if (!is_null(a) && use.called) {
            bool nothing = false;
            a = m_.called_result(a, nothing);
            if (nothing) continue;
          }
          if (is_null(a) || !dependence(a, function, device || use.device, depth + 1, out)) return false;
        }
        return true;
      }
    }
  }
  // A call host by what it calls (numpy, builtins, `.item()`), not through a helper of this file.
  if (k == "call" && cuda_answer(t) == CudaAnswer::Host && m_.callees(expr).empty()) return add_fixed(t, Node{});
  // Anything else that reads no parameter (through the locals it reads) is the same at every call.
  if (!mentions_parameters(expr, function, 0)) return add_fixed(t, expr);
  return false;
}

const ReturnDependence& TypeInference::return_dependence(int function) const {
  static const ReturnDependence kUnknown;
  const auto& functions = m_.functions();
  if (function < 0 || static_cast<size_t>(function) >= functions.size()) return kUnknown;
  if (dependences_.size() != functions.size()) {
    dependences_.assign(functions.size(), ReturnDependence{});
    dependence_state_.assign(functions.size(), 0);
  }
  if (dependence_state_[function] == 2) return dependences_[function];
  if (dependence_state_[function] == 1) return kUnknown;  // recursion
  dependence_state_[function] = 1;
  const Function& fn = functions[function];
  ReturnDependence d;
  bool ok = !fn.returns.empty() && fn.returns.size() <= kMaxReturns && yields(function).empty();
  // A method is read with `self` first (a static method binds none): one whose first parameter is
  // not the instance is left to the context-free join.
  if (bound_params(fn) == 1 &&
      (fn.params.empty() || (fn.params[0].name != "self" && fn.params[0].name != "cls")))
    ok = false;
  int caller_steps = dependence_steps;
  dependence_steps = kMaxDependenceSteps;
  for (Node r : fn.returns) {
    if (!ok) break;
    // A return in a branch that never runs (`if GIoU:` with the flag left False at every call):
    // its names' bindings there reach nothing (SemanticModel::lookup), and it returns nothing.
    if (m_.guards_dead(model_detail::branch_guards(r))) continue;
    ok = dependence(r, function, false, 0, d);
  }
  dependence_steps = caller_steps;
  d.known = ok;
  if (!ok) d = ReturnDependence{};
  dependences_[function] = std::move(d);
  dependence_state_[function] = 2;
  return dependences_[function];
}

Node TypeInference::site_argument(int function, int param, Node call) const {
  const Function& fn = m_.functions()[function];
  if (param < 0 || static_cast<size_t>(param) >= fn.params.size() || has_splat(call)) return Node{};
  const Param& p = fn.params[param];
  if (p.is_variadic) return Node{};
  int bound = bound_params(fn);
  if (bound) {
    if (param < bound) return Node{};
    // `Class.method(obj, x)`: the instance is passed first; not read here.
    Node callee = unparen(field(call, "function"));
    if (is(callee, "attribute") && class_of_callee(field(callee, "object")) >= 0) return Node{};
  }
  int position = p.keyword_only ? -1 : param - bound;
  Node a = m_.argument(call, position, p.name);
  return is_null(a) ? p.default_value : a;
}

bool TypeInference::site_return(int function, Node call, AbstractType& out) const {
  const ReturnDependence& d = return_dependence(function);
  if (!d.known) return false;
  AbstractType t = d.fixed;
  for (const auto& use : d.uses) {
    Node a = site_argument(function, use.param, call);
    if (use.moved) {
      if (is_null(a) || m_.unresolved_argument(a)) return false;
      AbstractType mt = moved_type(value(a, Path{}));
      if (mt.kind == Kind::Unknown) return false;
      t = host_join(t, mt);
      continue;
    }
    if (!is_null(a) && use.called) {
      bool nothing = false;
      a = m_.called_result(a, nothing);
      if (nothing) continue;
    }
    if (is_null(a)) return false;
    if (m_.unresolved_argument(a)) {
      // A parameter no call reaches: what the callee's parameter may be at any call (the join).
      AbstractType p = param_type(function, use.param, Path{}, false);
      t = host_join(t, use.device ? device_of(p) : p);
      continue;
    }
    t = host_join(t, use_type(a, use.device));
  }
  if (t.kind == Kind::Bottom) return false;
  out = t;
  return true;
}

bool TypeInference::site_return(const FunctionFacts& f, Node call, AbstractType& out) const {
  if (!f.dep_known || has_splat(call)) return false;
  AbstractType t = from_fact(f.dep_kind, f.dep_device);
  if (t.kind == Kind::Unknown) return false;
  for (const auto& [i, device] : f.dep_uses) {
    if (i < 0 || static_cast<size_t>(i) >= f.params.size() || (f.method && i == 0)) return false;
    const ParamSummary& p = f.params[static_cast<size_t>(i)];
    if (p.star || p.double_star) return false;
    Node a = m_.argument(call, p.keyword_only ? -1 : i - (f.method ? 1 : 0), p.name);
    if (device == ReturnDependence::kMovedFact) {
      if (is_null(a) || m_.unresolved_argument(a)) return false;
      AbstractType mt = moved_type(value(a, Path{}));
      if (mt.kind == Kind::Unknown) return false;
      t = host_join(t, mt);
      continue;
    }
    if (!is_null(a) && device == ReturnDependence::kCalledFact) {
      bool nothing = false;
      a = m_.called_result(a, nothing);
      if (nothing) continue;
      if (is_null(a)) return false;
      t = host_join(t, use_type(a, false));
      continue;
    }
    if (is_null(a) || m_.unresolved_argument(a)) return false;  // its default is the other module's
    t = host_join(t, use_type(a, device != 0));
  }
  if (t.kind == Kind::Bottom) return false;
  out = t;
  return true;
}

void TypeInference::dependence_facts(int function, FunctionFacts& out) const {
  const ReturnDependence& d = return_dependence(function);
  if (!d.known) return;
  out.dep_known = true;
  out.dep_kind = static_cast<int>(d.fixed.kind);
  out.dep_device = static_cast<int>(d.fixed.device);
  for (Node n : d.fixed_nodes) out.dep_cuda = out.dep_cuda || m_.is_cuda(n);
  for (const auto& use : d.uses) {
    int how = use.moved ? ReturnDependence::kMovedFact : use.called ? ReturnDependence::kCalledFact : use.device ? 1 : 0;
    out.dep_uses.push_back({use.param, how});
  }
}

}  // namespace stoker::python
