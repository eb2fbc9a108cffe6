// GU013: under mixed precision, linear and embedding sizes that are not a multiple of 8.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {
// Sizes below this are tiny heads (10 classes) whose matmul costs nothing either way.
constexpr long long kMinDim = 64;

long long padded(long long n) {
  long long to = n >= 1024 ? 64 : 8;
  return (n + to - 1) / to * to;
}
}  // namespace

void gu013_tensor_core_unfriendly_dims(Context& ctx, Node module) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (!f.amp) return;
  (void)module;
  for (const auto& cs : m.calls()) {
    Node call = cs.call;
    const std::string& q = m.callee_name(call);
    std::vector<std::pair<Node, const char*>> dims;
    if (q == "torch.nn.Linear") {
      dims = {{m.argument(call, 0, "in_features"), "in_features"}, {m.argument(call, 1, "out_features"), "out_features"}};
    } else if (q == "torch.nn.Embedding") {
      dims = {{m.argument(call, 0, "num_embeddings"), "num_embeddings"}, {m.argument(call, 1, "embedding_dim"), "embedding_dim"}};
    } else {
      Node v = m.keyword_arguments(call).find("vocab_size");
      if (!is_null(v) && q.rfind("transformers.", 0) == 0) dims = {{v, "vocab_size"}};
    }
    for (const auto& [arg, name] : dims) {
      if (is_null(arg)) continue;
      auto n = m.constant_int(arg);
      if (!n || *n < kMinDim || *n % 8 == 0) continue;
      Diagnostic& d = ctx.report("GU013", arg,
                                 "`" + std::string(name) + "` = " + std::to_string(*n) +
                                     " is not a multiple of 8: under mixed precision this matmul cannot use "
                                     "tensor cores at full rate");
      d.fix = Fix{"Pad it to " + std::to_string(padded(*n)) + " (ignore the extra rows/classes)",
                  Applicability::DisplayOnly, {}};
      gu::attach_speedup(ctx, d);
    }
  }
}

}  // namespace stoker::python::rules
