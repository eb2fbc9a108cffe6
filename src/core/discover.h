// Finding the files to analyze: walks directories, honours .gitignore (through libgit2, the
// same matcher git uses), skips hidden, node_modules, virtualenv and build folders.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/diagnostic.h"

namespace stoker {

struct DiscoveryResult {
  std::vector<std::string> files;   // in a stable order
  std::vector<Notice> errors;       // missing paths, unreadable directories
  std::vector<Notice> warnings;     // directories without analyzable files
};

// `exclude` holds extra path predicates (from configuration); a path for which it returns
// true is skipped when found by walking (explicitly named files are always analyzed).
DiscoveryResult discover_files(const std::vector<std::string>& paths,
                               const std::function<bool(const std::string&)>& exclude = {});

// Reads a whole file. Returns false and sets `error` when it cannot be read or is not text.
bool read_source_file(const std::string& path, std::string& text, std::string& error,
                      size_t max_bytes = 64u << 20);

}  // namespace stoker
