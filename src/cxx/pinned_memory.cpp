#include "cxx/pinned_memory.h"

#include "cxx/check.h"

namespace stoker::cxx {

using namespace clang;

const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::Pageable: return "pageable";
    case MemoryKind::Pinned: return "pinned";
    case MemoryKind::Device: return "device";
    default: return "unknown";
  }
}

static const ValueDecl* referenced_decl(const Expr* e) {
  e = e->IgnoreParenCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl();
  if (auto* mem = dyn_cast<MemberExpr>(e)) return mem->getMemberDecl();
  return nullptr;
}

// The declaration whose storage `e` points into: `buf`, `s.buf`, `v` of `v.data()`, `&x`.
static const ValueDecl* storage_decl(const Expr* e) {
  e = e->IgnoreParenCasts();
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf) {
    const Expr* sub = u->getSubExpr()->IgnoreParenImpCasts();
    if (auto* sub_script = dyn_cast<ArraySubscriptExpr>(sub)) return storage_decl(sub_script->getBase());
    return referenced_decl(sub);
  }
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(e); mc && mc->getMethodDecl() && mc->getMethodDecl()->getIdentifier() &&
                                                 mc->getMethodDecl()->getName() == "data")
    return referenced_decl(mc->getImplicitObjectArgument());
  if (auto* bo = dyn_cast<BinaryOperator>(e); bo && bo->isAdditiveOp())
    return storage_decl(bo->getLHS()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS());
  return referenced_decl(e);
}

bool PinnedMemoryTracker::registered(const ValueDecl* d) const {
  if (!d) return false;
  for (const CallExpr* call : model_.calls())
    if (callee_name(call) == "cudaHostRegister" && call->getNumArgs() > 0 && storage_decl(call->getArg(0)) == d)
      return true;
  return false;
}

MemoryKind PinnedMemoryTracker::kind_of(const Expr* pointer) const {
  std::set<const void*> seen;
  return kind_of(pointer, 0, seen);
}

static MemoryKind combine(MemoryKind a, MemoryKind b, bool first) {
  if (first) return b;
  return a == b ? a : MemoryKind::Unknown;
}

MemoryKind PinnedMemoryTracker::kind_of(const Expr* e, int depth, std::set<const void*>& seen) const {
  if (!e || depth > 12) return MemoryKind::Unknown;
  e = e->IgnoreParenCasts();
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
    return object_kind(u->getSubExpr(), depth + 1, seen);
  if (e->getType()->isArrayType()) return object_kind(e, depth + 1, seen);
  if (auto* bo = dyn_cast<BinaryOperator>(e); bo && bo->isAdditiveOp())
    return kind_of(bo->getLHS()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS(), depth + 1, seen);
  if (isa<CXXNewExpr>(e)) return MemoryKind::Pageable;
  if (auto* call = dyn_cast<CallExpr>(e)) {
    std::string name = callee_name(call);
    if (name == "malloc" || name == "calloc" || name == "realloc" || name == "aligned_alloc")
      return MemoryKind::Pageable;
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
      const CXXMethodDecl* m = mc->getMethodDecl();
      if (m && m->getIdentifier() && m->getName() == "data") {
        QualType object = mc->getObjectType();
        if (is_class_or_derived(object, "std::vector") || is_class_or_derived(object, "std::array") ||
            is_class_or_derived(object, "std::basic_string"))
          return registered(storage_decl(call)) ? MemoryKind::Pinned : MemoryKind::Pageable;
      }
    }
    return MemoryKind::Unknown;
  }
  if (const ValueDecl* d = referenced_decl(e)) {
    if (!d->getType()->isPointerType()) return MemoryKind::Unknown;
    return kind_of_decl(d, depth, seen);
  }
  return MemoryKind::Unknown;
}

// The memory an lvalue lives in: a stack or global object is pageable unless registered.
MemoryKind PinnedMemoryTracker::object_kind(const Expr* e, int depth, std::set<const void*>& seen) const {
  if (!e || depth > 12) return MemoryKind::Unknown;
  e = e->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* v = dyn_cast<VarDecl>(ref->getDecl());
    if (!v || v->getType()->isReferenceType()) return MemoryKind::Unknown;
    return registered(v) ? MemoryKind::Pinned : MemoryKind::Pageable;
  }
  if (auto* mem = dyn_cast<MemberExpr>(e)) {
    if (registered(mem->getMemberDecl())) return MemoryKind::Pinned;
    return mem->isArrow() ? kind_of(mem->getBase(), depth + 1, seen) : object_kind(mem->getBase(), depth + 1, seen);
  }
  if (auto* sub = dyn_cast<ArraySubscriptExpr>(e)) return kind_of(sub->getBase(), depth + 1, seen);
  if (auto* u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
    return kind_of(u->getSubExpr(), depth + 1, seen);
  return MemoryKind::Unknown;
}

MemoryKind PinnedMemoryTracker::kind_of_decl(const ValueDecl* d, int depth, std::set<const void*>& seen) const {
  if (!seen.insert(d).second) return MemoryKind::Unknown;
  if (registered(d)) return MemoryKind::Pinned;
  MemoryKind result = MemoryKind::Unknown;
  bool first = true;
  auto add = [&](MemoryKind k) {
    result = combine(result, k, first);
    first = false;
  };
  auto is_null = [&](const Expr* v) {
    return v->IgnoreParenCasts()->isNullPointerConstant(model_.ast(), Expr::NPC_ValueDependentIsNotNull) !=
           Expr::NPCK_NotNull;
  };
  if (auto* v = dyn_cast<VarDecl>(d); v && v->getInit() && !is_null(v->getInit()))
    add(kind_of(v->getInit(), depth + 1, seen));
  if (auto* f = dyn_cast<FieldDecl>(d); f && f->hasInClassInitializer() && !is_null(f->getInClassInitializer()))
    add(kind_of(f->getInClassInitializer(), depth + 1, seen));
  if (const auto* w = model_.writes(d)) {
    for (const Expr* value : w->values)
      if (!is_null(value)) add(kind_of(value, depth + 1, seen));
    for (const CallExpr* call : w->address_passed_to) {
      std::string name = callee_name(call);
      if (name == "cudaMallocHost" || name == "cudaHostAlloc") add(MemoryKind::Pinned);
      else if (name == "cudaMalloc" || name == "cudaMallocAsync" || name == "cudaMallocPitch" ||
               name == "cudaMallocManaged")
        add(name == "cudaMallocManaged" ? MemoryKind::Unknown : MemoryKind::Device);
      else if (name == "posix_memalign") add(MemoryKind::Pageable);
      else add(MemoryKind::Unknown);  // an out-parameter we do not know
    }
  }
  // A parameter: what every call site in the translation unit passes.
  if (auto* p = dyn_cast<ParmVarDecl>(d)) {
    auto* fn = dyn_cast<FunctionDecl>(p->getDeclContext());
    const FunctionDecl* def = fn ? fn->getDefinition() : nullptr;
    const auto& sites = def ? model_.calls_to(def) : model_.calls_to(nullptr);
    unsigned index = p->getFunctionScopeIndex();
    if (sites.empty()) add(MemoryKind::Unknown);
    for (const CallExpr* call : sites) {
      unsigned offset = isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(def) ? 1 : 0;
      if (index + offset < call->getNumArgs()) add(kind_of(call->getArg(index + offset), depth + 1, seen));
      else add(MemoryKind::Unknown);
    }
  }
  seen.erase(d);
  return first ? MemoryKind::Unknown : result;
}

}  // namespace stoker::cxx
