// workspace/didChangeConfiguration: the editor's `stoker.*` settings; re-analyzes open documents.
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

void did_change_configuration(Session& s, const json& params) {
  if (!params.is_object()) return;
  auto it = params.find("settings");
  if (it == params.end() || !it->is_object()) return;  // null: nothing pushed (pull model)
  std::vector<std::string> problems;
  s.set_client_settings(parse_client_settings(*it, problems));
  for (const auto& p : problems) s.log(2, "stoker: ignoring setting: " + p);
  s.schedule_all();
}

}  // namespace stoker::lsp::handlers
