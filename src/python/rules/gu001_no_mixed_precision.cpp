// GU001: a CUDA training loop whose model does matmul/conv work in full fp32.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu001_no_mixed_precision(Context& ctx, Node module) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (is_null(f.train_step) || f.amp || f.precision_open) return;
  Node layer = !is_null(f.conv) ? f.conv : !is_null(f.transformer) ? f.transformer : f.big_linear;
  bool resolved = !is_null(layer);
  if (!resolved) layer = f.open_linear;
  // A model of small resolved layers gains nothing; one built elsewhere (kind unknown) may:
  // rules.md reports it at info.
  bool unknown = is_null(layer) && f.kind_unknown();
  if (is_null(layer) && !unknown) return;
  (void)module;
  Diagnostic& d = ctx.report("GU001", f.train_step,
                             "This CUDA training loop runs in full fp32: no `torch.autocast`, `GradScaler` or "
                             "bf16 model anywhere in the program");
  if (unknown) {
    d.severity = Severity::Info;
    d.message += gu::kKindUnknownNote;
  } else if (!resolved) {
    d.severity = Severity::Info;
    d.message += " (the model's layer sizes are not resolved)";
  }
  if (!is_null(layer)) d.related.push_back({ctx.file().path, range(layer), "the model's matmul/conv work is built here"});
  d.facts.push_back({"model_kind", unknown            ? "unknown"
                                   : !is_null(f.conv) ? "conv"
                                   : !is_null(f.transformer) ? "transformer"
                                                             : "linear"});
  d.fix = Fix{"Run the forward pass and loss under `torch.autocast(\"cuda\", dtype=torch.bfloat16)` (float16 needs "
              "a `torch.amp.GradScaler`)",
              Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, d, !unknown);
}

}  // namespace stoker::python::rules
