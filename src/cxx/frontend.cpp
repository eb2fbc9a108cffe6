// Runs clang on one file (text from memory, shims from the binary) and the checks on its AST.
#include <filesystem>
#include <new>
#include <mutex>
#include <algorithm>

#include "cxx/check.h"
#include "cxx/checker.h"
#include "cxx/compile_flags.h"
#include "core/test_hooks.h"

#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/ErrorHandling.h>

namespace stoker::cxx {

struct EmbeddedShim {
  const char* path;
  const char* text;
};
extern const EmbeddedShim kEmbeddedShims[];
extern const unsigned kEmbeddedShimCount;

namespace {

using namespace clang;

// Collects clang's errors instead of printing them.
class ErrorCollector : public DiagnosticConsumer {
 public:
  struct Error {
    std::string message;
    std::optional<TextRange> range;
    std::string where;  // "file:line" when not in the analyzed file
  };
  std::vector<Error> errors;
  void HandleDiagnostic(DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < DiagnosticsEngine::Error) return;
    Error e;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    e.message = std::string(text);
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const SourceManager& sm = info.getSourceManager();
      SourceLocation loc = sm.getFileLoc(info.getLocation());
      if (sm.isWrittenInMainFile(loc)) {
        uint32_t off = sm.getFileOffset(loc);
        e.range = TextRange{off, off};
      } else {
        PresumedLoc p = sm.getPresumedLoc(loc);
        if (p.isValid()) e.where = std::string(p.getFilename()) + ":" + std::to_string(p.getLine());
      }
    }
    errors.push_back(std::move(e));
  }
};

class AnalysisConsumer : public ASTConsumer {
 public:
  AnalysisConsumer(const SourceFile& file, const Settings& settings, bool database, std::vector<stoker::Diagnostic>& out)
      : file_(file), settings_(settings), database_(database), out_(out) {}
  // Function bodies in system headers (the C++ standard library, the shims) are never analyzed:
  // skipping them is most of the cost of a file that includes <vector> or <iostream>. Clang
  // still parses the bodies it must (constexpr functions, deduced return types).
  bool shouldSkipFunctionBody(Decl* d) override {
    const SourceManager& sm = d->getASTContext().getSourceManager();
    return sm.isInSystemHeader(sm.getExpansionLoc(d->getLocation()));
  }
  void HandleTranslationUnit(ASTContext& ast) override {
    TranslationUnitModel model(ast, database_);
    PinnedMemoryTracker memory(model);
    CheckContext ctx(ast, model, memory, file_, settings_);
    auto checks = make_checks(ctx);
    ast_matchers::MatchFinder finder;
    for (auto& c : checks) c->register_matchers(finder);
    // One walk (the model's), the checks' matchers applied to each call of the user's code.
    for (const CallExpr* call : model.calls()) finder.match(*call, ast);
    for (auto& c : checks) c->finish();
    out_ = std::move(ctx.diagnostics);
  }

 private:
  const SourceFile& file_;
  const Settings& settings_;
  bool database_;
  std::vector<stoker::Diagnostic>& out_;
};

// A translation unit may expand to at most this many tokens (the file, its headers and every
// macro expansion, as the parser receives them). Real files, even with the CUDA and LibTorch
// headers of a compilation database, stay far below; a macro that doubles 25 times does not.
// Past the budget, macro expansion is switched off: the expansions in progress run dry at
// once, the parse ends in errors, and the file is reported as "analysis stopped".
constexpr uint64_t kMaxPreprocessedTokens = uint64_t{1} << 24;

class AnalysisAction : public ASTFrontendAction {
 public:
  AnalysisAction(const SourceFile& file, const Settings& settings, bool database, std::vector<stoker::Diagnostic>& out,
                 bool& over_budget)
      : file_(file), settings_(settings), database_(database), out_(out), over_budget_(over_budget) {}
  bool BeginSourceFileAction(CompilerInstance& ci) override {
    Preprocessor& pp = ci.getPreprocessor();
    pp.setTokenWatcher([&pp, this, tokens = uint64_t{0}](const Token&) mutable {
      if (++tokens <= kMaxPreprocessedTokens) return;
      over_budget_ = true;
      pp.SetMacroExpansionOnlyInDirectives();  // again on every token: a nested lex may restore it
    });
    return true;
  }
  bool BeginInvocation(CompilerInstance& ci) override {
    // Keep going after an unknown #include: the rest of the file is still analyzed.
    ci.getDiagnostics().setFatalsAsError(true);
    ci.getDiagnosticOpts().ShowCarets = false;  // no "N errors generated" on stderr
    ci.getFrontendOpts().SkipFunctionBodies = true;  // only where shouldSkipFunctionBody says so
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance& ci, llvm::StringRef) override {
    ci.getDiagnostics().setFatalsAsError(true);
    return std::make_unique<AnalysisConsumer>(file_, settings_, database_, out_);
  }

 private:
  const SourceFile& file_;
  const Settings& settings_;
  bool database_;
  std::vector<stoker::Diagnostic>& out_;
  bool& over_budget_;
};

// LLVM's own allocations (SmallVector growth, BumpPtrAllocator slabs) call this when memory runs
// out; by default it prints "LLVM ERROR: out of memory" and aborts the whole process. Throwing
// std::bad_alloc instead (the use LLVM documents for this handler; it must not allocate) lets
// the runner report this one file and go on with the others.
void throw_bad_alloc(void*, const char*, bool) { throw std::bad_alloc(); }

// The LibTorch shim includes no standard header (they cost more to parse than the rest of the
// analysis); a file that uses what real LibTorch includes for it gets those headers back.
void add_std_headers_for_libtorch(const std::string& text, CompileFlags& flags) {
  if (flags.source == FlagSource::CompilationDatabase || text.find("torch/") == std::string::npos) return;
  static const std::pair<const char*, const char*> uses[] = {
      {"std::vector", "STOKER_SHIM_STD_VECTOR"},      {"std::string", "STOKER_SHIM_STD_STRING"},
      {"std::to_string", "STOKER_SHIM_STD_STRING"},   {"std::shared_ptr", "STOKER_SHIM_STD_MEMORY"},
      {"std::make_shared", "STOKER_SHIM_STD_MEMORY"}, {"std::unique_ptr", "STOKER_SHIM_STD_MEMORY"},
      {"std::make_unique", "STOKER_SHIM_STD_MEMORY"}, {"std::tuple", "STOKER_SHIM_STD_TUPLE"},
      {"std::make_tuple", "STOKER_SHIM_STD_TUPLE"},   {"std::tie", "STOKER_SHIM_STD_TUPLE"},
      {"std::get<", "STOKER_SHIM_STD_TUPLE"},         {"std::move", "STOKER_SHIM_STD_TUPLE"},
      {"std::forward", "STOKER_SHIM_STD_TUPLE"},      {"std::isnan", "STOKER_SHIM_STD_CMATH"},
      {"std::isinf", "STOKER_SHIM_STD_CMATH"},        {"std::sqrt", "STOKER_SHIM_STD_CMATH"},
      {"std::min", "STOKER_SHIM_STD_ALGORITHM"},      {"std::max", "STOKER_SHIM_STD_ALGORITHM"},
      {"std::shuffle", "STOKER_SHIM_STD_ALGORITHM"},  {"std::sort", "STOKER_SHIM_STD_ALGORITHM"},
      {"assert(", "STOKER_SHIM_STD_CASSERT"}};
  std::vector<std::string> defines;
  for (const auto& [use, macro] : uses)
    if (text.find(use) != std::string::npos && std::find(defines.begin(), defines.end(), macro) == defines.end())
      defines.push_back(macro);
  auto& cl = flags.command_line;
  for (const auto& d : defines) cl.insert(cl.end() - 1, "-D" + d);  // before the file, which is last
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace

AnalysisResult check(const SourceFile& file, const Settings& settings) {
  static std::once_flag handler_installed;
  std::call_once(handler_installed, [] { llvm::install_bad_alloc_error_handler(throw_bad_alloc); });
  test_hooks::fail_if_requested(file.text);
  AnalysisResult result;
  const std::string abs = absolute_path(file.path);
  CompileFlags flags = compile_flags_for(abs, settings, file.text);
  add_std_headers_for_libtorch(file.text, flags);
  if (!flags.warning.empty()) result.notices.push_back(Notice{file.path, flags.warning, std::nullopt});

  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (unsigned i = 0; i < kEmbeddedShimCount; ++i)
    memory->addFile(std::string(kShimRoot) + "/" + kEmbeddedShims[i].path, 0,
                    llvm::MemoryBuffer::getMemBuffer(kEmbeddedShims[i].text));
  // The analyzed text comes from memory (an editor's unsaved buffer is analyzed as it is).
  memory->addFile(abs, 0, llvm::MemoryBuffer::getMemBufferCopy(file.text, abs));
  // A physical file system with its own working directory: the shared real one would chdir
  // the whole process, under the other analysis threads.
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(memory);
  if (!flags.working_directory.empty()) overlay->setCurrentWorkingDirectory(flags.working_directory);
  auto files = llvm::makeIntrusiveRefCnt<FileManager>(FileSystemOptions(), overlay);

  std::vector<stoker::Diagnostic> diagnostics;
  bool over_budget = false;
  ErrorCollector errors;
  tooling::ToolInvocation invocation(
      flags.command_line,
      std::make_unique<AnalysisAction>(file, settings, flags.source == FlagSource::CompilationDatabase, diagnostics,
                                       over_budget),
      files.get());
  invocation.setDiagnosticConsumer(&errors);
  bool ok = invocation.run();
  if (over_budget) {
    result.errors.push_back(Notice{file.path,
                                   "analysis stopped: the file expands to more than " +
                                       std::to_string(kMaxPreprocessedTokens) +
                                       " preprocessed tokens (a macro that expands too far?)",
                                   std::nullopt});
    return result;
  }
  result.diagnostics = std::move(diagnostics);
  for (auto& d : result.diagnostics) d.file = file.path;
  result.parse_errors = errors.errors.size();

  if (!ok && errors.errors.empty()) {
    result.notices.push_back(Notice{file.path, "clang could not analyze this file (invalid compile flags?)", std::nullopt});
  } else if (!errors.errors.empty()) {
    if (settings.show_parse_errors) {
      for (const auto& e : errors.errors)
        result.notices.push_back(
            Notice{file.path, e.where.empty() ? "clang: " + e.message : "clang: " + e.where + ": " + e.message, e.range});
    } else {
      const auto& first = errors.errors.front();
      std::string msg = "clang reported " + std::to_string(errors.errors.size()) +
                        (errors.errors.size() == 1 ? " error" : " errors") + " (first: " +
                        (first.where.empty() ? "" : first.where + ": ") + first.message +
                        "); findings are reported where the code parsed (--show-parse-errors lists them)";
      result.notices.push_back(Notice{file.path, msg, first.range});
    }
  }
  return result;
}

}  // namespace stoker::cxx
