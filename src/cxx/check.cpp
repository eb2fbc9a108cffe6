#include "cxx/check.h"

namespace stoker::cxx {

using namespace clang;
using namespace clang::ast_matchers;

const Expr* strip(const Expr* e) {
  while (e) {
    const Expr* before = e;
    e = e->IgnoreParenImpCasts();
    if (auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    if (auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    if (auto* w = dyn_cast<ExprWithCleanups>(e)) e = w->getSubExpr();
    if (auto* f = dyn_cast<CXXFunctionalCastExpr>(e)) e = f->getSubExpr();
    if (auto* c = dyn_cast<CXXConstructExpr>(e); c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      e = c->getArg(0);
    if (e == before) break;
  }
  return e;
}

// Built for per-thread default streams (nvcc `--default-stream per-thread`), the real CUDA
// headers rename the stream-ordered entry points: `cudaMemcpyAsync` calls `cudaMemcpyAsync_ptsz`.
static llvm::StringRef without_per_thread_suffix(llvm::StringRef name) {
  if (name.starts_with("cuda") && (name.ends_with("_ptsz") || name.ends_with("_ptds"))) return name.drop_back(5);
  return name;
}

std::string callee_name(const CallExpr* call) {
  if (const FunctionDecl* fd = call->getDirectCallee())
    return fd->getIdentifier() ? without_per_thread_suffix(fd->getName()).str() : std::string();
  if (auto* lookup = dyn_cast<UnresolvedLookupExpr>(call->getCallee()->IgnoreParenImpCasts()))
    return lookup->getName().getAsString();
  return {};
}

const Expr* written_arg(const CallExpr* call, unsigned i) {
  if (i >= call->getNumArgs() || isa<CXXDefaultArgExpr>(call->getArg(i))) return nullptr;
  return call->getArg(i);
}

namespace match {
internal::BindableMatcher<Stmt> call_to(std::vector<std::string> names) {
  for (size_t i = 0, n = names.size(); i < n; ++i)
    if (llvm::StringRef(names[i]).starts_with("cuda")) {
      names.push_back(names[i] + "_ptsz");
      names.push_back(names[i] + "_ptds");
    }
  std::vector<llvm::StringRef> refs(names.begin(), names.end());
  return callExpr(callee(functionDecl(hasAnyName(refs), unless(cxxMethodDecl()))));
}
internal::BindableMatcher<Stmt> tensor_method(std::string name) {
  return cxxMemberCallExpr(callee(cxxMethodDecl(hasName(name), ofClass(hasName("::at::Tensor")))));
}
}  // namespace match

static SourceLocation file_loc(const SourceManager& sm, SourceLocation l, bool end) {
  if (!l.isMacroID()) return l;
  if (sm.isMacroArgExpansion(l)) return sm.getSpellingLoc(l);
  auto range = sm.getExpansionRange(l);
  return end ? range.getEnd() : range.getBegin();
}

std::optional<TextRange> CheckContext::range_of(SourceRange r) const {
  const SourceManager& sm = ast.getSourceManager();
  SourceLocation b = file_loc(sm, r.getBegin(), false), e = file_loc(sm, r.getEnd(), true);
  if (b.isInvalid() || !sm.isWrittenInMainFile(b)) return std::nullopt;
  uint32_t start = sm.getFileOffset(b), stop = start;
  if (e.isValid() && sm.isWrittenInMainFile(e)) {
    SourceLocation after = Lexer::getLocForEndOfToken(e, 0, sm, ast.getLangOpts());
    if (after.isValid() && sm.getFileOffset(after) >= start) stop = sm.getFileOffset(after);
  }
  if (stop > file.text.size()) stop = static_cast<uint32_t>(file.text.size());
  if (start > stop) return std::nullopt;
  return TextRange{start, stop};
}

std::optional<TextRange> CheckContext::callee_range(const CallExpr* call) const {
  SourceLocation begin = call->getBeginLoc();
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call))
    if (auto* me = dyn_cast<MemberExpr>(mc->getCallee()->IgnoreParenImpCasts())) begin = me->getMemberLoc();
  return range_of(SourceRange(begin, call->getEndLoc()));
}

bool CheckContext::in_macro(SourceRange r) const { return r.getBegin().isMacroID() || r.getEnd().isMacroID(); }

std::string CheckContext::text_of(SourceRange r) const {
  auto range = range_of(r);
  return range ? std::string(file.slice(*range)) : std::string();
}

// Where a template function (or a member of a class template) holding `s` was instantiated,
// with the template arguments, when `s` is in an instantiation clang built.
static std::optional<RelatedLocation> instantiation_site(const CheckContext& ctx, const Stmt* s) {
  const FunctionDecl* fn = s ? ctx.model.enclosing_function(s) : nullptr;
  if (!fn || !is_instantiation(fn)) return std::nullopt;
  auto r = ctx.range_of(SourceRange(fn->getPointOfInstantiation()));
  if (!r) return std::nullopt;
  std::string what = "instantiated here";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (const TemplateArgumentList* args = fn->getTemplateSpecializationArgs()) {
    os << fn->getNameAsString();
    printTemplateArgumentList(os, args->asArray(), ctx.ast.getPrintingPolicy());
  } else if (auto* m = dyn_cast<CXXMethodDecl>(fn)) {
    if (auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(m->getParent())) {
      os << spec->getNameAsString();
      printTemplateArgumentList(os, spec->getTemplateArgs().asArray(), ctx.ast.getPrintingPolicy());
      os << "::" << m->getNameAsString();
    }
  }
  if (!text.empty() && text.size() <= 160) what += " as " + text;
  return RelatedLocation{ctx.file.path, *r, what};
}

void CheckContext::report(Diagnostic d, const HotContext* hot) {
  d.file = file.path;
  std::optional<RelatedLocation> instantiated;
  if (hot) {
    if (hot->via)
      if (auto r = callee_range(hot->via)) d.related.push_back({file.path, *r, "called from this hot loop"});
    if (hot->amortized) {
      d.severity = Severity::Info;
      d.facts.emplace_back("amortized_every", hot->interval ? std::to_string(*hot->interval) : "unknown");
    }
    instantiated = instantiation_site(*this, hot->at);
  }
  // Each instantiation of a template reports the same spelling: one finding, with every
  // instantiation that reaches it as a related location.
  for (auto& seen : diagnostics)
    if (seen.code == d.code && seen.range == d.range) {
      if (instantiated && std::none_of(seen.related.begin(), seen.related.end(), [&](const RelatedLocation& r) {
            return r.range == instantiated->range && r.message == instantiated->message;
          }))
        seen.related.push_back(*instantiated);
      return;
    }
  if (instantiated) d.related.push_back(*instantiated);
  diagnostics.push_back(std::move(d));
}

static const CopySignature kCopies[] = {
    {"cudaMemcpy", 0, 1, 2, -1, 3, -1, false},
    {"cudaMemcpyAsync", 0, 1, 2, -1, 3, -1, true},
    {"cudaMemcpy2D", 0, 2, 4, 5, 6, -1, false},
    {"cudaMemcpy2DAsync", 0, 2, 4, 5, 6, -1, true},
    {"cudaMemcpyToSymbol", -1, 1, 2, -1, 4, kHostToDevice, false},
    {"cudaMemcpyToSymbolAsync", -1, 1, 2, -1, 4, kHostToDevice, true},
    {"cudaMemcpyFromSymbol", 0, -1, 2, -1, 4, kDeviceToHost, false},
    {"cudaMemcpyFromSymbolAsync", 0, -1, 2, -1, 4, kDeviceToHost, true},
    {"cudaMemcpy3D", -1, -1, -1, -1, -1, -1, false},
    {"cudaMemcpy3DAsync", -1, -1, -1, -1, -1, -1, true},
};

const CopySignature* copy_signature(llvm::StringRef name) {
  for (const auto& s : kCopies)
    if (name == s.name) return &s;
  return nullptr;
}

std::optional<int64_t> copy_kind(const CheckContext& ctx, const CallExpr* call, const CopySignature& sig) {
  if (sig.kind < 0) return std::nullopt;
  if (static_cast<unsigned>(sig.kind) >= call->getNumArgs())
    return sig.default_kind >= 0 ? std::optional<int64_t>(sig.default_kind) : std::nullopt;
  return ctx.model.resolve_int(call->getArg(sig.kind));
}

std::optional<int64_t> copy_bytes(const CheckContext& ctx, const CallExpr* call, const CopySignature& sig) {
  if (sig.size < 0 || static_cast<unsigned>(sig.size) >= call->getNumArgs()) return std::nullopt;
  auto bytes = ctx.model.resolve_int(call->getArg(sig.size));
  if (!bytes || sig.height < 0) return bytes;
  auto rows = ctx.model.resolve_int(call->getArg(sig.height));
  if (!rows) return std::nullopt;
  return *bytes * *rows;
}

// Reads a DataLoaderOptions expression: `DataLoaderOptions(64).workers(2)`, an integer
// converted to options, or a variable whose initializer and later member calls set it.
static void read_options(const CheckContext& ctx, const Expr* e, LoaderOptions& out, int depth,
                         bool read_object = true) {
  if (!e || depth > 8) return;
  e = strip(e);
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    if (m && m->getIdentifier() && mc->getNumArgs() == 1) {
      llvm::StringRef name = m->getName();
      auto value = ctx.model.resolve_int(mc->getArg(0));
      // The innermost setter runs first: read the object first, then let this call override.
      if (read_object) read_options(ctx, mc->getImplicitObjectArgument(), out, depth + 1);
      if (name == "workers") {
        out.workers_known = value.has_value();
        out.workers = value.value_or(0);
      } else if (name == "batch_size") {
        out.batch_known = value.has_value();
        out.batch_size = value.value_or(0);
        out.batch_expr = mc->getArg(0);
      }
      return;
    }
    if (read_object) out.workers_known = out.batch_known = false;
    return;
  }
  if (auto* construct = dyn_cast<CXXConstructExpr>(e)) {
    if (construct->getNumArgs() == 1 && construct->getArg(0)->getType()->isIntegerType()) {
      auto value = ctx.model.resolve_int(construct->getArg(0));
      out.batch_known = value.has_value();
      out.batch_size = value.value_or(0);
      out.batch_expr = construct->getArg(0);
    } else if (construct->getNumArgs() == 1) {
      read_options(ctx, construct->getArg(0), out, depth + 1);
    }
    return;
  }
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* v = dyn_cast<VarDecl>(ref->getDecl());
    const auto* writes = v ? ctx.model.writes(v) : nullptr;
    if (!v || (writes && (!writes->values.empty() || writes->other_writes))) {
      out.workers_known = out.batch_known = false;
      return;
    }
    out.options_is_variable = true;
    if (v->getInit()) read_options(ctx, v->getInit(), out, depth + 1);
    for (const CXXMemberCallExpr* mc : ctx.model.member_calls_on(v)) read_options(ctx, mc, out, depth + 1, false);
    return;
  }
  if (e->getType()->isIntegerType()) {
    auto value = ctx.model.resolve_int(e);
    out.batch_known = value.has_value();
    out.batch_size = value.value_or(0);
    out.batch_expr = e;
    return;
  }
  out.workers_known = out.batch_known = false;
}

LoaderOptions loader_options(const CheckContext& ctx, const CallExpr* call) {
  LoaderOptions out;
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd) {
    out.workers_known = out.batch_known = false;
    return out;
  }
  for (unsigned i = 0; i < fd->getNumParams() && i < call->getNumArgs(); ++i) {
    if (!is_class_or_derived(fd->getParamDecl(i)->getType(), "torch::data::DataLoaderOptions")) continue;
    const Expr* arg = call->getArg(i);
    if (isa<CXXDefaultArgExpr>(arg)) return out;  // all defaults
    out.options_arg = arg;
    read_options(ctx, arg, out, 0);
    return out;
  }
  out.workers_known = out.batch_known = false;
  return out;
}

const VarDecl* loader_variable(const CheckContext& ctx, const CallExpr* call) {
  const Stmt* cur = call;
  for (int i = 0; i < 6; ++i) {
    const Stmt* p = ctx.model.parent(cur);
    if (!p) return nullptr;
    if (auto* ds = dyn_cast<DeclStmt>(p)) {
      for (const Decl* d : ds->decls())
        if (auto* v = dyn_cast<VarDecl>(d); v && v->getInit() && strip(v->getInit()) == strip(cast<Expr>(cur)))
          return v;
      if (ds->isSingleDecl()) return dyn_cast<VarDecl>(ds->getSingleDecl());
      return nullptr;
    }
    if (!isa<Expr>(p)) return nullptr;
    cur = p;
  }
  return nullptr;
}

}  // namespace stoker::cxx
