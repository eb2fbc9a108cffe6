// GU003: fp32 matmul-heavy CUDA training with TF32 tensor cores off (the default since 1.12).
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu003_tf32_off(Context& ctx, Node module) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  gu::ProgramFacts f = gu::program_facts(ctx);
  // Under autocast the matmuls run in half precision already.
  if (is_null(f.train_step) || f.tf32 || f.amp || f.precision_open) return;
  Node layer = !is_null(f.transformer) ? f.transformer : f.big_linear;
  bool resolved = !is_null(layer);
  if (!resolved) layer = f.open_linear;
  if (is_null(layer)) return;
  (void)module;
  Diagnostic& d = ctx.report("GU003", f.train_step,
                             "fp32 matmuls in this training loop run without TF32 tensor cores (off by default "
                             "since PyTorch 1.12)");
  if (!resolved) {
    d.severity = Severity::Info;
    d.message += " (the layer sizes are not resolved)";
  }
  d.related.push_back({ctx.file().path, range(layer), "matmul-heavy layer defined here"});
  Fix fix{"Allow TF32 matmuls: `torch.set_float32_matmul_precision(\"high\")` after the imports",
          Applicability::Unsafe, {}};
  Edit e = gu::line_after_imports(ctx, "torch.set_float32_matmul_precision(\"high\")");
  if (!e.replacement.empty()) fix.edits.push_back(e);
  else fix.applicability = Applicability::DisplayOnly;
  d.fix = fix;
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
