// DL002: batches that go to the GPU come from pageable memory.
#include "python/rules/common.h"

#include <algorithm>
#include <vector>

namespace stoker::python::rules {

namespace {
// A loader of positions: in every `for` loop known to iterate it, each use of the batch (its
// names, through subscripts of them: `batch[0]`) is an index selecting from host data
// (`train_adj[batch[0]].to(device)`, `nodes[batch]`, neither value on CUDA) or a size query
// (`len(batch)`). The batch itself never reaches the GPU, what is moved is the host data it
// selects, so pinning the loader's batches would pin indices only (set V GCNII ppi.py:74; the
// same loop without steps is loop_keeps_batches_on_host's case). O(loop bodies).
bool batches_only_index_host_data(const SemanticModel& m, Node call) {
  auto loops = m.loops_iterating(call);
  if (loops.empty()) return false;
  for (int l : loops) {
    Node n = m.loops()[l].node;
    auto names = m.loop_batch_names(n);  // empty for a loop that is no `for`
    if (names.empty()) return false;
    bool used = false;
    std::vector<Node> stack{field(n, "body")};
    while (!stack.empty()) {
      Node u = stack.back();
      stack.pop_back();
      auto k = kind(u);
      if (k == "function_definition" || k == "class_definition" || k == "lambda") continue;
      if (k != "identifier") {
        for (Node c : named_children(u)) stack.push_back(c);
        continue;
      }
      if (std::find(names.begin(), names.end(), m.text(u)) == names.end()) continue;
      // A store to the name (`batch = ...`) rebinds it: not a use of the loader's batch.
      Node e = u;
      while (is(parent(e), "subscript") && same(field(parent(e), "value"), e)) e = parent(e);
      Node p = parent(e);
      if (is(p, "subscript") && !same(field(p, "value"), e) && !m.is_cuda(field(p, "value"))) {
        used = true;
        continue;
      }
      if (is(p, "argument_list") && m.callee_name(parent(p)) == "builtins.len") continue;
      return false;
    }
    if (!used) return false;
  }
  return true;
}
}  // namespace

void dl002_unpinned_host_batches(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  int state = bool_argument_state(ctx, call, kPinMemoryPos, "pin_memory");
  if (state == 0) return;
  if (!m.loader_feeds_training(call)) return;
  // A Dataset or collate_fn that returns CUDA tensors cannot be pinned (pin_memory=True would
  // raise); DL005 reports that instead.
  if (dataset_does_cuda_work(ctx)) return;
  if (batches_only_index_host_data(m, call)) return;
  // A loader of positions: its batches are small index tensors, pinning them gains nothing.
  if (index_range_loader(m, call)) return;
  Diagnostic& d = ctx.report("DL002", field(call, "function"),
                             "Batches from this `DataLoader` are copied to the GPU from pageable memory; "
                             "`pin_memory=True` lets the copy run asynchronously");
  d.facts.push_back({"pin_memory", "false"});
  Fix fix;
  fix.title = "Pin batches in the loader: `pin_memory=True`";
  fix.applicability = Applicability::Safe;
  Node positional = m.argument(call, kPinMemoryPos, "");
  Node written = m.keyword_arguments(call).find("pin_memory");
  if (is_null(written)) written = positional;
  if (state == 2 && !is_null(written) && (!is_literal_argument(written) || !contains(call, written)))
    fix.applicability = Applicability::Unsafe;  // overrides a flag, constant or kwargs entry
  if (state == 2 && !is_null(positional) && is_null(m.keyword_arguments(call).find("pin_memory")))
    fix.edits.push_back(Edit{range(positional), "True"});
  else
    fix.edits.push_back(set_keyword(ctx, call, "pin_memory", "True"));
  d.fix = fix;
}

}  // namespace stoker::python::rules
