// DD003: the gloo backend carrying the collectives of CUDA tensors.
#include <algorithm>

#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
// Whether the tensors the program hands to collectives (explicit ones, and a DDP model's
// gradients) are CUDA tensors: some of them, and all of them.
struct CollectiveOperands {
  bool any_cuda = false;
  bool all_cuda = true;
};
CollectiveOperands collective_operands(const SemanticModel& m) {
  CollectiveOperands out;
  for (const auto& cs : m.calls()) {
    Node call = cs.call;
    if (is_ddp_constructor(m, call)) {
      Node module = m.argument(call, 0, "module");
      Node ids = m.keyword_arguments(call).find("device_ids");
      bool cuda = (!is_null(module) && m.is_cuda(module)) || !is_null(ids);
      out.any_cuda |= cuda;
      out.all_cuda &= cuda;
      continue;
    }
    if (!is_collective(m.callee_name(call))) continue;
    Node t = m.argument(call, 0, "tensor");
    bool cuda = !is_null(t) && m.is_cuda(t);
    out.any_cuda |= cuda;
    out.all_cuda &= cuda;
  }
  return out;
}
}  // namespace

// Is the call under a condition about the platform (`if sys.platform == "win32":`,
// `os.name == "nt"`)? NCCL exists only on Linux: there gloo is the GPU backend.
bool platform_branch(const Context& ctx, Node call) {
  for (Node p = parent(call); !is_null(p); p = parent(p)) {
    Node cond{};
    if (is(p, "if_statement") || is(p, "elif_clause")) cond = field(p, "condition");
    else if (is(p, "else_clause") && is(parent(p), "if_statement")) cond = field(parent(p), "condition");
    if (is_null(cond)) continue;
    std::string_view t = ctx.text(cond);
    for (std::string_view w : {"platform", "win32", "os.name", "windows", "darwin"})
      if (t.find(w) != std::string_view::npos) return true;
  }
  return false;
}

void dd003_gloo_with_cuda(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || m.callee_name(call) != "torch.distributed.init_process_group") return;
  Node backend = m.argument(call, 0, "backend");
  if (is_null(backend)) return;
  auto vals = m.values(backend);
  if (vals.empty()) return;
  for (const auto& v : vals) {
    if (v.kind != Value::Kind::Str) return;
    std::string s = v.s;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(::tolower(c)); });
    if (s != "gloo") return;  // nccl, a device map ("cpu:gloo,cuda:nccl"), or mixed candidates
  }
  if (platform_branch(ctx, call)) return;
  auto ops = collective_operands(m);
  if (!ops.any_cuda) return;
  Diagnostic& d = ctx.report("DD003", backend,
                             "The `gloo` backend reduces CUDA tensors through host memory and TCP; the `nccl` "
                             "backend runs collectives on the GPUs over NVLink, PCIe peer-to-peer and InfiniBand");
  d.facts.push_back({"kind", "gloo"});
  // Safe when every collective operand is a CUDA tensor (NCCL cannot reduce CPU tensors);
  // unsafe when some are not known to be.
  d.fix = Fix{"Use `backend=\"nccl\"` (review: one GPU per process, every collective on CUDA tensors)",
              ops.all_cuda ? Applicability::Safe : Applicability::Unsafe, {}};
  Node lit = unparen(backend);
  if (contains(call, lit) && is(lit, "string")) d.fix->edits.push_back(Edit{range(lit), "\"nccl\""});
}

}  // namespace stoker::python::rules
