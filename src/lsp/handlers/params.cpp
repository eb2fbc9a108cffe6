#include "lsp/handlers/handlers.h"

namespace stoker::lsp::handlers {

const json& field(const json& obj, const char* key) {
  if (!obj.is_object()) throw ProtocolError(error_code::InvalidParams, std::string("expected an object holding `") + key + "`");
  auto it = obj.find(key);
  if (it == obj.end()) throw ProtocolError(error_code::InvalidParams, std::string("missing `") + key + "`");
  return *it;
}

std::string string_field(const json& obj, const char* key) {
  const json& v = field(obj, key);
  if (!v.is_string()) throw ProtocolError(error_code::InvalidParams, std::string("`") + key + "` must be a string");
  return v.get<std::string>();
}

std::string document_uri(const json& params) { return string_field(field(params, "textDocument"), "uri"); }

std::pair<uint32_t, uint32_t> position_field(const json& obj, const char* key) {
  const json& p = field(obj, key);
  const json& line = field(p, "line");
  const json& ch = field(p, "character");
  if (!line.is_number_unsigned() || !ch.is_number_unsigned() || line.get<uint64_t>() > UINT32_MAX ||
      ch.get<uint64_t>() > UINT32_MAX)
    throw ProtocolError(error_code::InvalidParams, std::string("`") + key + "` must hold non-negative integers");
  return {line.get<uint32_t>(), ch.get<uint32_t>()};
}

}  // namespace stoker::lsp::handlers
