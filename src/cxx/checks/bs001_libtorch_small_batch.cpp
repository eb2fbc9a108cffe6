// BS001 small-batch, LibTorch: a loader iterated in a CUDA program with a batch size below the threshold.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LibTorchSmallBatchCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto make_loader = callExpr(callee(functionDecl(hasName("::torch::data::make_data_loader"))));
    finder.addMatcher(make_loader.bind("loader"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (!ctx_.model.uses_cuda()) return;
    const auto* call = result.Nodes.getNodeAs<CallExpr>("loader");
    const VarDecl* loader = loader_variable(ctx_, call);
    if (!loader || !ctx_.model.iterated_in_range_for(loader)) return;  // feeds no loop we can see
    LoaderOptions opts = loader_options(ctx_, call);
    if (!opts.batch_known || opts.batch_size >= ctx_.settings.min_batch_size || opts.batch_size <= 0) return;
    auto range = opts.batch_expr ? ctx_.range_of(opts.batch_expr->getSourceRange()) : ctx_.range_of(call->getSourceRange());
    if (!range) return;
    Diagnostic d;
    d.code = "BS001";
    d.range = *range;
    d.severity = Severity::Info;
    d.message = "batch size " + std::to_string(opts.batch_size) +
                (opts.batch_expr ? "" : " (LibTorch's default)") + " is below " +
                std::to_string(ctx_.settings.min_batch_size) +
                ": per-step overheads (launches, optimizer step, loader) dominate a step this small";
    d.facts.emplace_back("batch_size", std::to_string(opts.batch_size));
    d.fix = Fix{"Raise the batch size (scaling the learning rate) or accumulate gradients", Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), nullptr);
  }
};

}  // namespace

std::unique_ptr<Check> make_bs001_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchSmallBatchCheck>(ctx); }

}  // namespace stoker::cxx
