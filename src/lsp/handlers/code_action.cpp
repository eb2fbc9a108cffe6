// textDocument/codeAction: per stoker diagnostic its fix (from the diagnostic's `data`, so no
// re-analysis) and a suppression comment; for the document, source.fixAll.stoker with every
// safe fix whose edits do not overlap.
#include <algorithm>

#include "lsp/convert.h"
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

namespace {

constexpr const char* kFixAllKind = "source.fixAll.stoker";

bool kind_requested(const json& only, const std::string& kind) {
  if (!only.is_array() || only.empty()) return true;
  for (const auto& k : only) {
    if (!k.is_string()) continue;
    std::string prefix = k.get<std::string>();
    if (kind == prefix || (kind.size() > prefix.size() && kind.compare(0, prefix.size(), prefix) == 0 &&
                           kind[prefix.size()] == '.'))
      return true;
  }
  return false;
}

bool is_python(const Snapshot& snap) {
  Language l = language_for_path(snap.path);
  if (l == Language::Unknown) return snap.language_id == "python";
  return l == Language::Python;
}

json workspace_edit(const std::string& uri, json edits) { return {{"changes", {{uri, std::move(edits)}}}}; }

// `  # stoker: ignore[CODE]` at the end of the diagnostic's first line, or CODE added to the
// list of a suppression comment already there.
json suppression_edit(const Snapshot& snap, uint32_t line, const std::string& code) {
  LineIndex index(snap.text);
  if (line >= index.line_count()) return nullptr;
  uint32_t start = index.line_start(line + 1), end = index.line_end(snap.text, line + 1);
  std::string_view text = std::string_view(snap.text).substr(start, end - start);
  uint32_t insert_at = end;
  std::string insertion;
  size_t marker = text.find("stoker: ignore[");
  size_t close = marker == std::string_view::npos ? marker : text.find(']', marker);
  if (close != std::string_view::npos) {
    std::string_view list = text.substr(marker, close - marker);
    if (list.find(code) != std::string_view::npos) return nullptr;  // already suppressed
    insert_at = start + static_cast<uint32_t>(close);
    insertion = ", " + code;
  } else {
    insertion = std::string(is_python(snap) ? "  # " : "  // ") + "stoker: ignore[" + code + "]";
  }
  auto [l, c] = index.lsp_position(snap.text, insert_at);
  json pos = {{"line", l}, {"character", c}};
  return json::array({{{"range", {{"start", pos}, {"end", pos}}}, {"newText", insertion}}});
}

// The fix of a client-side diagnostic: from `data`, or (for clients that drop `data`) from the
// current analysis, matched by code and start.
json fix_for(Session& s, const std::string& uri, const json& diag) {
  if (diag.contains("data") && diag["data"].is_object() && diag["data"].contains("fix") &&
      diag["data"]["fix"].is_object())
    return diag["data"]["fix"];
  auto analysis = s.analysis_now(uri);
  if (!analysis || !diag.contains("range")) return nullptr;
  PositionMapper map(*analysis->source);
  auto start = position_field(diag["range"], "start");
  uint32_t offset = map.offset(start.first, start.second);
  std::string code = diag.value("code", json("")).is_string() ? diag["code"].get<std::string>() : "";
  for (const auto& d : analysis->result.diagnostics)
    if (d.code == code && d.range.start == offset && d.fix && !d.fix->edits.empty()) return fix_data(*d.fix, map);
  return nullptr;
}

bool overlaps(const Edit& a, const Edit& b) {
  if (a.range.start == b.range.start) return true;  // two edits at one point: order unknowable
  return a.range.start < b.range.end && b.range.start < a.range.end;
}

json fix_all(Session& s, const std::string& uri) {
  auto analysis = s.analysis_now(uri);
  if (!analysis) return nullptr;
  std::vector<const Fix*> fixes;
  for (const auto& d : analysis->result.diagnostics)
    if (d.fix && d.fix->applicability == Applicability::Safe && !d.fix->edits.empty()) fixes.push_back(&*d.fix);
  std::stable_sort(fixes.begin(), fixes.end(),
                   [](const Fix* a, const Fix* b) { return a->edits.front().range.start < b->edits.front().range.start; });
  std::vector<Edit> taken;
  for (const Fix* f : fixes) {
    bool clash = false;
    for (const auto& e : f->edits)
      for (const auto& t : taken) clash |= overlaps(e, t);
    if (!clash) taken.insert(taken.end(), f->edits.begin(), f->edits.end());
  }
  if (taken.empty()) return nullptr;
  PositionMapper map(*analysis->source);
  json edits = json::array();
  for (const auto& e : taken) edits.push_back({{"range", map.range(e.range)}, {"newText", e.replacement}});
  return {{"title", "Fix all safe stoker findings"}, {"kind", kFixAllKind}, {"edit", workspace_edit(uri, edits)}};
}

}  // namespace

json code_action(Session& s, const json& params) {
  std::string uri = document_uri(params);
  const json& context = field(params, "context");
  json only = context.contains("only") ? context["only"] : json();
  json actions = json::array();
  auto snap = s.documents.snapshot(uri);
  if (!snap) return actions;

  if (kind_requested(only, "quickfix") && context.contains("diagnostics") && context["diagnostics"].is_array()) {
    for (const auto& diag : context["diagnostics"]) {
      if (!diag.is_object() || diag.value("source", json("")) != "stoker" || !diag.contains("code") ||
          !diag["code"].is_string())
        continue;
      std::string code = diag["code"].get<std::string>();
      json fix = fix_for(s, uri, diag);
      if (fix.is_object() && fix.contains("edits") && !fix["edits"].empty()) {
        actions.push_back({{"title", fix.value("title", "Apply the stoker fix") + " (" + code + ")"},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({diag})},
                           {"isPreferred", fix.value("applicability", "") == "safe"},
                           {"edit", workspace_edit(uri, fix["edits"])}});
      }
      auto start = position_field(field(diag, "range"), "start");
      json edits = suppression_edit(*snap, start.first, code);
      if (!edits.is_null())
        actions.push_back({{"title", "Suppress " + code + " on this line"},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({diag})},
                           {"edit", workspace_edit(uri, edits)}});
    }
  }
  if (kind_requested(only, kFixAllKind)) {
    json all = fix_all(s, uri);
    if (!all.is_null()) actions.push_back(all);
  }
  return actions;
}

}  // namespace stoker::lsp::handlers
