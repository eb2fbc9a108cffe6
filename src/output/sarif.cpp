// SARIF 2.1.0, as GitHub code scanning and the SARIF Multitool read it. Columns are code points
// (run.columnKind = unicodeCodePoints), the same columns every other output uses.
#include <map>
#include <nlohmann/json.hpp>

#include "core/compute_speedup.h"
#include "core/notebook.h"
#include "output/paths.h"
#include "output/report.h"
#include "trace/join.h"

namespace stoker::output {
namespace {

using nlohmann::json;

constexpr const char* kSrcRoot = "%SRCROOT%";
constexpr const char* kInformationUri = "https://github.com/stoker-dev/stoker";

const char* level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

// SARIF messages are sentences (Multitool SARIF2001).
std::string sentence(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  if (s.empty()) return "(no message).";
  char last = s.back();
  if (last != '.' && last != '!' && last != '?') s.push_back('.');
  return s;
}

json artifact_location(const std::string& path) {
  if (under_working_directory(path)) return {{"uri", uri_escape(relative_path(path))}, {"uriBaseId", kSrcRoot}};
  return {{"uri", "file://" + uri_escape(relative_path(path))}};
}

// In the artifact's own text; for a notebook, its JSON (see cell_properties for the cell).
json region(const SourceFile& file, TextRange r) {
  auto [s, e] = file_span(file, r);
  if (e.row < s.row || (e.row == s.row && e.column < s.column)) e = s;
  return {{"startLine", s.row}, {"startColumn", s.column}, {"endLine", e.row}, {"endColumn", e.column}};
}

// A notebook location's cell and its region within the cell (what the notebook shows).
json cell_properties(const SourceFile& file, TextRange r) {
  Position s = source_position(file, r.start), e = source_position(file, r.end);
  return {{"cell", s.cell},
          {"cellRegion", {{"startLine", s.row}, {"startColumn", s.column}, {"endLine", e.row}, {"endColumn", e.column}}}};
}

json rule_descriptor(const RuleInfo& r) {
  std::string what = r.section("What it does");
  json d = {{"id", r.code},
            {"name", r.name},
            {"shortDescription", {{"text", sentence(r.summary)}}},
            {"fullDescription", {{"text", sentence(what.empty() ? r.summary : what)}}},
            {"help", {{"text", r.document}, {"markdown", r.document}}},
            {"helpUri", r.url()},
            {"defaultConfiguration", {{"level", level(r.severity)}}}};
  // SARIF 2.1.0 §3.49.4: the ids this rule was known by (GU007 for DD001).
  if (!r.redirected_from.empty()) d["deprecatedIds"] = r.redirected_from;
  json props = {{"tags", json::array({r.family, "performance"})}};
  if (!r.impact_model.empty()) props["impactModel"] = r.impact_model;
  if (!r.fix.empty()) props["fixAvailability"] = r.fix;
  d["properties"] = props;
  return d;
}

json result_json(const SourceFile& file, const Diagnostic& d, const std::map<std::string, size_t>& rule_index) {
  json res = {{"ruleId", d.code}, {"level", level(d.severity)}, {"message", {{"text", sentence(d.message)}}}};
  auto it = rule_index.find(d.code);
  if (it != rule_index.end()) res["ruleIndex"] = it->second;
  TextRange r = d.range;
  if (r.end <= r.start) r.end = std::min<uint32_t>(r.start + 1, static_cast<uint32_t>(file.text.size()));
  json location = {{"physicalLocation", {{"artifactLocation", artifact_location(d.file)}, {"region", region(file, r)}}}};
  if (file.notebook) location["properties"] = cell_properties(file, r);
  res["locations"] = json::array({location});
  if (!d.related.empty()) {
    json rel = json::array();
    int id = 1;
    for (const auto& rl : d.related) {
      json loc = {{"id", id++}, {"message", {{"text", sentence(rl.message)}}}};
      json phys = {{"artifactLocation", artifact_location(rl.file)}};
      if (rl.file == d.file) phys["region"] = region(file, rl.range);
      loc["physicalLocation"] = phys;
      if (rl.file == d.file && file.notebook) loc["properties"] = cell_properties(file, rl.range);
      rel.push_back(loc);
    }
    res["relatedLocations"] = rel;
  }
  json props = {{"severity", to_string(d.severity)}};
  if (d.fix && !d.fix->edits.empty() && !file.notebook) {
    json replacements = json::array();
    for (const auto& e : d.fix->edits)
      replacements.push_back({{"deletedRegion", region(file, e.range)}, {"insertedContent", {{"text", e.replacement}}}});
    res["fixes"] = json::array(
        {{{"description", {{"text", sentence(d.fix->title)}}},
          {"artifactChanges", json::array({{{"artifactLocation", artifact_location(d.file)}, {"replacements", replacements}}})}}});
    props["fixApplicability"] = to_string(d.fix->applicability);
  } else if (d.fix && file.notebook) {
    // A notebook's fix edits the cells, not the JSON text a SARIF replacement would address.
    props["fixApplicability"] = to_string(d.fix->applicability);
    props["suggestion"] = d.fix->title;
  } else if (d.fix) {
    props["suggestion"] = d.fix->title;
  }
  if (d.impact) {
    props["impact"] = {{"model", d.impact->model},
                       {"gain_pp", {d.impact->gain_low, d.impact->gain_high}},
                       {"gain_unit", gain_unit(*d.impact)},
                       {"gain_text", gain_long(*d.impact)},
                       {"profile", d.impact->profile},
                       {"assumptions", d.impact->assumptions}};
  }
  res["properties"] = props;
  return res;
}

json notification(const std::string& file, const std::string& message, const char* lvl) {
  return {{"level", lvl},
          {"message", {{"text", sentence(message)}}},
          {"locations", json::array({{{"physicalLocation", {{"artifactLocation", artifact_location(file)}}}}})}};
}

}  // namespace

void write_sarif(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  json rule_list = json::array();
  std::map<std::string, size_t> rule_index;
  for (const auto& r : rules.all()) {
    rule_index[r.code] = rule_list.size();
    rule_list.push_back(rule_descriptor(r));
  }
  json results = json::array();
  json notifications = json::array();
  for (const auto& e : report.errors) notifications.push_back(notification(e.file, e.message, "error"));
  for (const auto& w : report.warnings) notifications.push_back(notification(w.file, w.message, "warning"));
  for (const auto& f : report.files) {
    for (const auto& n : f.result.notices) notifications.push_back(notification(n.file, n.message, "note"));
    for (size_t i = 0; i < f.result.diagnostics.size(); ++i) {
      const Diagnostic& d = f.result.diagnostics[i];
      results.push_back(result_json(*f.source, d, rule_index));
      if (report.measured)
        if (const auto* m = report.measured->find(d.file, i)) results.back()["properties"]["measured"] = trace::measured_json(*m);
    }
  }
  json invocation = {{"executionSuccessful", report.errors.empty()}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;
  json run = {{"tool",
               {{"driver",
                 {{"name", "stoker"},
                  {"version", STOKER_VERSION},
                  {"semanticVersion", STOKER_VERSION},
                  {"informationUri", kInformationUri},
                  {"rules", rule_list}}}}},
              {"originalUriBaseIds", {{kSrcRoot, {{"uri", working_directory_uri()}}}}},
              {"columnKind", "unicodeCodePoints"},
              {"invocations", json::array({invocation})},
              {"results", results}};
  if (report.measured) run["properties"] = {{"profile", trace::summary_json(*report.measured)}};
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
  out << log.dump(2) << "\n";
}

}  // namespace stoker::output
