// DL006: .pin_memory() on the main thread inside the training loop.
#include "python/rules/common.h"

namespace stoker::python::rules {

void dl006_pinning_on_main_thread(Context& ctx, Node call) {
  if (!ctx.model().uses_cuda() || method_name(ctx, call) != "pin_memory") return;
  if (named_count(field(call, "arguments")) != 0) return;
  Diagnostic* d = ctx.report_in_hot_context(
      "DL006", call,
      "`.pin_memory()` in the training loop pins on the main thread; the DataLoader's `pin_memory=True` pins in "
      "a background thread");
  if (d) d->fix = Fix{"Let the DataLoader pin: `pin_memory=True`", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
