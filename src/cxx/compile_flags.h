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
  // A problem with the flags that the user should hear about (a response file that cannot be
  // read); the file is still analyzed with what could be read.
  std::string warning;
};

// Expands response files in a compile command as the build tool would read them: `@file`
// (clang, gcc) and nvcc's `--options-file file[,file...]` / `-optf file`, relative to
// `directory`, nested ones too, with LLVM's own expansion (llvm::cl::ExpansionContext, GNU
// quoting). Returns an error message, empty when every file was read.
std::string expand_response_files(std::vector<std::string>& command_line, const std::string& directory);

// `<toolkit>/include/cccl` when the toolkit has one (CUDA 13 moved Thrust, CUB and libcu++
// there; nvcc adds it itself, clang's --cuda-path does not), else empty.
std::string cccl_include_dir(const std::string& toolkit);

// `abs_path` is the absolute path of the file to analyze; `text` its contents (a header that
// holds CUDA code is parsed as CUDA).
CompileFlags compile_flags_for(const std::string& abs_path, const Settings& settings, const std::string& text = {});

bool is_cuda_path(const std::string& path);
// A C++ header (.h, .hpp, ...) whose text declares CUDA functions (`__global__`, `__device__`,
// `__host__`) or launches kernels: nvcc only ever sees it through a .cu file, so it is CUDA.
bool header_holds_cuda(const std::string& path, const std::string& text);

}  // namespace stoker::cxx
