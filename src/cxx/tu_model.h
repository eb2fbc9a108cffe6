// The questions every C++ check asks, answered once per translation unit: which loops are hot
// (rules.md, "Hot loop"), whether a statement runs in one (directly or through functions the
// translation unit defines, transitively and cycle-safe), whether it is amortized
// (`if (step % N == 0)`), whether the program uses CUDA, and what an integer expression
// resolves to. Built by one walk over the bodies of the functions the user wrote (system
// headers and shims are not walked); the same walk hands every call to the checks.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "cxx/clang_headers.h"

namespace stoker::cxx {

struct HotContext {
  const clang::Stmt* loop = nullptr;     // the hot loop
  const clang::CallExpr* via = nullptr;  // the call in the hot loop that reaches the statement
  bool amortized = false;                // under `if (step % N == 0)`
  std::optional<int64_t> interval;       // N when resolved
  bool timing_loop = false;              // the loop records CUDA events around its work
  bool repeated = false;                 // in a loop nested in the hot loop: several times a step
  // The unit "one iteration" is counted in: the hot loop, or the called function.
  const void* scope = nullptr;
  const clang::Stmt* at = nullptr;       // the statement asked about
};

class TranslationUnitModel {
 public:
  TranslationUnitModel(clang::ASTContext& ast, bool compile_database_mode);

  // Every call expression in the user's code, in source order, for the checks.
  const std::vector<const clang::CallExpr*>& calls() const { return calls_; }
  const std::vector<const clang::Stmt*>& loops() const { return loops_; }

  std::optional<HotContext> hot_context(const clang::Stmt* s) const;
  bool is_hot_loop(const clang::Stmt* loop) const;
  bool uses_cuda() const { return uses_cuda_; }
  bool is_gpu_work(const clang::CallExpr* call) const;
  // GPU work, or a call of a function of the translation unit that does GPU work (transitively).
  bool calls_gpu_function(const clang::CallExpr* call) const;
  const clang::Stmt* parent(const clang::Stmt* s) const;
  const clang::FunctionDecl* enclosing_function(const clang::Stmt* s) const;

  // Integer value of an expression (rules.md, "Resolved values in C++"), or nullopt.
  std::optional<int64_t> resolve_int(const clang::Expr* e, int depth = 0) const;

  // Values stored into a variable or field by `=` or its initializer; `tracked_writes_only`
  // is false when it is also written some other way (++, +=, its address taken).
  struct Writes {
    std::vector<const clang::Expr*> values;
    std::vector<const clang::CallExpr*> address_passed_to;  // f(&x): allocation out-parameters
    bool other_writes = false;
  };
  const Writes* writes(const clang::ValueDecl* d) const;
  const std::vector<const clang::CallExpr*>& calls_to(const clang::FunctionDecl* f) const;
  const std::vector<const clang::CXXMemberCallExpr*>& member_calls_on(const clang::VarDecl* v) const;
  bool iterated_in_range_for(const clang::VarDecl* v) const { return iterated_.count(v) > 0; }
  clang::ASTContext& ast() const { return ast_; }

 private:
  void walk(const clang::Stmt* s, const clang::Stmt* parent, const clang::FunctionDecl* fn);
  void note_write(const clang::Expr* lhs, const clang::Expr* value, bool tracked);
  void classify_loops();
  void propagate_iteration();
  bool loop_has_own_gpu_work(const clang::Stmt* s) const;
  bool is_loader_loop(const clang::Stmt* loop) const;
  bool records_events(const clang::Stmt* loop) const;
  std::optional<int64_t> trip_count(const clang::Stmt* loop) const;
  bool in_hot_region(const clang::Stmt* s) const;
  bool clears_own_flag(const clang::IfStmt* ifs) const;
  // Loops with at most this many known iterations are configuration or layer sweeps, not hot.
  static constexpr int64_t kMaxSweepIterations = 8;

  clang::ASTContext& ast_;
  bool compile_database_mode_;
  bool uses_cuda_ = false;
  std::vector<const clang::FunctionDecl*> functions_;
  std::vector<const clang::CallExpr*> calls_;
  std::vector<const clang::Stmt*> loops_;
  std::map<const clang::Stmt*, const clang::Stmt*> parent_;
  std::map<const clang::Stmt*, const clang::FunctionDecl*> body_owner_;
  std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>> calls_in_;
  std::map<const clang::FunctionDecl*, std::vector<const clang::CallExpr*>> calls_to_;
  std::map<const clang::ValueDecl*, Writes> writes_;
  std::map<const clang::VarDecl*, std::vector<const clang::CXXMemberCallExpr*>> member_calls_;
  std::set<const clang::VarDecl*> iterated_;
  std::set<const clang::FunctionDecl*> gpu_functions_;   // do GPU work, transitively
  std::set<const clang::Stmt*> hot_loops_;
  // Functions called from a hot loop (transitively): the call in the loop that reaches them.
  std::map<const clang::FunctionDecl*, std::pair<const clang::CallExpr*, const clang::Stmt*>> hot_functions_;
};

// The definition of the function a call reaches, when the translation unit has it.
const clang::FunctionDecl* called_definition(const clang::CallExpr* call);
// An instantiation clang built of a function template or of a class template's member.
bool is_instantiation(const clang::FunctionDecl* f);
bool is_loop(const clang::Stmt* s);
// The fully qualified name of a declaration ("torch::cuda::synchronize").
std::string qualified_name(const clang::NamedDecl* d);
// True when `type` names a class (or a class derived from one) whose qualified name is `name`.
bool is_class_or_derived(clang::QualType type, llvm::StringRef name);

}  // namespace stoker::cxx
