// initialize / initialized / shutdown: the lifecycle. `exit` is handled by the message loop.
#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

json initialize(Session& s, const json& params) {
  if (s.state != Session::State::Uninitialized)
    throw ProtocolError(error_code::InvalidRequest, "initialize may be sent only once");
  if (!params.is_object()) throw ProtocolError(error_code::InvalidParams, "initialize needs an object of parameters");
  if (auto it = params.find("initializationOptions"); it != params.end()) {
    std::vector<std::string> problems;
    s.set_client_settings(parse_client_settings(*it, problems));
    for (const auto& p : problems) s.log(2, "stoker: ignoring setting: " + p);
  }
  s.state = Session::State::Running;
  json capabilities = {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 1 /* full */}, {"save", {{"includeText", false}}}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "source.fixAll.stoker"}}, {"resolveProvider", false}}},
      {"hoverProvider", true},
      // Jupyter notebooks: the Python cells are synced and analyzed as one program.
      {"notebookDocumentSync",
       {{"notebookSelector", json::array({{{"notebook", "jupyter-notebook"}, {"cells", json::array({{{"language", "python"}}})}}})},
        {"save", true}}},
  };
  return {{"capabilities", capabilities}, {"serverInfo", {{"name", "stoker"}, {"version", STOKER_VERSION}}}};
}

void initialized(Session&, const json&) {}

json shutdown(Session& s, const json&) {
  s.state = Session::State::ShutDown;
  s.request_stop();  // answered at once, even while an analysis is running
  return nullptr;
}

}  // namespace stoker::lsp::handlers
