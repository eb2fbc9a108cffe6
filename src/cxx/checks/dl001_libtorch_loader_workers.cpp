// DL001 synchronous-data-loader, LibTorch: make_data_loader whose options never set workers(n > 0).
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LibTorchLoaderWorkersCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto make_loader = callExpr(callee(functionDecl(hasName("::torch::data::make_data_loader"))));
    finder.addMatcher(make_loader.bind("loader"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (!ctx_.model.uses_cuda()) return;
    const auto* call = result.Nodes.getNodeAs<CallExpr>("loader");
    LoaderOptions opts = loader_options(ctx_, call);
    if (!opts.workers_known || opts.workers > 0) return;
    auto range = ctx_.range_of(call->getSourceRange());
    if (!range) return;
    Diagnostic d;
    d.code = "DL001";
    d.range = *range;
    d.message = "`make_data_loader` without `workers(n)`: LibTorch defaults to 0 workers, so every batch is loaded "
                "on the training thread while the GPU waits";
    d.facts.emplace_back("workers", "0");
    const std::string& n = ctx_.settings.cxx_default_workers;
    Fix fix{"Set `.workers(" + n + ")` on the loader options", Applicability::DisplayOnly, {}};
    if (!ctx_.in_macro(call->getSourceRange()) && !opts.options_is_variable) {
      // Workers run the dataset's get() on other threads: the edit needs a review (unsafe).
      if (!opts.options_arg) {
        // No options at all: pass them after the last written argument.
        const Expr* last = nullptr;
        for (unsigned i = 0; i < call->getNumArgs(); ++i)
          if (!isa<CXXDefaultArgExpr>(call->getArg(i))) last = call->getArg(i);
        if (auto r = last ? ctx_.range_of(last->getSourceRange()) : std::nullopt) {
          fix.edits.push_back({TextRange{r->end, r->end}, ", torch::data::DataLoaderOptions().workers(" + n + ")"});
        }
      } else if (auto r = ctx_.range_of(opts.options_arg->getSourceRange())) {
        const Expr* written = strip(opts.options_arg);
        // `make_data_loader(ds, kBatchSize)`: the integer converted by DataLoaderOptions(size_t).
        if (auto* convert = dyn_cast<CXXConstructExpr>(written);
            convert && convert->getNumArgs() == 1 && !convert->getConstructor()->isCopyOrMoveConstructor())
          written = strip(convert->getArg(0));
        if (written->getType()->isIntegerType()) {
          fix.edits.push_back({*r, "torch::data::DataLoaderOptions(" + std::string(ctx_.file.slice(*r)) +
                                       ").workers(" + n + ")"});
        } else {
          fix.edits.push_back({TextRange{r->end, r->end}, ".workers(" + n + ")"});
        }
      }
      if (!fix.edits.empty()) fix.applicability = Applicability::Unsafe;
    }
    d.fix = std::move(fix);
    ctx_.report(std::move(d), nullptr);
  }
};

}  // namespace

std::unique_ptr<Check> make_dl001_libtorch(CheckContext& ctx) {
  return std::make_unique<LibTorchLoaderWorkersCheck>(ctx);
}

}  // namespace stoker::cxx
