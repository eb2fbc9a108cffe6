// CU007 thrust-value-in-hot-loop: a Thrust algorithm on device data that returns a value (or an
// iterator computed on the device) to the host, in a hot loop.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// Algorithms whose return value the host must wait for, whether it is used or not.
const char* const kValueAlgorithms[] = {"reduce", "count", "count_if", "transform_reduce", "inner_product",
                                        "all_of", "any_of", "none_of", "equal"};
// Algorithms that return an iterator computed on the device (a position, or the end of the
// elements kept): reported when the host uses it.
const char* const kIteratorAlgorithms[] = {"min_element", "max_element", "minmax_element", "find",
                                           "find_if",     "find_if_not", "remove",         "remove_if",
                                           "remove_copy_if", "copy_if",  "unique",         "unique_copy",
                                           "partition"};

bool in_list(llvm::StringRef name, const char* const* first, const char* const* last) {
  return std::any_of(first, last, [&](const char* n) { return name == n; });
}

// True when the function is declared in namespace thrust (ABI inline namespaces skipped).
bool in_thrust(const FunctionDecl* fd) {
  const DeclContext* dc = fd->getDeclContext();
  while (dc && dc->isInlineNamespace()) dc = dc->getParent();
  auto* ns = dyn_cast_or_null<NamespaceDecl>(dc);
  if (!ns || !ns->getIdentifier() || ns->getName() != "thrust") return false;
  const DeclContext* outer = ns->getParent();
  while (outer && outer->isInlineNamespace()) outer = outer->getParent();
  return outer && outer->isTranslationUnit();
}

enum class Side { Device, Host, Unknown };

// Where the algorithm runs: the execution policy when there is one (thrust::device,
// thrust::cuda::par(.on(s)), par_nosync: the CUDA back end; thrust::host, thrust::seq, the
// cpp/omp/tbb systems: the host), else the iterators (device_vector iterators and device_ptr:
// the device, also as any one of the iterator arguments; raw pointers and host_vector iterators:
// the host). Anything else is unknown.
Side side_of(const CallExpr* call, const FunctionDecl* fd) {
  if (call->getNumArgs() == 0 || fd->getNumParams() == 0) return Side::Unknown;
  std::string param = fd->getParamDecl(0)->getType().getCanonicalType().getAsString();
  if (param.find("execution_policy_base") != std::string::npos) {
    if (param.find("cuda_cub") != std::string::npos || param.find("system::cuda") != std::string::npos)
      return Side::Device;
    for (const char* host : {"system::cpp", "system::omp", "system::tbb", "seq_t", "sequential"})
      if (param.find(host) != std::string::npos) return Side::Host;
    return Side::Unknown;
  }
  // Without a policy Thrust dispatches on the iterators' systems together: a counting iterator
  // (any system) with a device_ptr stencil runs on the device.
  for (const Expr* arg : call->arguments()) {
    std::string type = arg->IgnoreParenImpCasts()->getType().getCanonicalType().getAsString();
    if (type.find("device_ptr<") != std::string::npos) return Side::Device;
  }
  return Side::Unknown;
}

class ThrustValueCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    std::vector<llvm::StringRef> names(std::begin(kValueAlgorithms), std::end(kValueAlgorithms));
    names.insert(names.end(), std::begin(kIteratorAlgorithms), std::end(kIteratorAlgorithms));
    finder.addMatcher(callExpr(callee(functionDecl(hasAnyName(names), unless(cxxMethodDecl())))).bind("algorithm"),
                      this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("algorithm");
    const FunctionDecl* fd = call->getDirectCallee();
    if (!fd || !fd->getIdentifier() || !in_thrust(fd)) return;
    llvm::StringRef name = fd->getName();
    bool value = in_list(name, std::begin(kValueAlgorithms), std::end(kValueAlgorithms));
    if (!value && !used(call)) return;
    if (side_of(call, fd) != Side::Device) return;
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    std::string q = "thrust::" + name.str();
    Diagnostic d;
    d.code = "CU007";
    d.range = *range;
    d.message = value ? "`" + q + "` on device data in a hot loop returns its result to the host: a device-to-host "
                              "copy, a synchronization and a temporary allocation every step"
                      : "`" + q + "` on device data in a hot loop returns an iterator the host uses: the device copies "
                              "the position or count back and the host waits for it every step";
    d.fix = Fix{"Keep the result on the device (the `_by_key` or output-iterator form, e.g. `thrust::reduce_by_key` or "
                "`cub::DeviceReduce` into device memory) and read it once per epoch; `thrust::cuda::par_nosync` for "
                "the algorithms whose result the host does not need",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }

 private:
  // The call's result is read: not a discarded expression statement (`thrust::remove_if(...);`
  // or `(void)thrust::remove_if(...)`).
  bool used(const CallExpr* call) const {
    const Stmt* cur = call;
    while (const Stmt* p = ctx_.model.parent(cur)) {
      if (isa<ImplicitCastExpr>(p) || isa<ParenExpr>(p) || isa<ExprWithCleanups>(p) ||
          isa<MaterializeTemporaryExpr>(p) || isa<CXXBindTemporaryExpr>(p)) {
        cur = p;
        continue;
      }
      if (auto* cast = dyn_cast<ExplicitCastExpr>(p)) return !cast->getType()->isVoidType();
      return isa<Expr>(p) || isa<DeclStmt>(p) || isa<ReturnStmt>(p) || isa<IfStmt>(p) || isa<WhileStmt>(p) ||
             isa<DoStmt>(p) || (isa<ForStmt>(p) && cast<ForStmt>(p)->getCond() == cur);
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Check> make_cu007(CheckContext& ctx) { return std::make_unique<ThrustValueCheck>(ctx); }

}  // namespace stoker::cxx
