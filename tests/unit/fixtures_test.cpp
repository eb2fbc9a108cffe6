// Every fixture in tests/fixtures/python: the findings are exactly the inline expectations,
// and applying all fixes (repeatedly, until nothing changes) never adds a syntax error.
#include <catch2/catch.hpp>

#include "python/parser.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace stoker;

static std::vector<fs::path> python_fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python"))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("python fixtures report exactly their expectations") {
  auto fixtures = python_fixtures();
  REQUIRE(fixtures.size() >= 10);
  for (const auto& path : fixtures) {
    std::string text = test::read_file(path);
    SourceFile file(path.string(), text);
    auto result = analyze(file, Settings{});
    auto want = test::expectations(text);
    auto got = test::found(file, result);
    INFO("fixture " << path.filename().string() << "\nexpected:\n"
                    << test::describe(want) << "found:\n"
                    << test::describe(got));
    CHECK(want == got);
    CHECK(result.notices.empty());
    for (const auto& d : result.diagnostics) {
      INFO(d.code << " at " << file.lines.row_of(d.range.start));
      CHECK(d.fix.has_value());  // every finding says what to do
      CHECK_FALSE(d.message.empty());
    }
  }
}

TEST_CASE("fixes converge and keep every fixture parsing") {
  for (const auto& path : python_fixtures()) {
    std::string text = test::read_file(path);
    size_t errors_before = python::count_syntax_errors(text);
    std::string current = text;
    bool converged = false;
    for (int round = 0; round < 10; ++round) {
      auto result = test::analyze_text(path.string(), current);
      size_t applied = 0;
      std::string next = test::apply_fixes(current, result.diagnostics, applied);
      if (applied == 0 || next == current) {
        converged = true;
        break;
      }
      INFO("fixture " << path.filename().string() << " round " << round << "\n" << next);
      REQUIRE(python::count_syntax_errors(next) <= errors_before);
      current = next;
    }
    INFO("fixture " << path.filename().string());
    CHECK(converged);
  }
}

TEST_CASE("fix availability declared in each rule document matches what the checks do") {
  // Over every fixture: does the rule ever / always attach edits (a safe or unsafe fix)?
  std::map<std::string, std::pair<size_t, size_t>> seen;  // code -> (findings, findings with edits)
  for (const char* dir : {"tests/fixtures/python", "tests/fixtures/cxx"}) {
    for (const auto& e : fs::directory_iterator(fs::path(STOKER_SOURCE_DIR) / dir)) {
      if (language_for_path(e.path().string()) == Language::Unknown) continue;
      auto result = test::analyze_text(e.path().string(), test::read_file(e.path()));
      for (const auto& d : result.diagnostics) {
        auto& s = seen[d.code];
        ++s.first;
        if (d.fix && !d.fix->edits.empty() && d.fix->applicability != Applicability::DisplayOnly) ++s.second;
      }
    }
  }
  for (const auto& [code, counts] : seen) {
    const RuleInfo* info = RuleRegistry::builtin().find(code);
    REQUIRE(info);
    INFO(code << " declares fix: " << info->fix << "; " << counts.second << " of " << counts.first
              << " findings carry edits");
    if (info->fix == "never") CHECK(counts.second == 0);
    if (info->fix == "always") CHECK(counts.second == counts.first);
    if (info->fix == "sometimes") CHECK(counts.second > 0);
  }
}

TEST_CASE("reaching bindings answer alike whichever files were analyzed before on the thread") {
  // lookup's statement climbs are memoized per thread and emptied when a model starts
  // (model_scopes.cpp): fixtures whose findings hang on which bindings reach a use (branches
  // that rebind, a binding overwritten by the next statement, dead branches), analyzed in
  // turn and again in reverse order, each report exactly their expectations every time.
  std::vector<fs::path> paths;
  for (const char* name : {"guards_paths.py", "guards_dead_bindings.py", "devices_other.py", "argparse_tuple_returns.py"})
    paths.push_back(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python" / name);
  std::vector<fs::path> order = paths;
  order.insert(order.end(), paths.rbegin(), paths.rend());
  for (const auto& path : order) {
    std::string text = test::read_file(path);
    SourceFile file(path.string(), text);
    auto result = analyze(file, Settings{});
    auto want = test::expectations(text);
    INFO("fixture " << path.filename().string());
    REQUIRE_FALSE(want.empty());
    CHECK(test::found(file, result) == want);
  }
}
