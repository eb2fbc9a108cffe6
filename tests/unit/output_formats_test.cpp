// The shape of each CI output format (SARIF, GitHub workflow commands, GitLab Code Quality,
// JUnit XML) on a report built from constructed diagnostics.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "output/report.h"

using namespace stoker;
using nlohmann::json;

namespace {

Diagnostic make(const SourceFile& f, const std::string& code, const std::string& needle, Severity sev) {
  Diagnostic d;
  d.code = code;
  d.file = f.path;
  d.message = "Finding `" + needle + "`: 50%, really";
  size_t pos = f.text.find(needle);
  REQUIRE(pos != std::string::npos);
  d.range = {static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + needle.size())};
  d.severity = sev;
  return d;
}

Report sample_report(const std::string& text = "import torch\nloader = DataLoader(ds)  # é\nx = y.item()\n") {
  auto f = std::make_shared<SourceFile>("pkg/train.py", text);
  Diagnostic a = make(*f, "SY001", "DataLoader(ds)", Severity::Warning);
  a.fix = Fix{"Add `num_workers=4`", Applicability::Safe, {}};
  uint32_t close = static_cast<uint32_t>(f->text.find("ds)") + 2);
  a.fix->edits.push_back({{close, close}, ", num_workers=4"});
  a.impact = Impact{"serial-loader", 12.5, 30, "generic", {"batch_size=64 (resolved)"}};
  a.related.push_back({f->path, {0, 12}, "torch imported here"});
  Diagnostic b = make(*f, "ST001", "y.item()", Severity::Info);
  b.fix = Fix{"Accumulate on the device", Applicability::DisplayOnly, {}};
  Report r;
  r.files.push_back({f, AnalysisResult{{a, b}, {}}});
  r.analyzed_files = {"pkg/clean.py", "pkg/train.py"};
  r.files_analyzed = 2;
  return r;
}

template <class F>
std::string render(F write, const Report& r) {
  std::ostringstream out;
  write(out, r, RuleRegistry::builtin());
  return out.str();
}

}  // namespace

TEST_CASE("SARIF 2.1.0: driver rules from the rule documents, relative URIs, fixes, impact") {
  json log = json::parse(render(output::write_sarif, sample_report()));
  CHECK(log["version"] == "2.1.0");
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  REQUIRE(log["runs"].size() == 1);
  const json& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "stoker");
  CHECK(run["columnKind"] == "unicodeCodePoints");
  std::string root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"];
  CHECK(root.rfind("file:///", 0) == 0);
  CHECK(root.back() == '/');
  const json& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == RuleRegistry::builtin().all().size());
  for (const auto& r : RuleRegistry::builtin().all()) {
    auto it = std::find_if(rules.begin(), rules.end(), [&](const json& j) { return j["id"] == r.code; });
    REQUIRE(it != rules.end());
    CHECK((*it)["name"] == r.name);
    CHECK((*it)["helpUri"] == r.url());
    CHECK((*it)["help"]["markdown"] == r.document);
    CHECK((*it)["shortDescription"]["text"].get<std::string>().rfind(r.summary.substr(0, 20), 0) == 0);
  }
  const json& results = run["results"];
  REQUIRE(results.size() == 2);
  const json& a = results[0];
  CHECK(a["ruleId"] == "SY001");
  CHECK(rules[a["ruleIndex"].get<size_t>()]["id"] == "SY001");
  CHECK(a["level"] == "warning");
  CHECK(a["message"]["text"] == "Finding `DataLoader(ds)`: 50%, really.");
  const json& loc = a["locations"][0]["physicalLocation"];
  CHECK(loc["artifactLocation"]["uri"] == "pkg/train.py");
  CHECK(loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%");
  CHECK(loc["region"] == json{{"startLine", 2}, {"startColumn", 10}, {"endLine", 2}, {"endColumn", 24}});
  const json& rep = a["fixes"][0]["artifactChanges"][0]["replacements"][0];
  CHECK(rep["deletedRegion"] == json{{"startLine", 2}, {"startColumn", 23}, {"endLine", 2}, {"endColumn", 23}});
  CHECK(rep["insertedContent"]["text"] == ", num_workers=4");
  CHECK(a["properties"]["impact"]["model"] == "serial-loader");
  CHECK(a["properties"]["impact"]["gain_pp"] == json{12.5, 30.0});
  CHECK(a["relatedLocations"][0]["message"]["text"] == "torch imported here.");
  const json& b = results[1];
  CHECK(b["level"] == "note");
  CHECK_FALSE(b.contains("fixes"));  // display-only: no artifact changes
  CHECK(b["properties"]["suggestion"] == "Accumulate on the device");
  CHECK_FALSE(b["properties"].contains("impact"));
  // A column counts code points: the `é` before nothing here, but a URI needs escaping.
  Report spaced = sample_report();
  auto g = std::make_shared<SourceFile>("my dir/t é.py", "x\n");
  spaced.files.push_back({g, AnalysisResult{{make(*g, "SY001", "x", Severity::Error)}, {}}});
  json log2 = json::parse(render(output::write_sarif, spaced));
  const json& c = log2["runs"][0]["results"][2];
  CHECK(c["level"] == "error");
  CHECK(c["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/t%20%C3%A9.py");
}

TEST_CASE("GitHub workflow commands carry the position, level and escaped text") {
  std::string out = render(output::write_github, sample_report());
  std::istringstream lines(out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK(first ==
        "::warning file=pkg/train.py,line=2,col=10,endLine=2,endColumn=24,title=stoker SY001 "
        "(host-readback-in-hot-loop)::SY001 Finding `DataLoader(ds)`: 50%25, really%0AFix (safe): Add `num_workers=4`"
        "%0Ahttps://github.com/stoker-dev/stoker/blob/main/rules/SY001.md");
  CHECK(second.rfind("::notice file=pkg/train.py,line=3,col=5,endLine=3,endColumn=13,title=stoker ST001 "
                     "(unused-suppression)::ST001 ",
                     0) == 0);
  Report errors;
  errors.errors.push_back({"a,b:c.py", "no such file or directory", std::nullopt});
  CHECK(render(output::write_github, errors) == "::error file=a%2Cb%3Ac.py,title=stoker::no such file or directory\n");
}

TEST_CASE("GitLab Code Quality: fields and fingerprints that survive moved lines") {
  json issues = json::parse(render(output::write_gitlab, sample_report()));
  REQUIRE(issues.size() == 2);
  const json& a = issues[0];
  CHECK(a["check_name"] == "SY001 host-readback-in-hot-loop");
  CHECK(a["description"] == "SY001 Finding `DataLoader(ds)`: 50%, really");
  CHECK(a["severity"] == "major");
  CHECK(issues[1]["severity"] == "info");
  CHECK(a["location"]["path"] == "pkg/train.py");
  CHECK(a["location"]["positions"]["begin"] == json{{"line", 2}, {"column", 10}});
  std::string fp = a["fingerprint"];
  CHECK(fp.size() == 32);
  CHECK(fp != issues[1]["fingerprint"].get<std::string>());
  // Two blank lines inserted above: same fingerprints.
  json moved = json::parse(
      render(output::write_gitlab, sample_report("import torch\n\n\nloader = DataLoader(ds)  # é\nx = y.item()\n")));
  CHECK(moved[0]["location"]["positions"]["begin"]["line"] == 4);
  CHECK(moved[0]["fingerprint"] == fp);
  CHECK(moved[1]["fingerprint"] == issues[1]["fingerprint"]);
  // Identical findings on identical lines stay distinct.
  auto f = std::make_shared<SourceFile>("d.py", "a = DataLoader(ds)\na = DataLoader(ds)\n");
  Diagnostic d1 = make(*f, "SY001", "DataLoader(ds)", Severity::Warning), d2 = d1;
  d2.range.start += 19, d2.range.end += 19;
  Report dup;
  dup.files.push_back({f, AnalysisResult{{d1, d2}, {}}});
  json two = json::parse(render(output::write_gitlab, dup));
  CHECK(two[0]["fingerprint"] != two[1]["fingerprint"]);
}

TEST_CASE("JUnit XML: one test case per analyzed file") {
  Report r = sample_report();
  r.errors.push_back({"broken.py", "invalid UTF-8 at byte 3; skipped", std::nullopt});
  std::string xml = render(output::write_junit, r);
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"stoker\" tests=\"3\" failures=\"1\" "
                  "errors=\"1\">",
                  0) == 0);
  CHECK(xml.find("<testcase name=\"pkg/clean.py\" classname=\"stoker\" file=\"pkg/clean.py\"/>") != std::string::npos);
  CHECK(xml.find("<failure type=\"stoker\" message=\"2 findings\">pkg/train.py:2:10: SY001 Finding "
                 "`DataLoader(ds)`: 50%, really\npkg/train.py:3:5: ST001") != std::string::npos);
  CHECK(xml.find("<error type=\"stoker\" message=\"invalid UTF-8 at byte 3; skipped\"/>") != std::string::npos);
  Report escaped;
  auto f = std::make_shared<SourceFile>("a&b.py", "x\n");
  Diagnostic d = make(*f, "SY001", "x", Severity::Warning);
  d.message = "<tag> & \"q\"";
  escaped.files.push_back({f, AnalysisResult{{d}, {}}});
  escaped.analyzed_files = {"a&b.py"};
  std::string x2 = render(output::write_junit, escaped);
  CHECK(x2.find("name=\"a&amp;b.py\"") != std::string::npos);
  CHECK(x2.find("SY001 &lt;tag&gt; &amp; &quot;q&quot;</failure>") != std::string::npos);
}
