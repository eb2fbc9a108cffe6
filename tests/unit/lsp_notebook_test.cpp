// `stoker server` with LSP 3.17 notebook documents, driven over pipes as VS Code's notebook
// editor does: the capability, notebookDocument/didOpen with cell text documents, diagnostics
// published on each cell's URI (the cells analyzed as one program, as `stoker check` does on the
// .ipynb), quick fixes and hover on a cell, cell edits and structure changes, didClose.
#include <catch2/catch.hpp>

#include "core/source.h"
#include "lsp_client.h"

using lsp_test::json;
using lsp_test::LspProcess;

namespace {

const std::string kNotebookUri = "file:///tmp/stoker-lsp-nb/train.ipynb";

std::string cell_uri(int n) { return "vscode-notebook-cell:/tmp/stoker-lsp-nb/train.ipynb#W" + std::to_string(n) + "sZmlsZQ%3D%3D"; }

const std::string kSetup =
    "!pip install torch\n"
    "import torch\n"
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "loader = DataLoader(TensorDataset(torch.randn(64, 8)), batch_size=8)\n";
const std::string kTrain =
    "%%time\n"
    "model = torch.nn.Linear(8, 1).cuda()\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for (x,) in loader:\n"
    "    loss = model(x.cuda()).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "    print(loss.item())\n";

json text_doc(const std::string& uri, const std::string& text, int version = 1) {
  return {{"uri", uri}, {"languageId", "python"}, {"version", version}, {"text", text}};
}

json find_code(const json& diags, const std::string& code) {
  for (const auto& d : diags)
    if (d["code"] == code) return d;
  return nullptr;
}

// Waits for the diagnostics of `uri` that satisfy `pred` (publications of older states are skipped).
json diagnostics_until(LspProcess& s, const std::string& uri, const std::function<bool(const json&)>& pred) {
  json m = s.wait_for([&](const json& m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
           pred(m["params"]["diagnostics"]);
  });
  return m.is_null() ? m : m["params"]["diagnostics"];
}

std::string apply_edits(std::string text, const json& edits) {
  stoker::LineIndex index(text);
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> spans;
  for (const auto& e : edits)
    spans.emplace_back(index.offset_from_lsp(text, e["range"]["start"]["line"], e["range"]["start"]["character"]),
                       index.offset_from_lsp(text, e["range"]["end"]["line"], e["range"]["end"]["character"]),
                       e["newText"].get<std::string>());
  std::sort(spans.begin(), spans.end(), [](auto& a, auto& b) { return std::get<0>(a) > std::get<0>(b); });
  for (auto& [a, b, t] : spans) text.replace(a, b - a, t);
  return text;
}

}  // namespace

TEST_CASE("lsp notebook: the server advertises notebook sync for Jupyter's Python cells") {
  LspProcess server;
  json r = server.initialize();
  const json& sync = r["result"]["capabilities"]["notebookDocumentSync"];
  REQUIRE(sync.is_object());
  CHECK(sync["notebookSelector"][0]["notebook"] == "jupyter-notebook");
  CHECK(sync["notebookSelector"][0]["cells"][0]["language"] == "python");
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("lsp notebook: diagnostics per cell, from the cells analyzed as one program - fixes and edits") {
  LspProcess server;
  server.initialize();
  server.notify("notebookDocument/didOpen",
                {{"notebookDocument",
                  {{"uri", kNotebookUri},
                   {"notebookType", "jupyter-notebook"},
                   {"version", 1},
                   {"cells", json::array({{{"kind", 1}, {"document", cell_uri(0)}},
                                          {{"kind", 2}, {"document", cell_uri(1)}},
                                          {{"kind", 2}, {"document", cell_uri(2)}}})}}},
                 {"cellTextDocuments", json::array({text_doc(cell_uri(1), kSetup), text_doc(cell_uri(2), kTrain)})}});

  // DL001 is on the loader in cell 1 (0-based line 3), found because cell 2 trains from it.
  json setup = diagnostics_until(server, cell_uri(1), [](const json& d) { return !find_code(d, "DL001").is_null(); });
  REQUIRE(setup.is_array());
  json dl001 = find_code(setup, "DL001");
  CHECK(dl001["range"]["start"]["line"] == 3);
  json train = diagnostics_until(server, cell_uri(2), [](const json& d) { return !find_code(d, "SY001").is_null(); });
  REQUIRE(train.is_array());
  CHECK(find_code(train, "SY001")["range"]["start"]["line"] == 8);
  CHECK(find_code(train, "DL001").is_null());

  // A quick fix on the cell edits the cell.
  json actions = server.request("textDocument/codeAction",
                                {{"textDocument", {{"uri", cell_uri(1)}}},
                                 {"range", dl001["range"]},
                                 {"context", {{"diagnostics", json::array({dl001})}}}})["result"];
  json fix;
  for (const auto& a : actions)
    if (a["kind"] == "quickfix" && a["title"].get<std::string>().find("DL001") != std::string::npos &&
        a["title"].get<std::string>().rfind("Suppress", 0) != 0)
      fix = a;
  REQUIRE(fix.is_object());
  REQUIRE(fix["edit"]["changes"].contains(cell_uri(1)));
  std::string fixed = apply_edits(kSetup, fix["edit"]["changes"][cell_uri(1)]);
  CHECK(fixed.find("num_workers=") != std::string::npos);
  CHECK(fixed.find("!pip install torch\n") != std::string::npos);  // the magic line is kept

  // Hover on the cell explains the finding.
  json hover = server.request("textDocument/hover", {{"textDocument", {{"uri", cell_uri(2)}}},
                                                      {"position", find_code(train, "SY001")["range"]["start"]}});
  CHECK(hover["result"]["contents"]["value"].get<std::string>().find("SY001") != std::string::npos);

  // The user applies the fix: the cell's text changes, DL001 goes away.
  json text_change = {{"document", {{"uri", cell_uri(1)}, {"version", 2}}},
                      {"changes", json::array({json{{"text", fixed}}})}};
  json change2 = json::object();
  change2["cells"]["textContent"] = json::array({text_change});
  server.notify("notebookDocument/didChange",
                {{"notebookDocument", {{"uri", kNotebookUri}, {"version", 2}}}, {"change", change2}});
  json after = diagnostics_until(server, cell_uri(1), [](const json& d) { return find_code(d, "DL001").is_null(); });
  CHECK(after.is_array());

  // A new cell inserted before the training cell that calls .item() in the same loop style.
  std::string extra = "for (x,) in loader:\n    model(x.cuda()).sum().backward()\n    opt.step()\n    x.cuda().sum().item()\n";
  json structure = json::object();
  structure["array"] = {{"start", 3}, {"deleteCount", 0},
                        {"cells", json::array({json{{"kind", 2}, {"document", cell_uri(3)}}})}};
  structure["didOpen"] = json::array({text_doc(cell_uri(3), extra)});
  json change3 = json::object();
  change3["cells"]["structure"] = structure;
  server.notify("notebookDocument/didChange",
                {{"notebookDocument", {{"uri", kNotebookUri}, {"version", 3}}}, {"change", change3}});
  json third = diagnostics_until(server, cell_uri(3), [](const json& d) { return !find_code(d, "SY001").is_null(); });
  REQUIRE(third.is_array());
  CHECK(find_code(third, "SY001")["range"]["start"]["line"] == 3);

  // Closing the notebook clears every cell's diagnostics.
  server.notify("notebookDocument/didClose",
                {{"notebookDocument", {{"uri", kNotebookUri}}},
                 {"cellTextDocuments", json::array({{{"uri", cell_uri(1)}}, {{"uri", cell_uri(2)}}, {{"uri", cell_uri(3)}}})}});
  for (int c = 1; c <= 3; ++c) {
    json cleared = diagnostics_until(server, cell_uri(c), [](const json& d) { return d.empty(); });
    CHECK(cleared.is_array());
  }
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("lsp notebook: malformed notebook notifications are logged, the server keeps serving") {
  LspProcess server;
  server.initialize();
  server.notify("notebookDocument/didOpen", {{"notebookDocument", {{"uri", kNotebookUri}, {"cells", 3}}}});
  server.notify("notebookDocument/didChange", {{"notebookDocument", {{"uri", "file:///never/opened.ipynb"}}}, {"change", {}}});
  json r = server.request("textDocument/hover", {{"textDocument", {{"uri", cell_uri(1)}}}, {"position", {{"line", 0}, {"character", 0}}}});
  CHECK(r.contains("result"));
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("lsp notebook: an .ipynb opened as a plain text document is JSON, not analyzed as Python") {
  LspProcess server;
  server.initialize();
  // Text that stoker would report on as Python (the .py control below shows it does).
  std::string text =
      "import torch\nfrom torch.utils.data import DataLoader\n"
      "{\"y\": [x.cuda().item() for x in DataLoader(ds)]}\n";
  std::string uri = "file:///tmp/stoker-lsp-nb/plain.ipynb", control = "file:///tmp/stoker-lsp-nb/plain.py";
  for (const auto& u : {uri, control})
    server.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", u}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json pub = server.diagnostics_for(uri);
  REQUIRE(pub.is_object());
  CHECK(pub["params"]["diagnostics"].empty());
  json pub_py = server.diagnostics_for(control);
  REQUIRE(pub_py.is_object());
  CHECK_FALSE(find_code(pub_py["params"]["diagnostics"], "DL001").is_null());
  server.request("shutdown", nullptr);
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}
