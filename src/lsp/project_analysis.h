// Project mode in the language server: a Python document is analyzed with the modules next to
// it (src/python/project.h), and every module's state (its result, summary and the facts it
// read) is kept in memory between analyses. A change re-analyzes the changed document and the
// modules whose facts it changed; the other modules come from memory, not from a new analysis.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lsp/documents.h"

namespace stoker::lsp {

class ProjectMemo {
 public:
  // Analyzes `snap` (a .py document) in its project; `open_text` gives the editor's text of
  // other open documents by path. `reanalyzed` receives the other modules analyzed again (their
  // results changed with this document). Never throws: a failure is the Analysis's failure.
  std::shared_ptr<Analysis> analyze(const Snapshot& snap, const Settings& settings,
                                    const std::unordered_map<std::string, std::string>& open_text,
                                    std::vector<std::string>* reanalyzed);
  void clear();
  size_t analyses() const { return analyses_; }  // module analyses done (tests)

 private:
  struct Entry {
    size_t hash = 0;
    AnalysisResult result;
    std::string state;
  };
  struct DiskText {
    std::filesystem::file_time_type mtime;
    uintmax_t size = 0;
    std::string text;
  };
  std::optional<std::string> disk_text(const std::string& path);
  std::mutex mutex_;  // one analysis at a time (the worker; hover and fix-all when pending)
  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, DiskText> disk_;
  size_t analyses_ = 0;
};

// Context modules read besides the document (siblings, its top package).
constexpr size_t kLspProjectContextLimit = 256;

}  // namespace stoker::lsp
