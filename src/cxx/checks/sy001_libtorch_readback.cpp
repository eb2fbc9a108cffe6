// SY001 host-readback-in-hot-loop, LibTorch: `item<T>()` / `cpu()` on a tensor in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LibTorchReadbackCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(match::tensor_method("item").bind("read"), this);
    finder.addMatcher(match::tensor_method("cpu").bind("read"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (!ctx_.model.uses_cuda()) return;  // a CPU-only program reads CPU tensors
    const auto* call = result.Nodes.getNodeAs<CXXMemberCallExpr>("read");
    // `t.cpu().item<float>()` syncs once, at `cpu()`; so does `auto p = t.cpu(); p.item<float>()`.
    if (is_cpu_copy(call->getImplicitObjectArgument())) return;
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    std::string name = call->getMethodDecl()->getName().str();
    Diagnostic d;
    d.code = "SY001";
    d.range = *range;
    d.message = "`" + name + "()` on a tensor in a hot loop copies it to the host and waits for the GPU every step";
    d.fix = Fix{"Accumulate on the device and read the value every N steps", Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }

 private:
  bool is_cpu_copy(const Expr* object) const {
    const Expr* e = strip(object);
    if (auto* ref = dyn_cast<DeclRefExpr>(e))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getInit() && !ctx_.model.writes(v)) e = strip(v->getInit());
    auto* inner = dyn_cast<CXXMemberCallExpr>(e);
    return inner && inner->getMethodDecl() && inner->getMethodDecl()->getIdentifier() &&
           inner->getMethodDecl()->getName() == "cpu";
  }
};

}  // namespace

std::unique_ptr<Check> make_sy001_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchReadbackCheck>(ctx); }

}  // namespace stoker::cxx
