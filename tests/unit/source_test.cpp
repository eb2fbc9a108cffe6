#include <catch2/catch.hpp>

#include "core/source.h"

using namespace stoker;

TEST_CASE("line index maps offsets to 1-based rows and code-point columns") {
  SourceFile f("a.py", "x = 1\ny = 'é'\nz\n");
  auto p = f.lines.position(f.text, f.text.find('z'));
  CHECK(p.row == 3);
  CHECK(p.column == 1);
  auto q = f.lines.position(f.text, f.text.find("'", 11) + 1);  // after the closing quote
  CHECK(q.row == 2);
  CHECK(q.column == 8);
}

TEST_CASE("LSP positions count UTF-16 code units") {
  SourceFile f("a.py", "s = '\xF0\x9F\x98\x80'; t\n");
  uint32_t off = static_cast<uint32_t>(f.text.find('t'));
  auto [line, col] = f.lines.lsp_position(f.text, off);
  CHECK(line == 0);
  CHECK(col == 10);
  CHECK(f.lines.offset_from_lsp(f.text, 0, 10) == off);
}

TEST_CASE("a BOM is stripped and remembered") {
  SourceFile f("a.py", "\xEF\xBB\xBFimport torch\n");
  CHECK(f.has_bom);
  CHECK(f.text == "import torch\n");
}

TEST_CASE("invalid UTF-8 and binary text are detected") {
  CHECK(first_invalid_utf8("ok \xC3\xA9") == std::string::npos);
  CHECK(first_invalid_utf8("bad \xC3(") == 4);
  CHECK(first_invalid_utf8("\xED\xA0\x80") == 0);  // surrogate
  CHECK(looks_binary(std::string("a\0b", 3)));
  CHECK_FALSE(looks_binary("plain"));
}

TEST_CASE("languages come from extensions") {
  CHECK(language_for_path("x/train.py") == Language::Python);
  CHECK(language_for_path("k.cu") == Language::Cxx);
  CHECK(language_for_path("README.md") == Language::Unknown);
}

#include "core/analyzer.h"

TEST_CASE("the byte prefilter skips files that cannot have findings") {
  CHECK_FALSE(stoker::may_have_findings(SourceFile("util.py", "import os\nprint(os.getcwd())\n")));
  CHECK(stoker::may_have_findings(SourceFile("train.py", "import torch\n")));
  CHECK(stoker::may_have_findings(SourceFile("lit.py", "import lightning as L\n")));
  CHECK_FALSE(stoker::may_have_findings(SourceFile("math.cpp", "int add(int a, int b) { return a + b; }\n")));
  CHECK(stoker::may_have_findings(SourceFile("k.cu", "__global__ void k() {}\nvoid f() { cudaDeviceSynchronize(); }\n")));
  CHECK_FALSE(stoker::may_have_findings(SourceFile("notes.txt", "torch cuda")));
}
