// Helpers shared by the GU (GPU compute utilization) checks: what the program builds (its
// model's kind), which precision and backend settings it makes, where it trains, the target
// PyTorch version, and the edits that add a setting after the imports.
#pragma once

#include <string>

#include "core/torch_version.h"
#include "python/rules/common.h"

namespace stoker::python::rules::gu {

// nn.Linear layers with both sizes resolved and in * out at least this are matmul-heavy
// (1024 x 1024); smaller resolved layers are launch-bound, and the GU model rules stay silent.
constexpr long long kBigLinear = 1 << 20;

struct ProgramFacts {
  Node conv{};          // the first convolution layer or convolutional model constructor
  bool conv2d = false;  // a 2-d convolution or an image model (channels_last applies)
  bool conv1d_only = true;
  Node transformer{};   // attention / transformer layer or model
  Node big_linear{};    // an nn.Linear of resolved size >= kBigLinear
  Node open_linear{};   // an nn.Linear whose sizes are not resolved
  // Any model layer the file builds (nn.Linear, Conv, Embedding, RNN, attention, a torchvision or
  // transformers model...): without one the model comes from elsewhere (another module, a hub,
  // `timm.create_model`) and its kind is unknown here. Losses, containers and wrappers
  // (`nn.CrossEntropyLoss`, `nn.Identity`, `nn.DataParallel`) do not count.
  Node any_layer{};
  bool kind_unknown() const { return is_null(any_layer); }
  // The file runs the program (`if __name__ == "__main__":` or a loop at module level) rather than
  // being an engine module whose process-wide settings (cudnn.benchmark, the model's memory
  // format) are usually made by the entry point in another module.
  bool entry_file = false;
  bool amp = false;          // autocast, GradScaler, .half()/.bfloat16(), a mixed-precision option
  bool precision_open = false;  // a precision option or framework whose value is not resolved
  bool tf32 = false;         // set_float32_matmul_precision("high"/"medium") or allow_tf32 = True
  bool benchmark_set = false;  // torch.backends.cudnn.benchmark assigned (to anything)
  bool channels_last = false;
  Node train_step{};  // the first backward() in a hot loop, or a Lightning training_step name
  Node step_loop{};   // the hot loop of train_step, when in one
};

// A scan of the file's calls and assignments, made once per file (Context::per_file).
const ProgramFacts& program_facts(const Context& ctx);

TorchVersion target_torch(const Context& ctx);

// Guards around the current node: 0 none (or all resolve True), 1 an unresolved flag, 2 one
// resolves False (the guarded code never runs).
int guard_state(const Context& ctx);

// An edit inserting `line` (a statement using `torch.`) on its own line after the file's
// leading imports, adding `import torch` when `torch` is not bound there; null text when the
// file has no import of torch at all to follow.
Edit line_after_imports(const Context& ctx, const std::string& statement_with_torch);

// Attaches the compute-speedup estimate (core/compute_speedup.h) for the settings' profile;
// `kind_resolved` false widens it down to no gain (the model may lack the work it speeds up).
void attach_speedup(const Context& ctx, Diagnostic& d, bool kind_resolved = true);

// The words GU001/GU002/GU010 add to a finding whose model kind is not resolved in the file.
constexpr const char* kKindUnknownNote =
    " (the model is not built in this file, so its kind is not resolved: info)";

// `with` items around the node that turn gradients off (no_grad, inference_mode,
// set_grad_enabled(False)), or a decorator of an enclosing function that does.
bool under_no_grad(const Context& ctx, Node n);

}  // namespace stoker::python::rules::gu
