// GitHub Actions workflow commands: one `::warning ...::message` line per finding, which the
// runner turns into annotations on the pull request's diff.
#include "output/paths.h"
#include "output/report.h"

namespace stoker::output {
namespace {

// Escaping as the Actions runner's command parser expects.
std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out.push_back(c);
  }
  return out;
}

std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out.push_back(c);
  }
  return out;
}

const char* command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "notice";
  }
  return "warning";
}

}  // namespace

void write_github(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  for (const auto& e : report.errors)
    out << "::error file=" << escape_property(relative_path(e.file)) << ",title=stoker::" << escape_data(e.message) << "\n";
  for (const auto& f : report.files) {
    const SourceFile& file = *f.source;
    for (const auto& n : f.result.notices) {
      out << "::notice file=" << escape_property(relative_path(n.file));
      if (n.range) out << ",line=" << file_span(file, *n.range).first.row;
      out << ",title=stoker::" << escape_data(n.message) << "\n";
    }
    for (const auto& d : f.result.diagnostics) {
      auto [start, end] = file_span(file, d.range);
      const RuleInfo* info = rules.find(d.code);
      std::string title = "stoker " + d.code + (info ? " (" + info->name + ")" : std::string());
      std::string message = d.code + " " + d.message;
      if (auto in_cell = diagnostic_span(file, d).first; in_cell.cell)  // lines below are the .ipynb's
        message = "cell " + std::to_string(in_cell.cell) + ":" + std::to_string(in_cell.row) + ":" +
                  std::to_string(in_cell.column) + ": " + message;
      if (d.fix) message += "\nFix (" + std::string(to_string(d.fix->applicability)) + "): " + d.fix->title;
      if (info) message += "\n" + info->url();
      out << "::" << command(d.severity) << " file=" << escape_property(relative_path(d.file)) << ",line=" << start.row
          << ",col=" << start.column << ",endLine=" << end.row << ",endColumn=" << end.column
          << ",title=" << escape_property(title) << "::" << escape_data(message) << "\n";
    }
  }
}

}  // namespace stoker::output
