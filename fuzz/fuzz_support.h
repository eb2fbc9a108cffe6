// Shared by the fuzz targets (fuzz/README.md): the in-memory file every target analyzes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/source.h"

namespace stoker::fuzz {

// A directory that does not exist, so that nothing on disk (a compilation database, a
// configuration file) is found for the fuzzed file: its text alone decides what happens.
inline constexpr const char* kFuzzDir = "/nonexistent-stoker-fuzz/";

inline std::string bytes(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// What `stoker check` and the language server hand to analyze(): the CLI skips files with
// invalid UTF-8 (read_source_file), and the server only ever has JSON strings, which are valid
// UTF-8 (NUL bytes included, as \u0000). Returns false for text no consumer passes on.
inline bool consumer_would_analyze(const std::string& text) {
  return first_invalid_utf8(text) == std::string::npos;
}

}  // namespace stoker::fuzz
