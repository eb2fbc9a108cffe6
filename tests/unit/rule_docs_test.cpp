// Rule documents: well-formed, with the fixed headings, and their examples are tests: the
// "Example" block must trigger the rule, the "Use instead" block must not.
#include <catch2/catch.hpp>

#include "core/rules.h"
#include "test_support.h"

using namespace stoker;

TEST_CASE("every rule document has the required metadata and sections") {
  const auto& rules = RuleRegistry::builtin().all();
  REQUIRE(rules.size() >= 15);
  for (const auto& r : rules) {
    INFO(r.code);
    CHECK(r.code.size() == 5);
    CHECK(r.code.substr(0, 2) == r.family);
    CHECK_FALSE(r.name.empty());
    CHECK_FALSE(r.summary.empty());
    CHECK((r.fix == "never" || r.fix == "sometimes" || r.fix == "always"));
    CHECK_FALSE(r.impact_model.empty());
    for (const char* h : {"What it does", "Why is this bad?", "Example", "Use instead", "References"})
      CHECK_FALSE(r.section(h).empty());
    CHECK_FALSE(r.examples.empty());
    CHECK_FALSE(r.use_instead.empty());
  }
}

TEST_CASE("rule document examples trigger their rule and the alternatives do not") {
  for (const auto& r : RuleRegistry::builtin().all()) {
    for (const auto& [lang, code] : r.examples) {
      if (lang != "python") continue;
      // ST001 (unused suppressions) reports only when asked; asking changes nothing for the
      // other rules' examples, which carry no suppression comments.
      Settings settings;
      settings.report_unused_ignores = true;
      auto result = test::analyze_text("example.py", code, settings);
      bool hit = false;
      for (const auto& d : result.diagnostics) hit |= d.code == r.code;
      INFO(r.code << " Example:\n" << code);
      CHECK(hit);
    }
    for (const auto& [lang, code] : r.use_instead) {
      if (lang != "python") continue;
      Settings settings;
      settings.report_unused_ignores = true;
      auto result = test::analyze_text("use_instead.py", code, settings);
      bool hit = false;
      for (const auto& d : result.diagnostics) hit |= d.code == r.code;
      INFO(r.code << " Use instead:\n" << code);
      CHECK_FALSE(hit);
    }
  }
}

TEST_CASE("rule selection follows select, extend-select and ignore by longest prefix") {
  RuleSelection s;
  CHECK(s.enabled("DL001"));
  s.select = {"SY"};
  CHECK(s.enabled("SY001"));
  CHECK_FALSE(s.enabled("DL001"));
  s.ignore = {"SY00"};
  CHECK_FALSE(s.enabled("SY001"));
  s.select = {"SY001"};
  CHECK(s.enabled("SY001"));  // the more specific selector wins
  s.extend_select = {"DL"};
  CHECK(s.enabled("DL003"));
}
