// JUnit XML, as CI test-report viewers read it: one test case per analyzed file, failing with
// one line per finding, or erroring when the file could not be analyzed.
#include <map>
#include <sstream>

#include "output/paths.h"
#include "output/report.h"

namespace stoker::output {
namespace {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += "?";
        else out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

struct Case {
  std::vector<std::string> findings;
  std::vector<std::string> errors;
};

}  // namespace

void write_junit(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  std::map<std::string, Case> cases;
  for (const auto& p : report.analyzed_files) cases[relative_path(p)];
  for (const auto& e : report.errors) cases[relative_path(e.file)].errors.push_back(e.message);
  for (const auto& f : report.files) {
    const SourceFile& file = *f.source;
    auto& c = cases[relative_path(file.path)];
    for (const auto& d : f.result.diagnostics) {
      auto [start, end] = diagnostic_span(file, d);
      std::ostringstream line;
      line << relative_path(d.file) << (start.cell ? ":cell " + std::to_string(start.cell) : std::string()) << ":" << start.row << ":" << start.column << ": " << d.code << " " << d.message;
      c.findings.push_back(line.str());
    }
  }
  size_t failures = 0, errors = 0;
  for (const auto& [_, c] : cases) {
    failures += !c.findings.empty();
    errors += c.findings.empty() && !c.errors.empty();
  }
  std::ostringstream body;
  for (const auto& [path, c] : cases) {
    body << "    <testcase name=\"" << xml_escape(path) << "\" classname=\"stoker\" file=\"" << xml_escape(path) << "\"";
    if (c.findings.empty() && c.errors.empty()) {
      body << "/>\n";
      continue;
    }
    body << ">\n";
    if (!c.findings.empty()) {
      body << "      <failure type=\"stoker\" message=\"" << c.findings.size() << " finding"
           << (c.findings.size() == 1 ? "" : "s") << "\">";
      for (size_t i = 0; i < c.findings.size(); ++i) body << (i ? "\n" : "") << xml_escape(c.findings[i]);
      body << "</failure>\n";
    } else {
      body << "      <error type=\"stoker\" message=\"" << xml_escape(c.errors.front()) << "\"/>\n";
    }
    body << "    </testcase>\n";
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"stoker\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\">\n"
      << "  <testsuite name=\"stoker\" tests=\"" << cases.size() << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"0\">\n"
      << body.str() << "  </testsuite>\n</testsuites>\n";
}

}  // namespace stoker::output
