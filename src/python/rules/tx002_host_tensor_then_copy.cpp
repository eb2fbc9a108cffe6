// TX002: a tensor built on the host and then copied to the GPU.
#include <set>

#include "python/rules/common.h"

namespace stoker::python::rules {

void tx002_host_tensor_then_copy(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) return;
  Node factory = receiver(call);
  if (!is(factory, "call")) return;
  std::string q = m.callee_name(factory);
  if (q.rfind("torch.", 0) != 0) return;
  std::string name = q.substr(6);
  static const std::set<std::string, std::less<>> with_device = {
      "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "tensor", "as_tensor",
      "linspace", "logspace", "eye", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
      "rand_like", "randn_like"};
  static const std::set<std::string, std::less<>> without_device = {
      "from_numpy", "FloatTensor", "LongTensor", "IntTensor", "DoubleTensor", "HalfTensor", "ByteTensor",
      "BoolTensor", "Tensor"};
  bool takes_device = with_device.count(name) > 0;
  if (!takes_device && !without_device.count(name)) return;
  std::string msg = "`torch." + name + "(...)` builds the tensor on the host and then copies it to the GPU; ";
  msg += takes_device ? "create it there with `device=`" : "this costs a host allocation and a copy";
  HotContext h = ctx.hot();
  Diagnostic& d = ctx.report("TX002", field(factory, "function"), msg);
  if (!h.hot) d.severity = Severity::Info;
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
