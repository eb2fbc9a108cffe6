// `stoker server` as a subprocess: lifecycle and robustness against bad input.
#include <catch2/catch.hpp>

#include "lsp_client.h"

using lsp_test::frame;
using lsp_test::json;
using lsp_test::LspProcess;

namespace {
int error_code(const json& m) { return m.contains("error") ? m["error"]["code"].get<int>() : 0; }
const char* kUri = "file:///tmp/stoker-lsp-test/train.py";
}  // namespace

TEST_CASE("lsp: initialize advertises the capabilities, shutdown then exit ends with 0") {
  LspProcess server;
  json r = server.initialize();
  REQUIRE(r.is_object());
  const json& caps = r["result"]["capabilities"];
  CHECK(caps["textDocumentSync"]["change"] == 1);
  CHECK(caps["textDocumentSync"]["openClose"] == true);
  CHECK(caps["hoverProvider"] == true);
  CHECK(caps["codeActionProvider"]["codeActionKinds"] == json({"quickfix", "source.fixAll.stoker"}));
  CHECK(r["result"]["serverInfo"]["name"] == "stoker");
  json s = server.request("shutdown", nullptr);
  REQUIRE(s.is_object());
  CHECK(s.contains("result"));
  CHECK(s["result"].is_null());
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("lsp: requests before initialize get ServerNotInitialized - exit without shutdown is 1") {
  LspProcess server;
  json r = server.request("textDocument/hover", {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(error_code(r) == -32002);
  // A notification before initialize is dropped: the document does not exist afterwards.
  server.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", "import torch\n"}}}});
  server.initialize();
  json actions = server.request("textDocument/codeAction",
                                {{"textDocument", {{"uri", kUri}}},
                                 {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                 {"context", {{"diagnostics", json::array()}}}});
  CHECK(actions["result"] == json::array());
  for (const auto& m : server.skipped) CHECK(m.value("method", "") != "textDocument/publishDiagnostics");
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 1);
}

TEST_CASE("lsp: malformed headers and invalid JSON get -32700, and the server keeps serving") {
  LspProcess server;
  server.initialize();
  server.send_raw("Content-Length: twelve\r\n\r\n");
  json a = server.wait_for([](const json& m) { return m.contains("error"); });
  CHECK(error_code(a) == -32700);
  CHECK(a["id"].is_null());
  server.send_raw("Content-Type: application/json\r\n\r\n");
  CHECK(error_code(server.wait_for([](const json& m) { return m.contains("error"); })) == -32700);
  server.send_raw(frame("{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": "));
  json c = server.wait_for([](const json& m) { return m.contains("error"); });
  CHECK(error_code(c) == -32700);
  CHECK(c["id"].is_null());
  server.send_raw(frame("\xff\xfe not json at all"));
  CHECK(error_code(server.wait_for([](const json& m) { return m.contains("error"); })) == -32700);
  // Still alive and in sync.
  json r = server.request("shutdown", nullptr);
  CHECK(r.contains("result"));
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
  CHECK(server.stderr_text().find("malformed header") != std::string::npos);
}

TEST_CASE("lsp: invalid requests get -32600 and unknown methods -32601") {
  LspProcess server;
  server.initialize();
  auto error_reply = [&] { return server.wait_for([](const json& m) { return m.contains("error"); }); };
  server.send(json::array({{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "shutdown"}}}));  // batch
  CHECK(error_code(error_reply()) == -32600);
  server.send({{"id", 9}, {"method", "textDocument/hover"}});  // no "jsonrpc"
  json b = error_reply();
  CHECK(error_code(b) == -32600);
  CHECK(b["id"] == 9);
  server.send({{"jsonrpc", "2.0"}, {"id", {{"x", 1}}}, {"method", "shutdown"}});  // id must be int or string
  CHECK(error_code(error_reply()) == -32600);
  server.send({{"jsonrpc", "2.0"}, {"id", 10}, {"method", "textDocument/hover"}, {"params", "nope"}});
  CHECK(error_code(error_reply()) == -32600);
  json u = server.request("textDocument/formatting", {{"textDocument", {{"uri", kUri}}}});
  CHECK(error_code(u) == -32601);
  CHECK(u["error"]["message"].get<std::string>().find("textDocument/formatting") != std::string::npos);
  // Wrong parameter shapes: -32602.
  json p = server.request("textDocument/hover", {{"textDocument", {{"uri", 3}}}});
  CHECK(error_code(p) == -32602);
  json q = server.request("textDocument/hover", {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", -1}, {"character", 0}}}});
  CHECK(error_code(q) == -32602);
  // Unknown notifications and $/ notifications are ignored without a reply.
  server.notify("$/setTrace", {{"value", "off"}});
  server.notify("custom/thing", json::object());
  server.send({{"jsonrpc", "2.0"}, {"id", 77}, {"result", nullptr}});  // a response we never asked for
  json again = server.request("initialize", {{"capabilities", json::object()}});
  CHECK(error_code(again) == -32600);  // initialize only once
  for (const auto& m : server.skipped) CHECK_FALSE((m.contains("id") && m["id"] == 77));
}

TEST_CASE("lsp: after shutdown requests are invalid - end of input without exit ends with 1") {
  LspProcess server;
  server.initialize();
  server.request("shutdown", nullptr);
  json r = server.request("textDocument/hover", {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(error_code(r) == -32600);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);

  LspProcess vanished;
  vanished.initialize();
  vanished.close_stdin();
  CHECK(vanished.wait_exit() == 1);
}

TEST_CASE("lsp: notifications for documents never opened are ignored") {
  LspProcess server;
  server.initialize();
  server.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                           {"contentChanges", json::array({{{"text", "import torch\n"}}})}});
  server.notify("textDocument/didSave", {{"textDocument", {{"uri", kUri}}}});
  server.notify("textDocument/didClose", {{"textDocument", {{"uri", kUri}}}});
  server.notify("textDocument/didOpen", {{"textDocument", {{"uri", 42}}}});  // malformed: logged, ignored
  json r = server.request("textDocument/hover", {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(r.contains("result"));
  CHECK(r["result"].is_null());
  for (const auto& m : server.skipped) CHECK(m.value("method", "") != "textDocument/publishDiagnostics");
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("lsp: a huge document is not analyzed and does not stall the server") {
  LspProcess server;
  server.initialize();
  std::string text;
  text.reserve(9u << 20);
  while (text.size() < (9u << 20)) text += "loader = torch.utils.data.DataLoader(ds, batch_size=64)  # padding\n";
  server.notify("textDocument/didOpen", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json d = server.diagnostics_for(kUri, 30000);
  REQUIRE(d.is_object());
  CHECK(d["params"]["diagnostics"] == json::array());
  json r = server.request("shutdown", nullptr);
  CHECK(r.contains("result"));
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
  CHECK(server.stderr_text().find("are not analyzed") != std::string::npos);
}

TEST_CASE("lsp: $/cancelRequest answers a request still waiting in the queue with -32800") {
  LspProcess server;
  server.initialize();
  // A large (but analyzable) document keeps the loop busy answering the first hover, which has
  // to analyze it, while the second hover and its cancellation arrive.
  std::string text = "import torch\n";
  while (text.size() < (6u << 20)) text += "x = torch.zeros(3) + 1  # some padding to make the parse take a while\n";
  std::string batch;
  auto msg = [](json m) { return frame(m.dump()); };
  batch += msg({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                {"params", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
  json hover_params = {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 1}, {"character", 0}}}};
  batch += msg({{"jsonrpc", "2.0"}, {"id", 100}, {"method", "textDocument/hover"}, {"params", hover_params}});
  batch += msg({{"jsonrpc", "2.0"}, {"id", 101}, {"method", "textDocument/hover"}, {"params", hover_params}});
  batch += msg({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 101}}}});
  batch += msg({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", 999}}}});  // unknown id: harmless
  server.send_raw(batch);
  json first = server.response(100, 120000);  // generous: the machine may be loaded
  REQUIRE(first.is_object());
  CHECK(first.contains("result"));
  json second = server.response(101, 30000);
  REQUIRE(second.is_object());
  CHECK(error_code(second) == -32800);
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}
