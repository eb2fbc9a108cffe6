// Fixing C++/CUDA files: `stoker check --fix` through the real binary on a CU006 finding, and the
// fixer's re-check with real clang refusing a fix that adds clang errors.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.h"
#include "core/analyzer.h"
#include "fix/fixer.h"

using namespace stoker;
namespace fs = std::filesystem;
using stoker::testing::run_stoker;
using stoker::testing::TempSource;

namespace {


const char* kMemsetInLoop = R"(#include <cuda_runtime.h>
__global__ void step_kernel(float* p, int n) {}
int main() {
  float* d;
  cudaMalloc(&d, 1 << 20);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  for (int step = 0; step < 1000; ++step) {
    cudaMemset(d, 0, 1 << 20);
    step_kernel<<<256, 256, 0, stream>>>(d, 1 << 18);
  }
  cudaStreamSynchronize(stream);
  return 0;
}
)";

}  // namespace

TEST_CASE("stoker check --fix rewrites a CU006 memset to cudaMemsetAsync, and the result parses cleanly") {
  TempSource f("train.cu", kMemsetInLoop);
  auto before = run_stoker("check --output-format concise " + f.path.string());
  CHECK(before.rc == 1);
  CHECK_THAT(before.out, Catch::Contains("CU006"));

  auto fixed = run_stoker("check --fix " + f.path.string());
  INFO(fixed.out);
  CHECK(fixed.rc == 0);
  std::string text = stoker::testing::read_text(f.path);
  CHECK_THAT(text, Catch::Contains("cudaMemsetAsync(d, 0, 1 << 20, stream);"));
  CHECK_THAT(text, !Catch::Contains("cudaMemset(d"));

  // Header-free mode re-parses the fixed file without a single clang error, and finds nothing.
  auto after = run_stoker("check --show-parse-errors " + f.path.string());
  INFO(after.out);
  CHECK(after.rc == 0);
  CHECK_THAT(after.out, !Catch::Contains("clang"));
  CHECK_THAT(after.out, Catch::Contains("All checks passed"));
}

TEST_CASE("the fixer's C++ re-check refuses a fix that adds clang errors, also where the file had one") {
  // A file that already has a clang error (one notice) before the fix: the count of errors, not
  // of notices, decides.
  for (std::string prefix : {std::string(), std::string("int broken = undeclared_name;\n")}) {
    std::string original = prefix + kMemsetInLoop;
    auto analyze_text = [](const std::string& t) { return analyze(SourceFile("train.cu", t), Settings{}); };
    AnalysisResult initial = analyze_text(original);
    REQUIRE(initial.diagnostics.size() == 1);
    CHECK(initial.parse_errors == (prefix.empty() ? 0u : 1u));
    // The real CU006 fix, with its new callee misspelled: clang rejects the call.
    auto& edits = initial.diagnostics[0].fix->edits;
    REQUIRE(!edits.empty());
    for (auto& e : edits)
      if (e.replacement == "cudaMemsetAsync") e.replacement = "cudaMemsetAsyncc";
    auto out = fix::fix_until_stable(original, initial, analyze_text, fix::parse_error_counter(Language::Cxx), {});
    CHECK_THAT(out.error, Catch::Contains("syntax error"));
    CHECK(out.applied.empty());

    // The real fix is accepted.
    auto good = fix::fix_until_stable(original, analyze_text(original), analyze_text,
                                      fix::parse_error_counter(Language::Cxx), {});
    CHECK(good.error.empty());
    CHECK_THAT(good.text, Catch::Contains("cudaMemsetAsync(d, 0, 1 << 20, stream);"));
  }
}
