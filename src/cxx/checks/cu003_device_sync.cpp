// CU003 device-sync-in-hot-loop: cudaDeviceSynchronize / cudaStreamSynchronize in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class DeviceSyncCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    // cudaEventSynchronize is left alone: waiting on an event recorded for timing is the point.
    auto device_sync = match::call_to({"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaThreadSynchronize"});
    finder.addMatcher(device_sync.bind("sync"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("sync");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "CU003";
    d.range = *range;
    d.message = "`" + callee_name(call) +
                "` in a hot loop: the host waits for the GPU to drain every step, and the GPU then waits for the "
                "host to queue more work";
    if (hot->timing_loop) {
      d.severity = Severity::Info;
      d.message += " (the loop records CUDA events: if this is timing, synchronize on the end event instead)";
    }
    d.fix = Fix{"Synchronize once per epoch; order work with events and `cudaStreamWaitEvent`",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu003(CheckContext& ctx) { return std::make_unique<DeviceSyncCheck>(ctx); }

}  // namespace stoker::cxx
