// GU002: a convolutional model trained without the cuDNN autotuner.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu002_cudnn_autotuner_off(Context& ctx, Node module) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (is_null(f.train_step) || f.benchmark_set) return;
  // A model built elsewhere may be convolutional: info (rules.md).
  bool unknown = is_null(f.conv) && f.kind_unknown() && f.entry_file;
  if (is_null(f.conv) && !unknown) return;
  (void)module;
  Diagnostic& d = ctx.report("GU002", f.train_step,
                             unknown ? "This CUDA training loop runs with `torch.backends.cudnn.benchmark` never set: "
                                       "if its model is convolutional, cuDNN uses its heuristic algorithm choice "
                                       "instead of timing the candidates once"
                                     : "This convolutional model trains with `torch.backends.cudnn.benchmark` never "
                                       "set: cuDNN uses its heuristic algorithm choice instead of timing the "
                                       "candidates once");
  if (unknown) {
    d.severity = Severity::Info;
    d.message += gu::kKindUnknownNote;
  } else if (f.conv1d_only) {
    // 1-d convolutions usually see variable sequence lengths, where benchmarking re-runs for
    // each new shape.
    d.severity = Severity::Info;
    d.message += " (1-d convolutions: worth it only when input lengths are fixed)";
  }
  if (!unknown) d.related.push_back({ctx.file().path, range(f.conv), "convolution defined here"});
  Fix fix{"Set `torch.backends.cudnn.benchmark = True` after the imports", Applicability::Unsafe, {}};
  Edit e = gu::line_after_imports(ctx, "torch.backends.cudnn.benchmark = True");
  if (!e.replacement.empty()) fix.edits.push_back(e);
  else fix.applicability = Applicability::DisplayOnly;
  d.fix = fix;
  gu::attach_speedup(ctx, d, !unknown);
}

}  // namespace stoker::python::rules
