// Jupyter notebooks through the real binary: findings as `nb.ipynb:cell N:row:col` (text), `cell`
// in JSON and SARIF, --fix written back into the cells with the JSON layout unchanged (checked
// byte for byte and by nbformat, Jupyter's own validator), --diff, --add-ignore, suppression
// comments in cells, directory walks, bad notebooks. Also NOLINTBEGIN/NOLINTEND on a real .cu.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_support.h"

using namespace stoker::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A starved training notebook as Jupyter writes it (indent 1, sources as lists of lines,
// ensure_ascii off, a trailing newline), with a markdown cell, magics, outputs and metadata.
const char* kNotebook = R"NB({
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Training — first try"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "b2",
   "metadata": {
    "tags": ["setup"]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "Requirement already satisfied: torch\n"
     ]
    }
   ],
   "source": [
    "!pip install torch\n",
    "%matplotlib inline\n",
    "import torch\n",
    "from torch.utils.data import DataLoader, TensorDataset\n",
    "data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))\n",
    "loader = DataLoader(data, batch_size=8, shuffle=True)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "c3",
   "metadata": {},
   "outputs": [],
   "source": [
    "%%time\n",
    "model = torch.nn.Linear(8, 1).cuda()\n",
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
    "for x, y in loader:\n",
    "    x = x.cuda()\n",
    "    y = y.cuda()\n",
    "    loss = torch.nn.functional.mse_loss(model(x), y)\n",
    "    opt.zero_grad()\n",
    "    loss.backward()\n",
    "    opt.step()\n",
    "    print(loss.item())"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
)NB";

std::string nbformat_validate(const fs::path& dir, const std::string& file) {
  auto r = run_in(dir, "/usr/bin/python3 -c 'import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], "
                       "as_version=4)); print(\"valid\")' " + shell_quote(file));
  return r.out + r.err;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// `j` without the sources of its cells (for "everything else is unchanged").
json without_sources(json j) {
  for (auto& c : j["cells"]) c.erase("source");
  return j;
}

}  // namespace

TEST_CASE("notebook: findings in text name the cell, as ruff does - explicit path and directory walk") {
  TempDir d;
  write_text(d / "nb" / "train.ipynb", kNotebook);
  for (const char* path : {"nb/train.ipynb", "nb"}) {
    auto r = run_in(d.path, stoker_command(std::string("check --output-format concise ") + path));
    INFO(r.out << r.err);
    CHECK(r.rc == 1);
    CHECK(r.out.find("nb/train.ipynb:cell 2:6:10: DL001") != std::string::npos);
    CHECK(r.out.find("nb/train.ipynb:cell 3:11:11: SY001") != std::string::npos);
    CHECK(r.out.find("notice") == std::string::npos);  // magics are not syntax errors
  }
  // The full format shows the cell's own line number in the gutter.
  auto r = run_in(d.path, stoker_command("check nb/train.ipynb"));
  CHECK(r.out.find("11 |     print(loss.item())") != std::string::npos);
}

TEST_CASE("notebook: JSON has ruff's `cell` field and cell-relative rows - null for other files") {
  TempDir d;
  write_text(d / "train.ipynb", kNotebook);
  write_text(d / "t.py", "import torch\nfrom torch.utils.data import DataLoader\nl = DataLoader(ds, batch_size=8)\n"
                         "for x in l:\n    x.cuda().sum().item()\n");
  auto r = run_in(d.path, stoker_command("check --exit-zero --output-format json train.ipynb t.py"));
  INFO(r.out << r.err);
  json j = json::parse(r.out);
  bool saw_nb = false, saw_py = false;
  for (const auto& f : j) {
    if (f["filename"] == "train.ipynb" && f["code"] == "DL001") {
      saw_nb = true;
      CHECK(f["cell"] == 2);
      CHECK(f["location"]["row"] == 6);
      CHECK(f["noqa_row"] == 6);
      REQUIRE(f["fix"].is_object());
      bool kwarg_on_row_6 = false;  // the keyword goes into the call; `import os` may go to the cell's top
      for (const auto& e : f["fix"]["edits"])
        kwarg_on_row_6 |= e["location"]["row"] == 6 && e["content"].get<std::string>().find("num_workers") != std::string::npos;
      CHECK(kwarg_on_row_6);
    }
    if (f["filename"] == "t.py") {
      saw_py = true;
      CHECK(f["cell"].is_null());
    }
  }
  CHECK(saw_nb);
  CHECK(saw_py);
}

TEST_CASE("notebook: SARIF regions point into the .ipynb text, with the cell as a property") {
  TempDir d;
  write_text(d / "train.ipynb", kNotebook);
  auto r = run_in(d.path, stoker_command("check --exit-zero --output-format sarif train.ipynb"));
  INFO(r.out << r.err);
  json log = json::parse(r.out);
  auto raw = lines_of(kNotebook);
  bool found = false;
  for (const auto& res : log["runs"][0]["results"]) {
    if (res["ruleId"] != "SY001") continue;
    found = true;
    const json& loc = res["locations"][0];
    CHECK(loc["properties"]["cell"] == 3);
    CHECK(loc["properties"]["cellRegion"]["startLine"] == 11);
    int line = loc["physicalLocation"]["region"]["startLine"];
    int col = loc["physicalLocation"]["region"]["startColumn"];
    REQUIRE(line >= 1);
    REQUIRE(static_cast<size_t>(line) <= raw.size());
    CHECK(raw[line - 1].substr(col - 1, 9) == "loss.item");
    CHECK_FALSE(res.contains("fixes"));  // a fix edits cells, not the JSON a SARIF replacement addresses
  }
  CHECK(found);
}

TEST_CASE("notebook: --fix writes the cells back - layout, outputs and metadata unchanged - nbformat validates") {
  TempDir d;
  write_text(d / "train.ipynb", kNotebook);
  auto r = run_in(d.path, stoker_command("check --fix train.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.rc == 1);  // SY001 (display-only) remains
  std::string after = read_text(d / "train.ipynb");
  CHECK(after != kNotebook);
  CHECK(nbformat_validate(d.path, "train.ipynb").find("valid") == 0);
  // Byte for byte: the only lines that differ (diff's view) are strings of the cells' sources.
  auto diff = run_in(d.path, "printf '%s' " + shell_quote(kNotebook) + " | diff - train.ipynb");
  size_t changed = 0;
  for (const auto& line : lines_of(diff.out)) {
    if (line.empty() || (line[0] != '<' && line[0] != '>')) continue;
    ++changed;
    CHECK(line.substr(1).rfind("     \"", 0) == 0);  // `    "...",`: an element of a source list
  }
  CHECK(changed >= 2);
  CHECK(after.back() == '\n');
  json b = json::parse(kNotebook), a = json::parse(after);
  CHECK(without_sources(a) == without_sources(b));
  std::string loader;
  for (const auto& l : a["cells"][1]["source"])
    if (l.get<std::string>().rfind("loader =", 0) == 0) loader = l;
  CHECK(loader.find("num_workers=") != std::string::npos);
  std::string setup;
  for (const auto& l : a["cells"][1]["source"]) setup += l.get<std::string>();
  CHECK(setup.find("!pip install torch\n%matplotlib inline\n") != std::string::npos);  // magics kept as written
  CHECK(a["cells"][2]["source"][0] == "%%time\n");
  // A second run finds nothing more to fix.
  auto again = run_in(d.path, stoker_command("check --fix train.ipynb"));
  CHECK(read_text(d / "train.ipynb") == after);
}

TEST_CASE("notebook: --fix keeps a string source, two-space indent and unicode escapes") {
  TempDir d;
  std::string nb =
      "{\n  \"cells\": [\n    {\n      \"cell_type\": \"code\",\n      \"execution_count\": null,\n      \"metadata\": "
      "{},\n      \"outputs\": [],\n      \"source\": \"import torch  # caf\\u00e9\\nfrom torch.utils.data import "
      "DataLoader\\nloader = DataLoader(ds, batch_size=8)\\nfor x in loader:\\n    x = x.cuda()\\n\"\n    }\n  ],\n"
      "  \"metadata\": {},\n  \"nbformat\": 4,\n  \"nbformat_minor\": 4\n}";  // no trailing newline
  write_text(d / "s.ipynb", nb);
  auto r = run_in(d.path, stoker_command("check --fix s.ipynb"));
  INFO(r.out << r.err);
  std::string after = read_text(d / "s.ipynb");
  REQUIRE(after != nb);
  CHECK(nbformat_validate(d.path, "s.ipynb").find("valid") == 0);
  CHECK(after.back() == '}');
  size_t src = nb.find("\"source\": \"");
  CHECK(after.substr(0, src) == nb.substr(0, src));
  size_t tail = nb.size() - nb.find("\"\n    }\n  ],");
  CHECK(after.substr(after.size() - tail) == nb.substr(nb.size() - tail));
  CHECK(after.find("caf\\u00e9") != std::string::npos);
  CHECK(json::parse(after)["cells"][0]["source"].is_string());
}

TEST_CASE("notebook: --diff shows the change and writes nothing - --add-ignore comments in the cell") {
  TempDir d;
  write_text(d / "train.ipynb", kNotebook);
  auto r = run_in(d.path, stoker_command("check --diff train.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.out.find("--- a/train.ipynb") != std::string::npos);
  CHECK(r.out.find("num_workers=") != std::string::npos);
  CHECK(read_text(d / "train.ipynb") == kNotebook);

  r = run_in(d.path, stoker_command("check --add-ignore train.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  json a = json::parse(read_text(d / "train.ipynb"));
  CHECK(a["cells"][2]["source"][10].get<std::string>().find("# stoker: ignore[SY001]") != std::string::npos);
  CHECK(nbformat_validate(d.path, "train.ipynb").find("valid") == 0);
  r = run_in(d.path, stoker_command("check train.ipynb"));
  CHECK(r.rc == 0);
  CHECK(r.out.find("All checks passed!") != std::string::npos);
}

TEST_CASE("notebook: suppression comments in cells - foreign cells are not analyzed") {
  TempDir d;
  std::string nb = kNotebook;
  nb.replace(nb.find("shuffle=True)\""), 14, "shuffle=True)  # noqa: DL001, E501\"");
  // A fourth cell: Python under %%time (analyzed), or shell under %%bash (not analyzed).
  std::string extra = R"(,
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "d4",
   "metadata": {},
   "outputs": [],
   "source": [
    "%%MAGIC\n",
    "for x, y in loader:\n",
    "    x.cuda().sum().item()\n"
   ]
  }
 ],
 "metadata")";
  const std::string marker = "\n ],\n \"metadata\"";
  size_t end_of_cells = nb.find(marker);
  REQUIRE(end_of_cells != std::string::npos);
  std::string with_time = nb, with_bash = nb;
  with_time.replace(end_of_cells, marker.size(), extra);
  with_time.replace(with_time.find("%%MAGIC"), 7, "%%time");
  with_bash.replace(end_of_cells, marker.size(), extra);
  with_bash.replace(with_bash.find("%%MAGIC"), 7, "%%bash");
  write_text(d / "time.ipynb", with_time);
  write_text(d / "bash.ipynb", with_bash);
  REQUIRE(nbformat_validate(d.path, "time.ipynb").find("valid") == 0);
  auto r = run_in(d.path, stoker_command("check --output-format concise time.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.out.find("DL001") == std::string::npos);                 // # noqa: DL001 in cell 2
  CHECK(r.out.find("time.ipynb:cell 2:6:10: DL002") != std::string::npos);  // the line is still analyzed
  CHECK(r.out.find("time.ipynb:cell 4:3:5: SY001") != std::string::npos);   // a Python cell magic
  r = run_in(d.path, stoker_command("check --output-format concise bash.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.out.find("cell 3:11:11: SY001") != std::string::npos);
  CHECK(r.out.find("cell 4:") == std::string::npos);  // %%bash: not Python
}

TEST_CASE("notebook: invalid JSON is a clear error naming the file, and the file is untouched") {
  TempDir d;
  std::string broken = std::string(kNotebook).substr(0, 400);
  write_text(d / "broken.ipynb", broken);
  write_text(d / "ok.ipynb", kNotebook);
  auto r = run_in(d.path, stoker_command("check --fix broken.ipynb ok.ipynb"));
  INFO(r.out << r.err);
  CHECK(r.rc == 2);
  CHECK((r.out + r.err).find("broken.ipynb: error: invalid notebook JSON") != std::string::npos);
  CHECK((r.out + r.err).find("All checks passed") == std::string::npos);
  CHECK(read_text(d / "broken.ipynb") == broken);
  CHECK(read_text(d / "ok.ipynb") != kNotebook);  // the good one is still fixed
}

TEST_CASE("C++: NOLINTBEGIN/NOLINTEND through the real C++ front end") {
  TempDir d;
  write_text(d / "k.cu",
             "#include <cuda_runtime.h>\n"
             "__global__ void step(float* x) { x[threadIdx.x] += 1; }\n"
             "void train(float* x, int steps) {\n"
             "  for (int i = 0; i < steps; ++i) {\n"
             "    step<<<1, 32>>>(x);\n"
             "    // NOLINTBEGIN(stoker-CU003)\n"
             "    cudaDeviceSynchronize();\n"
             "    // NOLINTEND(stoker-CU003)\n"
             "  }\n"
             "  for (int i = 0; i < steps; ++i) {\n"
             "    step<<<1, 32>>>(x);\n"
             "    cudaDeviceSynchronize();\n"
             "  }\n"
             "}\n"
             "// NOLINTBEGIN(stoker-CU003)\n");
  auto r = run_in(d.path, stoker_command("check --output-format concise k.cu"));
  INFO(r.out << r.err);
  CHECK(r.out.find("k.cu:7:") == std::string::npos);
  CHECK(r.out.find("k.cu:12:5: CU003") != std::string::npos);
  CHECK(r.out.find("unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment") != std::string::npos);
}

TEST_CASE("notebook: the example notebook runs with PyTorch before and after --fix --unsafe-fixes") {
  TempDir d;
  fs::copy_file(fs::path(STOKER_SOURCE_DIR) / "examples/training_notebook.ipynb", d / "nb.ipynb");
  const std::string run = "CUDA_VISIBLE_DEVICES= timeout 300 /usr/bin/python3 " +
                          shell_quote(STOKER_SOURCE_DIR "/tests/support/run_notebook.py") + " nb.ipynb";
  auto before = run_in(d.path, run);
  INFO(before.out << before.err);
  REQUIRE(before.rc == 0);
  CHECK(before.out.find("epoch 1: loss") != std::string::npos);
  auto fix = run_in(d.path, stoker_command("check --fix --unsafe-fixes --no-color nb.ipynb"));
  INFO(fix.out << fix.err);
  CHECK(fix.rc <= 1);
  CHECK((fix.out + fix.err).find("fix not applied") == std::string::npos);
  std::string fixed = read_text(d / "nb.ipynb");
  CHECK(fixed.find("num_workers=") != std::string::npos);
  CHECK(fixed.find("non_blocking=True") != std::string::npos);
  CHECK(nbformat_validate(d.path, "nb.ipynb").find("valid") == 0);
  auto after = run_in(d.path, run);
  INFO(after.out << after.err);
  CHECK(after.rc == 0);
  CHECK(after.out.find("epoch 1: loss") != std::string::npos);
}
