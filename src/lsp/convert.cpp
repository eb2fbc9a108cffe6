#include "lsp/convert.h"

#include <fstream>
#include <sstream>

#include "lsp/uri.h"

namespace stoker::lsp {

json PositionMapper::position(uint32_t offset) const {
  auto [line, col] = file_.lines.lsp_position(file_.text, offset);
  if (line == 0 && file_.has_bom) ++col;
  return {{"line", line}, {"character", col}};
}

json PositionMapper::range(TextRange r) const { return {{"start", position(r.start)}, {"end", position(r.end)}}; }

uint32_t PositionMapper::offset(uint32_t line, uint32_t character) const {
  if (line == 0 && file_.has_bom && character > 0) --character;
  return file_.lines.offset_from_lsp(file_.text, line, character);
}

int lsp_severity(Severity s) {
  switch (s) {
    case Severity::Error: return 1;
    case Severity::Warning: return 2;
    case Severity::Info: return 3;
  }
  return 2;
}

json fix_data(const Fix& fix, const PositionMapper& map) {
  json edits = json::array();
  for (const auto& e : fix.edits) edits.push_back({{"range", map.range(e.range)}, {"newText", e.replacement}});
  return {{"title", fix.title}, {"applicability", to_string(fix.applicability)}, {"edits", edits}};
}

namespace {

// A related location in another file: positions come from that file as it is on disk.
json related_range_elsewhere(const std::string& path, TextRange r) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}};
  std::stringstream ss;
  ss << in.rdbuf();
  SourceFile other(path, ss.str());
  return PositionMapper(other).range(r);
}

}  // namespace

json to_lsp_diagnostic(const Diagnostic& d, const PositionMapper& map, const std::string& uri,
                       const RuleRegistry& rules) {
  json j = {{"range", map.range(d.range)},
            {"severity", lsp_severity(d.severity)},
            {"code", d.code},
            {"source", "stoker"},
            {"message", d.message}};
  if (const RuleInfo* info = rules.find(d.code)) j["codeDescription"] = {{"href", info->url()}};
  if (!d.related.empty()) {
    json rel = json::array();
    for (const auto& r : d.related) {
      bool same = r.file.empty() || r.file == d.file;
      json range = same ? map.range(r.range) : related_range_elsewhere(r.file, r.range);
      rel.push_back({{"location", {{"uri", same ? uri : uri_from_path(r.file)}, {"range", range}}},
                     {"message", r.message}});
    }
    j["relatedInformation"] = rel;
  }
  json data = json::object();
  if (d.fix && !d.fix->edits.empty()) data["fix"] = fix_data(*d.fix, map);
  else if (d.fix) data["suggestion"] = d.fix->title;
  if (!data.empty()) j["data"] = data;
  return j;
}

}  // namespace stoker::lsp
