// `stoker server` in project mode: a document is analyzed with the modules next to it, and a
// change re-publishes the open modules whose findings it changed (from the module states kept
// in memory), through the real binary over pipes.
#include <catch2/catch.hpp>

#include <set>

#include "cli_support.h"
#include "lsp_client.h"

using lsp_test::json;
using lsp_test::LspProcess;
namespace fs = std::filesystem;

namespace {

std::string uri_of(const fs::path& p) { return "file://" + p.string(); }

void open(LspProcess& s, const std::string& uri, const std::string& text) {
  s.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
}

std::multiset<std::string> codes(const json& pub) {
  std::multiset<std::string> out;
  for (const auto& d : pub["params"]["diagnostics"]) out.insert(d["code"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("lsp project mode: facts from the modules next to a document, dependents re-published", "[project]") {
  stoker::testing::TempDir d;
  fs::path src = fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python/project/split_modules";
  for (const char* name : {"main.py", "engine.py", "utils.py"}) fs::copy_file(src / name, d / name);
  std::string engine = stoker::testing::read_text(d / "engine.py");
  std::string utils = stoker::testing::read_text(d / "utils.py");
  LspProcess server;
  server.initialize();
  open(server, uri_of(d / "engine.py"), engine);
  json pub = server.diagnostics_for(uri_of(d / "engine.py"));
  REQUIRE(pub.is_object());
  // The device and the per-epoch call come from main.py (on disk, not open). GU001 at info: the
  // fp32 training loop's model is built in main.py (its kind is not resolved in engine.py).
  CHECK(codes(pub) == std::multiset<std::string>{"GU001", "SY001", "TX001", "TX001"});
  open(server, uri_of(d / "utils.py"), utils);
  pub = server.diagnostics_for(uri_of(d / "utils.py"));
  REQUIRE(pub.is_object());
  CHECK(codes(pub) == std::multiset<std::string>{"SY001"});
  // engine.py stops calling the logger per step: utils.py (a dependent) is published again.
  std::string edited = engine;
  auto at = edited.find("        metric_logger.update(");
  REQUIRE(at != std::string::npos);
  edited.insert(at, "        pass\n    if False:\n");
  server.notify("textDocument/didChange", {{"textDocument", {{"uri", uri_of(d / "engine.py")}, {"version", 2}}},
                                           {"contentChanges", json::array({{{"text", edited}}})}});
  pub = server.diagnostics_for(uri_of(d / "utils.py"));
  REQUIRE(pub.is_object());
  CHECK(codes(pub).empty());
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}
