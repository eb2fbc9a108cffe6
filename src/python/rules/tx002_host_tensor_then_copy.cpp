// TX002: a tensor built on the host and then copied to the GPU.
#include <set>

#include "python/rules/common.h"
#include "python/frameworks.h"
#include "python/types.h"

namespace stoker::python::rules {

namespace {

// The torch factory call whose result the moved expression is: the expression itself, or a
// factory reached through subscripts (`torch.tensor(xs)[None, :]`), arithmetic with host
// scalars (`torch.arange(n) + n * rank`) and dtype conversions that name no device
// (`torch.from_numpy(x).float()`, `.long()`, `.to(torch.float32)`), which keep the result on
// the host. Null otherwise (an operand that may be a tensor, or whose type is unknown, may put
// the result elsewhere).
Node host_factory_of(const SemanticModel& m, Node e, bool* through_method, int depth = 0) {
  e = unparen(e);
  if (depth > 8) return Node{};
  if (is(e, "call")) {
    bool moves = false;
    Node fn = unparen(field(e, "function"));
    // `Variable(torch.zeros(n))`: a wrapper that returns its argument (data/frameworks.txt `identity`).
    if (FrameworkTable::get().identity(m.callee_name(e))) {
      Node a = m.argument(e, 0, "");
      return is_null(a) || is(a, "keyword_argument") ? Node{} : host_factory_of(m, a, through_method, depth + 1);
    }
    if (is(fn, "attribute") && !m.conversion_dtype(e, &moves).empty())
      return moves ? Node{} : host_factory_of(m, field(fn, "object"), through_method, depth + 1);  // a move: on the device
    // Methods whose result is their receiver, or a view or copy of it, on the receiver's device
    // (`torch.FloatTensor(n, k).fill_(0)`, `torch.LongTensor(ids).unsqueeze(0).expand_as(x)`):
    // the factory's tensor is still on the host. Arguments name no device.
    static const std::set<std::string, std::less<>> same_device = {
        "fill_",     "zero_",   "unsqueeze", "squeeze", "view",    "view_as",   "reshape", "reshape_as",
        "expand",    "expand_as", "repeat",  "t",       "transpose", "permute", "flatten", "contiguous",
        "clone",     "detach",  "normal_",   "uniform_", "random_", "bernoulli_", "exponential_", "fill_diagonal_"};
    // A torch elementwise function of one tensor computes on its argument's device (BiSeNet's
    // `-torch.log(torch.tensor(thresh, dtype=torch.float)).cuda()`): the factory's tensor, still
    // on the host (rows `same-device-functions` of data/frameworks.txt). One positional argument;
    // keywords name no tensor (`out=` aside).
    if (FrameworkTable::get().same_device_function(m.callee_name(e))) {
      Node a = m.argument(e, 0, "input");
      size_t positional = 0;
      for (Node c : named_children(field(e, "arguments"))) {
        if (is(c, "comment")) continue;
        if (is(c, "list_splat") || is(c, "dictionary_splat") ||
            (is(c, "keyword_argument") && m.text(field(c, "name")) == "out"))
          return Node{};
        if (!is(c, "keyword_argument")) ++positional;
      }
      if (positional != 1 || is_null(a) || is(a, "keyword_argument")) return Node{};
      Node inner = host_factory_of(m, a, through_method, depth + 1);
      if (is_null(inner) || m.callee_name(inner).rfind("torch.", 0) != 0) return Node{};
      *through_method = true;
      return inner;
    }
    if (is(fn, "attribute") && same_device.count(m.text(field(fn, "attribute")))) {
      Node inner = host_factory_of(m, field(fn, "object"), through_method, depth + 1);
      // Only a torch factory at the bottom of the chain: a project object's method of the same
      // name may do anything.
      if (!is_null(inner) && m.callee_name(inner).rfind("torch.", 0) == 0) {
        *through_method = true;
        return inner;
      }
      return Node{};
    }
    return e;
  }
  if (is(e, "subscript")) return host_factory_of(m, field(e, "value"), through_method, depth + 1);
  if (is(e, "unary_operator")) return host_factory_of(m, field(e, "argument"), through_method, depth + 1);
  if (!is(e, "binary_operator")) return Node{};
  std::string_view op = m.text(field(e, "operator"));
  if (op == "@") return Node{};
  Node l = field(e, "left"), r = field(e, "right");
  auto host_scalar = [&](Node x) {
    x = unparen(x);
    if (is(x, "integer") || is(x, "float")) return true;
    return m.types().type_of(x).kind == AbstractType::Kind::HostScalar;
  };
  if (host_scalar(r)) return host_factory_of(m, l, through_method, depth + 1);
  if (host_scalar(l)) return host_factory_of(m, r, through_method, depth + 1);
  return Node{};
}

}  // namespace

void tx002_host_tensor_then_copy(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  // `torch.empty(1, 1).fill_(sos).type_as(source)` with `source` on CUDA: `type_as` converts to
  // the other tensor's type, device included, so it is the move (a later `.to(device)` copies
  // nothing). Only an argument CUDA by its type or taint.
  bool type_as = false;
  if (meth == "type_as") {
    Node other = m.argument(call, 0, "other");
    if (is_null(other)) return;
    if (m.types().cuda(other) != CudaAnswer::Cuda && !m.is_cuda(other)) return;
    type_as = true;
  } else if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) {
    return;
  }
  Node moved = receiver(call);
  bool through_method = false;
  Node factory = host_factory_of(m, moved, &through_method);
  if (is_null(factory)) return;
  // `if isinstance(s, np.ndarray): s = torch.from_numpy(s).type_as(ts)`: a parameter converted
  // only where a caller hands an array (U-ViT's `stp`, whose callers pass tensors) is an input
  // normalization whose branch the analysis does not know to run.
  if (type_as) {
    Node data = unparen(m.argument(factory, 0, ""));
    if (is(data, "identifier"))
      for (const Binding* b : m.lookup(m.text(data), start(data)))
        if (b->kind == Binding::Kind::Param && m.isinstance_narrowing(data, *b) == SemanticModel::Narrowing::Host)
          return;
  }
  // Through such methods, only a move to a device known to be CUDA (`.cuda()`, a CUDA device,
  // a device chosen by `torch.cuda.is_available()`): `.to(t.device)` of a tensor of unknown
  // device may be a copy to the CPU (a checkpoint loaded there).
  if (through_method && meth == "to") {
    auto args = named_children(field(call, "arguments"));
    Node dev = args.empty() ? Node{} : is(args[0], "keyword_argument") ? field(args[0], "value") : args[0];
    if (is_null(dev) || m.device_kind(dev) != SemanticModel::DeviceKind::Cuda) return;
  }
  bool direct = same(factory, moved);
  std::string q = m.callee_name(factory);
  if (q.rfind("torch.", 0) != 0) return;
  std::string name = q.substr(6);
  static const std::set<std::string, std::less<>> with_device = {
      "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "range", "tensor", "as_tensor",
      "linspace", "logspace", "eye", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
      "rand_like", "randn_like", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
      "kaiser_window", "tril_indices", "triu_indices", "scalar_tensor"};
  static const std::set<std::string, std::less<>> without_device = {
      "from_numpy", "FloatTensor", "LongTensor", "IntTensor", "DoubleTensor", "HalfTensor", "ByteTensor",
      "BoolTensor", "Tensor"};
  bool takes_device = with_device.count(name) > 0;
  if (!takes_device && !without_device.count(name)) return;
  // A factory that wraps its data given a tensor (`torch.as_tensor(out, dtype=...)` of a module's
  // output, `torch.tensor(t)`) builds no host tensor: the result is on the argument's device.
  static const std::set<std::string, std::less<>> wraps_data = {"tensor", "as_tensor", "asarray", "Tensor"};
  if (wraps_data.count(name) || without_device.count(name)) {
    Node data = m.argument(factory, 0, "data");
    if (!is_null(data) && !is(data, "keyword_argument")) {
      data = unparen(data);
      AbstractType::Kind dk = m.types().type_of(data).kind;
      bool display = is(data, "list") || is(data, "tuple") || is(data, "list_comprehension");
      // By the taint only when every reaching binding of a name is an assignment: a parameter (host
      // data from the caller) next to a CUDA rebinding in another branch (`state =
      // torch.FloatTensor(state).to(device)` in both branches of an if) is not known to be a tensor.
      auto assigned_only = [&](Node d) {
        return !is(d, "identifier") || all_bindings_of_kind(m.lookup(m.text(d), start(d)), Binding::Kind::Assign);
      };
      if (name != "from_numpy" &&
          (dk == AbstractType::Kind::Tensor ||
           (!display && dk != AbstractType::Kind::HostContainer && dk != AbstractType::Kind::Host &&
            dk != AbstractType::Kind::HostScalar && m.is_cuda(data) && assigned_only(data))))
        return;
    }
  }
  // A factory given a device builds there: on the host only when that device is the CPU
  // (`torch.ones(n, device="cuda").cuda()` copies nothing).
  if (Node dev = m.argument(factory, -1, "device"); !is_null(dev) && m.device_kind(dev) != SemanticModel::DeviceKind::Cpu)
    return;
  // Code that never runs (a module-level function nothing in the project calls, or one called
  // only from branches that never run and from such functions) costs nothing.
  if (int f = m.function_at(start(call)); m.in_uncalled_function(f) || m.in_unreached_method(f)) return;
  // A `_like` factory builds on its argument's device: on the host only when the argument is
  // known to be there (`torch.ones_like(labels).cuda()` of labels that may be on the GPU is a no-op move).
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_like") == 0 && is_null(m.argument(factory, -1, "device"))) {
    Node source = m.argument(factory, 0, "input");
    if (is_null(source) || m.types().cuda(source) != CudaAnswer::Host) return;
  }
  std::string msg = "`torch." + name + "(...)` builds the tensor on the host and then copies it to the GPU; ";
  msg += takes_device ? "create it there with `device=`" : "this costs a host allocation and a copy";
  HotContext h = ctx.hot();
  Diagnostic& d = ctx.report("TX002", field(factory, "function"), msg);
  if (!h.hot) d.severity = Severity::Info;
  if (!direct || type_as) {
    // The moved value is computed from the factory's result: creating the factory's tensor on
    // the device moves the computation with it, which the user should check.
    d.fix = Fix{"Create the tensor on the device (`device=`) and compute there", Applicability::DisplayOnly, {}};
    return;
  }
  if (!takes_device || !is_null(m.argument(factory, -1, "device"))) {
    d.fix = Fix{"Allocate on the device", Applicability::DisplayOnly, {}};
    return;
  }
  // The device expression: `.cuda()` -> "cuda"; `.to(dev)` with a single argument -> dev.
  std::string device;
  auto args = named_children(field(call, "arguments"));
  if (meth == "cuda" && args.empty()) device = "\"cuda\"";
  else if (meth == "to" && args.size() == 1 && !is(args[0], "keyword_argument")) device = std::string(ctx.text(args[0]));
  else if (meth == "to" && args.size() == 1 && ctx.text(field(args[0], "name")) == "device")
    device = std::string(ctx.text(field(args[0], "value")));
  if (device.empty()) {
    d.fix = Fix{"Pass `device=` to the factory", Applicability::DisplayOnly, {}};
    return;
  }
  Fix fix{"Create the tensor on the device: `device=" + device + "`", Applicability::Safe, {}};
  fix.edits.push_back(ctx.insert_keyword_argument(factory, "device=" + device));
  fix.edits.push_back(Edit{{end(factory), end(call)}, ""});
  d.fix = fix;
}

}  // namespace stoker::python::rules
