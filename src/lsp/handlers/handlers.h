// One handler per LSP method. Requests return their result (or throw ProtocolError);
// notifications return nothing. All run on the message loop.
#pragma once

#include "lsp/protocol.h"
#include "lsp/session.h"

namespace stoker::lsp::handlers {

json initialize(Session& s, const json& params);
void initialized(Session& s, const json& params);
json shutdown(Session& s, const json& params);

void did_open(Session& s, const json& params);
void did_change(Session& s, const json& params);
void did_save(Session& s, const json& params);
void did_close(Session& s, const json& params);

// LSP 3.17 notebook documents (notebook_sync.cpp).
void notebook_did_open(Session& s, const json& params);
void notebook_did_change(Session& s, const json& params);
void notebook_did_save(Session& s, const json& params);
void notebook_did_close(Session& s, const json& params);

json code_action(Session& s, const json& params);
json hover(Session& s, const json& params);

void did_change_configuration(Session& s, const json& params);

// Parameter access that turns a missing or mistyped field into InvalidParams.
const json& field(const json& obj, const char* key);
std::string string_field(const json& obj, const char* key);
std::string document_uri(const json& params);
std::pair<uint32_t, uint32_t> position_field(const json& obj, const char* key);

}  // namespace stoker::lsp::handlers
