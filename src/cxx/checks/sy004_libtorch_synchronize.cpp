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
    // Display-only (rules.md): the removal is shown as an edit, never applied; a sync can be
    // load-bearing. Not in a timing loop, where the sync is what makes the measurement.
    Fix fix{"Remove it, or guard it behind a profiling flag", Applicability::DisplayOnly, {}};
    if (!hot->timing_loop)
      if (auto line = statement_line(call)) fix.edits.push_back({*line, ""});
    d.fix = std::move(fix);
    ctx_.report(std::move(d), &*hot);
  }

 private:
  // The whole line of `torch::cuda::synchronize();` (with a trailing `//` comment) when the call
  // is a statement of a block alone on its line, outside macros; nullopt otherwise.
  std::optional<TextRange> statement_line(const CallExpr* call) const {
    if (ctx_.in_macro(call->getSourceRange()) || !isa_and_nonnull<CompoundStmt>(ctx_.model.parent(call)))
      return std::nullopt;
    auto r = ctx_.range_of(call->getSourceRange());
    if (!r) return std::nullopt;
    const std::string_view text = ctx_.file.text;
    size_t begin = r->start, end = r->end;
    while (begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '\t')) --begin;
    if (begin > 0 && text[begin - 1] != '\n') return std::nullopt;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    if (end >= text.size() || text[end] != ';') return std::nullopt;
    ++end;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\r')) ++end;
    if (text.compare(end, 2, "//") == 0)  // a trailing line comment goes with the line
      while (end < text.size() && text[end] != '\n') ++end;
    if (end < text.size() && text[end] != '\n') return std::nullopt;
    if (end < text.size()) ++end;
    return TextRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  }
};

}  // namespace

std::unique_ptr<Check> make_sy004_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchSynchronizeCheck>(ctx); }

}  // namespace stoker::cxx
