// nn.Module's own API: the methods every torch.nn.Module has, which run no network of a subclass
// (moves, casts, accessors of parameters and buffers, state, registration of hooks and
// submodules) or which the library itself calls on a subclass (`forward` through `__call__`,
// `train` through `eval()`, `extra_repr`, `reset_parameters`). One list for the readers that ask
// whether a method name is one of them: uncalled methods of nn.Module subclasses
// (model_hotness.cpp), methods of a CUDA module of no known class (TypeInference::
// runs_module_method) and of a module loaded from a checkpoint (SemanticModel::
// unknown_module_method).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace stoker::python {

// `name` is a method (or attribute) of nn.Module's own API: one of the list, or `register_*`.
// O(log list).
inline bool module_api_method(std::string_view name) {
  static const std::set<std::string, std::less<>> kModuleApi = {
      "forward", "extra_repr", "state_dict", "load_state_dict", "train", "eval", "parameters",
      "named_parameters", "buffers", "named_buffers", "children", "named_children", "modules",
      "named_modules", "apply", "to", "to_empty", "cuda", "cpu", "xpu", "ipu", "mtia", "type", "float",
      "double", "half", "bfloat16", "zero_grad", "requires_grad_", "share_memory", "add_module",
      "get_submodule", "set_submodule", "get_parameter", "get_buffer", "get_extra_state",
      "set_extra_state", "compile", "reset_parameters", "training"};
  return name.rfind("register_", 0) == 0 || kModuleApi.count(name) > 0;
}

// nn.Module's methods that move or cast the module in place and return it (`net.cuda()`,
// `net.to(device).half()`): a chain of them, or with `.eval()`/`.train()`, ends on the module
// itself. Read by type inference (chained moves) and GU005 (the module `.eval()` is called on).
inline bool module_move_or_cast(std::string_view name) {
  return name == "to" || name == "cuda" || name == "half" || name == "float" || name == "bfloat16" ||
         name == "double" || name == "requires_grad_";
}

}  // namespace stoker::python
