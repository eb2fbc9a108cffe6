// Inputs that once crashed the analysis and are not valid Python (tests/fixtures/python_error_nodes):
// the tree-sitter ERROR-node reproduction of issue 9 and the crashing variants the mutation test
// (tests/robustness/mutation_check.py) found. Each is analyzed without a crash, gets a syntax-error
// notice and no other (no budget or internal-error notice), every finding lies inside the text,
// and the findings are exactly the file's `# expect:` comments (none, unless marked).
#include <catch2/catch.hpp>

#include "test_support.h"

namespace fs = std::filesystem;
using namespace stoker;

TEST_CASE("inputs that once crashed the analysis: a syntax-error notice, the expected findings, no crash") {
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python_error_nodes"))
    if (e.path().extension() == ".py") cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(!cases.empty());
  for (const auto& path : cases) {
    std::string text = test::read_file(path);
    SourceFile file(path.string(), text);
    auto result = analyze(file, Settings{});
    INFO("case " << path.filename().string());
    REQUIRE(!result.notices.empty());
    for (const auto& n : result.notices) {
      INFO("notice: " << n.message);
      CHECK(n.message.find("budget") == std::string::npos);
      CHECK(n.message.find("internal") == std::string::npos);
    }
    bool syntax = false;
    for (const auto& n : result.notices) syntax |= n.message.find("syntax") != std::string::npos;
    CHECK(syntax);
    for (const auto& d : result.diagnostics) CHECK(d.range.end <= file.text.size());
    auto want = test::expectations(text);
    auto got = test::found(file, result);
    INFO("expected:\n" << test::describe(want) << "found:\n" << test::describe(got));
    CHECK(want == got);
  }
}
