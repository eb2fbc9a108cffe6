// DL003: worker processes started anew every epoch.
#include "python/rules/common.h"

namespace stoker::python::rules {

void dl003_workers_respawned_each_epoch(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  Node workers = m.keyword_arguments(call).find("num_workers");
  if (is_null(workers)) workers = m.argument(call, kNumWorkersPos, "");
  auto n = m.constant_int(workers);
  // `num_workers=os.cpu_count()`: at least one worker on any machine that runs the program.
  bool cpu_count = !n && !is_null(workers) && is_cpu_count(m, workers);
  if (!cpu_count && (!n || *n <= 0)) return;
  if (bool_argument_state(ctx, call, -1, "persistent_workers") == 0) return;
  bool per_epoch = false;
  auto loops = m.loops_iterating(call);
  for (int l : loops) per_epoch |= m.loop_runs_per_epoch(l);
  // Iterated elsewhere: by a trainer (per epoch), or by other modules' functions, per epoch when
  // one of those runs in a loop or has its own epoch loop (a test loader handed once to
  // `final_test(loader)` is iterated once).
  if (loops.empty() && m.loader_feeds_training(call)) {
    auto external = m.external_iteration_per_epoch(call);
    per_epoch = !external || *external;
  }
  if (!per_epoch) return;
  Diagnostic& d = ctx.report("DL003", field(call, "function"),
                             "The " + (cpu_count ? std::string("`os.cpu_count()`") : std::to_string(*n)) +
                                 " loader workers are shut down and started again every epoch; keep them with "
                                 "`persistent_workers=True`");
  if (n) d.facts.push_back({"num_workers", std::to_string(*n)});
  Node written = m.keyword_arguments(call).find("persistent_workers");
  bool overrides = !is_null(written) && (!is_literal_argument(written) || !contains(call, written));
  auto edit = persistent_workers_edit(ctx, call, workers);
  d.fix = Fix{"Keep workers between epochs: `persistent_workers=True`",
              !edit ? Applicability::DisplayOnly : overrides ? Applicability::Unsafe : Applicability::Safe,
              {}};
  if (edit) d.fix->edits.push_back(*edit);
}

}  // namespace stoker::python::rules
