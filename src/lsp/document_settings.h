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

// The one place that decides a document's Settings: as `stoker check` would for the file
// (defaults, the nearest configuration file, per-file-ignores), then the editor's settings.
// Configuration problems are appended to `problems` (the defaults apply where a file is bad).
// Configuration is read afresh on every call, so edits to pyproject.toml take effect at the
// next analysis.
Settings settings_for_document(const std::string& path, const ClientSettings& client,
                               std::vector<std::string>* problems = nullptr);

}  // namespace stoker::lsp
