// CU003 device-sync-in-hot-loop: cudaDeviceSynchronize / cudaStreamSynchronize in a hot loop, and
// cudaEventSynchronize on a timer's start event synchronized right after it is recorded.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// The variable or field an event expression names (`start`, `t.start`, `timer->start`), or null.
const ValueDecl* event_decl(const Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl();
  if (auto* mem = dyn_cast<MemberExpr>(e)) return mem->getMemberDecl();
  return nullptr;
}

class DeviceSyncCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    auto device_sync = match::call_to({"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaThreadSynchronize"});
    finder.addMatcher(device_sync.bind("sync"), this);
    finder.addMatcher(match::call_to({"cudaEventSynchronize"}).bind("event_sync"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    if (const auto* call = result.Nodes.getNodeAs<CallExpr>("event_sync")) return event_sync(call);
    const auto* call = result.Nodes.getNodeAs<CallExpr>("sync");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "CU003";
    d.range = *range;
    d.message = "`" + callee_name(call) +
                "` in a hot loop: the host waits for the GPU to drain every step, and the GPU then waits for the "
                "host to queue more work";
    if (hot->timing_loop) {
      d.severity = Severity::Info;
      d.message += " (the loop records CUDA events: if this is timing, synchronize on the end event instead)";
    }
    d.fix = Fix{"Synchronize once per epoch; order work with events and `cudaStreamWaitEvent`",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }

 private:
  // rules.md, Clarifications: `cudaEventSynchronize` on an event recorded in the same iteration
  // before the GPU work it times is queued (a timer helper that syncs right after recording the
  // start event) drains the device. Waiting on the end event of a timing pair is the point of
  // timing and is not reported. So: the event is the start of a `cudaEventElapsedTime` pair (and
  // never an end), a `cudaEventRecord` of it precedes the synchronize in the same function and
  // the same iteration, and no GPU work is queued between the two.
  void event_sync(const CallExpr* call) {
    if (call->getNumArgs() < 1) return;
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    const ValueDecl* event = event_decl(call->getArg(0));
    if (!event) return;
    bool start = false, end = false;
    for (const CallExpr* c : ctx_.model.calls()) {
      if (c->getNumArgs() < 3 || callee_name(c) != "cudaEventElapsedTime") continue;
      start |= event_decl(c->getArg(1)) == event;
      end |= event_decl(c->getArg(2)) == event;
    }
    if (!start || end) return;
    const SourceManager& sm = ctx_.ast.getSourceManager();
    auto before = [&](const Stmt* a, const Stmt* b) {
      return sm.isBeforeInTranslationUnit(sm.getExpansionLoc(a->getBeginLoc()), sm.getExpansionLoc(b->getBeginLoc()));
    };
    const FunctionDecl* fn = ctx_.model.enclosing_function(call);
    const CallExpr* record = nullptr;
    for (const CallExpr* c : ctx_.model.calls()) {
      if (c->getNumArgs() < 1 || callee_name(c) != "cudaEventRecord" || event_decl(c->getArg(0)) != event) continue;
      if (ctx_.model.enclosing_function(c) != fn || !before(c, call)) continue;
      auto record_hot = ctx_.model.hot_context(c);
      if (!record_hot || record_hot->scope != hot->scope) continue;
      if (!record || before(record, c)) record = c;
    }
    if (!record) return;
    // Between the two, only CUDA runtime calls that queue no work (an error-checking wrapper of
    // the synchronize itself aside): any other call may queue the timed work (a kernel passed as
    // a template argument or a function pointer), and then this waits for timed work.
    auto wraps_sync = [&](const CallExpr* c) {
      for (const Stmt* p = ctx_.model.parent(call); p; p = ctx_.model.parent(p))
        if (p == c) return true;
      return false;
    };
    for (const CallExpr* c : ctx_.model.calls()) {
      if (!before(record, c) || !before(c, call) || ctx_.model.enclosing_function(c) != fn || wraps_sync(c)) continue;
      if (ctx_.model.calls_gpu_function(c) || !llvm::StringRef(callee_name(c)).starts_with("cuda")) return;
    }
    auto range = ctx_.callee_range(call);
    if (!range) return;
    std::string name = ctx_.text_of(call->getArg(0)->getSourceRange());
    if (name.empty()) name = event->getName().str();
    Diagnostic d;
    d.code = "CU003";
    d.range = *range;
    d.message = "`cudaEventSynchronize` on the start event `" + name +
                "` right after recording it: the host waits for every step queued before it, so the device drains "
                "every step before the timed work is even queued";
    if (hot->timing_loop) {
      d.severity = Severity::Info;
      d.message += " (the loop records CUDA events)";
    }
    d.fix = Fix{"Do not synchronize on the start event: synchronize once on the end event (or read the timings once "
                "per epoch)",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }
};

}  // namespace

std::unique_ptr<Check> make_cu003(CheckContext& ctx) { return std::make_unique<DeviceSyncCheck>(ctx); }

}  // namespace stoker::cxx
