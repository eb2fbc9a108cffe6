// textDocument/hover over a diagnostic: the finding, its impact estimate, the rule's document.
#include <cstdio>

#include "core/compute_speedup.h"
#include "lsp/convert.h"
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

namespace {

std::string format_pp(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string impact_markdown(const Impact& i) {
  // A compute speedup shortens the step; the GPU is as busy as before (core/compute_speedup.h).
  std::string out = gain_is_step_time(i)
                        ? "**Estimated impact:** fixing this shortens the step by " + format_pp(i.gain_low) + "–" +
                              format_pp(i.gain_high) + "% of its time (faster GPU work; model `" + i.model + "`"
                        : "**Estimated impact:** fixing this recovers " + format_pp(i.gain_low) + "–" +
                              format_pp(i.gain_high) + " percentage points of GPU busy time (model `" + i.model + "`";
  if (!i.profile.empty()) out += ", profile `" + i.profile + "`";
  out += ").\n";
  if (!i.assumptions.empty()) {
    out += "\nAssumptions:\n";
    for (const auto& a : i.assumptions) out += "- " + a + "\n";
  }
  return out;
}

}  // namespace

json hover(Session& s, const json& params) {
  std::string uri = document_uri(params);
  auto [line, character] = position_field(params, "position");
  auto analysis = s.analysis_now(uri);
  if (!analysis || analysis->skipped) return nullptr;
  PositionMapper map(*analysis->source);
  uint32_t offset = map.offset(line, character);
  std::string md;
  const Diagnostic* first = nullptr;
  for (const auto& d : analysis->result.diagnostics) {
    if (offset < d.range.start || offset > d.range.end) continue;
    if (!first) first = &d;
    else md += "\n---\n\n";
    const RuleInfo* info = s.rules.find(d.code);
    md += "**" + d.code + "**" + (info ? " `" + info->name + "`" : std::string()) + ": " + d.message + "\n\n";
    if (d.fix) md += "**Fix** (" + std::string(to_string(d.fix->applicability)) + "): " + d.fix->title + "\n\n";
    if (d.impact) md += impact_markdown(*d.impact) + "\n";
    if (info) md += info->document + "\n\n[" + info->url() + "](" + info->url() + ")\n";
  }
  if (!first) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", md}}}, {"range", map.range(first->range)}};
}

}  // namespace stoker::lsp::handlers
