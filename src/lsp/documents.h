// The open documents: their text as the editor has it, and the last analysis published for each.
// Shared by the message loop (which changes documents) and the analysis worker (which reads
// snapshots and commits results); every member takes the one lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "core/source.h"

namespace stoker::lsp {

// What analysis needs, copied out under the lock.
struct Snapshot {
  std::string uri;
  std::string path;
  std::string language_id;
  std::string text;
  int64_t version = 0;
  uint64_t generation = 0;  // bumps on every change of text or settings
};

// An analysis of one generation of a document.
struct Analysis {
  std::shared_ptr<const SourceFile> source;  // the text analyzed (BOM stripped)
  AnalysisResult result;
  bool skipped = false;  // too large to analyze
  std::string failure;   // set when the analysis threw: `result` is then empty
  uint64_t generation = 0;
};

// A text change as LSP sends it; no range means the whole document.
struct TextChange {
  std::optional<std::pair<uint32_t, uint32_t>> start, end;  // (line, UTF-16 character)
  std::string text;
};

class DocumentStore {
 public:
  void open(const std::string& uri, const std::string& language_id, int64_t version, std::string text);
  // False when the document is not open (the change is ignored).
  bool change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes);
  bool close(const std::string& uri);
  bool is_open(const std::string& uri) const;
  std::optional<Snapshot> snapshot(const std::string& uri) const;
  std::vector<std::string> uris() const;
  // Makes every open document's current analysis stale (settings changed).
  void invalidate_all();
  // Stores `analysis` and calls `publish` (under the lock, so a close or a newer result cannot
  // interleave) only if the document is still open at the analyzed generation.
  bool commit(const std::string& uri, std::shared_ptr<const Analysis> analysis,
              const std::function<void(const Snapshot&, const Analysis&)>& publish);
  // The committed analysis, if it belongs to the current text.
  std::shared_ptr<const Analysis> current_analysis(const std::string& uri) const;

 private:
  struct Document {
    Snapshot snap;
    std::shared_ptr<const Analysis> analysis;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Document> docs_;
  uint64_t next_generation_ = 1;
};

}  // namespace stoker::lsp
