// core/notebook: the program of a notebook's code cells (IPython syntax blanked), positions in
// cells, and writing cell sources back into the JSON bytes without disturbing anything else.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/analyzer.h"
#include "core/notebook.h"
#include "core/settings.h"
#include "python/parser.h"

using namespace stoker;

namespace {

// A notebook as Jupyter writes it (indent 1, sources as lists of lines) from cells given as
// (type, text) pairs.
std::string jupyter_json(const std::vector<std::pair<std::string, std::string>>& cells) {
  nlohmann::ordered_json nb;
  nb["cells"] = nlohmann::ordered_json::array();
  for (const auto& [type, text] : cells) {
    nlohmann::ordered_json c;
    c["cell_type"] = type;
    if (type == "code") c["execution_count"] = nullptr;
    c["metadata"] = nlohmann::ordered_json::object();
    if (type == "code") c["outputs"] = nlohmann::ordered_json::array();
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    size_t b = 0;
    while (b < text.size()) {
      size_t nl = text.find('\n', b);
      size_t e = nl == std::string::npos ? text.size() : nl + 1;
      lines.push_back(text.substr(b, e - b));
      b = e;
    }
    c["source"] = lines;
    nb["cells"].push_back(c);
  }
  nb["metadata"] = {{"language_info", {{"name", "python"}}}};
  nb["nbformat"] = 4;
  nb["nbformat_minor"] = 4;
  return nb.dump(1) + "\n";
}

std::shared_ptr<const Notebook> parse(const std::string& raw) {
  std::string error;
  auto nb = parse_notebook("t.ipynb", raw, error);
  INFO(error);
  REQUIRE(nb);
  return nb;
}

}  // namespace

TEST_CASE("notebook: code cells in order make one program - markdown is left out") {
  auto nb = parse(jupyter_json({{"markdown", "# Title\n"}, {"code", "import torch\nx = 1"}, {"code", "y = x + 1\n"}}));
  REQUIRE(nb->cells.size() == 2);
  CHECK(nb->program == "import torch\nx = 1\ny = x + 1\n");
  CHECK(nb->cells[0].number == 2);  // cells count from the notebook's first cell, markdown included
  CHECK(nb->cells[1].number == 3);
  CHECK(nb->cells[0].added_newline);
  CHECK_FALSE(nb->cells[1].added_newline);
  // Positions are within the cell.
  auto p = nb->position(static_cast<uint32_t>(nb->program.find("x + 1")));
  CHECK(p.cell == 3);
  CHECK(p.row == 1);
  CHECK(p.column == 5);
  p = nb->position(static_cast<uint32_t>(nb->program.find("x = 1")));
  CHECK(p.cell == 2);
  CHECK(p.row == 2);
  CHECK(p.column == 1);
}

TEST_CASE("notebook: IPython magics, shell escapes and help are blanked, offsets kept") {
  std::string cell =
      "%matplotlib inline\n"
      "!pip install torch\n"
      "files = !ls -la\n"
      "x = \"%d\" % 3  # not a magic: %time\n"
      "for i in range(3):\n"
      "    %time f(i)\n"
      "torch.cuda?\n"
      "??torch.load\n"
      "%load_ext \\\n"
      "   autoreload\n"
      "s = \"\"\"\n"
      "%not a magic in a string\n"
      "\"\"\"\n"
      "y = (1 +\n"
      "     2) != 3\n";
  auto ranges = ipython_escapes(cell);
  std::vector<std::string> blanked;
  for (auto r : ranges) blanked.push_back(cell.substr(r.start, r.end - r.start));
  CHECK(blanked == std::vector<std::string>{"%matplotlib inline", "!pip install torch", "!ls -la", "%time f(i)",
                                            "torch.cuda?", "??torch.load", "%load_ext \\\n   autoreload"});
  auto nb = parse(jupyter_json({{"code", cell}}));
  CHECK(nb->program.size() == cell.size());
  CHECK(python::count_syntax_errors(nb->program) == 0);
  CHECK(nb->program.find("files = 0") != std::string::npos);
  CHECK(nb->program.find("    0") != std::string::npos);
  CHECK(nb->program.find("\"%d\" % 3") != std::string::npos);
  CHECK(nb->program.find("%not a magic in a string") != std::string::npos);
}

TEST_CASE("notebook: cells of another language are not analyzed - Python cell magics are") {
  CHECK(is_foreign_cell("%%bash\necho hi\n"));
  CHECK(is_foreign_cell("\n%%writefile train.py\nimport torch\n"));
  CHECK(is_foreign_cell("pip install torch\n"));
  CHECK(is_foreign_cell("cd ..\n"));
  CHECK_FALSE(is_foreign_cell("%%time\nx = 1\n"));
  CHECK_FALSE(is_foreign_cell("%%capture out\nx = 1\n"));
  CHECK_FALSE(is_foreign_cell("pip = 3\n"));
  CHECK_FALSE(is_foreign_cell("env.step(action)\n"));
  CHECK_FALSE(is_foreign_cell("import torch\n"));
  auto nb = parse(jupyter_json({{"code", "%%bash\nfor x in a b; do echo $x; done\n"}, {"code", "%%time\nz = 2\n"}}));
  CHECK_FALSE(nb->cells[0].python);
  CHECK(nb->cells[1].python);
  CHECK(nb->program == "0     \nz = 2\n");
  // An R notebook has nothing for stoker.
  std::string r = jupyter_json({{"code", "library(torch)\n"}});
  r.replace(r.find("\"python\""), 8, "\"R\"");
  CHECK(parse(r)->program.empty());
}

TEST_CASE("notebook: bad notebooks get a clear error") {
  std::string error;
  CHECK_FALSE(parse_notebook("a.ipynb", "{\"cells\": [", error));
  CHECK(error.find("invalid notebook JSON") != std::string::npos);
  CHECK(error.find("line 1") != std::string::npos);
  CHECK_FALSE(parse_notebook("a.ipynb", "[1, 2]", error));
  CHECK(error.find("not a JSON object") != std::string::npos);
  CHECK_FALSE(parse_notebook("a.ipynb", "{\"metadata\": {}}", error));
  CHECK(error.find("no `cells` array") != std::string::npos);
  CHECK_FALSE(parse_notebook("a.ipynb", "{\"worksheets\": [], \"nbformat\": 3}", error));
  CHECK(error.find("nbformat 3") != std::string::npos);
  CHECK_FALSE(parse_notebook("a.ipynb", "{\"cells\": [{\"cell_type\": \"code\", \"source\": 3}]}", error));
  CHECK(error.find("cell 1") != std::string::npos);
}

TEST_CASE("notebook: unchanged texts render the identical bytes") {
  std::string raw = jupyter_json({{"markdown", "# T\n"}, {"code", "import torch\nx = \"é\\t\"\n"}, {"code", ""}});
  auto nb = parse(raw);
  CHECK(nb->render(nb->texts()) == raw);
}

TEST_CASE("notebook: a changed line changes only its own string in a list-of-lines source") {
  std::string raw = jupyter_json({{"code", "a = 1\nb = 2\nc = 3"}, {"code", "d = 4\n"}});
  auto nb = parse(raw);
  auto texts = nb->texts();
  texts[0] = "a = 1\nb = 20\nc = 3";
  std::string out = nb->render(texts);
  std::string expected = raw;
  expected.replace(expected.find("\"b = 2\\n\""), 9, "\"b = 20\\n\"");
  CHECK(out == expected);
  // Insertion and deletion keep the separator the list uses.
  texts[0] = "import os\na = 1\nb = 2\nc = 3";
  out = nb->render(texts);
  CHECK(nlohmann::json::parse(out)["cells"][0]["source"] ==
        nlohmann::json::array({"import os\n", "a = 1\n", "b = 2\n", "c = 3"}));
  CHECK(out.find("  \"import os\\n\",\n    \"a = 1\\n\"") != std::string::npos);
  texts[0] = "a = 1\nc = 3";
  out = nb->render(texts);
  CHECK(nlohmann::json::parse(out)["cells"][0]["source"] == nlohmann::json::array({"a = 1\n", "c = 3"}));
  texts[0] = "";
  CHECK(nlohmann::json::parse(nb->render(texts))["cells"][0]["source"] == nlohmann::json::array());
}

TEST_CASE("notebook: a string source, other indentation and ASCII escapes are kept") {
  std::string raw =
      "{\n  \"nbformat\": 4,\n  \"nbformat_minor\": 4,\n  \"metadata\": {},\n  \"cells\": [\n    {\n      \"cell_type\": "
      "\"code\",\n      \"metadata\": {\"z\": 1, \"a\": 2},\n      \"source\": \"x = 1  # caf\\u00e9\\ny = 2\\n\",\n"
      "      \"outputs\": [],\n      \"execution_count\": 7\n    }\n  ]\n}";
  auto nb = parse(raw);
  REQUIRE(nb->cells.size() == 1);
  CHECK(nb->cells[0].text == "x = 1  # caf\xC3\xA9\ny = 2\n");
  CHECK(nb->ascii_escapes);
  CHECK(nb->render(nb->texts()) == raw);
  auto texts = nb->texts();
  texts[0] = "x = 1  # caf\xC3\xA9\ny = 3  # \xC3\xA9\n";
  std::string expected = raw;
  expected.replace(expected.find("y = 2\\n"), 7, "y = 3  # \\u00e9\\n");
  CHECK(nb->render(texts) == expected);
  // The position in the file's bytes of `y`: line 9 of the JSON text, after the escape.
  auto fp = nb->file_position(static_cast<uint32_t>(nb->program.find("y = 2")));
  CHECK(fp.row == 9);
  CHECK(fp.column == static_cast<uint32_t>(raw.substr(raw.rfind('\n', raw.find("y = 2")) + 1).find("y = 2") + 1));
}

TEST_CASE("notebook: program edits map to cells - edits across cells or into magics are refused") {
  auto nb = parse(jupyter_json({{"code", "%pip install x\nimport torch"}, {"code", "y = 1\n"}}));
  const uint32_t c1 = nb->cells[1].start;
  std::vector<std::vector<Edit>> per_cell;
  std::string why;
  REQUIRE(split_notebook_edits(*nb, {{{c1, c1 + 1}, "z"}}, per_cell, &why));
  CHECK(per_cell[0].empty());
  REQUIRE(per_cell[1].size() == 1);
  CHECK(apply_cell_edits(*nb, per_cell)[1] == "z = 1\n");
  // Appending at the end of a cell without a final newline stays in that cell.
  uint32_t end0 = nb->cells[0].start + static_cast<uint32_t>(nb->cells[0].text.size());
  REQUIRE(split_notebook_edits(*nb, {{{end0, end0}, "\nimport os"}}, per_cell, &why));
  CHECK(apply_cell_edits(*nb, per_cell)[0] == "%pip install x\nimport torch\nimport os");
  CHECK_FALSE(split_notebook_edits(*nb, {{{end0 - 2, c1 + 1}, ""}}, per_cell, &why));
  CHECK(why.find("more than one cell") != std::string::npos);
  CHECK_FALSE(split_notebook_edits(*nb, {{{2, 5}, ""}}, per_cell, &why));
  CHECK(why.find("IPython") != std::string::npos);
}

TEST_CASE("notebook: analysis sees the cells as one program, suppression comments included") {
  auto nb = parse(jupyter_json({{"code", "!nvidia-smi\nimport torch\nfrom torch.utils.data import DataLoader\n"
                                          "loader = DataLoader(ds, batch_size=8)\n"},
                                {"markdown", "text"},
                                {"code", "model = torch.nn.Linear(4, 4).cuda()\nopt = torch.optim.SGD(model.parameters())\n"
                                          "for x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n"
                                          "    opt.step()\n    print(loss.item())  # stoker: ignore[SY001]\n"}}));
  auto source = notebook_source(nb);
  Settings settings;
  AnalysisResult r = analyze(*source, settings);
  bool dl001 = false;
  for (const auto& d : r.diagnostics) {
    CHECK(d.code != "SY001");  // suppressed in cell 3
    if (d.code == "DL001") {
      dl001 = true;
      Position p = source_position(*source, d.range.start);
      CHECK(p.cell == 1);
      CHECK(p.row == 4);
    }
  }
  CHECK(dl001);
  CHECK(r.notices.empty());
}
