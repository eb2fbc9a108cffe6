// SY004 explicit-sync-in-hot-loop, LibTorch: torch::cuda::synchronize() in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LibTorchSynchronizeCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(callExpr(callee(functionDecl(hasName("::torch::cuda::synchronize")))).bind("sync"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("sync");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "SY004";
    d.range = *range;
    d.message = "`torch::cuda::synchronize()` in a hot loop drains the GPU queue every step";
    if (hot->timing_loop) d.severity = Severity::Info;
    d.fix = Fix{"Remove it, or guard it behind a profiling flag", Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_sy004_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchSynchronizeCheck>(ctx); }

}  // namespace stoker::cxx
