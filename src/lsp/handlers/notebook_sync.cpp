// notebookDocument/didOpen, didChange, didSave, didClose (LSP 3.17): the cells' text documents
// go into the document store, the notebook's cell list into the notebook store, and the whole
// notebook is queued for analysis (Session::analyze_notebook).
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

namespace {

std::vector<NotebookCellRef> cell_refs(const json& cells) {
  if (!cells.is_array()) throw ProtocolError(error_code::InvalidParams, "`cells` must be an array");
  std::vector<NotebookCellRef> out;
  for (const auto& c : cells) {
    NotebookCellRef ref;
    ref.uri = string_field(c, "document");
    const json& kind = field(c, "kind");
    if (!kind.is_number_integer()) throw ProtocolError(error_code::InvalidParams, "`kind` must be an integer");
    ref.kind = kind.get<int>();
    out.push_back(std::move(ref));
  }
  return out;
}

void open_cell_documents(Session& s, const json& docs) {
  if (!docs.is_array()) return;
  for (const auto& doc : docs) {
    std::string uri = string_field(doc, "uri");
    std::string language = doc.contains("languageId") && doc["languageId"].is_string() ? doc["languageId"].get<std::string>() : "";
    const json& version = field(doc, "version");
    if (!version.is_number_integer()) throw ProtocolError(error_code::InvalidParams, "`version` must be an integer");
    s.documents.open(uri, language, version.get<int64_t>(), string_field(doc, "text"));
  }
}

void close_cell_documents(Session& s, const json& docs) {
  if (!docs.is_array()) return;
  for (const auto& doc : docs) {
    std::string uri = string_field(doc, "uri");
    if (s.documents.close(uri)) s.clear_diagnostics(uri);
  }
}

std::vector<TextChange> text_changes(const json& changes) {
  if (!changes.is_array()) throw ProtocolError(error_code::InvalidParams, "`changes` must be an array");
  std::vector<TextChange> list;
  for (const auto& c : changes) {
    TextChange tc;
    tc.text = string_field(c, "text");
    if (c.contains("range")) {
      const json& r = c["range"];
      tc.start = position_field(r, "start");
      tc.end = position_field(r, "end");
    }
    list.push_back(std::move(tc));
  }
  return list;
}

}  // namespace

void notebook_did_open(Session& s, const json& params) {
  const json& nb = field(params, "notebookDocument");
  std::string uri = string_field(nb, "uri");
  auto cells = cell_refs(field(nb, "cells"));
  if (auto it = params.find("cellTextDocuments"); it != params.end()) open_cell_documents(s, *it);
  s.notebooks.open(uri, std::move(cells));
  s.schedule(uri);
}

void notebook_did_change(Session& s, const json& params) {
  const json& nb = field(params, "notebookDocument");
  std::string uri = string_field(nb, "uri");
  if (!s.notebooks.is_open(uri)) return;  // never opened: ignored
  const json& change = field(params, "change");
  if (auto cells = change.find("cells"); cells != change.end() && cells->is_object()) {
    if (auto st = cells->find("structure"); st != cells->end() && st->is_object()) {
      const json& array = field(*st, "array");
      const json& start = field(array, "start");
      const json& count = field(array, "deleteCount");
      if (!start.is_number_unsigned() || !count.is_number_unsigned())
        throw ProtocolError(error_code::InvalidParams, "`start` and `deleteCount` must be unsigned integers");
      std::vector<NotebookCellRef> added;
      if (auto c = array.find("cells"); c != array.end() && !c->is_null()) added = cell_refs(*c);
      if (auto o = st->find("didOpen"); o != st->end()) open_cell_documents(s, *o);
      if (auto c = st->find("didClose"); c != st->end()) close_cell_documents(s, *c);
      s.notebooks.splice(uri, start.get<size_t>(), count.get<size_t>(), std::move(added));
    }
    if (auto tc = cells->find("textContent"); tc != cells->end() && tc->is_array()) {
      for (const auto& item : *tc) {
        const json& doc = field(item, "document");
        std::string cell = string_field(doc, "uri");
        int64_t version = 0;
        if (auto v = doc.find("version"); v != doc.end() && v->is_number_integer()) version = v->get<int64_t>();
        s.documents.change(cell, version, text_changes(field(item, "changes")));
      }
    }
    // `data` (cell metadata, execution summaries) does not change the program.
  }
  s.schedule(uri);
}

void notebook_did_save(Session& s, const json& params) {
  std::string uri = string_field(field(params, "notebookDocument"), "uri");
  if (s.notebooks.is_open(uri)) s.schedule(uri);
}

void notebook_did_close(Session& s, const json& params) {
  std::string uri = string_field(field(params, "notebookDocument"), "uri");
  for (const auto& c : s.notebooks.close(uri))
    if (s.documents.close(c.uri)) s.clear_diagnostics(c.uri);
  if (auto it = params.find("cellTextDocuments"); it != params.end()) close_cell_documents(s, *it);
}

}  // namespace stoker::lsp::handlers
