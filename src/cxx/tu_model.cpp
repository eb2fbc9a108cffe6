#include "cxx/tu_model.h"

#include "cxx/check.h"

namespace stoker::cxx {

using namespace clang;

// `do { ... } while (0)` (the statement-like macro idiom) runs its body once: not a loop.
static bool runs_once(const DoStmt* d) {
  const Expr* cond = d->getCond() ? d->getCond()->IgnoreParenImpCasts() : nullptr;
  if (auto* i = dyn_cast_or_null<IntegerLiteral>(cond)) return i->getValue() == 0;
  if (auto* b = dyn_cast_or_null<CXXBoolLiteralExpr>(cond)) return !b->getValue();
  return false;
}

bool is_loop(const Stmt* s) {
  if (auto* d = dyn_cast_or_null<DoStmt>(s)) return !runs_once(d);
  return s && (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<CXXForRangeStmt>(s));
}

std::string qualified_name(const NamedDecl* d) { return d ? d->getQualifiedNameAsString() : std::string(); }

static bool record_matches(const CXXRecordDecl* rd, llvm::StringRef name, int depth = 0) {
  if (!rd || depth > 16) return false;
  if (qualified_name(rd) == name) return true;
  if (auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd))
    if (qualified_name(spec->getSpecializedTemplate()) == name) return true;
  if (!rd->hasDefinition()) return false;
  for (const auto& base : rd->getDefinition()->bases())
    if (record_matches(base.getType()->getAsCXXRecordDecl(), name, depth + 1)) return true;
  return false;
}

bool is_class_or_derived(QualType type, llvm::StringRef name) {
  if (type.isNull()) return false;
  type = type.getNonReferenceType();
  if (type->isPointerType()) type = type->getPointeeType();
  return record_matches(type->getAsCXXRecordDecl(), name);
}

const FunctionDecl* called_definition(const CallExpr* call) {
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd) return nullptr;
  // The instantiation clang built for this call, whose body has the call's types; the
  // template as written when clang did not instantiate it.
  if (const FunctionDecl* def = fd->getDefinition(); def && def->hasBody()) return def;
  if (const FunctionDecl* pattern = fd->getTemplateInstantiationPattern()) fd = pattern;
  const FunctionDecl* def = fd->getDefinition();
  return def && def->hasBody() ? def : nullptr;
}

bool is_instantiation(const FunctionDecl* f) {
  if (!f) return false;
  auto kind = f->getTemplateSpecializationKind();
  return kind == TSK_ImplicitInstantiation || kind == TSK_ExplicitInstantiationDefinition ||
         kind == TSK_ExplicitInstantiationDeclaration;
}

namespace {

// The functions the user wrote, with the instantiations clang built of their function templates
// and of the members of their class templates; a template that has instantiations is analyzed
// through them (their bodies have the real types: a loop over `DataLoader& loader` is a loop
// over a torch::data loader), one never instantiated in the translation unit as written.
class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
 public:
  FunctionCollector(const SourceManager& sm, std::vector<const FunctionDecl*>& out) : sm_(sm), out_(out) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl* f) {
    if (!f->doesThisDeclarationHaveABody() || sm_.isInSystemHeader(f->getLocation())) return true;
    if (auto* m = dyn_cast<CXXMethodDecl>(f); m && m->getParent()->isLambda()) return true;
    if (is_instantiation(f))
      if (const FunctionDecl* pattern = f->getTemplateInstantiationPattern()) instantiated_.insert(pattern);
    if (seen_.insert(f).second) out_.push_back(f);
    return true;
  }
  // Drops the templates that were analyzed through their instantiations.
  void drop_instantiated_patterns() {
    out_.erase(std::remove_if(out_.begin(), out_.end(),
                              [&](const FunctionDecl* f) { return instantiated_.count(f->getDefinition()) > 0 ||
                                                                 instantiated_.count(f) > 0; }),
               out_.end());
  }

 private:
  const SourceManager& sm_;
  std::vector<const FunctionDecl*>& out_;
  std::set<const FunctionDecl*> instantiated_, seen_;
};

bool is_library_gpu_work(llvm::StringRef n) {
  static const char* const launches[] = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaGraphLaunch",
                                         "cudaLaunchKernelEx", "cuLaunchKernel", "cuGraphLaunch"};
  for (const char* l : launches)
    if (n == l) return true;
  auto setup = [](llvm::StringRef rest) {
    return rest.starts_with("Create") || rest.starts_with("Destroy") || rest.starts_with("Set") ||
           rest.starts_with("Get") || rest.starts_with("Init");
  };
  if (n.starts_with("cublasLt")) {
    llvm::StringRef rest = n.drop_front(8);
    return rest == "Matmul";
  }
  if (n.starts_with("cublas")) return !setup(n.drop_front(6));
  if (n.starts_with("cudnn")) return !setup(n.drop_front(5)) && !n.contains("Descriptor") && !n.contains("Workspace");
  if (n.starts_with("cusparse")) return !setup(n.drop_front(8)) && !n.contains("BufferSize");
  if (n.starts_with("cufftExec") || n.starts_with("curandGenerate")) return !n.starts_with("curandGenerateSeeds");
  if (n.starts_with("nccl")) {
    llvm::StringRef rest = n.drop_front(4);
    return rest == "AllReduce" || rest == "Broadcast" || rest == "Bcast" || rest == "Reduce" || rest == "AllGather" ||
           rest == "ReduceScatter" || rest == "Send" || rest == "Recv" || rest == "AllToAll";
  }
  return false;
}

}  // namespace

TranslationUnitModel::TranslationUnitModel(ASTContext& ast, bool compile_database_mode)
    : ast_(ast), compile_database_mode_(compile_database_mode) {
  FunctionCollector collector(ast.getSourceManager(), functions_);
  collector.TraverseDecl(ast.getTranslationUnitDecl());
  collector.drop_instantiated_patterns();
  for (const FunctionDecl* f : functions_) {
    calls_in_[f];
    body_owner_[f->getBody()] = f;
    walk(f->getBody(), nullptr, f);
  }
  // Functions that do GPU work, transitively (fixpoint: cycle-safe).
  for (const FunctionDecl* f : functions_)
    for (const CallExpr* c : calls_in_[f])
      if (is_gpu_work(c)) {
        gpu_functions_.insert(f);
        break;
      }
  for (bool changed = true; changed;) {
    changed = false;
    for (const FunctionDecl* f : functions_) {
      if (gpu_functions_.count(f)) continue;
      for (const CallExpr* c : calls_in_[f])
        if (const FunctionDecl* d = called_definition(c); d && gpu_functions_.count(d)) {
          gpu_functions_.insert(f);
          changed = true;
          break;
        }
    }
  }
  propagate_iteration();
  classify_loops();
}

// A loader passed to a function (`train(*loader)`, `train(loader)`) whose parameter that
// function iterates with a range-for is iterated too: the template training loops of
// pytorch/examples take the loader as `DataLoader& data_loader`.
void TranslationUnitModel::propagate_iteration() {
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (const CallExpr* call : calls_) {
      const FunctionDecl* d = called_definition(call);
      if (!d) continue;
      unsigned shift = isa<CXXOperatorCallExpr>(call) && isa<CXXMethodDecl>(d) ? 1 : 0;
      for (unsigned i = shift; i < call->getNumArgs() && i - shift < d->getNumParams(); ++i) {
        if (!iterated_.count(d->getParamDecl(i - shift))) continue;
        const Expr* a = call->getArg(i)->IgnoreParenImpCasts();
        if (auto* op = dyn_cast<CXXOperatorCallExpr>(a); op && op->getOperator() == OO_Star && op->getNumArgs() == 1)
          a = op->getArg(0)->IgnoreParenImpCasts();
        if (auto* u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == UO_Deref) a = u->getSubExpr()->IgnoreParenImpCasts();
        if (auto* ref = dyn_cast<DeclRefExpr>(a))
          if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) changed |= iterated_.insert(v).second;
      }
    }
    if (!changed) break;
  }
}

void TranslationUnitModel::note_write(const Expr* lhs, const Expr* value, bool tracked) {
  lhs = lhs->IgnoreParenImpCasts();
  const ValueDecl* d = nullptr;
  if (auto* ref = dyn_cast<DeclRefExpr>(lhs)) d = ref->getDecl();
  else if (auto* mem = dyn_cast<MemberExpr>(lhs)) d = mem->getMemberDecl();
  if (!d) return;
  Writes& w = writes_[d];
  if (tracked && value) w.values.push_back(value);
  else w.other_writes = true;
}

void TranslationUnitModel::walk(const Stmt* s, const Stmt* parent, const FunctionDecl* fn) {
  if (!s || parent_.count(s)) return;  // shared subtrees (lambda bodies) are walked once
  parent_[s] = parent;
  if (is_loop(s)) loops_.push_back(s);
  if (auto* call = dyn_cast<CallExpr>(s)) {
    calls_.push_back(call);
    calls_in_[fn].push_back(call);
    if (const FunctionDecl* d = called_definition(call)) calls_to_[d].push_back(call);
    if (isa<CUDAKernelCallExpr>(call)) uses_cuda_ = true;
    if (auto* fd = call->getDirectCallee()) {
      std::string q = qualified_name(fd);
      if (llvm::StringRef(q).starts_with("cuda") || llvm::StringRef(q).starts_with("torch::cuda::")) uses_cuda_ = true;
    }
    for (const Expr* arg : call->arguments()) {
      const Expr* a = arg->IgnoreParenCasts();
      if (auto* u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == UO_AddrOf) {
        const Expr* target = u->getSubExpr()->IgnoreParenImpCasts();
        const ValueDecl* d = nullptr;
        if (auto* ref = dyn_cast<DeclRefExpr>(target)) d = ref->getDecl();
        else if (auto* mem = dyn_cast<MemberExpr>(target)) d = mem->getMemberDecl();
        if (d) writes_[d].address_passed_to.push_back(call);
      }
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
      if (auto* ref = dyn_cast_or_null<DeclRefExpr>(mc->getImplicitObjectArgument()
                                                        ? mc->getImplicitObjectArgument()->IgnoreParenImpCasts()
                                                        : nullptr))
        if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) member_calls_[v].push_back(mc);
      if (mc->getMethodDecl() && mc->getMethodDecl()->getName() == "cuda" &&
          is_class_or_derived(mc->getObjectType(), "at::Tensor"))
        uses_cuda_ = true;
    }
  } else if (auto* bo = dyn_cast<BinaryOperator>(s)) {
    if (bo->getOpcode() == BO_Assign) note_write(bo->getLHS(), bo->getRHS(), true);
    else if (bo->isCompoundAssignmentOp()) note_write(bo->getLHS(), nullptr, false);
  } else if (auto* u = dyn_cast<UnaryOperator>(s)) {
    if (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) note_write(u->getSubExpr(), nullptr, false);
  } else if (auto* ref = dyn_cast<DeclRefExpr>(s)) {
    const ValueDecl* d = ref->getDecl();
    if (d->getName() == "kCUDA") uses_cuda_ = true;
    if (auto* ec = dyn_cast<EnumConstantDecl>(d); ec && ec->getName() == "CUDA" &&
                                                  qualified_name(ec).find("DeviceType") != std::string::npos)
      uses_cuda_ = true;
  } else if (auto* str = dyn_cast<StringLiteral>(s)) {
    if (str->getCharByteWidth() == 1) {
      llvm::StringRef v = str->getString();
      if (v == "cuda" || v.starts_with("cuda:")) uses_cuda_ = true;
    }
  } else if (auto* range_for = dyn_cast<CXXForRangeStmt>(s)) {
    if (const Expr* init = range_for->getRangeInit()) {
      const Expr* e = init->IgnoreParenImpCasts();
      if (auto* op = dyn_cast<CXXOperatorCallExpr>(e); op && op->getNumArgs() == 1) e = op->getArg(0)->IgnoreParenImpCasts();
      if (auto* u = dyn_cast<UnaryOperator>(e)) e = u->getSubExpr()->IgnoreParenImpCasts();
      if (auto* ref = dyn_cast<DeclRefExpr>(e))
        if (auto* v = dyn_cast<VarDecl>(ref->getDecl())) iterated_.insert(v);
    }
  } else if (auto* lambda = dyn_cast<LambdaExpr>(s)) {
    walk(lambda->getBody(), s, fn);
  }
  for (const Stmt* child : s->children()) walk(child, s, fn);
}

bool TranslationUnitModel::is_gpu_work(const CallExpr* call) const {
  if (isa<CUDAKernelCallExpr>(call)) return true;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    if (!m || !m->getIdentifier()) return false;
    llvm::StringRef name = m->getName();
    QualType object = mc->getObjectType();
    if (name == "backward") return is_class_or_derived(object, "at::Tensor");
    if (name == "step") return is_class_or_derived(object, "torch::optim::Optimizer");
    if (name == "forward") return is_class_or_derived(object, "torch::nn::Module");
    return false;
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call)) {
    if (op->getOperator() != OO_Call || op->getNumArgs() == 0) return false;
    return is_class_or_derived(op->getArg(0)->getType(), "torch::nn::ModuleHolder");
  }
  const FunctionDecl* fd = call->getDirectCallee();
  std::string name = callee_name(call);
  if (fd) {
    std::string q = qualified_name(fd);
    if (q == "torch::autograd::backward") return true;
    if (llvm::StringRef(q).starts_with("thrust::") || llvm::StringRef(q).starts_with("cub::")) return true;
  }
  if (is_library_gpu_work(name)) return true;
  // A launch wrapper defined in another translation unit, declared `extern` in the user's code:
  // only with the project's real flags (compile-database mode).
  if (compile_database_mode_ && fd && !called_definition(call) &&
      !ast_.getSourceManager().isInSystemHeader(fd->getLocation())) {
    for (const FunctionDecl* r : fd->redecls())
      if (r->getStorageClass() == SC_Extern) return true;
  }
  return false;
}

bool TranslationUnitModel::calls_gpu_function(const CallExpr* call) const {
  if (is_gpu_work(call)) return true;
  const FunctionDecl* d = called_definition(call);
  return d && gpu_functions_.count(d);
}

bool TranslationUnitModel::loop_has_own_gpu_work(const Stmt* s) const {
  if (!s) return false;
  for (const Stmt* child : s->children()) {
    if (!child) continue;
    if (is_loop(child) && hot_loops_.count(child)) continue;
    if (auto* call = dyn_cast<CallExpr>(child); call && calls_gpu_function(call)) return true;
    if (auto* lambda = dyn_cast<LambdaExpr>(child); lambda && loop_has_own_gpu_work(lambda->getBody())) return true;
    if (loop_has_own_gpu_work(child)) return true;
  }
  return false;
}

bool TranslationUnitModel::is_loader_loop(const Stmt* loop) const {
  auto* range_for = dyn_cast<CXXForRangeStmt>(loop);
  if (!range_for || !range_for->getRangeInit()) return false;
  QualType t = range_for->getRangeInit()->getType();
  const CXXRecordDecl* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!rd) return false;
  std::string q = qualified_name(rd);
  return llvm::StringRef(q).starts_with("torch::data::") && llvm::StringRef(q).contains("DataLoader");
}

bool TranslationUnitModel::records_events(const Stmt* s) const {
  if (!s) return false;
  for (const Stmt* child : s->children()) {
    if (!child) continue;
    if (auto* call = dyn_cast<CallExpr>(child); call && callee_name(call) == "cudaEventRecord") return true;
    if (records_events(child)) return true;
  }
  return false;
}

// The number of iterations of `for (int i = A; i < B; ++i)` (also `<=`, `!=`, `i++`, `i += 1`)
// when A and B resolve, or nullopt.
std::optional<int64_t> TranslationUnitModel::trip_count(const Stmt* loop) const {
  auto* f = dyn_cast<ForStmt>(loop);
  if (!f || !f->getCond() || !f->getInc()) return std::nullopt;
  const ValueDecl* counter = nullptr;
  std::optional<int64_t> start;
  if (auto* ds = dyn_cast_or_null<DeclStmt>(f->getInit()); ds && ds->isSingleDecl()) {
    if (auto* v = dyn_cast<VarDecl>(ds->getSingleDecl()); v && v->getInit()) {
      counter = v;
      start = resolve_int(v->getInit());
    }
  } else if (auto* bo = dyn_cast_or_null<BinaryOperator>(f->getInit()); bo && bo->getOpcode() == BO_Assign) {
    if (auto* ref = dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParenImpCasts())) {
      counter = ref->getDecl();
      start = resolve_int(bo->getRHS());
    }
  }
  if (!counter || !start) return std::nullopt;
  const Expr* inc = f->getInc()->IgnoreParenImpCasts();
  bool step_one = false;
  if (auto* u = dyn_cast<UnaryOperator>(inc); u && u->isIncrementOp()) step_one = true;
  if (auto* ca = dyn_cast<CompoundAssignOperator>(inc); ca && ca->getOpcode() == BO_AddAssign) {
    auto n = resolve_int(ca->getRHS());
    step_one = n && *n == 1;
  }
  auto* cond = dyn_cast<BinaryOperator>(f->getCond()->IgnoreParenImpCasts());
  if (!step_one || !cond) return std::nullopt;
  auto* lhs = dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts());
  if (!lhs || lhs->getDecl() != counter) return std::nullopt;
  auto end = resolve_int(cond->getRHS());
  if (!end) return std::nullopt;
  switch (cond->getOpcode()) {
    case BO_LT:
    case BO_NE: return std::max<int64_t>(0, *end - *start);
    case BO_LE: return std::max<int64_t>(0, *end - *start + 1);
    default: return std::nullopt;
  }
}

// `for (int dev = 0; dev < num_devices; ++dev)` where `cudaGetDeviceCount(&num_devices)`, or a
// bound of `torch::cuda::device_count()`: one iteration per GPU, a sweep like the short loops
// above (a set-up loop that launches an init kernel on each GPU is not a step loop; inside a
// step loop its work counts for that loop, several times a step).
bool TranslationUnitModel::is_device_loop(const Stmt* loop) const {
  auto* f = dyn_cast<ForStmt>(loop);
  if (!f || !f->getCond()) return false;
  bool found = false;
  std::function<void(const Stmt*)> visit = [&](const Stmt* s) {
    if (!s || found) return;
    if (auto* ref = dyn_cast<DeclRefExpr>(s)) {
      if (const Writes* w = writes(ref->getDecl()))
        for (const CallExpr* c : w->address_passed_to)
          if (callee_name(c) == "cudaGetDeviceCount") found = true;
    } else if (auto* call = dyn_cast<CallExpr>(s)) {
      if (auto* fd = call->getDirectCallee(); fd && qualified_name(fd) == "torch::cuda::device_count") found = true;
    }
    for (const Stmt* c : s->children()) visit(c);
  };
  visit(f->getCond());
  return found;
}

void TranslationUnitModel::classify_loops() {
  // Inner loops first: a loop whose GPU work all sits in nested hot loops is an epoch loop.
  // A loop of a few known iterations (`for (int j = 0; j < sizeof(block_sizes) / sizeof(int);
  // j++)`, `for (l = 0; l < 4; l++)`) is a sweep over configurations or layers, not a step loop:
  // its work counts for the loop around it, if any.
  for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
    if (auto n = trip_count(*it); n && *n <= kMaxSweepIterations) continue;
    if (is_device_loop(*it)) continue;
    if (is_loader_loop(*it) || loop_has_own_gpu_work(*it)) hot_loops_.insert(*it);
  }
  // Functions reached from a hot loop, with the call in the loop that reaches them.
  std::vector<const FunctionDecl*> queue;
  for (const Stmt* loop : loops_) {
    if (!hot_loops_.count(loop)) continue;
    std::function<void(const Stmt*)> collect = [&](const Stmt* s) {
      if (!s) return;
      if (auto* call = dyn_cast<CallExpr>(s))
        if (const FunctionDecl* d = called_definition(call); d && !hot_functions_.count(d) && calls_in_.count(d)) {
          hot_functions_[d] = {call, loop};
          queue.push_back(d);
        }
      if (auto* lambda = dyn_cast<LambdaExpr>(s)) collect(lambda->getBody());
      for (const Stmt* c : s->children()) collect(c);
    };
    collect(loop);
  }
  while (!queue.empty()) {
    const FunctionDecl* f = queue.back();
    queue.pop_back();
    auto origin = hot_functions_[f];
    for (const CallExpr* call : calls_in_.at(f))
      if (const FunctionDecl* d = called_definition(call); d && !hot_functions_.count(d) && calls_in_.count(d)) {
        hot_functions_[d] = origin;
        queue.push_back(d);
      }
  }
}

bool TranslationUnitModel::is_hot_loop(const Stmt* loop) const { return hot_loops_.count(loop) > 0; }

const Stmt* TranslationUnitModel::parent(const Stmt* s) const {
  auto it = parent_.find(s);
  return it == parent_.end() ? nullptr : it->second;
}

const FunctionDecl* TranslationUnitModel::enclosing_function(const Stmt* s) const {
  const Stmt* cur = s;
  while (const Stmt* p = parent(cur)) cur = p;
  auto it = body_owner_.find(cur);
  return it == body_owner_.end() ? nullptr : it->second;
}

static const BinaryOperator* find_remainder(const Stmt* s) {
  if (!s) return nullptr;
  if (auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Rem) return bo;
  for (const Stmt* c : s->children())
    if (auto* r = find_remainder(c)) return r;
  return nullptr;
}

// `x == 3`, `first_step`: conditions that hold on one iteration of a run, not on every step.
static bool runs_once(const Expr* cond) {
  cond = cond->IgnoreParenImpCasts();
  auto* bo = dyn_cast<BinaryOperator>(cond);
  if (!bo || bo->getOpcode() != BO_EQ) return false;
  const Expr* l = bo->getLHS()->IgnoreParenImpCasts();
  const Expr* r = bo->getRHS()->IgnoreParenImpCasts();
  return (isa<IntegerLiteral>(r) && isa<DeclRefExpr>(l)) || (isa<IntegerLiteral>(l) && isa<DeclRefExpr>(r));
}

// The variable or field an expression names (`x`, `obj.x`, `p->x`), or null.
static const ValueDecl* named_decl(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl();
  if (auto* mem = dyn_cast<MemberExpr>(e)) return mem->getMemberDecl();
  return nullptr;
}

static std::optional<int64_t> literal_value(const Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* b = dyn_cast<CXXBoolLiteralExpr>(e)) return b->getValue() ? 1 : 0;
  if (auto* i = dyn_cast<IntegerLiteral>(e)) return static_cast<int64_t>(i->getValue().getLimitedValue());
  return std::nullopt;
}

// The constant the branch assigns to one of `flags` (`init = false;`), if it does.
static std::optional<int64_t> assigned_constant(const Stmt* s, const std::vector<const ValueDecl*>& flags) {
  if (!s) return std::nullopt;
  if (auto* bo = dyn_cast<BinaryOperator>(s); bo && bo->getOpcode() == BO_Assign) {
    const ValueDecl* target = named_decl(bo->getLHS());
    if (target && std::find(flags.begin(), flags.end(), target) != flags.end())
      if (auto v = literal_value(bo->getRHS())) return v;
  }
  for (const Stmt* c : s->children())
    if (auto v = assigned_constant(c, flags)) return v;
  return std::nullopt;
}

bool TranslationUnitModel::in_hot_region(const Stmt* s) const {
  const Stmt* cur = s;
  while (const Stmt* p = parent(cur)) {
    if (hot_loops_.count(p)) return true;
    cur = p;
  }
  auto owner = body_owner_.find(cur);
  return owner != body_owner_.end() && hot_functions_.count(owner->second) > 0;
}

// A first-iteration flag: `if (init) { init = false; ... }`, also through a local copy
// (`bool init = model->init; if (init) { model->init = false; ... }`): the block runs once,
// unless the flag is set back (to another value, or some other way) every step.
bool TranslationUnitModel::clears_own_flag(const IfStmt* ifs) const {
  const Expr* cond = ifs->getCond()->IgnoreParenImpCasts();
  if (auto* u = dyn_cast<UnaryOperator>(cond); u && u->getOpcode() == UO_LNot) cond = u->getSubExpr()->IgnoreParenImpCasts();
  const ValueDecl* flag = named_decl(cond);
  if (!flag) return false;
  std::vector<const ValueDecl*> flags{flag};
  if (auto* v = dyn_cast<VarDecl>(flag); v && v->getInit())
    if (const ValueDecl* source = named_decl(v->getInit())) flags.push_back(source);
  auto cleared = assigned_constant(ifs->getThen(), flags);
  if (!cleared) return false;
  for (const ValueDecl* d : flags) {
    const Writes* w = writes(d);
    if (!w) continue;
    if (w->other_writes) return false;
    for (const Expr* value : w->values) {
      auto v = literal_value(value);
      if ((!v || *v != *cleared) && in_hot_region(value)) return false;  // re-armed every step
    }
  }
  return true;
}

std::optional<HotContext> TranslationUnitModel::hot_context(const Stmt* s) const {
  HotContext ctx;
  const Stmt* cur = s;
  // In a branch that leaves the loop (`if (converged) { ...; break; }`): it runs on the last
  // iteration only, once per run, when the `break` is the hot loop's or the `return` leaves the
  // function that holds the hot loop.
  bool pending_break = false, pending_return = false;
  while (true) {
    const Stmt* p = parent(cur);
    if (!p) {
      auto owner = body_owner_.find(cur);
      if (owner == body_owner_.end()) return std::nullopt;
      auto hot = hot_functions_.find(owner->second);
      if (hot == hot_functions_.end()) return std::nullopt;
      ctx.via = hot->second.first;
      ctx.loop = hot->second.second;
      ctx.scope = owner->second;
      ctx.at = s;
      ctx.timing_loop = records_events(ctx.loop);
      return ctx;
    }
    if (auto* ifs = dyn_cast<IfStmt>(p); ifs && cur == ifs->getThen() && ifs->getCond()) {
      if (const BinaryOperator* rem = find_remainder(ifs->getCond())) {
        auto n = resolve_int(rem->getRHS());
        if (!n || *n != 1) {
          ctx.amortized = true;
          if (n) ctx.interval = ctx.interval ? std::max(*ctx.interval, *n) : *n;
        }
      } else if (runs_once(ifs->getCond()) || clears_own_flag(ifs)) {
        return std::nullopt;
      }
    }
    if (auto* ifs = dyn_cast<IfStmt>(p); ifs && (cur == ifs->getThen() || cur == ifs->getElse())) {
      const Stmt* last = cur;
      if (auto* block = dyn_cast<CompoundStmt>(cur)) last = block->body_empty() ? nullptr : block->body_back();
      if (last && isa<BreakStmt>(last)) pending_break = true;
      if (last && isa<ReturnStmt>(last)) pending_return = true;
    }
    if (isa<SwitchStmt>(p)) pending_break = false;
    if (is_loop(p)) {
      if (hot_loops_.count(p)) {
        if (pending_break || pending_return) return std::nullopt;
        ctx.loop = p;
        ctx.scope = p;
        ctx.at = s;
        ctx.timing_loop = records_events(p);
        return ctx;
      }
      ctx.repeated = true;
      pending_break = false;  // it leaves this inner loop, not the hot one
    }
    cur = p;
  }
}

const TranslationUnitModel::Writes* TranslationUnitModel::writes(const ValueDecl* d) const {
  auto it = writes_.find(d);
  return it == writes_.end() ? nullptr : &it->second;
}

const std::vector<const CallExpr*>& TranslationUnitModel::calls_to(const FunctionDecl* f) const {
  static const std::vector<const CallExpr*> none;
  auto it = calls_to_.find(f);
  return it == calls_to_.end() ? none : it->second;
}

const std::vector<const CXXMemberCallExpr*>& TranslationUnitModel::member_calls_on(const VarDecl* v) const {
  static const std::vector<const CXXMemberCallExpr*> none;
  auto it = member_calls_.find(v);
  return it == member_calls_.end() ? none : it->second;
}

std::optional<int64_t> TranslationUnitModel::resolve_int(const Expr* e, int depth) const {
  if (!e || depth > 8) return std::nullopt;
  if (auto* def = dyn_cast<CXXDefaultArgExpr>(e)) e = def->getExpr();
  e = e->IgnoreParenImpCasts();
  if (e->isValueDependent() || e->isTypeDependent()) return std::nullopt;
  Expr::EvalResult r;
  if (e->EvaluateAsInt(r, ast_)) return r.Val.getInt().getExtValue();
  if (auto* cast = dyn_cast<ExplicitCastExpr>(e)) return resolve_int(cast->getSubExpr(), depth + 1);
  if (auto* ref = dyn_cast<DeclRefExpr>(e)) {
    auto* v = dyn_cast<VarDecl>(ref->getDecl());
    if (!v || isa<ParmVarDecl>(v) || !v->getType()->isIntegralOrEnumerationType()) return std::nullopt;
    const Writes* w = writes(v);
    if (w && (w->other_writes || !w->values.empty())) return std::nullopt;
    return v->getInit() ? resolve_int(v->getInit(), depth + 1) : std::nullopt;
  }
  if (auto* mem = dyn_cast<MemberExpr>(e)) {
    auto* f = dyn_cast<FieldDecl>(mem->getMemberDecl());
    if (!f || !f->hasInClassInitializer()) return std::nullopt;
    const Writes* w = writes(f);
    if (w && (w->other_writes || !w->values.empty())) return std::nullopt;
    return resolve_int(f->getInClassInitializer(), depth + 1);
  }
  if (auto* bo = dyn_cast<BinaryOperator>(e)) {
    auto l = resolve_int(bo->getLHS(), depth + 1);
    if (!l) return std::nullopt;
    auto r2 = resolve_int(bo->getRHS(), depth + 1);
    if (!r2) return std::nullopt;
    switch (bo->getOpcode()) {
      case BO_Add: return *l + *r2;
      case BO_Sub: return *l - *r2;
      case BO_Mul: return *l * *r2;
      case BO_Div: return *r2 ? std::optional<int64_t>(*l / *r2) : std::nullopt;
      case BO_Shl: return *r2 >= 0 && *r2 < 63 ? std::optional<int64_t>(*l << *r2) : std::nullopt;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace stoker::cxx
