// CU005 small-transfers-in-hot-loop: several small copies per iteration that could be one.
#include <map>
#include <set>

#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class SmallTransfersCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    std::vector<std::string> copies;
    for (const char* name : {"cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync",
                             "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol",
                             "cudaMemcpyFromSymbolAsync"})
      copies.push_back(name);
    finder.addMatcher(match::call_to(copies).bind("copy"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("copy");
    auto hot = ctx_.model.hot_context(call);
    if (!hot || hot->amortized) return;  // not every step
    const CopySignature* sig = copy_signature(callee_name(call));
    auto kind = copy_kind(ctx_, call, *sig);
    if (kind && *kind == kDeviceToDevice) return;
    auto bytes = copy_bytes(ctx_, call, *sig);
    if (!bytes || *bytes > kSmallCopyBytes) return;
    Group& g = groups_[hot->scope];
    // A macro argument expanded twice (`if (status != 0) print(status)`) spells one copy.
    // (A copy spelled in a macro's body and expanded at two sites is two copies.)
    const SourceManager& sm = *result.SourceManager;
    std::pair<unsigned, unsigned> key{sm.getSpellingLoc(call->getBeginLoc()).getRawEncoding(),
                                      sm.getExpansionLoc(call->getBeginLoc()).getRawEncoding()};
    if (!g.spelled.insert(key).second) return;
    if (g.calls.empty()) g.hot = *hot;
    g.calls.push_back(call);
    g.count += hot->repeated ? 2 : 1;
    g.bytes += *bytes;
  }
  void finish() override {
    for (auto& [scope, g] : groups_) {
      if (g.count < 2) continue;
      auto range = ctx_.callee_range(g.calls.front());
      if (!range) continue;
      Diagnostic d;
      d.code = "CU005";
      d.range = *range;
      d.message = std::to_string(g.calls.size()) + (g.count > static_cast<int>(g.calls.size()) ? "+" : "") +
                  " small copies (each at most 64 KiB) per hot-loop iteration: each pays the fixed cost of a "
                  "transfer; pack them into one buffer and copy once";
      d.facts.emplace_back("copies_per_step", std::to_string(g.count));
      for (size_t i = 1; i < g.calls.size(); ++i)
        if (auto r = ctx_.callee_range(g.calls[i])) d.related.push_back({ctx_.file.path, *r, "another small copy"});
      d.fix = Fix{"Pack the small buffers into one pinned staging buffer and copy it with one call",
                  Applicability::DisplayOnly, {}};
      ctx_.report(std::move(d), &g.hot);
    }
  }

 private:
  struct Group {
    HotContext hot;
    std::vector<const CallExpr*> calls;
    int count = 0;
    int64_t bytes = 0;
    std::set<std::pair<unsigned, unsigned>> spelled;
  };
  std::map<const void*, Group> groups_;
};

}  // namespace

std::unique_ptr<Check> make_cu005(CheckContext& ctx) { return std::make_unique<SmallTransfersCheck>(ctx); }

}  // namespace stoker::cxx
