// DL002: batches that go to the GPU come from pageable memory.
#include "python/rules/common.h"

namespace stoker::python::rules {
namespace {

// Is every use of the batch inside the loop a copy into host memory (`cpu_buf[i].copy_(x)`,
// `cpu_buf[i] = x`, `x.numpy()`, `np.asarray(x)`) or a size query? Then nothing goes to the GPU
// from this loop and pinning buys nothing.
bool batch_only_copied_to_host(const Context& ctx, int loop) {
  const auto& m = ctx.model();
  Node n = m.loops()[loop].node;
  if (!is(n, "for_statement")) return false;
  Node left = unparen(field(n, "left"));
  Node right = unparen(field(n, "right"));
  // The names the batch is bound to (an enumerate index is not part of the batch).
  std::vector<Node> pattern{left};
  if (is(right, "call") && m.callee_name(right) == "builtins.enumerate" &&
      (is(left, "pattern_list") || is(left, "tuple_pattern")) && named_count(left) == 2)
    pattern = {named_child(left, 1)};
  std::vector<std::string_view> names;
  for (size_t i = 0; i < pattern.size() && names.size() < 16; ++i) {
    Node t = unparen(pattern[i]);
    if (is(t, "identifier")) names.push_back(ctx.text(t));
    else
      for (Node c : named_children(t)) pattern.push_back(c);
  }
  if (names.empty()) return false;
  bool copied = false;
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
    bool batch = false;
    for (auto name : names) batch = batch || ctx.text(u) == name;
    if (!batch) continue;
    Node p = parent(u);
    if (is(p, "attribute") && same(field(p, "object"), u)) {
      auto attr = ctx.text(field(p, "attribute"));
      if (attr == "shape" || attr == "dtype" || attr == "ndim") continue;
      Node call = parent(p);
      if (is(call, "call") && (attr == "size" || attr == "dim" || attr == "numel")) continue;
      if (is(call, "call") && (attr == "numpy" || attr == "tolist")) {
        copied = true;
        continue;
      }
      return false;
    }
    if (is(p, "argument_list")) {
      Node call = parent(p);
      std::string q = m.callee_name(call);
      if (q == "builtins.len") continue;
      if (q.rfind("numpy.", 0) == 0) {
        copied = true;
        continue;
      }
      Node fn = unparen(field(call, "function"));
      if (is(fn, "attribute") && ctx.text(field(fn, "attribute")) == "copy_" && !m.is_cuda(field(fn, "object"))) {
        copied = true;
        continue;
      }
      return false;
    }
    if (is(p, "assignment") && same(unparen(field(p, "right")), u) && is(field(p, "left"), "subscript") &&
        !m.is_cuda(field(field(p, "left"), "value"))) {
      copied = true;
      continue;
    }
    return false;
  }
  return copied;
}

}  // namespace

void dl002_unpinned_host_batches(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  int state = bool_argument_state(ctx, call, kPinMemoryPos, "pin_memory");
  if (state == 0) return;
  if (!m.loader_feeds_training(call)) return;
  auto loops = m.loops_iterating(call);
  if (!loops.empty()) {
    bool host_only = true;
    for (int l : loops) host_only = host_only && batch_only_copied_to_host(ctx, l);
    if (host_only) return;
  }
  // A Dataset or collate_fn that returns CUDA tensors cannot be pinned (pin_memory=True would
  // raise); DL005 reports that instead.
  if (dataset_does_cuda_work(ctx)) return;
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
