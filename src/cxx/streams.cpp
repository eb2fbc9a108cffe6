#include "cxx/streams.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace stoker::cxx {

using namespace clang;

bool is_stream_type(QualType t) {
  if (t.isNull()) return false;
  t = t.getNonReferenceType().getCanonicalType();
  if (!t->isPointerType()) return false;
  const auto* rd = t->getPointeeType()->getAsRecordDecl();
  return rd && rd->getIdentifier() && rd->getName() == "CUstream_st";
}

namespace {

// Calls and variable references under a statement, lambda bodies and launch configurations included.
struct Collected {
  std::vector<const CallExpr*> calls;
  std::vector<const DeclRefExpr*> refs;
};

void collect(const Stmt* s, Collected& out, std::set<const Stmt*>& seen) {
  if (!s || !seen.insert(s).second) return;
  if (auto* call = dyn_cast<CallExpr>(s)) out.calls.push_back(call);
  if (auto* ref = dyn_cast<DeclRefExpr>(s)) out.refs.push_back(ref);
  if (auto* launch = dyn_cast<CUDAKernelCallExpr>(s)) collect(launch->getConfig(), out, seen);
  if (auto* lambda = dyn_cast<LambdaExpr>(s)) collect(lambda->getBody(), out, seen);
  for (const Stmt* child : s->children()) collect(child, out, seen);
}

Collected collect(const Stmt* s) {
  Collected out;
  std::set<const Stmt*> seen;
  collect(s, out, seen);
  return out;
}

// What a stream argument names: a variable, the default stream (omitted, 0, nullptr,
// cudaStreamLegacy, cudaStreamPerThread), or something else (an element, a member, a call).
struct StreamArg {
  enum Kind { Variable, Default, Other } kind = Other;
  const VarDecl* var = nullptr;
};

StreamArg classify(const Expr* e, const ASTContext& ast) {
  if (!e || isa<CXXDefaultArgExpr>(e)) return {StreamArg::Default, nullptr};
  const Expr* s = e->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && is_stream_type(v->getType())) return {StreamArg::Variable, v};
  if (auto* cast = dyn_cast<ExplicitCastExpr>(s)) s = cast->getSubExpr()->IgnoreParenImpCasts();
  if (isa<CXXNullPtrLiteralExpr>(s) || isa<GNUNullExpr>(s) || isa<IntegerLiteral>(s)) return {StreamArg::Default, nullptr};
  if (s->isNullPointerConstant(const_cast<ASTContext&>(ast), Expr::NPC_ValueDependentIsNotNull))
    return {StreamArg::Default, nullptr};
  return {};
}

// The stream arguments of a call: those passed for a `cudaStream_t` parameter.
void stream_args(const CallExpr* call, const ASTContext& ast, std::vector<StreamArg>& out) {
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd) return;
  unsigned n = std::min(call->getNumArgs(), fd->getNumParams());
  for (unsigned i = 0; i < n; ++i)
    if (is_stream_type(fd->getParamDecl(i)->getType())) out.push_back(classify(call->getArg(i), ast));
}

const Stmt* body_of_lambda_or_function(const LambdaExpr* lambda, const FunctionDecl* fn) {
  if (lambda) return lambda->getBody();
  return fn ? fn->getBody() : nullptr;
}

}  // namespace

const VarDecl* stream_in_scope(const CheckContext& ctx, const CallExpr* call) {
  const SourceManager& sm = ctx.ast.getSourceManager();
  const TranslationUnitModel& model = ctx.model;
  const FunctionDecl* fn = model.enclosing_function(call);
  if (!fn || !fn->getBody()) return nullptr;
  auto before_call = [&](SourceLocation l) { return sm.isBeforeInTranslationUnit(l, call->getBeginLoc()); };

  // Visible stream variables, innermost first; names declared in inner scopes hide outer ones.
  std::vector<const VarDecl*> visible;
  std::set<std::string> names;
  auto consider = [&](const VarDecl* v) {
    if (!v->getIdentifier()) return;
    std::string name = v->getName().str();
    if (!names.insert(name).second) return;  // hidden by an inner declaration
    if (is_stream_type(v->getType())) visible.push_back(v);
  };
  const LambdaExpr* innermost_lambda = nullptr;
  const Stmt* innermost_loop = nullptr;
  bool outer_visible = true;
  for (const Stmt* cur = call; cur; cur = model.parent(cur)) {
    if (cur != call && !innermost_loop && !innermost_lambda && is_loop(cur)) innermost_loop = cur;
    if (auto* block = dyn_cast<CompoundStmt>(cur)) {
      // Later declarations first: the nearest one of a name is the one the call sees.
      std::vector<const VarDecl*> here;
      for (const Stmt* child : block->body())
        if (auto* ds = dyn_cast<DeclStmt>(child); ds && before_call(ds->getEndLoc()))
          for (const Decl* d : ds->decls())
            if (auto* v = dyn_cast<VarDecl>(d)) here.push_back(v);
      for (auto it = here.rbegin(); it != here.rend(); ++it) consider(*it);
    } else if (auto* lambda = dyn_cast<LambdaExpr>(cur)) {
      if (!innermost_lambda) innermost_lambda = lambda;
      if (const CXXMethodDecl* op = lambda->getCallOperator())
        for (const ParmVarDecl* p : op->parameters()) consider(p);
      // Explicit captures only: the outer names the call may use are not all captured.
      if (lambda->getCaptureDefault() == LCD_None) {
        outer_visible = false;
        break;
      }
    } else if (auto* fs = dyn_cast<ForStmt>(cur); fs && fs->getInit()) {
      if (auto* ds = dyn_cast<DeclStmt>(fs->getInit()))
        for (const Decl* d : ds->decls())
          if (auto* v = dyn_cast<VarDecl>(d)) consider(v);
    }
  }
  if (outer_visible)
    for (const ParmVarDecl* p : fn->parameters()) consider(p);

  // References in the function: which candidates are created or used there.
  Collected in_function = collect(fn->getBody());
  std::set<const VarDecl*> referenced, referenced_before;
  for (const DeclRefExpr* ref : in_function.refs)
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) {
      referenced.insert(v);
      if (before_call(ref->getBeginLoc())) referenced_before.insert(v);
    }
  // Globals the function references, declared before the call and not hidden by a local.
  if (outer_visible)
    for (const VarDecl* v : referenced)
      if (v->hasGlobalStorage() && !v->isLocalVarDeclOrParm() && !v->isStaticDataMember() && before_call(v->getLocation()))
        consider(v);

  std::vector<const VarDecl*> candidates;
  for (const VarDecl* v : visible) {
    bool created = isa<ParmVarDecl>(v) || v->hasGlobalStorage()
                       ? referenced.count(v) > 0
                       : (v->hasInit() || referenced_before.count(v) > 0);
    if (created) candidates.push_back(v);
  }
  if (candidates.empty()) return nullptr;
  auto is_candidate = [&](const VarDecl* v) {
    return std::find(candidates.begin(), candidates.end(), v) != candidates.end();
  };

  // The neighbours: what the other calls and launches around the call run on.
  const Stmt* scope = innermost_loop ? innermost_loop : body_of_lambda_or_function(innermost_lambda, fn);
  Collected around = collect(scope);
  std::vector<StreamArg> uses;
  for (const CallExpr* c : around.calls)
    if (c != call) stream_args(c, ctx.ast, uses);
  std::set<const VarDecl*> named;
  bool default_stream = false;
  for (const StreamArg& u : uses) {
    if (u.kind == StreamArg::Other) return nullptr;
    if (u.kind == StreamArg::Default) {
      default_stream = true;
      continue;
    }
    if (!is_candidate(u.var)) return nullptr;  // a stream the call cannot name (declared later, hidden)
    named.insert(u.var);
  }
  if (named.size() == 1) return *named.begin();
  if (!named.empty() || default_stream) return nullptr;
  return candidates.size() == 1 ? candidates.front() : nullptr;
}

}  // namespace stoker::cxx
