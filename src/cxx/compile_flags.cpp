#include "cxx/compile_flags.h"

#include <filesystem>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>

#include "cxx/clang_headers.h"

namespace stoker::cxx {

namespace fs = std::filesystem;

bool is_cuda_path(const std::string& path) {
  auto ext = fs::path(path).extension().string();
  return ext == ".cu" || ext == ".cuh";
}

static bool is_header_path(const std::string& path) {
  auto ext = fs::path(path).extension().string();
  return ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".hxx" || ext == ".cuh";
}

bool header_holds_cuda(const std::string& path, const std::string& text) {
  if (!is_header_path(path) || is_cuda_path(path)) return false;
  for (const char* marker : {"__global__", "__device__", "__host__", "<<<"})
    if (text.find(marker) != std::string::npos) return true;
  return false;
}

// Flags every mode shares: syntax only, clang's own builtin headers (stddef.h, the intrinsics,
// cuda_wrappers/) from the copy embedded in the binary (cmake/embed_shims.cmake), so that they
// are found wherever it runs, LLVM installed or not; no error limit (a fatal "too many errors"
// would end the analysis), quiet. The driver's builtin include directory is turned off
// (-nobuiltininc): Debian's clang takes it from /usr/include/clang/VERSION/include, not from
// -resource-dir. The embedded ones come as -isystem: after the user's and the shims' -isystem
// directories, before the C++ standard library's (cuda_wrappers/ must precede <new> and
// <algorithm>, which it wraps), and before the C library's.
static void common_tail(std::vector<std::string>& args, bool cuda) {
  const std::string resource = std::string(kShimRoot) + "/clang-resource";
  args.insert(args.end(), {"-fsyntax-only", "-resource-dir", resource, "-nobuiltininc"});
  if (cuda) args.insert(args.end(), {"-isystem", resource + "/include/cuda_wrappers"});
  args.insert(args.end(), {"-isystem", resource + "/include", "-ferror-limit=0",
                           "-fno-spell-checking", "-w", "-Wno-unknown-cuda-version"});
}

std::string cccl_include_dir(const std::string& toolkit) {
  if (toolkit.empty()) return {};
  fs::path cccl = fs::path(toolkit) / "include" / "cccl";
  std::error_code ec;
  return fs::is_directory(cccl, ec) ? cccl.string() : std::string();
}

std::string expand_response_files(std::vector<std::string>& command_line, const std::string& directory) {
  // nvcc's spellings first, mapped to `@file` (its options files hold the same
  // whitespace-separated, quotable arguments; CMake's Makefiles generator writes the include
  // path into one).
  std::vector<std::string> mapped;
  std::vector<std::string> named;  // the response files the command names, as written
  for (size_t i = 0; i < command_line.size(); ++i) {
    const std::string& x = command_line[i];
    std::string files;
    if ((x == "--options-file" || x == "-optf") && i + 1 < command_line.size()) files = command_line[++i];
    else if (x.rfind("--options-file=", 0) == 0) files = x.substr(15);
    else if (x.rfind("-optf=", 0) == 0) files = x.substr(6);
    else {
      if (i > 0 && x.size() > 1 && x[0] == '@') named.push_back(x.substr(1));
      mapped.push_back(x);
      continue;
    }
    for (llvm::StringRef rest = files; !rest.empty();) {
      auto [one, tail] = rest.split(',');
      if (!one.empty()) {
        named.push_back(one.str());
        mapped.push_back("@" + one.str());
      }
      rest = tail;
    }
  }
  command_line = std::move(mapped);
  if (named.empty()) return {};
  llvm::BumpPtrAllocator alloc;
  llvm::SmallVector<const char*, 64> argv;
  for (const auto& x : command_line) argv.push_back(x.c_str());
  llvm::cl::ExpansionContext expansion(alloc, llvm::cl::TokenizeGNUCommandLine);
  expansion.setCurrentDir(directory);
  std::string problem;
  if (llvm::Error err = expansion.expandResponseFiles(argv)) problem = llvm::toString(std::move(err));
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (size_t i = 0; i < argv.size(); ++i) {
    if (!argv[i]) continue;
    llvm::StringRef a(argv[i]);
    // A response file LLVM could not read stays as `@file`: it is not an input file, drop it.
    if (i > 0 && a.size() > 1 && a.front() == '@') {
      if (problem.empty()) problem = "cannot read response file '" + a.drop_front().str() + "'";
      continue;
    }
    out.push_back(a.str());
  }
  command_line = std::move(out);
  if (!problem.empty())
    return "compile command: " + problem + " (relative to " + directory + "); analyzed without its flags";
  return {};
}

static std::string shim_dir(const char* sub) { return std::string(kShimRoot) + "/" + sub; }

static CompileFlags header_free_or_toolkit(const std::string& abs_path, const Settings& settings, bool cuda) {
  CompileFlags f;
  f.working_directory = fs::path(abs_path).parent_path().string();
  bool toolkit = !settings.cuda_path.empty();
  f.source = toolkit ? FlagSource::Toolkit : FlagSource::HeaderFree;
  auto& a = f.command_line;
  a.push_back("clang++");
  if (cuda) {
    a.insert(a.end(), {"-x", "cuda", "--cuda-host-only", "-nocudalib"});
    if (toolkit) {
      a.push_back("--cuda-path=" + settings.cuda_path);
      if (auto cccl = cccl_include_dir(settings.cuda_path); !cccl.empty()) a.insert(a.end(), {"-isystem", cccl});
    } else {
      // No toolkit: never look for one, so results are the same on every machine.
      // nvcc includes cuda_runtime.h into every .cu file before its first line; so does stoker
      // (the shim), which also defines __host__ and friends before clang's CUDA wrappers of
      // <algorithm> and <new> use them.
      a.insert(a.end(), {"-nocudainc", "--cuda-path=" + std::string(kShimRoot) + "/no-toolkit", "-D__CUDACC__",
                         "-include", shim_dir("cuda") + "/cuda_runtime.h"});
    }
  } else {
    a.insert(a.end(), {"-x", is_header_path(abs_path) ? "c++-header" : "c++"});
    if (toolkit) a.insert(a.end(), {"-isystem", settings.cuda_path + "/include"});
    if (auto cccl = cccl_include_dir(settings.cuda_path); !cccl.empty()) a.insert(a.end(), {"-isystem", cccl});
  }
  a.push_back("-std=c++17");
  // Header-free mode: the shims win over anything installed. Toolkit mode: the toolkit's real
  // headers win; shims only stand in for what it lacks (LibTorch, cuDNN, NCCL).
  if (toolkit) {
    a.insert(a.end(), {"-idirafter", shim_dir("cuda"), "-isystem", shim_dir("libtorch")});
  } else {
    a.insert(a.end(), {"-isystem", shim_dir("cuda"), "-isystem", shim_dir("libtorch")});
  }
  common_tail(a, cuda);
  for (const auto& x : settings.cxx_extra_args) a.push_back(x);
  a.push_back(abs_path);
  return f;
}

// nvcc's command lines are not clang's: keep what determines the code (includes, defines,
// language standard) and parse as clang CUDA host code.
static std::vector<std::string> translate_nvcc(const std::vector<std::string>& in, const std::string& abs_path,
                                               const Settings& settings) {
  std::vector<std::string> out{"clang++", "-x", "cuda", "--cuda-host-only", "-nocudalib"};
  fs::path nvcc(in.empty() ? "" : in[0]);
  std::string toolkit = settings.cuda_path;
  if (toolkit.empty() && nvcc.has_parent_path() && fs::exists(nvcc.parent_path().parent_path() / "include" / "cuda_runtime.h"))
    toolkit = nvcc.parent_path().parent_path().string();
  if (!toolkit.empty()) {
    out.push_back("--cuda-path=" + toolkit);
    if (auto cccl = cccl_include_dir(toolkit); !cccl.empty()) out.insert(out.end(), {"-isystem", cccl});
  } else out.insert(out.end(), {"-nocudainc", "-D__CUDACC__", "-isystem", shim_dir("cuda")});
  bool has_std = false;
  for (size_t i = 1; i < in.size(); ++i) {
    const std::string& x = in[i];
    auto take_next = [&](const char* flag) {
      if (i + 1 < in.size()) out.insert(out.end(), {flag, in[++i]});
    };
    // nvcc's long spellings and its `-isystem=DIR` (CMake's system include flag for nvcc).
    static const std::pair<const char*, const char*> spellings[] = {
        {"--include-path", "-I"},  {"--system-include", "-isystem"}, {"--define-macro", "-D"},
        {"--undefine-macro", "-U"}, {"--pre-include", "-include"},   {"-isystem", "-isystem"},
        {"-include", "-include"}};
    bool done = false;
    for (const auto& [nv, clang_flag] : spellings) {
      std::string eq = std::string(nv) + "=";
      if (x == nv) take_next(clang_flag);
      else if (x.rfind(eq, 0) == 0) out.insert(out.end(), {clang_flag, x.substr(eq.size())});
      else continue;
      done = true;
      break;
    }
    if (done) continue;
    // nvcc defines this macro for per-thread default streams; the CUDA headers key on it (CU008).
    if ((x == "--default-stream" || x == "-default-stream") && i + 1 < in.size()) {
      if (in[++i] == "per-thread") out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      continue;
    }
    if (x == "--default-stream=per-thread" || x == "-default-stream=per-thread") {
      out.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      continue;
    }
    if (x == "-I" || x == "-D" || x == "-U") take_next(x.c_str());
    else if (x.rfind("-isystem", 0) == 0 && x.size() > 8) out.insert(out.end(), {"-isystem", x.substr(8)});
    else if (x.rfind("-I", 0) == 0 || x.rfind("-D", 0) == 0 || x.rfind("-U", 0) == 0) out.push_back(x);
    else if (x.rfind("-std=", 0) == 0) { out.push_back(x); has_std = true; }
    else if ((x == "-std" || x == "--std") && i + 1 < in.size()) { out.push_back("-std=" + in[++i]); has_std = true; }
    else if (x.rfind("--std=", 0) == 0) { out.push_back(x.substr(1)); has_std = true; }
  }
  if (!has_std) out.push_back("-std=c++17");
  out.insert(out.end(), {"-idirafter", shim_dir("cuda"), "-idirafter", shim_dir("libtorch")});
  common_tail(out, true);
  out.push_back(abs_path);
  return out;
}

static std::unique_ptr<clang::tooling::CompilationDatabase> load_database(const std::string& abs_path,
                                                                         const Settings& settings) {
  std::string error;
  if (!settings.compile_commands_dir.empty()) {
    return clang::tooling::CompilationDatabase::loadFromDirectory(settings.compile_commands_dir, error);
  }
  // Upwards from the file, as clang-tidy does.
  return clang::tooling::CompilationDatabase::autoDetectFromSource(abs_path, error);
}

CompileFlags compile_flags_for(const std::string& abs_path, const Settings& settings, const std::string& text) {
  const bool cuda = is_cuda_path(abs_path) || header_holds_cuda(abs_path, text);
  auto db = load_database(abs_path, settings);
  if (db) {
    auto commands = db->getCompileCommands(abs_path);
    // Only the file's own entry: a command inferred from a neighbour (clang's interpolation) may
    // be for another language, and header-free mode is the better guess then.
    if (!commands.empty() && !commands.front().CommandLine.empty() && commands.front().Heuristic.empty()) {
      auto cmd = commands.front();
      CompileFlags f;
      f.source = FlagSource::CompilationDatabase;
      f.working_directory = cmd.Directory;
      f.warning = expand_response_files(cmd.CommandLine, cmd.Directory);
      std::string compiler = fs::path(cmd.CommandLine[0]).filename().string();
      if (compiler.find("nvcc") != std::string::npos) {
        f.command_line = translate_nvcc(cmd.CommandLine, abs_path, settings);
        return f;
      }
      using namespace clang::tooling;
      auto adjuster = combineAdjusters(getClangStripOutputAdjuster(), getClangStripDependencyFileAdjuster());
      std::vector<std::string> args = adjuster(cmd.CommandLine, cmd.Filename);
      // Drop the source file (it is re-appended as an absolute path) and -c.
      std::vector<std::string> kept;
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--") break;  // what follows is the input file
        if (args[i] == "-c" || args[i] == cmd.Filename || args[i] == abs_path) continue;
        kept.push_back(args[i]);
      }
      if (is_cuda_path(abs_path)) {
        bool host_only = false;
        std::string cuda_path;
        for (const auto& x : kept) {
          host_only |= x == "--cuda-host-only";
          if (x.rfind("--cuda-path=", 0) == 0) cuda_path = x.substr(12);
        }
        if (!host_only) kept.insert(kept.begin() + 1, {"--cuda-host-only", "-nocudalib"});
        if (auto cccl = cccl_include_dir(cuda_path); !cccl.empty()) kept.insert(kept.end(), {"-isystem", cccl});
      }
      // Real headers first; the shims stand in for what the build machine lacks.
      kept.insert(kept.end(), {"-idirafter", shim_dir("cuda"), "-idirafter", shim_dir("libtorch"),
                               "-Wno-unknown-warning-option"});
      common_tail(kept, is_cuda_path(abs_path));
      for (const auto& x : settings.cxx_extra_args) kept.push_back(x);
      kept.push_back(abs_path);
      f.command_line = std::move(kept);
      return f;
    }
  }
  return header_free_or_toolkit(abs_path, settings, cuda);
}

}  // namespace stoker::cxx
