#include "lsp/document_settings.h"

#include <algorithm>

#include "core/config.h"

namespace stoker::lsp {

namespace {
std::vector<std::string> string_list(const json& v, const char* key, std::vector<std::string>& problems) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
    return out;
  }
  if (!v.is_array()) {
    problems.push_back(std::string("stoker.") + key + " must be a list of rule codes");
    return out;
  }
  for (const auto& item : v)
    if (item.is_string()) out.push_back(item.get<std::string>());
    else problems.push_back(std::string("stoker.") + key + " must contain only strings");
  return out;
}
}  // namespace

ClientSettings parse_client_settings(const json& settings, std::vector<std::string>& problems) {
  ClientSettings out;
  if (!settings.is_object()) return out;
  const json& s = settings.contains("stoker") && settings["stoker"].is_object() ? settings["stoker"] : settings;
  const RuleRegistry& rules = RuleRegistry::builtin();
  if (auto it = s.find("enable"); it != s.end()) {
    if (it->is_boolean()) out.enable = it->get<bool>();
    else problems.push_back("stoker.enable must be true or false");
  }
  if (auto it = s.find("gpu"); it != s.end() && !it->is_null()) {
    if (it->is_string() && !it->get<std::string>().empty()) {
      out.gpu = it->get<std::string>();
      const auto& known = known_gpu_profiles();
      if (std::find(known.begin(), known.end(), *out.gpu) == known.end())
        problems.push_back("stoker.gpu: unknown hardware profile `" + *out.gpu + "`");
    }
    else if (!it->is_string()) problems.push_back("stoker.gpu must be a hardware profile name");
  }
  for (auto [key, target] : {std::pair{"select", &out.select}, std::pair{"ignore", &out.ignore}}) {
    if (auto it = s.find(key); it != s.end() && !it->is_null()) {
      for (auto& code : string_list(*it, key, problems)) {
        // An unknown code is kept (it selects nothing) but reported: a typo should be visible.
        if (!rules.is_valid_selector(code)) problems.push_back(std::string("stoker.") + key + ": unknown rule selector `" + code + "`");
        target->push_back(code);
      }
    }
  }
  return out;
}

Settings settings_for_document(const std::string& path, const ClientSettings& client,
                               std::vector<std::string>* problems) {
  CliOverrides overrides;
  if (!client.select.empty()) overrides.select = client.select;
  overrides.ignore = client.ignore;
  Settings s;
  if (!path.empty() && path.front() == '/') {
    ConfigResolver resolver(std::nullopt, overrides);
    s = resolver.settings_for(path);
    if (problems)
      for (const auto& e : resolver.errors()) problems->push_back("configuration error: " + e.describe());
  } else {  // untitled: and other non-file documents have no configuration
    if (overrides.select) s.rules.select = *overrides.select;
    for (const auto& c : overrides.ignore) s.rules.ignore.push_back(c);
  }
  if (client.gpu) s.gpu = *client.gpu;
  return s;
}

}  // namespace stoker::lsp
