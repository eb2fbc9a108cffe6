// CU001 synchronous-memcpy-in-hot-loop: a blocking cudaMemcpy* in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class SynchronousMemcpyCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto blocking_copy = match::call_to({"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol",
                                         "cudaMemcpyFromSymbol"});
    finder.addMatcher(blocking_copy.bind("copy"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("copy");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    const CopySignature* sig = copy_signature(callee_name(call));
    auto kind = copy_kind(ctx_, call, *sig);
    if (kind && (*kind == kDeviceToDevice || *kind == kHostToHost)) return;  // the host does not wait on the GPU
    auto bytes = copy_bytes(ctx_, call, *sig);
    // Small host-to-device copies return before the copy ends (CUDA Programming Guide).
    if (kind && *kind == kHostToDevice && bytes && *bytes <= kSmallCopyBytes) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "CU001";
    d.range = *range;
    std::string direction = !kind ? "" : *kind == kDeviceToHost ? " device-to-host" : " host-to-device";
    d.message = std::string("`") + sig->name + "` in a hot loop: this" + direction +
                " copy blocks the host until it and all earlier GPU work finish, every step";
    if (bytes) d.facts.emplace_back("copy_bytes", std::to_string(*bytes));
    d.fix = Fix{"Use `cudaMemcpyAsync` on a non-default stream from pinned memory", Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu001(CheckContext& ctx) { return std::make_unique<SynchronousMemcpyCheck>(ctx); }

}  // namespace stoker::cxx
