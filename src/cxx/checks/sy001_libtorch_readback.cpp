// SY001 host-readback-in-hot-loop, LibTorch and ATen: `item<T>()`, `cpu()` or `to(kCPU)` on a
// tensor in a hot loop.
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
    finder.addMatcher(match::tensor_method("to").bind("read"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (!ctx_.model.uses_cuda()) return;  // a CPU-only program reads CPU tensors
    const auto* call = result.Nodes.getNodeAs<CXXMemberCallExpr>("read");
    std::string name = call->getMethodDecl()->getName().str();
    if (name == "to" && !to_cpu(call)) return;
    // `t.cpu().item<float>()` syncs once, at `cpu()`; so does `auto p = t.cpu(); p.item<float>()`.
    if (is_cpu_copy(call->getImplicitObjectArgument())) return;
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    if (name == "to") name = "to(kCPU)";
    Diagnostic d;
    d.code = "SY001";
    d.range = *range;
    d.message = "`" + name + (name == "to(kCPU)" ? "" : "()") + "` on a tensor in a hot loop copies it to the host and waits for the GPU every step";
    d.fix = Fix{"Accumulate on the device and read the value every N steps", Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }

 private:
  bool is_cpu_copy(const Expr* object) const {
    const Expr* e = strip(object);
    if (auto* ref = dyn_cast<DeclRefExpr>(e))
      if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getInit() && !ctx_.model.writes(v)) e = strip(v->getInit());
    auto* inner = dyn_cast<CXXMemberCallExpr>(e);
    if (!inner || !inner->getMethodDecl() || !inner->getMethodDecl()->getIdentifier()) return false;
    return inner->getMethodDecl()->getName() == "cpu" || (inner->getMethodDecl()->getName() == "to" && to_cpu(inner));
  }
  // `t.to(at::kCPU)`, `t.to(torch::kCPU)`, `t.to(torch::Device(torch::kCPU))`, `t.to("cpu")`: the
  // device argument is written as the CPU (a variable is not followed: it may hold either).
  bool to_cpu(const CXXMemberCallExpr* call) const {
    const Expr* first = written_arg(call, 0);
    if (!first) return false;
    std::string text = ctx_.text_of(strip(first)->getSourceRange());
    bool cpu = text.find("kCPU") != std::string::npos || text == "\"cpu\"";
    if (!cpu || text.find("CUDA") != std::string::npos || text.find("cuda") != std::string::npos) return false;
    // A loader's batch (`batch.data`, a torch::data::Example's field) is on the CPU: moving it
    // there copies nothing.
    const Expr* object = strip(call->getImplicitObjectArgument());
    while (auto* m = dyn_cast<MemberExpr>(object)) object = strip(m->getBase());
    if (auto* ref = dyn_cast<DeclRefExpr>(object))
      if (is_class_or_derived(ref->getDecl()->getType(), "torch::data::Example")) return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<Check> make_sy001_libtorch(CheckContext& ctx) { return std::make_unique<LibTorchReadbackCheck>(ctx); }

}  // namespace stoker::cxx
