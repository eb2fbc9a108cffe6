// The result cache of `stoker check`, like ruff's: one entry per analyzed file under
// `.stoker_cache/` (which carries a `.gitignore` of `*`), keyed by the SHA-1 of
// - the stoker build (version, plus the size and time of the executable, so that a rebuilt
//   binary never trusts results of an older one),
// - the file's effective settings (every field of Settings that analysis reads),
// - the path as given and the file's bytes.
// An entry also lists the files the result depended on besides the file itself, each with its
// content hash, and is trusted only while every one of them is unchanged. Python analysis is
// per file today, so that list is empty; once analysis spans the project (imported modules),
// the analyzer's dependency list goes there and the key stays the same. In project mode an entry
// also holds the module's state (summary and the facts it read): the project analyzes the module
// again when one of those facts has changed (src/python/project.h). C++/CUDA files are not
// cached: their results depend on headers and compile_commands.json that nothing records yet.
//
// Entries are written atomically (a temporary file renamed into place); an entry that does not
// parse, names another key or has the wrong shape is ignored and rewritten, never trusted.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

#include "core/analyzer.h"
#include "core/settings.h"
#include "core/source.h"

namespace stoker::cli {

// Every Settings field that analysis reads, as one string (part of the cache key).
std::string settings_fingerprint(const Settings& s);

class ResultCache {
 public:
  // `root` is the cache directory (e.g. `.stoker_cache`); it is created on the first store.
  explicit ResultCache(std::filesystem::path root);
  // Analyzes `file` with `settings`, or returns the stored result for the same key.
  AnalysisResult analyze(const SourceFile& file, const Settings& settings);
  // Project mode (a Python module of a project): the result and the module's state (its summary
  // and the facts it read, src/python/project.h) under the same key plus a project marker. The
  // project decides whether the facts still hold; the entry only says the file is unchanged.
  std::optional<AnalysisResult> load_module(const SourceFile& file, const Settings& settings, std::string& state);
  void store_module(const SourceFile& file, const Settings& settings, const AnalysisResult& result,
                    const std::string& state);
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }
  size_t write_failures() const { return write_failures_; }

 private:
  std::optional<AnalysisResult> load(const std::filesystem::path& entry, const std::string& key,
                                     const std::string& path, std::string* state = nullptr);
  void store(const std::filesystem::path& entry, const std::string& key, const std::string& path,
             const AnalysisResult& result, const std::string* state = nullptr);
  std::string key_of(const SourceFile& file, const Settings& settings, bool project) const;
  bool prepare();  // creates the directory and its .gitignore once; false when it cannot

  std::filesystem::path root_, dir_;  // dir_: root_/<build>
  std::string build_;
  std::atomic<size_t> hits_{0}, misses_{0}, write_failures_{0};
  std::atomic<int> prepared_{0};  // 0 unknown, 1 ready, -1 unusable
};

// `stoker clean`: removes every `.stoker_cache` directory under `dir` (not entering .git).
// Returns the directories removed.
std::vector<std::string> clean_caches(const std::filesystem::path& dir);

}  // namespace stoker::cli
