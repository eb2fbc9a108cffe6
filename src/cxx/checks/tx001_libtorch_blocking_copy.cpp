// TX001 blocking-host-to-device-copy, LibTorch: `tensor.to(device)` in a hot loop without non_blocking.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

class LibTorchBlockingCopyCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(match::tensor_method("to").bind("to"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (!ctx_.model.uses_cuda()) return;
    const auto* call = result.Nodes.getNodeAs<CXXMemberCallExpr>("to");
    const CXXMethodDecl* method = call->getMethodDecl();
    if (!method || method->getNumParams() == 0 || call->getNumArgs() == 0) return;
    // Only device moves: `to(ScalarType)` converts, `to(other)` follows another tensor.
    QualType first = method->getParamDecl(0)->getType().getNonReferenceType().getUnqualifiedType();
    if (!is_class_or_derived(first, "at::TensorOptions") && !is_class_or_derived(first, "c10::Device")) return;
    if (!written_arg(call, 0) || names_cpu(call->getArg(0))) return;
    int nb = -1;
    for (unsigned i = 0; i < method->getNumParams(); ++i)
      if (method->getParamDecl(i)->getName() == "non_blocking") nb = static_cast<int>(i);
    if (nb < 0 || static_cast<unsigned>(nb) >= call->getNumArgs()) return;
    const Expr* nb_arg = written_arg(call, nb);
    if (nb_arg) {
      bool value = true;
      if (!nb_arg->EvaluateAsBooleanCondition(value, ctx_.ast) || value) return;  // true or unknown
    }
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "TX001";
    d.range = *range;
    // rules.md: the message says when the source is not pinned (LibTorch loaders cannot pin).
    if (pinned_source(call))
      d.message = "`.to(device)` in a hot loop without non_blocking: the host waits for each host-to-device copy. "
                  "The source is pinned, so with non_blocking=true the copy overlaps";
    else
      d.message = "`.to(device)` in a hot loop without non_blocking: the host waits for each host-to-device copy. "
                  "LibTorch loaders cannot pin memory, so pin the batch (`.pin_memory()` or in the dataset's transform) "
                  "and pass non_blocking=true";
    Fix fix{"Pass `non_blocking=true`", Applicability::DisplayOnly, {}};
    if (!ctx_.in_macro(call->getSourceRange())) {
      if (nb_arg) {
        if (auto r = ctx_.range_of(nb_arg->getSourceRange())) fix.edits.push_back({*r, "true"});
      } else if (const Expr* before = written_arg(call, nb - 1)) {
        if (auto r = ctx_.range_of(before->getSourceRange()))
          fix.edits.push_back({TextRange{r->end, r->end}, ", /*non_blocking=*/true"});
      }
      if (!fix.edits.empty()) fix.applicability = Applicability::Safe;
    }
    d.fix = std::move(fix);
    ctx_.report(std::move(d), &*hot);
  }

 private:
  // The tensor copied is pinned: `x.pin_memory().to(device)`, or a variable initialized from
  // `.pin_memory()` and never reassigned.
  bool pinned_source(const CXXMemberCallExpr* call) const {
    const Expr* object = strip(call->getImplicitObjectArgument());
    if (auto* ref = dyn_cast_or_null<DeclRefExpr>(object))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getInit() && !ctx_.model.writes(v))
        object = strip(v->getInit());
    auto* pin = dyn_cast_or_null<CXXMemberCallExpr>(object);
    const CXXMethodDecl* m = pin ? pin->getMethodDecl() : nullptr;
    return m && m->getIdentifier() && m->getName() == "pin_memory";
  }
  // The device argument names the CPU (`torch::kCPU`, "cpu", or a variable initialized so).
  bool names_cpu(const Expr* e) const {
    const Expr* s = strip(e);
    std::string text = ctx_.text_of(s->getSourceRange());
    if (auto* ref = dyn_cast<DeclRefExpr>(s))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getInit() && !ctx_.model.writes(v))
        text = ctx_.text_of(v->getInit()->getSourceRange());
    bool cpu = text.find("kCPU") != std::string::npos || text.find("\"cpu") != std::string::npos;
    bool cuda = text.find("CUDA") != std::string::npos || text.find("cuda") != std::string::npos;
    return cpu && !cuda;
  }
};

}  // namespace

std::unique_ptr<Check> make_tx001_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchBlockingCopyCheck>(ctx); }

}  // namespace stoker::cxx
