// CU008 legacy-stream-async-copy: cudaMemcpy*Async on the legacy default stream (stream argument
// omitted, 0, NULL or cudaStreamLegacy) in a hot loop of a program that creates blocking streams.
#include "cxx/check.h"

namespace stoker::cxx {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// Where each async copy takes its stream.
struct StreamArg {
  const char* name;
  unsigned index;
};
constexpr StreamArg kAsyncCopies[] = {
    {"cudaMemcpyAsync", 4},         {"cudaMemcpy2DAsync", 7},     {"cudaMemcpyToSymbolAsync", 5},
    {"cudaMemcpyFromSymbolAsync", 5}, {"cudaMemcpy3DAsync", 1},   {"cudaMemcpyPeerAsync", 5},
};

enum class StreamValue { Legacy, DefaultHandle, Other };

class LegacyStreamCopyCheck : public Check {
 public:
  using Check::Check;
  void register_matchers(MatchFinder& finder) override {
    std::vector<std::string> names;
    for (const auto& c : kAsyncCopies) names.push_back(c.name);
    finder.addMatcher(match::call_to(names).bind("copy"), this);
  }
  void run(const MatchFinder::MatchResult& result) override {
    const auto* call = result.Nodes.getNodeAs<CallExpr>("copy");
    auto hot = ctx_.model.hot_context(call);
    if (!hot) return;
    std::string name = callee_name(call);
    const StreamArg* sig = nullptr;
    for (const auto& c : kAsyncCopies)
      if (name == c.name) sig = &c;
    if (!sig) return;
    // Omitted (the default argument 0) or written: 0 / NULL / nullptr is the default stream,
    // which is the legacy stream unless the program is built for per-thread default streams;
    // cudaStreamLegacy is the legacy stream in every build.
    StreamValue value = StreamValue::DefaultHandle;
    std::string written = "omitted";
    if (const Expr* s = written_arg(call, sig->index)) {
      value = classify(s, 0);
      written = "`" + ctx_.text_of(s->getSourceRange()) + "`";
    }
    if (value == StreamValue::Other) return;
    if (value == StreamValue::DefaultHandle && per_thread_default_stream(call)) return;
    if (!creates_blocking_stream()) return;
    auto range = ctx_.callee_range(call);
    if (!range) return;
    Diagnostic d;
    d.code = "CU008";
    d.range = *range;
    d.message = "`" + name + "` on the legacy default stream (stream " + written +
                ") in a hot loop of a program that uses other streams: the legacy stream waits for the work of every "
                "blocking stream and they wait for it, so the copy does not overlap with compute";
    if (const CopySignature* copy = copy_signature(name))
      if (auto bytes = copy_bytes(ctx_, call, *copy)) d.facts.emplace_back("copy_bytes", std::to_string(*bytes));
    d.fix = Fix{"Issue the copy on a stream of its own, created with `cudaStreamCreateWithFlags(&s, "
                "cudaStreamNonBlocking)`, and order it with events",
                Applicability::DisplayOnly, {}};
    ctx_.report(std::move(d), &*hot);
  }

 private:
  // A stream expression: a null pointer or the literal handles (cudaStreamLegacy is
  // ((cudaStream_t)0x1), cudaStreamPerThread ((cudaStream_t)0x2)), through a local or global
  // stream variable that is only ever initialized with one. Anything else is another stream.
  StreamValue classify(const Expr* e, int depth) const {
    if (!e || depth > 4) return StreamValue::Other;
    e = e->IgnoreParenCasts();
    if (isa<CXXNullPtrLiteralExpr>(e) || isa<GNUNullExpr>(e)) return StreamValue::DefaultHandle;
    if (auto* lit = dyn_cast<IntegerLiteral>(e)) {
      uint64_t v = lit->getValue().getLimitedValue();
      return v == 0 ? StreamValue::DefaultHandle : v == 1 ? StreamValue::Legacy : StreamValue::Other;
    }
    if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
      auto* v = dyn_cast<VarDecl>(ref->getDecl());
      if (!v || isa<ParmVarDecl>(v) || !v->getInit()) return StreamValue::Other;
      const auto* w = ctx_.model.writes(v);
      if (w && (w->other_writes || !w->values.empty() || !w->address_passed_to.empty())) return StreamValue::Other;
      return classify(v->getInit(), depth + 1);
    }
    return StreamValue::Other;
  }
  // Built with nvcc's `--default-stream per-thread` (which defines the macro) or with the macro
  // defined in the file: the real headers then call the `_ptsz` entry points.
  bool per_thread_default_stream(const CallExpr* call) const {
    if (ctx_.ast.Idents.get("CUDA_API_PER_THREAD_DEFAULT_STREAM").hasMacroDefinition()) return true;
    const FunctionDecl* fd = call->getDirectCallee();
    return fd && fd->getIdentifier() && fd->getName().ends_with("_ptsz");
  }
  // The program creates a stream the legacy stream synchronizes with: cudaStreamCreate, or
  // cudaStreamCreateWithFlags/WithPriority whose flags resolve to a value without
  // cudaStreamNonBlocking. Streams whose flags cannot be resolved do not count (precision first).
  bool creates_blocking_stream() {
    if (blocking_stream_) return *blocking_stream_;
    bool found = false;
    for (const CallExpr* c : ctx_.model.calls()) {
      std::string n = callee_name(c);
      if (n == "cudaStreamCreate" || n == "cudaStreamCreate_ptsz") found = true;
      if ((n == "cudaStreamCreateWithFlags" || n == "cudaStreamCreateWithPriority") && c->getNumArgs() >= 2)
        if (auto flags = ctx_.model.resolve_int(c->getArg(1)); flags && (*flags & 1) == 0) found = true;
      if (found) break;
    }
    blocking_stream_ = found;
    return found;
  }
  std::optional<bool> blocking_stream_;
};

}  // namespace

std::unique_ptr<Check> make_cu008(CheckContext& ctx) { return std::make_unique<LegacyStreamCopyCheck>(ctx); }

}  // namespace stoker::cxx
