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
  std::vector<const MemberExpr*> members;  // `stream_`, `this->stream_`
};

// The field a member expression on `this` names, when it is a stream.
const FieldDecl* this_stream_field(const Expr* e) {
  auto* m = dyn_cast<MemberExpr>(e);
  if (!m || !isa<CXXThisExpr>(m->getBase()->IgnoreParenImpCasts())) return nullptr;
  auto* f = dyn_cast<FieldDecl>(m->getMemberDecl());
  return f && is_stream_type(f->getType()) ? f : nullptr;
}

void collect(const Stmt* s, Collected& out, std::set<const Stmt*>& seen) {
  if (!s || !seen.insert(s).second) return;
  if (auto* call = dyn_cast<CallExpr>(s)) out.calls.push_back(call);
  if (auto* ref = dyn_cast<DeclRefExpr>(s)) out.refs.push_back(ref);
  if (auto* member = dyn_cast<MemberExpr>(s)) out.members.push_back(member);
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
  const ValueDecl* var = nullptr;  // a variable or a field of `this`
};

StreamArg classify(const Expr* e, const ASTContext& ast) {
  if (!e || isa<CXXDefaultArgExpr>(e)) return {StreamArg::Default, nullptr};
  if (e->isValueDependent() || e->isTypeDependent()) return {};  // a template as written
  const Expr* s = e->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(s))
    if (auto* v = dyn_cast<VarDecl>(ref->getDecl()); v && is_stream_type(v->getType())) return {StreamArg::Variable, v};
  if (const FieldDecl* f = this_stream_field(s)) return {StreamArg::Variable, f};
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

const ValueDecl* stream_in_scope(const CheckContext& ctx, const CallExpr* call) {
  const SourceManager& sm = ctx.ast.getSourceManager();
  const TranslationUnitModel& model = ctx.model;
  const FunctionDecl* fn = model.enclosing_function(call);
  if (!fn || !fn->getBody()) return nullptr;
  auto before_call = [&](SourceLocation l) { return sm.isBeforeInTranslationUnit(l, call->getBeginLoc()); };

  // Visible stream variables, innermost first; names declared in inner scopes hide outer ones.
  std::vector<const ValueDecl*> visible;
  std::set<std::string> names;
  auto consider = [&](const ValueDecl* v) {
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
  // Fields of `this` the method references (`stream_`), then globals declared before the call;
  // each unless a local or parameter hides its name.
  std::set<const ValueDecl*> fields;
  for (const MemberExpr* m : in_function.members)
    if (const FieldDecl* f = this_stream_field(m)) fields.insert(f);
  if (outer_visible && isa<CXXMethodDecl>(fn) && cast<CXXMethodDecl>(fn)->isInstance())
    for (const ValueDecl* f : fields) consider(f);
  if (outer_visible)
    for (const VarDecl* v : referenced)
      if (v->hasGlobalStorage() && !v->isLocalVarDeclOrParm() && !v->isStaticDataMember() && before_call(v->getLocation()))
        consider(v);

  std::vector<const ValueDecl*> candidates;
  for (const ValueDecl* d : visible) {
    bool created = true;  // a field: referenced in the method (how it became a candidate)
    if (auto* v = dyn_cast<VarDecl>(d))
      created = isa<ParmVarDecl>(v) || v->hasGlobalStorage() ? referenced.count(v) > 0
                                                             : (v->hasInit() || referenced_before.count(v) > 0);
    if (created) candidates.push_back(d);
  }
  if (candidates.empty()) return nullptr;
  auto is_candidate = [&](const ValueDecl* v) {
    return std::find(candidates.begin(), candidates.end(), v) != candidates.end();
  };

  // The neighbours: what the other calls and launches around the call run on.
  const Stmt* scope = innermost_loop ? innermost_loop : body_of_lambda_or_function(innermost_lambda, fn);
  Collected around = collect(scope);
  std::vector<StreamArg> uses;
  for (const CallExpr* c : around.calls)
    if (c != call) stream_args(c, ctx.ast, uses);
  std::set<const ValueDecl*> named;
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
