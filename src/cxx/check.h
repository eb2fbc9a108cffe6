// What every C++ check sees: the AST, the translation-unit model, pointer provenance, and a
// way to report. Checks are written in the style of clang-tidy: each one registers AST
// matchers built from named parts and turns a match into a Diagnostic. The matchers run on
// the nodes of the one walk over the file's own code (see TranslationUnitModel), never on a
// second traversal.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "core/settings.h"
#include "cxx/clang_headers.h"
#include "cxx/pinned_memory.h"
#include "cxx/tu_model.h"

namespace stoker::cxx {

class CheckContext {
 public:
  CheckContext(clang::ASTContext& ast, const TranslationUnitModel& model, const PinnedMemoryTracker& memory,
               const SourceFile& file, const Settings& settings)
      : ast(ast), model(model), memory(memory), file(file), settings(settings) {}

  clang::ASTContext& ast;
  const TranslationUnitModel& model;
  const PinnedMemoryTracker& memory;
  const SourceFile& file;
  const Settings& settings;
  std::vector<Diagnostic> diagnostics;

  // The byte range in the analyzed file of a node, at the spelling of its tokens (also inside
  // a macro argument); nullopt when it is not in the main file.
  std::optional<TextRange> range_of(clang::SourceRange r) const;
  // The callee name token of a call (reported location), falling back to the whole call.
  std::optional<TextRange> callee_range(const clang::CallExpr* call) const;
  // True when any part of the node comes from a macro expansion: no fix is offered there.
  bool in_macro(clang::SourceRange r) const;
  std::string text_of(clang::SourceRange r) const;

  // Fills file, related (the hot loop's call site when reached through a call) and severity
  // (info when amortized) and records the diagnostic.
  void report(Diagnostic d, const HotContext* hot);
};

class Check : public clang::ast_matchers::MatchFinder::MatchCallback {
 public:
  explicit Check(CheckContext& ctx) : ctx_(ctx) {}
  virtual void register_matchers(clang::ast_matchers::MatchFinder& finder) = 0;
  // Called once after every node was matched (for checks that aggregate).
  virtual void finish() {}

 protected:
  CheckContext& ctx_;
};

std::vector<std::unique_ptr<Check>> make_checks(CheckContext& ctx);

// Named matcher parts shared by checks.
namespace match {
// A call to a free function with one of `names` (declared in the global namespace or extern "C").
clang::ast_matchers::internal::BindableMatcher<clang::Stmt> call_to(std::vector<std::string> names);
// A member call on at::Tensor named `name`.
clang::ast_matchers::internal::BindableMatcher<clang::Stmt> tensor_method(std::string name);
}  // namespace match

// Small AST helpers.
const clang::Expr* strip(const clang::Expr* e);
std::string callee_name(const clang::CallExpr* call);
// The `i`-th argument as written, or nullptr when absent or defaulted.
const clang::Expr* written_arg(const clang::CallExpr* call, unsigned i);

}  // namespace stoker::cxx

namespace stoker::cxx {

// The argument layout of the CUDA copy functions (-1: not present / device side).
struct CopySignature {
  const char* name;
  int dst, src, size, height, kind;
  int64_t default_kind;  // when the kind argument is absent
  bool async;
};
const CopySignature* copy_signature(llvm::StringRef name);
inline constexpr int64_t kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3;
// cudaMemcpyKind of a copy call, when resolved.
std::optional<int64_t> copy_kind(const CheckContext& ctx, const clang::CallExpr* call, const CopySignature& sig);
// Bytes a copy moves, when resolved.
std::optional<int64_t> copy_bytes(const CheckContext& ctx, const clang::CallExpr* call, const CopySignature& sig);
inline constexpr int64_t kSmallCopyBytes = 64 * 1024;

// What a LibTorch make_data_loader call's DataLoaderOptions resolve to.
struct LoaderOptions {
  bool workers_known = true;
  int64_t workers = 0;           // LibTorch default
  bool batch_known = true;
  int64_t batch_size = 1;        // LibTorch default
  const clang::Expr* batch_expr = nullptr;   // where the batch size is written, if it is
  const clang::Expr* options_arg = nullptr;  // the options argument as written, if it is
  bool options_is_variable = false;
};
LoaderOptions loader_options(const CheckContext& ctx, const clang::CallExpr* make_data_loader);
// The variable a make_data_loader call's result is stored in (`auto loader = ...`), if any.
const clang::VarDecl* loader_variable(const CheckContext& ctx, const clang::CallExpr* call);

}  // namespace stoker::cxx
