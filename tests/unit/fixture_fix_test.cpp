// The fixture harness's fix invariants, for every rule at once: applying every fix (unsafe
// included) to every Python fixture converges, introduces no syntax error, and every finding of
// a rule with an impact model carries an estimate.
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/analyzer.h"
#include "core/discover.h"
#include "core/rules.h"
#include "fix/fixer.h"
#include "python/parser.h"

using namespace stoker;
namespace fs = std::filesystem;

TEST_CASE("every fix of every Python fixture converges and keeps the file parsing") {
  fs::path dir = fs::path(STOKER_SOURCE_DIR) / "tests" / "fixtures" / "python";
  std::vector<fs::path> fixtures;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".py") fixtures.push_back(e.path());
  std::sort(fixtures.begin(), fixtures.end());
  REQUIRE_FALSE(fixtures.empty());

  Settings settings;
  size_t fixes_applied = 0;
  for (const auto& path : fixtures) {
    INFO(path.string());
    std::string text, error;
    REQUIRE(read_source_file(path.string(), text, error));
    SourceFile file(path.string(), text);
    AnalysisResult first = analyze(file, settings);
    for (const auto& d : first.diagnostics) {
      const RuleInfo* info = RuleRegistry::builtin().find(d.code);
      if (info && !info->impact_model.empty()) {
        INFO(d.code << " at byte " << d.range.start);
        CHECK(d.impact.has_value());
      }
    }
    auto reanalyze = [&](const std::string& t) { return analyze(SourceFile(path.string(), t), settings); };
    fix::FixLoopOptions opts;
    opts.unsafe = true;
    auto out = fix::fix_until_stable(file.text, first, reanalyze, fix::parse_error_counter(Language::Python), opts);
    CHECK(out.error.empty());
    CHECK(out.warnings.empty());
    CHECK(python::count_syntax_errors(out.text) <= python::count_syntax_errors(file.text));
    // Converged: nothing applicable is left.
    for (const auto& d : out.analysis.diagnostics) {
      INFO(d.code << " still has an applicable fix after fixing");
      CHECK_FALSE((d.fix && fix::fix_is_applicable(*d.fix, true)));
    }
    fixes_applied += out.applied.size();
  }
  if (!fixtures.empty() && fixes_applied == 0) WARN("the fixtures produced no applicable fix");
}
