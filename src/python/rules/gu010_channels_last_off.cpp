// GU010: a 2-d conv net trained under mixed precision in the default NCHW memory format.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu010_channels_last_off(Context& ctx, Node module) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (is_null(f.train_step) || !f.amp || f.channels_last) return;
  // A model whose kind is not resolved is not reported: a departure from rules.md's "info unless
  // resolved" (docs/gu-rules.md, "Real code": the mixed-precision programs on real code whose
  // model is built elsewhere were transformers, which channels_last does not help).
  if (!f.conv2d) return;
  (void)module;
  Diagnostic& d = ctx.report("GU010", f.train_step,
                             "This 2-d conv net trains under mixed precision in the NCHW memory format: tensor-core "
                             "convolutions want channels_last (NHWC), so cuDNN transposes around each one");
  d.related.push_back({ctx.file().path, range(f.conv), "convolution defined here"});
  d.fix = Fix{"Move the model and the input batches to `memory_format=torch.channels_last`",
              Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
