// `stoker server` on a starved training script: diagnostics, code actions, hover, configuration,
// and stale results under a burst of changes. Expectations come from the real analyzer (the same
// findings `stoker check` reports) plus DL001 on the loader line.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "core/rules.h"
#include "core/source.h"
#include "lsp_client.h"

using lsp_test::json;
using lsp_test::LspProcess;

namespace {

const std::string kFixture = STOKER_SOURCE_DIR "/tests/lsp/starved_train.py";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write_temp(const std::string& text, const std::string& name) {
  std::string path = "/tmp/stoker-lsp-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

json cli_json(const std::string& path) {
  std::string cmd = std::string(STOKER_BINARY) + " check --output-format json --exit-zero '" + path + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return json::parse(out);
}

// Applies LSP text edits (UTF-16 positions) the way an editor does: back to front.
std::string apply_edits(std::string text, json edits) {
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> spans;
  stoker::LineIndex index(text);
  for (const auto& e : edits) {
    uint32_t a = index.offset_from_lsp(text, e["range"]["start"]["line"], e["range"]["start"]["character"]);
    uint32_t b = index.offset_from_lsp(text, e["range"]["end"]["line"], e["range"]["end"]["character"]);
    spans.emplace_back(a, b, e["newText"].get<std::string>());
  }
  std::sort(spans.begin(), spans.end(), [](auto& x, auto& y) { return std::get<0>(x) > std::get<0>(y); });
  for (auto& [a, b, t] : spans) text.replace(a, b - a, t);
  return text;
}

json find_code(const json& diags, const std::string& code) {
  for (const auto& d : diags)
    if (d["code"] == code) return d;
  return nullptr;
}

std::string uri_of(const std::string& path) { return "file://" + path; }

void open(LspProcess& s, const std::string& uri, const std::string& text, int version = 1) {
  s.notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", version}, {"text", text}}}});
}

void change(LspProcess& s, const std::string& uri, const std::string& text, int version) {
  s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                      {"contentChanges", json::array({{{"text", text}}})}});
}

json code_actions(LspProcess& s, const std::string& uri, const json& diags, json only = nullptr) {
  json context = {{"diagnostics", diags}};
  if (!only.is_null()) context["only"] = only;
  json range = diags.empty() ? json{{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}
                             : diags[0]["range"];
  return s.request("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", range}, {"context", context}})["result"];
}

void finish(LspProcess& s) {
  s.request("shutdown", nullptr);
  s.notify("exit", nullptr);
  CHECK(s.wait_exit() == 0);
}

}  // namespace

TEST_CASE("lsp findings: published diagnostics are the CLI's findings, with rule links and fixes in data") {
  std::string text = read_file(kFixture);
  std::string path = write_temp(text, "train.py");
  LspProcess server;
  server.initialize();
  open(server, uri_of(path), text);
  json pub = server.diagnostics_for(uri_of(path));
  REQUIRE(pub.is_object());
  CHECK(pub["params"]["version"] == 1);
  const json& diags = pub["params"]["diagnostics"];

  std::set<std::tuple<std::string, int, int>> from_lsp, from_cli;
  for (const auto& d : diags) {
    CHECK(d["source"] == "stoker");
    CHECK(d["severity"].get<int>() >= 1);
    CHECK(d["severity"].get<int>() <= 3);
    // The rule's document link, whenever the rule has a document in rules/.
    if (const stoker::RuleInfo* info = stoker::RuleRegistry::builtin().find(d["code"].get<std::string>()))
      CHECK(d["codeDescription"]["href"] == info->url());
    else
      CHECK_FALSE(d.contains("codeDescription"));
    from_lsp.insert({d["code"].get<std::string>(), d["range"]["start"]["line"].get<int>() + 1, d["range"]["start"]["character"].get<int>() + 1});
  }
  for (const auto& d : cli_json(path)) from_cli.insert({d["code"].get<std::string>(), d["location"]["row"].get<int>(), d["location"]["column"].get<int>()});
  CHECK(from_lsp == from_cli);

  json dl001 = find_code(diags, "DL001");
  REQUIRE(dl001.is_object());
  CHECK(dl001["range"]["start"]["line"] == 4);
  REQUIRE(dl001["data"]["fix"]["edits"].size() >= 1);
  std::string fixed = apply_edits(text, dl001["data"]["fix"]["edits"]);
  CHECK(fixed.find("num_workers=") != std::string::npos);
  std::remove(path.c_str());
  finish(server);
}

TEST_CASE("lsp findings: code actions offer the fix, a suppression comment and fix-all") {
  std::string text = read_file(kFixture);
  std::string uri = "file:///tmp/stoker-lsp-actions/train.py";
  LspProcess server;
  server.initialize();
  open(server, uri, text);
  json diags = server.diagnostics_for(uri)["params"]["diagnostics"];
  json dl001 = find_code(diags, "DL001");
  REQUIRE(dl001.is_object());

  json actions = code_actions(server, uri, json::array({dl001}));
  REQUIRE(actions.is_array());
  json quickfix, suppress;
  for (const auto& a : actions) {
    if (a["kind"] == "quickfix" && a["title"].get<std::string>().rfind("Suppress", 0) == 0) suppress = a;
    else if (a["kind"] == "quickfix") quickfix = a;
  }
  REQUIRE(quickfix.is_object());
  CHECK(quickfix["diagnostics"][0]["code"] == "DL001");
  std::string fixed = apply_edits(text, quickfix["edit"]["changes"][uri]);
  std::string loader_line = fixed.substr(fixed.find("loader = "), fixed.find('\n', fixed.find("loader = ")) - fixed.find("loader = "));
  CHECK(loader_line.find("num_workers=") != std::string::npos);

  REQUIRE(suppress.is_object());
  CHECK(suppress["title"] == "Suppress DL001 on this line");
  std::string suppressed = apply_edits(text, suppress["edit"]["changes"][uri]);
  CHECK(suppressed.find("loader = torch.utils.data.DataLoader(ds, batch_size=64)  # stoker: ignore[DL001]\n") !=
        std::string::npos);

  // Without the client's `data` (some clients drop it) the fix is found from the analysis.
  json bare = dl001;
  bare.erase("data");
  json again = code_actions(server, uri, json::array({bare}), json::array({"quickfix"}));
  bool has_fix = false;
  for (const auto& a : again) has_fix |= a["edit"]["changes"][uri] == quickfix["edit"]["changes"][uri];
  CHECK(has_fix);

  json all = code_actions(server, uri, json::array(), json::array({"source.fixAll"}));
  REQUIRE(all.size() == 1);
  CHECK(all[0]["kind"] == "source.fixAll.stoker");
  std::string all_fixed = apply_edits(text, all[0]["edit"]["changes"][uri]);
  CHECK(all_fixed.find("num_workers=") != std::string::npos);
  // Only quickfixes asked for: no fix-all.
  for (const auto& a : code_actions(server, uri, json::array({dl001}), json::array({"quickfix"})))
    CHECK(a["kind"] == "quickfix");
  finish(server);
}

TEST_CASE("lsp findings: hover on a diagnostic shows the rule document and impact - elsewhere nothing") {
  std::string text = read_file(kFixture);
  std::string uri = "file:///tmp/stoker-lsp-hover/train.py";
  LspProcess server;
  server.initialize({{"stoker", {{"gpu", "h100-sxm"}}}});
  open(server, uri, text);
  json dl001 = find_code(server.diagnostics_for(uri)["params"]["diagnostics"], "DL001");
  REQUIRE(dl001.is_object());
  json pos = dl001["range"]["start"];
  pos["character"] = pos["character"].get<int>() + 3;
  json h = server.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos}})["result"];
  REQUIRE(h.is_object());
  CHECK(h["contents"]["kind"] == "markdown");
  std::string md = h["contents"]["value"];
  CHECK(md.find("**DL001**") != std::string::npos);
  CHECK(md.find(dl001["message"].get<std::string>()) != std::string::npos);
  if (const stoker::RuleInfo* info = stoker::RuleRegistry::builtin().find("DL001")) {
    CHECK(md.find(info->name) != std::string::npos);
    CHECK(md.find(info->section("What it does")) != std::string::npos);
    CHECK(md.find(info->url()) != std::string::npos);
  }
  if (md.find("Estimated impact") != std::string::npos) CHECK(md.find("h100-sxm") != std::string::npos);
  CHECK(h["range"] == dl001["range"]);

  json none = server.request("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                                     {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(none["result"].is_null());
  finish(server);
}

TEST_CASE("lsp findings: a burst of changes never publishes stale results over newer ones") {
  std::string starved = read_file(kFixture);
  std::string fixed = starved;
  fixed.replace(fixed.find("batch_size=64)"), 14, "batch_size=64, num_workers=4, pin_memory=True, persistent_workers=True)");
  std::string uri = "file:///tmp/stoker-lsp-burst/train.py";
  LspProcess server;
  server.initialize();
  open(server, uri, starved);
  REQUIRE(server.diagnostics_for(uri).is_object());
  constexpr int kLast = 40;
  for (int v = 2; v <= kLast; ++v) change(server, uri, v % 2 ? fixed : starved, v);  // kLast even: starved
  change(server, uri, fixed, kLast + 1);
  int last_version = 0;
  json last;
  while (last_version < kLast + 1) {
    json pub = server.diagnostics_for(uri);
    REQUIRE(pub.is_object());
    int v = pub["params"]["version"];
    CHECK(v > last_version);  // strictly newer each time
    last_version = v;
    last = pub;
  }
  CHECK(find_code(last["params"]["diagnostics"], "DL001").is_null());
  CHECK(server.read(300).is_null());  // nothing stale arrives afterwards
  finish(server);
}

TEST_CASE("lsp findings: configuration changes re-analyze - close clears - UTF-16 columns") {
  std::string text = read_file(kFixture);
  std::string uri = "file:///tmp/stoker-lsp-config/train.py";
  LspProcess server;
  server.initialize();
  open(server, uri, text);
  REQUIRE(find_code(server.diagnostics_for(uri)["params"]["diagnostics"], "DL001").is_object());
  server.notify("workspace/didChangeConfiguration", {{"settings", {{"stoker", {{"ignore", {"DL001"}}}}}}});
  json pub = server.diagnostics_for(uri);
  REQUIRE(pub.is_object());
  CHECK(find_code(pub["params"]["diagnostics"], "DL001").is_null());
  server.notify("workspace/didChangeConfiguration", {{"settings", {{"stoker", {{"enable", false}}}}}});
  CHECK(server.diagnostics_for(uri)["params"]["diagnostics"] == json::array());
  server.notify("workspace/didChangeConfiguration", {{"settings", {{"stoker", json::object()}}}});
  REQUIRE(find_code(server.diagnostics_for(uri)["params"]["diagnostics"], "DL001").is_object());

  // An emoji (two UTF-16 units, one code point) before the loader on its line.
  std::string wide = text;
  wide.replace(wide.find("loader = "), 0, "s = \"\xF0\x9F\x98\x80\"; ");
  change(server, uri, wide, 2);
  json d = find_code(server.diagnostics_for(uri)["params"]["diagnostics"], "DL001");
  REQUIRE(d.is_object());
  std::string path = write_temp(wide, "wide.py");
  int cli_column = 0;
  for (const auto& c : cli_json(path))
    if (c["code"] == "DL001") cli_column = c["location"]["column"];
  std::remove(path.c_str());
  CHECK(d["range"]["start"]["character"] == cli_column - 1 + 1);  // 0-based, plus the second unit

  server.notify("textDocument/didClose", {{"textDocument", {{"uri", uri}}}});
  json cleared = server.diagnostics_for(uri);
  REQUIRE(cleared.is_object());
  CHECK(cleared["params"]["diagnostics"] == json::array());
  finish(server);
}

TEST_CASE("lsp findings: configuration files apply per document, and the suppression action suppresses") {
  std::string dir = "/tmp/stoker-lsp-cfg-" + std::to_string(getpid());
  std::string cmd = "mkdir -p '" + dir + "/quiet' '" + dir + "/loud'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ofstream(dir + "/quiet/pyproject.toml") << "[tool.stoker]\nignore = [\"DL001\"]\n";
  std::string text = read_file(kFixture);
  std::string quiet = uri_of(dir + "/quiet/train.py"), loud = uri_of(dir + "/loud/train.py");
  LspProcess server;
  server.initialize();
  open(server, quiet, text);
  open(server, loud, text);
  json q = server.diagnostics_for(quiet)["params"]["diagnostics"];
  CHECK(find_code(q, "DL001").is_null());
  CHECK_FALSE(q.empty());  // other rules still report
  json l = server.diagnostics_for(loud)["params"]["diagnostics"];
  json dl001 = find_code(l, "DL001");
  REQUIRE(dl001.is_object());

  // Apply "Suppress DL001 on this line" as the editor would; the finding goes away.
  json suppress;
  for (const auto& a : code_actions(server, loud, json::array({dl001}), json::array({"quickfix"})))
    if (a["title"] == "Suppress DL001 on this line") suppress = a;
  REQUIRE(suppress.is_object());
  std::string suppressed = apply_edits(text, suppress["edit"]["changes"][loud]);
  change(server, loud, suppressed, 2);
  json after = server.diagnostics_for(loud);
  REQUIRE(after.is_object());
  CHECK(after["params"]["version"] == 2);
  CHECK(find_code(after["params"]["diagnostics"], "DL001").is_null());
  // A second code on the same line joins the existing comment.
  json dl002 = find_code(after["params"]["diagnostics"], "DL002");
  if (dl002.is_object() && dl002["range"]["start"]["line"] == dl001["range"]["start"]["line"]) {
    json more;
    for (const auto& a : code_actions(server, loud, json::array({dl002}), json::array({"quickfix"})))
      if (a["title"] == "Suppress DL002 on this line") more = a;
    REQUIRE(more.is_object());
    CHECK(apply_edits(suppressed, more["edit"]["changes"][loud]).find("# stoker: ignore[DL001, DL002]\n") !=
          std::string::npos);
  }
  finish(server);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("lsp findings: hover on a compute-speedup finding says step time, not GPU busy") {
  std::string text = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(256, 1024), torch.randn(256, 1024)), batch_size=32, num_workers=2,
                    pin_memory=True, persistent_workers=True)
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
)";
  std::string uri = "file:///tmp/stoker-lsp-hover-gu/train.py";
  LspProcess server;
  server.initialize({{"stoker", {{"gpu", "a100-sxm"}}}});
  open(server, uri, text);
  json gu001 = find_code(server.diagnostics_for(uri)["params"]["diagnostics"], "GU001");
  REQUIRE(gu001.is_object());
  json h = server.request("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", gu001["range"]["start"]}})["result"];
  REQUIRE(h.is_object());
  std::string md = h["contents"]["value"];
  CHECK(md.find("**Estimated impact:** fixing this shortens the step by") != std::string::npos);
  CHECK(md.find("percentage points of GPU busy") == std::string::npos);
  finish(server);
}
