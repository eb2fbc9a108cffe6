// CU004 allocation-in-hot-loop: cudaMalloc/cudaFree and friends in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class AllocationInHotLoopCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto synchronizing_allocation = match::call_to({"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost",
                                                    "cudaHostAlloc", "cudaMallocManaged", "cudaMallocPitch"});
    finder.addMatcher(synchronizing_allocation.bind("alloc"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("alloc");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "CU004";
    d.range = *range;
    d.message = "`" + callee_name(call) + "` in a hot loop: CUDA allocation and release synchronize the device every step";
    d.fix = Fix{"Allocate once before the loop, or use `cudaMallocAsync`/`cudaFreeAsync` with a memory pool",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu004(CheckContext& ctx) { return std::make_unique<AllocationInHotLoopCheck>(ctx); }

}  // namespace stoker::cxx
