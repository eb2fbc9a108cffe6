// CU009 host-allocation-in-hot-loop: malloc/free/new[]/delete[] of a host buffer that the same
// hot loop copies to or from the device.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// The local pointer variable an expression names (`buf`, `(void*)buf`), or null.
const VarDecl* local_pointer(const Expr* e) {
  if (!e) return nullptr;
  auto* ref = dyn_cast<DeclRefExpr>(e->IgnoreParenCasts());
  auto* v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!v || isa<ParmVarDecl>(v) || !v->hasLocalStorage() || !v->getType()->isPointerType()) return nullptr;
  return v;
}

bool is_c_allocator(const CallExpr* call, llvm::StringRef name) {
  const FunctionDecl* fd = call->getDirectCallee();
  return fd && fd->getIdentifier() && fd->getName() == name && !isa<CXXMethodDecl>(fd) &&
         fd->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

class HostAllocationCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    finder.addMatcher(match::call_to({"cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync",
                                      "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol",
                                      "cudaMemcpyFromSymbolAsync"})
                          .bind("copy"),
                      this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("copy");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    const CopySignature* sig = copy_signature(callee_name(call));
    if (!sig) return;
    auto kind = copy_kind(ctx_, call, *sig);
    if (kind && (*kind == kDeviceToDevice || *kind == kHostToHost)) return;
    std::vector<int> host_sides;
    if (!kind || *kind == kHostToDevice || *kind == 4) host_sides.push_back(sig->src);
    if (!kind || *kind == kDeviceToHost || *kind == 4) host_sides.push_back(sig->dst);
    auto bytes = copy_bytes(ctx_, call, *sig);
    for (int index : host_sides) {
      if (index < 0 || static_cast<unsigned>(index) >= call->getNumArgs()) continue;
      const VarDecl* buffer = local_pointer(call->getArg(index));
      if (!buffer) continue;
      report_allocations(buffer, *hot, bytes);
    }
  }

 private:
  // Same unit of "one iteration" as the copy: both directly in the hot loop, or both in the
  // function the loop calls.
  std::optional<HotContext> same_iteration(const Stmt* s, const HotContext& copy) const {
    auto hot = ctx_.model.hot_context(s);
    if (!hot || hot->scope != copy.scope || hot->loop != copy.loop) return std::nullopt;
    return hot;
  }

  void report_allocations(const VarDecl* buffer, const HotContext& copy, std::optional<int64_t> bytes) {
    std::vector<const Expr*> values;
    if (buffer->getInit()) values.push_back(buffer->getInit());
    if (const auto* w = ctx_.model.writes(buffer)) values.insert(values.end(), w->values.begin(), w->values.end());
    bool allocated = false;
    for (const Expr* value : values) {
      const Expr* e = value->IgnoreParenCasts();
      std::string what;
      if (auto* c = dyn_cast<CallExpr>(e); c && is_c_allocator(c, "malloc")) what = "malloc";
      else if (auto* n = dyn_cast<CXXNewExpr>(e); n && n->isArray()) what = "new[]";
      if (what.empty()) continue;
      auto hot = same_iteration(value, copy);
      if (!hot) continue;
      allocated = true;
      report(e, what, buffer, *hot, bytes, true);
    }
    if (!allocated) return;
    // The matching releases in the same iteration.
    for (const CallExpr* c : ctx_.model.calls())
      if (is_c_allocator(c, "free") && c->getNumArgs() == 1 && local_pointer(c->getArg(0)) == buffer)
        if (auto hot = same_iteration(c, copy)) report(c, "free", buffer, *hot, bytes, false);
    const Stmt* body = copy.scope == copy.loop ? copy.loop
                                               : static_cast<const FunctionDecl*>(copy.scope)->getBody();
    std::vector<const CXXDeleteExpr*> deletes;
    find_deletes(body, buffer, deletes);
    for (const CXXDeleteExpr* del : deletes)
      if (auto hot = same_iteration(del, copy)) report(del, "delete[]", buffer, *hot, bytes, false);
  }

  static void find_deletes(const Stmt* s, const VarDecl* buffer, std::vector<const CXXDeleteExpr*>& out) {
    if (!s) return;
    if (auto* del = dyn_cast<CXXDeleteExpr>(s); del && del->isArrayForm() && local_pointer(del->getArgument()) == buffer)
      out.push_back(del);
    for (const Stmt* c : s->children()) find_deletes(c, buffer, out);
  }

  void report(const Expr* at, const std::string& what, const VarDecl* buffer, const HotContext& hot,
              std::optional<int64_t> bytes, bool allocation) {
    std::optional<TextRange> range;
    if (auto* c = dyn_cast<CallExpr>(at)) range = ctx_.callee_range(c);
    else range = ctx_.range_of(at->getSourceRange());
    if (!range) return;
    std::string name = buffer->getName().str();
    Diagnostic d;
    d.code = "CU009";
    d.range = *range;
    d.message = allocation
                    ? "`" + what + "` of the host buffer `" + name +
                          "` every step of a hot loop that copies it to or from the device: fresh pageable memory each "
                          "step (page faults on first touch, a copy the driver stages through its own pinned buffer)"
                    : "`" + what + "` of the host buffer `" + name +
                          "`, allocated and copied to or from the device every step of this hot loop";
    if (bytes) d.facts.emplace_back("copy_bytes", std::to_string(*bytes));
    d.fix = Fix{"Allocate `" + name + "` once before the loop, pinned (`cudaMallocHost`/`cudaHostAlloc`), and reuse it",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu009(CheckContext& ctx) { return std::make_unique<HostAllocationCheck>(ctx); }

}  // namespace stoker::cxx
