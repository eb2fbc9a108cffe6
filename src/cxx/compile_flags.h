// Where a translation unit's flags come from: a compilation database (real flags, as
// clang-tidy reads them), toolkit mode (an installed CUDA toolkit's headers) or header-free
// mode (stoker's shim headers, the default).
#pragma once

#include <string>
#include <vector>

#include "core/settings.h"

namespace stoker::cxx {

// The virtual directory the embedded shim headers live in.
inline constexpr const char* kShimRoot = "/__stoker_shims__";

enum class FlagSource { HeaderFree, Toolkit, CompilationDatabase };

struct CompileFlags {
  std::vector<std::string> command_line;  // argv[0] ... <file>, ready for the clang driver
  std::string working_directory;
  FlagSource source = FlagSource::HeaderFree;
};

// `abs_path` is the absolute path of the file to analyze.
CompileFlags compile_flags_for(const std::string& abs_path, const Settings& settings);

bool is_cuda_path(const std::string& path);

}  // namespace stoker::cxx
