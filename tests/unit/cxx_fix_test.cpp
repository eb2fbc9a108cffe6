// Fixing C++/CUDA files: `stoker check --fix` through the real binary on CU006 (unsafe, on the
// stream resolved; the result compiled with nvcc), LibTorch TX001 (safe) and SY004 (display-only
// removal), and the fixer's re-check with real clang refusing a fix that adds clang errors.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
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

TEST_CASE("stoker check --fix --unsafe-fixes rewrites a CU006 memset to cudaMemsetAsync, and the result parses cleanly") {
  TempSource f("train.cu", kMemsetInLoop);
  auto before = run_stoker("check --output-format concise " + f.path.string());
  CHECK(before.rc == 1);
  CHECK_THAT(before.out, Catch::Contains("CU006"));

  // The fix is unsafe (the memset's order against other streams changes): --fix alone leaves it.
  auto safe_only = run_stoker("check --fix " + f.path.string());
  CHECK(safe_only.rc == 1);
  CHECK_THAT(safe_only.out, Catch::Contains("--unsafe-fixes"));
  CHECK(stoker::testing::read_text(f.path) == kMemsetInLoop);

  auto fixed = run_stoker("check --fix --unsafe-fixes " + f.path.string());
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
    fix::FixLoopOptions unsafe;
    unsafe.unsafe = true;
    auto out = fix::fix_until_stable(original, initial, analyze_text, fix::parse_error_counter(Language::Cxx), unsafe);
    CHECK_THAT(out.error, Catch::Contains("syntax error"));
    CHECK(out.applied.empty());

    // The real fix is accepted.
    auto good = fix::fix_until_stable(original, analyze_text(original), analyze_text,
                                      fix::parse_error_counter(Language::Cxx), unsafe);
    CHECK(good.error.empty());
    CHECK_THAT(good.text, Catch::Contains("cudaMemsetAsync(d, 0, 1 << 20, stream);"));
  }
}

namespace {

// The fixture's lines, and its `// expect: ... fix: X` / `fixed: TEXT` / `shown: removal` markers.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Marker {
  std::string kind;   // "fix", "fixed" or "shown"
  std::string value;  // the stream, `none`, the text the fixed line holds, `removal`
};

std::map<size_t, Marker> markers(const std::vector<std::string>& lines) {
  std::map<size_t, Marker> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto at = lines[i].find("// expect:");
    if (at == std::string::npos) continue;
    std::string tail = lines[i].substr(at);
    for (const char* kind : {"fixed", "fix", "shown"}) {
      auto k = tail.find(std::string(" ") + kind + ": ");
      if (k == std::string::npos) continue;
      out[i + 1] = {kind, tail.substr(k + std::strlen(kind) + 3)};
      break;
    }
  }
  return out;
}

// (row, code) of every finding in `stoker check --output-format json` output.
std::set<std::pair<size_t, std::string>> json_findings(const std::string& out) {
  std::set<std::pair<size_t, std::string>> found;
  for (const auto& d : nlohmann::json::parse(out))
    found.insert({d["location"]["row"].get<size_t>(), d["code"].get<std::string>()});
  return found;
}

const char* kNvcc = "/usr/local/cuda/bin/nvcc";

}  // namespace

TEST_CASE("CU006 fixes through the binary: only with --unsafe-fixes, on the stream resolved, and the result compiles with nvcc") {
  const fs::path fixture = fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx/cu_fix_streams.cu";
  const std::string original = stoker::testing::read_text(fixture);
  TempSource f("streams.cu", original);
  const auto before = lines_of(original);
  const auto marks = markers(before);
  REQUIRE(marks.size() >= 10);

  // Safe fixes only: nothing to apply, the file stays as it is.
  auto safe_only = run_stoker("check --fix " + f.path.string());
  CHECK(safe_only.rc == 1);
  CHECK(stoker::testing::read_text(f.path) == original);

  auto fixed = run_stoker("check --fix --unsafe-fixes --show-fixes " + f.path.string());
  INFO(fixed.out);
  CHECK(fixed.rc == 1);  // the findings without a resolved stream remain
  const auto after = lines_of(stoker::testing::read_text(f.path));
  REQUIRE(after.size() == before.size());
  size_t rewritten = 0;
  for (size_t row = 1; row <= before.size(); ++row) {
    const std::string& was = before[row - 1];
    const std::string& now = after[row - 1];
    INFO("row " << row << ": " << was << "\n  now: " << now);
    auto m = marks.find(row);
    if (m == marks.end() || m->second.kind != "fix" || m->second.value == "none") {
      CHECK(now == was);
      continue;
    }
    // cudaMemset(...) -> cudaMemsetAsync(..., stream), cudaMemset2D(...) -> cudaMemset2DAsync(..., stream).
    std::string want = was;
    auto call = want.find("cudaMemset");
    auto paren = want.find('(', call);
    want.insert(paren, "Async");
    auto close = want.find(");");
    want.insert(close, ", " + m->second.value);
    CHECK(now == want);
    ++rewritten;
  }
  CHECK(rewritten == 6);
  CHECK_THAT(fixed.out, Catch::Contains("6 \xC3\x97 CU006"));

  // Re-parsed by stoker's clang: no clang error, and CU006 is left exactly where no stream was resolved.
  auto again = run_stoker("check --show-parse-errors --output-format concise " + f.path.string());
  CHECK_THAT(again.out, !Catch::Contains("notice"));
  auto json = stoker::testing::run_in(f.dir.path, stoker::testing::stoker_command("check --output-format json streams.cu"));
  std::set<std::pair<size_t, std::string>> want;
  for (const auto& [row, m] : marks)
    if (m.kind == "fix" && m.value == "none") want.insert({row, "CU006"});
  CHECK(json_findings(json.out) == want);

  // And by the CUDA toolkit's compiler, with the real headers.
  if (!fs::exists(kNvcc)) {
    WARN("nvcc not run: no " << kNvcc);
    return;
  }
  auto nvcc = stoker::testing::run_in(f.dir.path, std::string(kNvcc) + " -c streams.cu -o streams.o");
  INFO(nvcc.err);
  CHECK(nvcc.rc == 0);
}

TEST_CASE("LibTorch fixes through the binary: TX001 adds non_blocking (safe), SY004's removal is display-only") {
  const fs::path fixture = fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx/libtorch_fixes.cpp";
  const std::string original = stoker::testing::read_text(fixture);
  TempSource f("train.cpp", original);
  const auto before = lines_of(original);
  const auto marks = markers(before);

  // rules.md: TX001's message says when the source is not pinned; only `pinned.to(device)` is.
  auto listed = stoker::testing::run_in(f.dir.path, stoker::testing::stoker_command("check --output-format json train.cpp"));
  size_t pinned = 0, pageable = 0;
  for (const auto& d : nlohmann::json::parse(listed.out)) {
    if (d["code"] != "TX001") continue;
    const std::string message = d["message"].get<std::string>();
    const std::string& line = before[d["location"]["row"].get<size_t>() - 1];
    INFO(line << "\n  " << message);
    bool says_pinned = message.find("The source is pinned") != std::string::npos;
    CHECK(says_pinned == (line.find("pinned.to(device)") != std::string::npos));
    CHECK(says_pinned != (message.find("LibTorch loaders cannot pin memory") != std::string::npos));
    ++(says_pinned ? pinned : pageable);
  }
  CHECK(pinned == 1);
  CHECK(pageable == 4);

  auto fixed = run_stoker("check --fix --show-fixes " + f.path.string());
  INFO(fixed.out);
  CHECK(fixed.rc == 1);  // SY004 and the TX001 in a macro remain
  CHECK_THAT(fixed.out, Catch::Contains("4 \xC3\x97 TX001"));
  const std::string fixed_text = stoker::testing::read_text(f.path);
  const auto after = lines_of(fixed_text);
  REQUIRE(after.size() == before.size());
  size_t rewritten = 0;
  for (size_t row = 1; row <= before.size(); ++row) {
    INFO("row " << row << ": " << before[row - 1] << "\n  now: " << after[row - 1]);
    auto m = marks.find(row);
    if (m != marks.end() && m->second.kind == "fixed") {
      CHECK(after[row - 1] != before[row - 1]);
      CHECK_THAT(after[row - 1], Catch::Contains(m->second.value));
      ++rewritten;
    } else {
      CHECK(after[row - 1] == before[row - 1]);  // the SY004 removal and the macro's TX001 included
    }
  }
  CHECK(rewritten == 4);
  // --unsafe-fixes adds nothing: the removal of a sync is never applied.
  auto unsafe = run_stoker("check --fix --unsafe-fixes " + f.path.string());
  CHECK(unsafe.rc == 1);
  CHECK(stoker::testing::read_text(f.path) == fixed_text);

  // Re-parsed against the LibTorch shim: no clang error; the findings left are the markers' `none`
  // and `removal` rows.
  auto again = run_stoker("check --show-parse-errors --output-format concise " + f.path.string());
  CHECK_THAT(again.out, !Catch::Contains("notice"));
  auto json = stoker::testing::run_in(f.dir.path, stoker::testing::stoker_command("check --output-format json train.cpp"));
  std::set<std::pair<size_t, std::string>> want;
  for (const auto& [row, m] : marks)
    if (m.kind != "fixed") want.insert({row, before[row - 1].find("SY004") != std::string::npos ? "SY004" : "TX001"});
  CHECK(json_findings(json.out) == want);
  for (const auto& d : nlohmann::json::parse(json.out)) {
    INFO(d.dump());
    CHECK(d["fix"]["applicability"] == "display-only");
    size_t row = d["location"]["row"].get<size_t>();
    bool removal = marks.at(row).value == "removal";
    CHECK(d["fix"]["edits"].size() == (removal ? 1u : 0u));
  }

  // The displayed removal, applied by hand, deletes exactly its line; the result parses and has
  // no SY004 there.
  AnalysisResult r = analyze(SourceFile("train.cpp", fixed_text), Settings{});
  const Diagnostic* sy004 = nullptr;
  for (const auto& d : r.diagnostics)
    if (d.code == "SY004" && d.fix && !d.fix->edits.empty()) sy004 = &d;
  REQUIRE(sy004);
  const Edit& e = sy004->fix->edits[0];
  std::string removed = fixed_text;
  removed.erase(e.range.start, e.range.end - e.range.start);
  const auto removed_lines = lines_of(removed);
  REQUIRE(removed_lines.size() == after.size() - 1);
  size_t removal_row = 0;
  for (const auto& [row, m] : marks)
    if (m.value == "removal") removal_row = row;
  CHECK(removed_lines[removal_row - 1] == after[removal_row]);  // the next line moved up
  AnalysisResult reparsed = analyze(SourceFile("train.cpp", removed), Settings{});
  CHECK(reparsed.parse_errors == 0);
  CHECK(reparsed.notices.empty());
  size_t sy004_left = 0;
  for (const auto& d : reparsed.diagnostics) sy004_left += d.code == "SY004";
  CHECK(sy004_left == 1);  // the one under `if (debug)`
}

TEST_CASE("every C++ fixture's fixes, unsafe ones included, apply without a clang error more") {
  // The fixer's loop as --fix --unsafe-fixes runs it: a fix that breaks the code is refused for
  // the whole file, so it would also cost the file's other fixes.
  fix::FixLoopOptions unsafe;
  unsafe.unsafe = true;
  size_t fixed_files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx")) {
    const std::string path = e.path().string();
    if (language_for_path(path) != Language::Cxx) continue;
    const std::string text = stoker::testing::read_text(e.path());
    auto analyze_text = [&](const std::string& t) { return analyze(SourceFile(path, t), Settings{}); };
    auto out = fix::fix_until_stable(text, analyze_text(text), analyze_text, fix::parse_error_counter(Language::Cxx),
                                     unsafe);
    INFO(e.path().filename().string() << ": " << out.error);
    CHECK(out.error.empty());
    CHECK(out.warnings.empty());
    if (out.changed()) ++fixed_files;
  }
  CHECK(fixed_files >= 4);
}
