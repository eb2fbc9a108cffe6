// GitLab Code Quality report (a subset of the Code Climate format). The fingerprint hashes the
// code, the file, the text of the reported line and its occurrence count, not the line number,
// so a finding keeps its identity when unrelated lines move.
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "output/paths.h"
#include "output/report.h"

namespace stoker::output {
namespace {

uint64_t fnv1a(std::string_view s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string fingerprint(const std::string& key) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(fnv1a(key, 14695981039346656037ull)),
                static_cast<unsigned long long>(fnv1a(key, 0x9e3779b97f4a7c15ull)));
  return buf;
}

std::string trimmed_line(const SourceFile& file, uint32_t row) {
  uint32_t b = file.lines.line_start(row), e = file.lines.line_end(file.text, row);
  while (b < e && (file.text[b] == ' ' || file.text[b] == '\t')) ++b;
  while (e > b && (file.text[e - 1] == ' ' || file.text[e - 1] == '\t')) --e;
  return file.text.substr(b, e - b);
}

const char* severity(Severity s) {
  switch (s) {
    case Severity::Error: return "critical";
    case Severity::Warning: return "major";
    case Severity::Info: return "info";
  }
  return "major";
}

}  // namespace

void write_gitlab(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : report.files) {
    const SourceFile& file = *f.source;
    std::map<std::string, int> seen;
    for (const auto& d : f.result.diagnostics) {
      auto [start, end] = file_span(file, d.range);  // a notebook: lines of its JSON text
      std::string path = relative_path(d.file);
      std::string key = d.code + "\x1f" + path + "\x1f" + trimmed_line(file, file.lines.row_of(d.range.start));
      Position in_cell = diagnostic_span(file, d).first;
      std::string where = in_cell.cell ? "cell " + std::to_string(in_cell.cell) + ":" + std::to_string(in_cell.row) +
                                             ":" + std::to_string(in_cell.column) + ": "
                                       : std::string();
      int occurrence = seen[key]++;
      const RuleInfo* info = rules.find(d.code);
      nlohmann::json issue = {
          {"type", "issue"},
          {"description", where + d.code + " " + d.message},
          {"check_name", info ? d.code + " " + info->name : d.code},
          {"categories", nlohmann::json::array({d.code.rfind("ST", 0) == 0 ? "Style" : "Performance"})},
          {"fingerprint", fingerprint(key + "\x1f" + std::to_string(occurrence))},
          {"severity", severity(d.severity)},
          {"location",
           {{"path", path},
            {"positions",
             {{"begin", {{"line", start.row}, {"column", start.column}}},
              {"end", {{"line", end.row}, {"column", end.column}}}}}}}};
      if (info) issue["content"] = {{"body", info->summary + "\n\n" + info->url()}};
      arr.push_back(issue);
    }
  }
  out << arr.dump(2) << "\n";
}

}  // namespace stoker::output
