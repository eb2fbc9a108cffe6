// textDocument/didOpen, didChange, didSave, didClose: keep the document store current and
// queue analysis. Notifications about documents that were never opened are ignored.
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

void did_open(Session& s, const json& params) {
  const json& doc = field(params, "textDocument");
  std::string uri = string_field(doc, "uri");
  std::string language = doc.contains("languageId") && doc["languageId"].is_string() ? doc["languageId"].get<std::string>() : "";
  const json& version = field(doc, "version");
  if (!version.is_number_integer()) throw ProtocolError(error_code::InvalidParams, "`version` must be an integer");
  s.documents.open(uri, language, version.get<int64_t>(), string_field(doc, "text"));
  s.schedule(uri);
}

void did_change(Session& s, const json& params) {
  const json& doc = field(params, "textDocument");
  std::string uri = string_field(doc, "uri");
  int64_t version = 0;
  if (auto it = doc.find("version"); it != doc.end() && it->is_number_integer()) version = it->get<int64_t>();
  const json& changes = field(params, "contentChanges");
  if (!changes.is_array()) throw ProtocolError(error_code::InvalidParams, "`contentChanges` must be an array");
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
  if (!s.documents.change(uri, version, list)) return;  // not open: ignored
  s.schedule(uri);
}

void did_save(Session& s, const json& params) {
  std::string uri = document_uri(params);
  // Configuration next to the file may have changed on disk; analysis is cheap.
  if (s.documents.is_open(uri)) s.schedule(uri);
}

void did_close(Session& s, const json& params) {
  std::string uri = document_uri(params);
  if (s.documents.close(uri)) s.clear_diagnostics(uri);
}

}  // namespace stoker::lsp::handlers
