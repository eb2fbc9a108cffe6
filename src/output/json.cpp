// ruff-shaped JSON (so existing tooling reads it) plus `severity` and `impact`.
#include <nlohmann/json.hpp>

#include "core/compute_speedup.h"
#include "core/notebook.h"
#include "output/report.h"
#include "trace/join.h"

namespace stoker {

std::pair<Position, Position> diagnostic_span(const SourceFile& file, const Diagnostic& d) {
  return {source_position(file, d.range.start), source_position(file, d.range.end)};
}

std::pair<Position, Position> file_span(const SourceFile& file, TextRange r) {
  if (file.notebook) {
    Position s = file.notebook->file_position(r.start), e = file.notebook->file_position(r.end);
    if (s.row) return {s, e.row ? e : s};
  }
  return {file.lines.position(file.text, r.start), file.lines.position(file.text, r.end)};
}

namespace output {

static nlohmann::json location(const Position& p) { return {{"row", p.row}, {"column", p.column}}; }

nlohmann::json diagnostic_json(const SourceFile& file, const Diagnostic& d, const RuleRegistry& rules) {
  auto [start, end] = diagnostic_span(file, d);
  nlohmann::json j;
  j["code"] = d.code;
  j["message"] = d.message;
  j["filename"] = d.file;
  j["location"] = location(start);
  j["end_location"] = location(end);
  if (d.fix && !d.fix->edits.empty()) {
    nlohmann::json edits = nlohmann::json::array();
    for (const auto& e : d.fix->edits) {
      edits.push_back({{"content", e.replacement},
                       {"location", location(source_position(file, e.range.start))},
                       {"end_location", location(source_position(file, e.range.end))}});
    }
    j["fix"] = {{"applicability", to_string(d.fix->applicability)}, {"message", d.fix->title}, {"edits", edits}};
  } else if (d.fix) {
    j["fix"] = {{"applicability", "display-only"}, {"message", d.fix->title}, {"edits", nlohmann::json::array()}};
  } else {
    j["fix"] = nullptr;
  }
  const RuleInfo* info = rules.find(d.code);
  j["url"] = info ? nlohmann::json(info->url()) : nlohmann::json(nullptr);
  j["noqa_row"] = start.row;
  // ruff's notebook field: the 1-based cell, rows and columns then being within the cell.
  j["cell"] = start.cell ? nlohmann::json(start.cell) : nlohmann::json(nullptr);
  j["severity"] = to_string(d.severity);
  if (d.impact) {
    j["impact"] = {{"model", d.impact->model},
                   {"gain_pp", {d.impact->gain_low, d.impact->gain_high}},
                   {"gain_unit", gain_unit(*d.impact)},
                   {"gain_text", gain_long(*d.impact)},
                   {"profile", d.impact->profile},
                   {"assumptions", d.impact->assumptions}};
  } else {
    j["impact"] = nullptr;
  }
  if (!d.related.empty()) {
    nlohmann::json rel = nlohmann::json::array();
    for (const auto& r : d.related) {
      nlohmann::json item = {{"filename", r.file}, {"message", r.message}};
      if (r.file == d.file) {
        item["location"] = location(source_position(file, r.range.start));
        item["end_location"] = location(source_position(file, r.range.end));
      }
      rel.push_back(item);
    }
    j["related"] = rel;
  }
  return j;
}

void write_json(std::ostream& out, const Report& report, const RuleRegistry& rules) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& f : report.files)
    for (size_t i = 0; i < f.result.diagnostics.size(); ++i) {
      const Diagnostic& d = f.result.diagnostics[i];
      arr.push_back(diagnostic_json(*f.source, d, rules));
      // --profile: what the trace measured for this finding (null: nothing joined to it).
      if (report.measured) {
        const auto* m = report.measured->find(d.file, i);
        arr.back()["measured"] = m ? trace::measured_json(*m) : nlohmann::json(nullptr);
        // The measured step of the hot loop the finding is in, when the trace went into its estimate.
        const auto* l = report.measured->loop_of(d.file, i, report);
        arr.back()["measured_loop"] = l ? trace::loop_json(*l) : nlohmann::json(nullptr);
      }
    }
  out << arr.dump(2) << "\n";
}

}  // namespace output
}  // namespace stoker
