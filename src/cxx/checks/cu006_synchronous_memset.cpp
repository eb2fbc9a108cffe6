// CU006 synchronous-memset-in-hot-loop: cudaMemset* (non-Async) in a hot loop.
#include "cxx/check.h"
#include "cxx/streams.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class SynchronousMemsetCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto blocking_memset = match::call_to({"cudaMemset", "cudaMemset2D", "cudaMemset3D"});
    finder.addMatcher(blocking_memset.bind("memset"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("memset");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    std::string name = callee_name(call);
    Diagnostic d;
    d.code = "CU006";
    d.range = *range;
    d.message = "`" + name + "` in a hot loop runs on the legacy default stream and synchronizes with the host";
    Fix fix{"Use `" + name + "Async` on a stream", Applicability::DisplayOnly, {}};
    const ValueDecl* stream = stream_in_scope(ctx_, call);
    SourceRange callee = call->getCallee()->getSourceRange();
    if (stream && !ctx_.in_macro(call->getSourceRange())) {
      auto callee_text = ctx_.range_of(callee);
      auto rparen = ctx_.range_of(SourceRange(call->getRParenLoc(), call->getRParenLoc()));
      if (callee_text && rparen && ctx_.file.slice(*callee_text) == name) {
        std::string stream_name = stream->getName().str();
        fix.title = "Use `" + name + "Async` on `" + stream_name + "`";
        fix.applicability = Applicability::Unsafe;  // the order against other streams changes
        fix.edits.push_back({*callee_text, name + "Async"});
        fix.edits.push_back({TextRange{rparen->start, rparen->start}, ", " + stream_name});
      }
    }
    d.fix = std::move(fix);
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu006(CheckContext& ctx) { return std::make_unique<SynchronousMemsetCheck>(ctx); }

}  // namespace stoker::cxx
