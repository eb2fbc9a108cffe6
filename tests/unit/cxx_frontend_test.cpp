// The C++/CUDA front end, run for real (clang, shims, checks) on the fixtures, the rule
// documents' examples, a CUDA toolkit when one is installed, and a CMake compilation database.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/analyzer.h"
#include "core/rules.h"
#include "cxx/checker.h"
#include "cxx/compile_flags.h"

using namespace stoker;
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> cxx_fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx"))
    if (e.path().extension() == ".cu" || e.path().extension() == ".cpp") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// (row, code) pairs stated by `// expect: CODE, CODE` comments.
std::set<std::pair<uint32_t, std::string>> expected_findings(const SourceFile& f) {
  std::set<std::pair<uint32_t, std::string>> out;
  std::regex code("[A-Z]{2}[0-9]{3}");
  for (uint32_t row = 1; row <= f.lines.line_count(); ++row) {
    std::string line(f.text.substr(f.lines.line_start(row), f.lines.line_end(f.text, row) - f.lines.line_start(row)));
    auto at = line.find("// expect:");
    if (at == std::string::npos) continue;
    std::string tail = line.substr(at);
    for (std::sregex_iterator it(tail.begin(), tail.end(), code), end; it != end; ++it) out.insert({row, it->str()});
  }
  return out;
}

std::set<std::pair<uint32_t, std::string>> reported(const SourceFile& f, const AnalysisResult& r) {
  std::set<std::pair<uint32_t, std::string>> out;
  for (const auto& d : r.diagnostics) out.insert({f.lines.row_of(d.range.start), d.code});
  return out;
}

std::string describe(const std::set<std::pair<uint32_t, std::string>>& s) {
  std::string out;
  for (const auto& [row, code] : s) out += " " + std::to_string(row) + ":" + code;
  return out.empty() ? " (none)" : out;
}

SourceFile load(const fs::path& p) { return SourceFile(p.string(), read_all(p)); }

}  // namespace

TEST_CASE("every C++ fixture reports exactly its expected findings") {
  auto fixtures = cxx_fixtures();
  REQUIRE(fixtures.size() >= 4);
  for (const auto& p : fixtures) {
    SourceFile f = load(p);
    Settings settings;
    auto result = analyze(f, settings);
    INFO(p.filename().string() << " expected:" << describe(expected_findings(f)) << "\n reported:"
                               << describe(reported(f, result)));
    CHECK(reported(f, result) == expected_findings(f));
  }
}

TEST_CASE("every C++ fixture compiles against the shims without errors") {
  for (const auto& p : cxx_fixtures()) {
    SourceFile f = load(p);
    Settings settings;
    settings.show_parse_errors = true;
    auto result = cxx::check(f, settings);
    std::string errors;
    for (const auto& n : result.notices) errors += n.message + "\n";
    INFO(p.filename().string() << ":\n" << errors);
    CHECK(result.notices.empty());
  }
}

TEST_CASE("every C++ finding carries a fix title, and fix edits stay inside the file") {
  for (const auto& p : cxx_fixtures()) {
    SourceFile f = load(p);
    auto result = analyze(f, Settings{});
    for (const auto& d : result.diagnostics) {
      INFO(p.filename().string() << " " << d.code);
      REQUIRE(d.fix.has_value());
      CHECK_FALSE(d.fix->title.empty());
      CHECK(d.range.end <= f.text.size());
      for (const auto& e : d.fix->edits) CHECK(e.range.end <= f.text.size());
    }
  }
}

TEST_CASE("CU006 fix rewrites cudaMemset to cudaMemsetAsync on the stream in scope") {
  SourceFile f("memset.cu", R"(#include <cuda_runtime.h>
__global__ void k(float* p) {}
void train(float* d, cudaStream_t s, int steps) {
  for (int i = 0; i < steps; ++i) {
    cudaMemset(d, 0, 1024);
    k<<<1, 1, 0, s>>>(d);
  }
}
)");
  auto result = analyze(f, Settings{});
  REQUIRE(result.diagnostics.size() == 1);
  const auto& fix = *result.diagnostics[0].fix;
  CHECK(fix.applicability == Applicability::Unsafe);
  std::string text = f.text;
  auto edits = fix.edits;
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.range.start > b.range.start; });
  for (const auto& e : edits) text.replace(e.range.start, e.range.end - e.range.start, e.replacement);
  CHECK(text.find("cudaMemsetAsync(d, 0, 1024, s);") != std::string::npos);
  // The fixed file no longer triggers the rule and still parses.
  SourceFile fixed("memset.cu", text);
  auto again = analyze(fixed, Settings{});
  CHECK(again.diagnostics.empty());
  for (const auto& n : again.notices) INFO(n.message);
  CHECK(again.notices.empty());
}

TEST_CASE("a call inside a macro argument is reported at the call and gets no edit") {
  SourceFile f("macro.cu", R"(#include <cuda_runtime.h>
#define CHECK(x) (x)
__global__ void k(float* p) {}
void train(float* d, cudaStream_t s, int steps) {
  for (int i = 0; i < steps; ++i) {
    CHECK(cudaMemset(d, 0, 1024));
    k<<<1, 1, 0, s>>>(d);
  }
}
)");
  auto result = analyze(f, Settings{});
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(f.slice(result.diagnostics[0].range).substr(0, 10) == "cudaMemset");
  CHECK(result.diagnostics[0].fix->edits.empty());
}

TEST_CASE("an unknown include becomes one notice and the rest of the file is still analyzed") {
  SourceFile f("broken.cu", R"(#include <cuda_runtime.h>
#include "does_not_exist.h"
__global__ void k(float* p) {}
void train(float* d, int steps) {
  for (int i = 0; i < steps; ++i) {
    k<<<1, 1>>>(d);
    cudaDeviceSynchronize();
  }
}
)");
  auto result = analyze(f, Settings{});
  REQUIRE(result.notices.size() == 1);
  INFO(result.notices[0].message);
  CHECK(result.notices[0].message.find("does_not_exist.h") != std::string::npos);
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].code == "CU003");
}

TEST_CASE("the C++ rule documents' examples trigger and their alternatives do not") {
  const auto& registry = RuleRegistry::builtin();
  int checked = 0;
  for (const auto& rule : registry.all()) {
    auto is_cxx = [](const std::string& lang) { return lang == "cpp" || lang == "cuda" || lang == "c++"; };
    for (const auto& [lang, code] : rule.examples) {
      if (!is_cxx(lang)) continue;
      SourceFile f(code.find("torch::") != std::string::npos ? "example.cpp" : "example.cu", code);
      auto result = analyze(f, Settings{});
      bool found = std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                               [&](const Diagnostic& d) { return d.code == rule.code; });
      INFO(rule.code << " example:\n" << code);
      CHECK(found);
      CHECK(result.notices.empty());
      ++checked;
    }
    for (const auto& [lang, code] : rule.use_instead) {
      if (!is_cxx(lang)) continue;
      SourceFile f(code.find("torch::") != std::string::npos ? "example.cpp" : "example.cu", code);
      auto result = analyze(f, Settings{});
      bool found = std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                               [&](const Diagnostic& d) { return d.code == rule.code; });
      INFO(rule.code << " use instead:\n" << code);
      CHECK_FALSE(found);
      CHECK(result.notices.empty());
    }
  }
  CHECK(checked >= 9);  // CU001-CU009 at least
}

TEST_CASE("toolkit mode against an installed CUDA toolkit matches header-free mode") {
  const char* root = "/usr/local/cuda";
  if (!fs::exists(fs::path(root) / "include/cuda_runtime.h")) {
    WARN("skipped: no CUDA toolkit at /usr/local/cuda");
    return;
  }
  for (const auto& p : cxx_fixtures()) {
    if (p.extension() != ".cu") continue;
    SourceFile f = load(p);
    Settings toolkit;
    toolkit.cuda_path = root;
    toolkit.show_parse_errors = true;
    auto with_toolkit = analyze(f, toolkit);
    auto header_free = analyze(f, Settings{});
    std::string errors;
    for (const auto& n : with_toolkit.notices) errors += n.message + "\n";
    INFO(p.filename().string() << "\n" << errors);
    CHECK(with_toolkit.notices.empty());
    CHECK(reported(f, with_toolkit) == reported(f, header_free));
  }
}

TEST_CASE("compile-database mode (-p) reads the flags CMake exported") {
  if (std::system("cmake --version > /dev/null 2>&1") != 0) {
    WARN("skipped: cmake not found");
    return;
  }
  fs::path dir = fs::temp_directory_path() / ("stoker_cdb_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "include");
  std::ofstream(dir / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\nproject(t LANGUAGES CXX)\n"
                                           "add_executable(train train.cpp)\n"
                                           "target_include_directories(train PRIVATE include)\n"
                                           "target_compile_definitions(train PRIVATE SYNC_EVERY_STEP=1)\n";
  // The sync exists only with the database's define, and its header only on its include path.
  std::ofstream(dir / "include/step.h") << "#pragma once\n#include <cuda_runtime.h>\n"
                                           "void launch_step(float* d);\n";
  std::ofstream(dir / "train.cpp") << "#include <cuda_runtime.h>\n#include \"step.h\"\n"
                                      "void launch_step(float* d) { float* a = d; cudaLaunchKernel((const void*)a, dim3(1), dim3(1), nullptr, 0, 0); }\n"
                                      "int main() {\n  float* d = nullptr;\n  for (int i = 0; i < 10; ++i) {\n"
                                      "    launch_step(d);\n#if SYNC_EVERY_STEP\n    cudaDeviceSynchronize();\n#endif\n  }\n}\n";
  std::string configure = "cmake -S " + dir.string() + " -B " + (dir / "build").string() +
                          " -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null 2>&1";
  REQUIRE(std::system(configure.c_str()) == 0);
  REQUIRE(fs::exists(dir / "build/compile_commands.json"));
  std::string out_file = (dir / "out.json").string();
  std::string with_db = std::string(STOKER_BINARY) + " check --output-format json -p " + (dir / "build").string() +
                        " " + (dir / "train.cpp").string() + " > " + out_file + " 2>&1";
  int rc = std::system(with_db.c_str());
  std::string out = read_all(out_file);
  INFO(out);
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(out.find("\"CU003\"") != std::string::npos);
  std::string without = std::string(STOKER_BINARY) + " check --output-format json " + (dir / "train.cpp").string() +
                        " > " + out_file + " 2>&1";
  rc = std::system(without.c_str());
  std::string out2 = read_all(out_file);
  INFO(out2);
  CHECK(WEXITSTATUS(rc) == 0);  // header-free: no user macros, no sync
  std::string bad = std::string(STOKER_BINARY) + " check -p " + (dir / "nowhere").string() + " " +
                    (dir / "train.cpp").string() + " > /dev/null 2>&1";
  CHECK(WEXITSTATUS(std::system(bad.c_str())) == 2);
  fs::remove_all(dir);
}

TEST_CASE("CMake's Makefiles generator with nvcc: --options-file include paths and the CUDA 13 cccl layout") {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc) || std::system("cmake --version > /dev/null 2>&1") != 0) {
    WARN("skipped: no nvcc at /usr/local/cuda/bin or no cmake");
    return;
  }
  fs::path dir = fs::temp_directory_path() / ("stoker_nvcc_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "include");
  std::ofstream(dir / "CMakeLists.txt") << "cmake_minimum_required(VERSION 3.20)\nproject(t LANGUAGES CUDA)\n"
                                           "add_executable(train train.cu)\n"
                                           "target_include_directories(train PRIVATE include)\n";
  // The sync hides in a macro of a header that only the response file's -I finds.
  std::ofstream(dir / "include/step.h") << "#pragma once\n#include <cuda_runtime.h>\n"
                                           "#define STEP_DONE() cudaDeviceSynchronize()\n";
  // cooperative_groups and Thrust live in include/cccl in CUDA 13.
  std::ofstream(dir / "train.cu") << "#include \"step.h\"\n#include <cooperative_groups.h>\n"
                                     "#include <thrust/device_vector.h>\n"
                                     "namespace cg = cooperative_groups;\n"
                                     "__global__ void k(float* p) { cg::this_thread_block().sync(); p[0] = 1; }\n"
                                     "int main() {\n  thrust::device_vector<float> v(16);\n"
                                     "  float* d = thrust::raw_pointer_cast(v.data());\n"
                                     "  for (int i = 0; i < 100; ++i) {\n    k<<<1, 1>>>(d);\n    STEP_DONE();\n  }\n}\n";
  std::string configure = "cmake -G \"Unix Makefiles\" -S " + dir.string() + " -B " + (dir / "build").string() +
                          " -DCMAKE_CUDA_COMPILER=" + nvcc + " -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null 2>&1";
  REQUIRE(std::system(configure.c_str()) == 0);
  std::string db = read_all(dir / "build/compile_commands.json");
  INFO(db);
  REQUIRE(db.find("--options-file") != std::string::npos);  // what this test is about
  REQUIRE(db.find("-I") == std::string::npos);  // the include path is only in the response file

  std::string out_file = (dir / "out.txt").string();
  std::string run = std::string(STOKER_BINARY) + " check --output-format concise --show-parse-errors -p " +
                    (dir / "build").string() + " " + (dir / "train.cu").string() + " > " + out_file + " 2>&1";
  int rc = std::system(run.c_str());
  std::string out = read_all(out_file);
  INFO(out);
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(out.find("CU003") != std::string::npos);
  CHECK(out.find("train.cu:11:") != std::string::npos);  // at the macro's use in the loop
  CHECK(out.find("clang") == std::string::npos);         // not one clang error: step.h and cccl found

  // A response file that is gone: a clear notice, and the file is still analyzed.
  fs::remove(dir / "build/CMakeFiles/train.dir/includes_CUDA.rsp");
  rc = std::system(run.c_str());
  out = read_all(out_file);
  INFO(out);
  CHECK(out.find("cannot read response file") != std::string::npos);
  CHECK(out.find("includes_CUDA.rsp") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("response files: @file and nvcc --options-file lists, nested, relative to the command's directory") {
  fs::path dir = fs::temp_directory_path() / ("stoker_rsp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.rsp") << "-Ione \"-DNAME=two words\" @sub/b.rsp\n";
  std::ofstream(dir / "sub/b.rsp") << "-DNESTED\n";
  std::ofstream(dir / "c.rsp") << "-Ithree\n";
  std::vector<std::string> cl{"nvcc", "--options-file", "a.rsp,c.rsp", "-optf=c.rsp", "-c", "x.cu"};
  CHECK(cxx::expand_response_files(cl, dir.string()).empty());
  std::vector<std::string> want{"nvcc", "-Ione", "-DNAME=two words", "-DNESTED", "-Ithree", "-Ithree", "-c", "x.cu"};
  CHECK(cl == want);
  std::vector<std::string> clang{"clang++", "@a.rsp", "x.cpp"};
  CHECK(cxx::expand_response_files(clang, dir.string()).empty());
  CHECK(clang == std::vector<std::string>{"clang++", "-Ione", "-DNAME=two words", "-DNESTED", "x.cpp"});
  std::vector<std::string> missing{"nvcc", "--options-file", "gone.rsp", "x.cu"};
  std::string warning = cxx::expand_response_files(missing, dir.string());
  CHECK(warning.find("gone.rsp") != std::string::npos);
  CHECK(missing == std::vector<std::string>{"nvcc", "x.cu"});
  fs::remove_all(dir);
}

TEST_CASE("a .h header that holds CUDA code is parsed as CUDA") {
  const char* text = R"(#pragma once
#include <cuda_runtime.h>
__global__ void step_kernel(float* p) { p[threadIdx.x] = 0; }
inline __host__ __device__ float twice(float x) { return 2 * x; }
inline void run(float* d, int steps) {
  for (int i = 0; i < steps; ++i) {
    step_kernel<<<1, 32>>>(d);
    cudaDeviceSynchronize();
  }
}
)";
  CHECK(cxx::header_holds_cuda("kernels.h", text));
  CHECK_FALSE(cxx::header_holds_cuda("kernels.cuh", text));  // .cuh is CUDA by its name
  CHECK_FALSE(cxx::header_holds_cuda("plain.h", "#pragma once\nint f();\n"));
  CHECK_FALSE(cxx::header_holds_cuda("kernels.cpp", text));  // a source file keeps its language
  Settings settings;
  settings.show_parse_errors = true;
  auto result = analyze(SourceFile("kernels.h", text), settings);
  std::string notices;
  for (const auto& n : result.notices) notices += n.message + "\n";
  INFO(notices);
  CHECK(result.notices.empty());
  REQUIRE(result.diagnostics.size() == 1);
  CHECK(result.diagnostics[0].code == "CU003");
}

TEST_CASE("CU008: nvcc's --default-stream per-thread in the compile database makes stream 0 the thread's own") {
  fs::path dir = fs::temp_directory_path() / ("stoker_ptds_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "x.cu") << "#include <cuda_runtime.h>\n__global__ void k(float* x) {}\n"
                                 "void run(float* d, const float* h, int steps) {\n"
                                 "  cudaStream_t s;\n  cudaStreamCreate(&s);\n"
                                 "  for (int i = 0; i < steps; ++i) {\n"
                                 "    cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice);\n"
                                 "    cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, cudaStreamLegacy);\n"
                                 "    k<<<1, 1, 0, s>>>(d);\n  }\n}\n";
  auto cu008_rows = [&](const std::string& flags) {
    std::ofstream(dir / "compile_commands.json")
        << "[{\"directory\": \"" << dir.string() << "\", \"command\": \"nvcc " << flags
        << " -c x.cu -o x.o\", \"file\": \"x.cu\"}]\n";
    Settings settings;
    settings.compile_commands_dir = dir.string();
    SourceFile f((dir / "x.cu").string(), read_all(dir / "x.cu"));
    auto result = analyze(f, settings);
    std::set<uint32_t> rows;
    for (const auto& d : result.diagnostics)
      if (d.code == "CU008") rows.insert(f.lines.row_of(d.range.start));
    return rows;
  };
  CHECK(cu008_rows("") == std::set<uint32_t>{7, 8});
  CHECK(cu008_rows("--default-stream per-thread") == std::set<uint32_t>{8});  // cudaStreamLegacy stays legacy
  CHECK(cu008_rows("-default-stream=per-thread") == std::set<uint32_t>{8});
  CHECK(cu008_rows("--default-stream legacy") == std::set<uint32_t>{7, 8});
  fs::remove_all(dir);
}

TEST_CASE("CU007, CU008 and CU009 carry their impact models, with the copy size where it resolves") {
  SourceFile f = load(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx/cu_legacy_stream_copies.cu");
  auto result = analyze(f, Settings{});
  SourceFile t = load(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx/cu_thrust_values.cu");
  auto thrust = analyze(t, Settings{});
  std::map<std::string, int> seen;
  auto has_bytes = [](const Diagnostic& d) {
    return std::any_of(d.facts.begin(), d.facts.end(), [](const auto& kv) {
      return kv.first == "copy_bytes" && kv.second == std::to_string((1 << 20) * sizeof(float));
    });
  };
  for (const auto* r : {&result, &thrust})
    for (const auto& d : r->diagnostics) {
      INFO(d.code << " " << d.message);
      if (d.code != "CU007" && d.code != "CU008" && d.code != "CU009") continue;
      REQUIRE(d.impact.has_value());
      ++seen[d.code];
      if (d.code == "CU007") CHECK(d.impact->model == "sync-bubble");
      if (d.code == "CU008") CHECK(d.impact->model == "blocking-copy");
      if (d.code == "CU009") CHECK(d.impact->model == "pageable-copy");
      if (d.code != "CU007") CHECK(has_bytes(d));  // every copy in the fixture moves kBytes
      CHECK(d.impact->gain_high >= d.impact->gain_low);
      CHECK(d.impact->gain_high > 0);
      CHECK_FALSE(d.impact->assumptions.empty());
    }
  CHECK(seen["CU007"] == 8);
  CHECK(seen["CU008"] == 6);
  CHECK(seen["CU009"] == 4);
}
