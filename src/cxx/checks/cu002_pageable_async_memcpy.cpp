// CU002 pageable-async-memcpy: cudaMemcpy*Async whose host side is pageable memory.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class PageableAsyncMemcpyCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto async_copy = match::call_to({"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpyToSymbolAsync",
                                      "cudaMemcpyFromSymbolAsync"});
    finder.addMatcher(async_copy.bind("copy"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("copy");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    const CopySignature* sig = copy_signature(callee_name(call));
    auto kind = copy_kind(ctx_, call, *sig);
    if (kind && (*kind == kDeviceToDevice || *kind == kHostToHost)) return;
    std::vector<int> host_sides;
    if (!kind || *kind == kHostToDevice || *kind == 4) host_sides.push_back(sig->src);
    if (!kind || *kind == kDeviceToHost || *kind == 4) host_sides.push_back(sig->dst);
    for (int index : host_sides) {
      if (index < 0 || static_cast<unsigned>(index) >= call->getNumArgs()) continue;
      const Expr* host = call->getArg(index);
      if (ctx_.memory.kind_of(host) != MemoryKind::Pageable) continue;
      auto range = ctx_.callee_range(call);
      if (!range) return;
      Diagnostic d;
      d.code = "CU002";
      d.range = *range;
      std::string name = ctx_.text_of(host->getSourceRange());
      d.message = "`" + std::string(sig->name) + "` with pageable host memory" + (name.empty() ? "" : " (`" + name + "`)") +
                  ": the driver stages it through a pinned buffer and the copy cannot overlap GPU work";
      d.fix = Fix{"Allocate the host buffer with `cudaMallocHost`/`cudaHostAlloc`, or `cudaHostRegister` it once",
                  Applicability::DisplayOnly, {}};
      ctx_.report(std::move(d), &*hot);
      return;
    }
  }
};

}  // namespace

std::unique_ptr<Check> make_cu002(CheckContext& ctx) { return std::make_unique<PageableAsyncMemcpyCheck>(ctx); }

}  // namespace stoker::cxx
