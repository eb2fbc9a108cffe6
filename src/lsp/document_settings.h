// Settings for one document: what the CLI would use for the file, plus what the editor sent
// (initializationOptions / workspace/didChangeConfiguration, the `stoker` section).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/settings.h"
#include "lsp/protocol.h"

namespace stoker::lsp {

struct ClientSettings {
  bool enable = true;
  std::optional<std::string> gpu;
  std::vector<std::string> select, ignore;
};

// Reads {"stoker": {...}} or the section itself; unknown keys and wrong types are ignored
// (reported in `problems`), so a bad editor setting never stops the server.
ClientSettings parse_client_settings(const json& settings, std::vector<std::string>& problems);

// The one place that decides a document's Settings.
Settings settings_for_document(const std::string& path, const ClientSettings& client);

}  // namespace stoker::lsp
