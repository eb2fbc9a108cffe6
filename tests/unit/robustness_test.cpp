// Isolation and bad input, end to end through the real binary: a file that cannot be analyzed
// (its analysis throws, it vanishes, it is a FIFO, a directory cannot be read, ...) gets an error
// naming it, every other file is still reported, and the exit code says an error happened.
// Inputs are generated here in temporary directories (nothing large is committed).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cli_support.h"
#include "lsp_client.h"
#include "python/parser.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STOKER_TEST_ASAN 1
#endif
#endif
#ifndef STOKER_TEST_ASAN
#define STOKER_TEST_ASAN 0
#endif

namespace fs = std::filesystem;
using stoker::testing::CommandResult;
using stoker::testing::run_in;
using stoker::testing::shell_quote;
using stoker::testing::stoker_command;
using stoker::testing::TempDir;
using stoker::testing::write_text;

namespace {

const char* kStarved = R"(import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=64)
model = Net().cuda()
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
)";

const char* kCudaSync = R"(#include <cuda_runtime.h>
__global__ void step_kernel(float* x) {}
void train(float* d, int steps) {
  for (int i = 0; i < steps; ++i) {
    step_kernel<<<1, 1>>>(d);
    cudaDeviceSynchronize();
  }
}
)";
bool has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) ++n;
  return n;
}

// `stoker <args>` in `dir` with stdout and stderr together, under a 120 s timeout (a hang fails
// with rc 124 instead of blocking the suite).
CommandResult stoker_in(const fs::path& dir, const std::string& args, const std::string& env = "") {
  auto r = run_in(dir, env + " timeout 120 " + stoker_command(args) + " 2>&1");
  return r;
}

// The findings of `stoker check --output-format json` (the JSON array on stdout).
nlohmann::json json_results(const fs::path& dir, const std::string& args) {
  auto r = run_in(dir, "timeout 120 " + stoker_command("check --output-format json " + args));
  return nlohmann::json::parse(r.out);
}

// Root reads and searches anything whatever the permission bits say; a command run through this
// prefix drops the two capabilities that allow it, so chmod 000 means unreadable again. Empty
// (no prefix needed) for other users.
std::string without_dac_override() {
  if (geteuid() != 0) return "";
  return "setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search -- ";
}

bool can_drop_dac_override() {
  if (geteuid() != 0) return true;
  TempDir d;
  write_text(d / "f", "x");
  chmod((d / "f").c_str(), 0);
  auto r = run_in(d.path, without_dac_override() + "cat f");
  chmod((d / "f").c_str(), 0644);
  return r.rc != 0 && r.rc != 127;
}

}  // namespace

TEST_CASE("isolation: an exception of any kind in one file is an error for that file only") {
  TempDir d;
  write_text(d / "a_good.py", kStarved);
  write_text(d / "b_bad.py", std::string(kStarved) + "# STOKER_BOOM\n");
  write_text(d / "c_good.cu", kCudaSync);
  write_text(d / "d_bad.cu", std::string(kCudaSync) + "// STOKER_BOOM\n");
  for (std::string kind : {"bad_alloc", "exception", "other"}) {
    DYNAMIC_SECTION("thrown: " << kind) {
      auto r = stoker_in(d.path, "check --no-color --output-format concise .", "STOKER_TEST_FAIL_ON=" + kind + ":STOKER_BOOM");
      INFO(r.out);
      CHECK(r.rc == 2);
      CHECK(has(r.out, "b_bad.py: error: internal error while analyzing this file ("));
      CHECK(has(r.out, "d_bad.cu: error: internal error while analyzing this file ("));
      if (kind == "bad_alloc") CHECK(has(r.out, "(out of memory)"));
      if (kind == "other") CHECK(has(r.out, "(unknown exception)"));
      // Every other file's results are printed.
      CHECK(has(r.out, "a_good.py:3:"));
      CHECK(has(r.out, "c_good.cu:6:"));
      CHECK_FALSE(has(r.out, "b_bad.py:"  "3:"));
    }
  }
  SECTION("without the hook the same files are all analyzed") {
    auto r = stoker_in(d.path, "check --no-color --output-format concise .");
    CHECK(r.rc == 1);
    CHECK(has(r.out, "b_bad.py:3:"));
  }
}

TEST_CASE("isolation: the language server survives a document whose analysis throws") {
  using lsp_test::json;
  ::setenv("STOKER_TEST_FAIL_ON", "other:STOKER_BOOM", 1);
  lsp_test::LspProcess server;
  ::unsetenv("STOKER_TEST_FAIL_ON");
  server.initialize();
  const std::string bad = "file:///tmp/stoker-robust-bad.py", good = "file:///tmp/stoker-robust-good.py";
  server.notify("textDocument/didOpen",
                {{"textDocument",
                  {{"uri", bad}, {"languageId", "python"}, {"version", 1}, {"text", std::string(kStarved) + "# STOKER_BOOM\n"}}}});
  json diags = server.diagnostics_for(bad);
  REQUIRE(diags.is_object());
  CHECK(diags["params"]["diagnostics"].empty());  // no stale or partial findings
  auto seen = [&](const std::string& method, const std::string& text) {
    for (const auto& m : server.skipped)
      if (m.value("method", "") == method && has(m["params"]["message"].get<std::string>(), text)) return true;
    return false;
  };
  CHECK(seen("window/showMessage", "stoker could not analyze /tmp/stoker-robust-bad.py"));
  CHECK(seen("window/logMessage", "internal error while analyzing this file (unknown exception)"));

  // Requests on the failed document are answered, not errors, and the server goes on.
  json hover = server.request("textDocument/hover", {{"textDocument", {{"uri", bad}}}, {"position", {{"line", 2}, {"character", 2}}}});
  CHECK(hover.contains("result"));
  server.notify("textDocument/didOpen",
                {{"textDocument", {{"uri", good}, {"languageId", "python"}, {"version", 1}, {"text", kStarved}}}});
  json good_diags = server.diagnostics_for(good);
  REQUIRE(good_diags.is_object());
  CHECK_FALSE(good_diags["params"]["diagnostics"].empty());

  // The failed document analyzes again once its text no longer fails.
  server.skipped.clear();
  server.notify("textDocument/didChange", {{"textDocument", {{"uri", bad}, {"version", 2}}},
                                           {"contentChanges", json::array({{{"text", kStarved}}})}});
  json fixed = server.diagnostics_for(bad);
  REQUIRE(fixed.is_object());
  CHECK_FALSE(fixed["params"]["diagnostics"].empty());
  CHECK(server.request("shutdown", nullptr).contains("result"));
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("bad input: NUL bytes, deep nesting, long lines") {
  TempDir d;
  write_text(d / "good.py", kStarved);

  SECTION("a NUL byte past the first 8 KiB is an error naming its line; the rest goes on") {
    std::string text = kStarved;
    while (text.size() < 9000) text += "x = 1\n";
    size_t line = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    text += std::string("y = 2\0\n", 7);
    write_text(d / "nul.py", text);
    auto r = stoker_in(d.path, "check --no-color nul.py good.py");
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "nul.py: error: source contains a NUL byte at line " + std::to_string(line) + ", column 6"));
    CHECK(has(r.out, "good.py:3:"));
  }
  SECTION("100,000 nested parentheses and brackets") {
    std::string text = std::string(kStarved) + "x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n" +
                       "y = " + std::string(100000, '[') + std::string(100000, ']') + "\n";
    write_text(d / "deep.py", text);
    auto r = stoker_in(d.path, "check --no-color --output-format concise deep.py good.py");
    INFO(r.out.substr(0, 4000));
    CHECK((r.rc == 1 || r.rc == 2));
    CHECK(has(r.out, "deep.py:3:"));  // the file's own findings survive
    CHECK(has(r.out, "good.py:3:"));
  }
  SECTION("a 1 MB single line") {
    std::string line = "table = [";
    while (line.size() < (1u << 20)) line += std::to_string(line.size()) + ", ";
    write_text(d / "long.py", std::string(kStarved) + line + "]\n");
    auto r = stoker_in(d.path, "check --no-color --output-format concise long.py good.py");
    INFO(r.out.substr(0, 4000));
    CHECK(r.rc == 1);
    CHECK(has(r.out, "long.py:3:"));
    CHECK(has(r.out, "good.py:3:"));
  }
  SECTION("a .cu file with 10,000 nested braces") {
    std::string text = std::string(kCudaSync) + "void deep() " + std::string(10000, '{') + std::string(10000, '}') + "\n";
    write_text(d / "deep.cu", text);
    auto r = stoker_in(d.path, "check --no-color --output-format concise deep.cu good.py");
    INFO(r.out.substr(0, 4000));
    CHECK((r.rc == 1 || r.rc == 2));
    CHECK(has(r.out, "bracket nesting level exceeded"));
    CHECK(has(r.out, "deep.cu:6:"));  // what parsed before the limit is analyzed
    CHECK(has(r.out, "good.py:3:"));
  }
}

TEST_CASE("bad input: 64 and more indentation levels are valid Python and analyzed") {
  TempDir d;
  for (int levels : {63, 64, 70, 99}) {
    for (std::string unit : {"    ", "\t", "  "}) {
      std::string text = kStarved, indent;
      for (int i = 0; i < levels; ++i) {
        text += indent + "if x:\n";
        indent += unit;
      }
      text += indent + "doc = \"\"\"\n" + std::string(300, ' ') + "inside a string\n\"\"\"  # comment\n";
      text += indent + "y = torch.zeros(1).cuda()\n";
      text += indent + "for b in loader:\n" + indent + unit + "b.cuda().sum().backward()\n";
      // Back out of the blocks: the dedents must land where they belong.
      text += "for x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n";
      write_text(d / "nested.py", text);
      DYNAMIC_SECTION(levels << " levels of " << (unit == "\t" ? std::string("tabs") : std::to_string(unit.size()) + " spaces")) {
        auto r = stoker_in(d.path, "check --no-color --output-format concise nested.py");
        INFO(r.out);
        CHECK(r.rc == 1);
        CHECK_FALSE(has(r.out, "syntax error"));
        CHECK(has(r.out, "nested.py:3:"));  // the loader above the blocks
        size_t last_loop = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;  // TX001
        CHECK(has(r.out, "nested.py:" + std::to_string(last_loop) + ":"));  // the loop after them
      }
    }
  }
}

TEST_CASE("bad input: C++ macro that expands to 2^25 tokens stops that file only") {
  TempDir d;
  std::string text = "#include <cuda_runtime.h>\n#define A0 1,\n";
  for (int i = 1; i <= 25; ++i) text += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" + std::to_string(i - 1) + "\n";
  text += "int table[] = {A25 0};\n";
  write_text(d / "bomb.cu", text);
  write_text(d / "good.cu", kCudaSync);
  auto r = stoker_in(d.path, "check --no-color --output-format concise bomb.cu good.cu");
  INFO(r.out.substr(0, 4000));
  CHECK(r.rc == 2);
  CHECK(has(r.out, "bomb.cu: error: analysis stopped: the file expands to more than"));
  CHECK(has(r.out, "good.cu:6:"));
}

TEST_CASE("bad input: walking directories") {
  TempDir d;
  write_text(d / "src/good.py", kStarved);
  const size_t findings = json_results(d.path, "src/good.py").size();
  REQUIRE(findings > 0);

  SECTION("a directory given twice, and a file inside it, are analyzed once") {
    auto results = json_results(d.path, "src src ./src src/good.py");
    CHECK(results.size() == findings);
    auto r = stoker_in(d.path, "check --no-color src src");
    CHECK(has(r.out, "src: warning: given more than once; analyzed once"));
  }
  SECTION("symbolic link loops are reported and not followed") {
    fs::create_symlink("b.py", d / "src/a.py");
    fs::create_symlink("a.py", d / "src/b.py");
    fs::create_symlink(".", d / "src/again");   // a directory cycle
    fs::create_symlink("..", d / "src/up");
    fs::create_symlink("good.py", d / "src/link_to_good.py");  // the same file again: analyzed once
    auto r = stoker_in(d.path, "check --no-color --output-format concise src");
    INFO(r.out);
    CHECK(r.rc == 1);
    CHECK(has(r.out, "a.py: warning: symbolic link loop; skipped"));
    CHECK(has(r.out, "b.py: warning: symbolic link loop; skipped"));
    CHECK(count(r.out, "good.py:3:10: DL001") == 1);
    CHECK(has(r.out, "src/good.py:3:10: DL001"));  // the first spelling in name order
    CHECK(json_results(d.path, "src").size() == findings);
    auto named = stoker_in(d.path, "check --no-color src/a.py src/good.py");
    CHECK(named.rc == 2);
    CHECK(has(named.out, "src/a.py: error: symbolic link loop"));
    CHECK(has(named.out, "good.py:3:"));
  }
  SECTION("a FIFO named on the command line or met in a walk is not opened") {
    REQUIRE(mkfifo((d / "src/pipe.py").c_str(), 0644) == 0);
    auto r = stoker_in(d.path, "check --no-color --output-format concise src/pipe.py src");
    INFO(r.out);
    CHECK(r.rc == 2);  // 124 would be a hang
    CHECK(has(r.out, "src/pipe.py: error: not a regular file or directory (a FIFO (named pipe)); skipped"));
    CHECK(has(r.out, "src/pipe.py: warning: a FIFO (named pipe); skipped"));
    CHECK(has(r.out, "good.py:3:"));
  }
}

TEST_CASE("bad input: files that change between discovery and reading") {
  TempDir d;
  write_text(d / "src/a_good.py", kStarved);
  write_text(d / "src/b_victim.py", kStarved);
  REQUIRE(mkfifo((d / "sync").c_str(), 0600) == 0);
  // stoker discovers both files, then waits on the FIFO while the test changes one of them.
  auto during_run = [&](const std::string& change, const std::string& prefix = "") {
    std::string script = "(STOKER_TEST_SYNC_AFTER_DISCOVERY=sync " + prefix + "timeout 120 " +
                         stoker_command("check --no-color --output-format concise src") +
                         " > out.txt 2>&1; echo $? > rc.txt) & cat sync > /dev/null && " + change +
                         " && echo go > sync; wait";
    auto r = run_in(d.path, script);
    CommandResult out;
    out.out = stoker::testing::read_text(d / "out.txt");
    out.rc = std::atoi(stoker::testing::read_text(d / "rc.txt").c_str());
    return out;
  };
  SECTION("removed") {
    auto r = during_run("rm src/b_victim.py");
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "b_victim.py: error: cannot read file: it no longer exists (removed during the run?)"));
    CHECK(has(r.out, "a_good.py:3:"));
  }
  SECTION("replaced by a FIFO: not opened for reading, no hang") {
    auto r = during_run("rm src/b_victim.py && mkfifo src/b_victim.py");
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "b_victim.py: error: not a regular file (a FIFO); skipped"));
    CHECK(has(r.out, "a_good.py:3:"));
  }
  SECTION("made unreadable") {
    if (!can_drop_dac_override()) { WARN("skipped: running as root without a way to drop CAP_DAC_OVERRIDE (setpriv)"); return; }
    auto r = during_run("chmod 000 src/b_victim.py", without_dac_override());
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "b_victim.py: error: cannot read file: Permission denied"));
    CHECK(has(r.out, "a_good.py:3:"));
  }
}

TEST_CASE("bad input: unreadable directories are errors, not empty directories") {
  if (!can_drop_dac_override()) { WARN("skipped: running as root without a way to drop CAP_DAC_OVERRIDE (setpriv)"); return; }
  TempDir d;
  write_text(d / "top/good.py", kStarved);
  write_text(d / "top/locked/hidden.py", kStarved);
  write_text(d / "top/zz/after.py", kStarved);
  write_text(d / "other/good2.py", kStarved);
  chmod((d / "top/locked").c_str(), 0);
  SECTION("named on the command line") {
    auto r = stoker_in(d.path, "check --no-color --output-format concise top/locked other", without_dac_override());
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "top/locked: error: cannot read directory: Permission denied"));
    CHECK_FALSE(has(r.out, "no Python or C++/CUDA files"));
    CHECK(has(r.out, "good2.py:3:"));
  }
  SECTION("met during a walk: reported, and its siblings are still walked") {
    auto r = stoker_in(d.path, "check --no-color --output-format concise top", without_dac_override());
    INFO(r.out);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "top/locked: error: cannot read directory: Permission denied"));
    CHECK(has(r.out, "top/good.py:3:"));
    CHECK(has(r.out, "top/zz/after.py:3:"));
  }
  chmod((d / "top/locked").c_str(), 0755);
}

TEST_CASE("bad input: the language server analyzes every bad document and keeps serving") {
  using lsp_test::json;
  lsp_test::LspProcess server;
  server.initialize();
  std::string deep_indent = kStarved, indent;
  for (int i = 0; i < 80; ++i) {
    deep_indent += indent + "if x:\n";
    indent += "\t";
  }
  deep_indent += indent + "s = '''\n" + std::string(300, ' ') + "text\n'''\n" + indent + "y = torch.zeros(1).cuda()\n";
  std::string long_line = "table = [";
  while (long_line.size() < (1u << 20)) long_line += "1, ";
  const std::vector<std::tuple<std::string, std::string, std::string>> documents = {
      {"nul.py", "python", std::string(kStarved) + std::string("x = '\0'\n", 8)},
      {"parens.py", "python", std::string(kStarved) + "x = " + std::string(100000, '(') + std::string(100000, ')') + "\n"},
      {"long.py", "python", std::string(kStarved) + long_line + "]\n"},
      {"indent.py", "python", deep_indent},
      {"braces.cu", "cuda-cpp", std::string(kCudaSync) + "void f() " + std::string(10000, '{') + std::string(10000, '}') + "\n"},
  };
  for (const auto& [name, language, text] : documents) {
    std::string uri = "file:///tmp/stoker-robust-" + name;
    server.notify("textDocument/didOpen",
                  {{"textDocument", {{"uri", uri}, {"languageId", language}, {"version", 1}, {"text", text}}}});
    json diags = server.diagnostics_for(uri, 60000);
    INFO(name);
    REQUIRE(diags.is_object());
    CHECK_FALSE(diags["params"]["diagnostics"].empty());  // the findings outside the bad part
  }
  CHECK(server.request("shutdown", nullptr).contains("result"));
  server.notify("exit", nullptr);
  CHECK(server.wait_exit() == 0);
}

TEST_CASE("isolation: a fix whose re-analysis throws costs that file's fixes only") {
  TempDir d;
  write_text(d / "a_loader.py", kStarved);
  const std::string copies = R"(import torch
def train(loader, model):
    for x in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
)";
  write_text(d / "b_copies.py", copies);
  // The marker appears only in the fixed text of a_loader.py (DL001's fix adds num_workers).
  auto r = stoker_in(d.path, "check --no-color --fix --unsafe-fixes .", "STOKER_TEST_FAIL_ON=exception:num_workers");
  INFO(r.out);
  CHECK(r.rc == 2);
  CHECK(has(r.out, "a_loader.py: error: fix not applied: internal error while analyzing this file ("));
  CHECK(stoker::testing::read_text(d / "a_loader.py") == kStarved);  // untouched
  CHECK(has(stoker::testing::read_text(d / "b_copies.py"), "non_blocking=True"));  // fixed
}

TEST_CASE("isolation: a C++ file that runs out of memory is an error for that file only") {
#if defined(__SANITIZE_ADDRESS__) || STOKER_TEST_ASAN
  WARN("skipped under AddressSanitizer: its shadow memory cannot start under ulimit -v");
  return;
#endif
  // Under a 700 MB address-space limit the macro bomb runs out of memory before the token
  // budget stops it: LLVM's allocation failure ("LLVM ERROR: out of memory", an abort before)
  // must become this file's error. The good file comes first (one thread): memory a failed
  // clang parse held is not returned (clang is built without exceptions), see reliability.md.
  TempDir d;
  std::string text = "#include <cuda_runtime.h>\n#define A0 1,\n";
  for (int i = 1; i <= 25; ++i) text += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" + std::to_string(i - 1) + "\n";
  text += "int table[] = {A25 0};\n";
  write_text(d / "bomb.cu", text);
  write_text(d / "good.cu", kCudaSync);
  auto r = run_in(d.path, "ulimit -v 700000 && timeout 120 " +
                              stoker_command("check --no-color --output-format concise --threads 1 good.cu bomb.cu") + " 2>&1");
  INFO(r.out.substr(0, 4000));
  CHECK(r.rc == 2);
  CHECK(has(r.out, "bomb.cu: error: internal error while analyzing this file (out of memory)"));
  CHECK(has(r.out, "good.cu:6:"));
}

TEST_CASE("deep indentation parses to the same tree as the same code indented one column per level") {
  // Only the order of indentation widths matters to Python; the renumbering must not change the
  // tree (ts_node_string has node kinds and fields, no positions).
  auto program = [](const std::string& unit, int levels) {
    std::string text = "import torch\n", indent;
    for (int i = 0; i < levels; ++i) {
      text += indent + "for x in range(" + std::to_string(i) + "):\n";
      indent += unit;
      if (i % 7 == 3) text += indent + "# a comment\n" + indent + "s = \"\"\"\n" + std::string(200, ' ') + "text\n\"\"\"\n";
    }
    text += indent + "y = x\n";
    for (int i = levels - 1; i > 0; i -= 9) text += std::string(unit.size() == 1 && unit[0] == '\t' ? i : i * unit.size(), unit[0]) + "z = " + std::to_string(i) + "\n";
    text += "\f\fw = 0\n";  // back at the module level after form feeds
    return text;
  };
  auto tree = [](const std::string& text) {
    stoker::python::ParsedModule m(text);
    char* s = ts_node_string(m.root());
    std::string out = s;
    std::free(s);
    return std::make_pair(out, m.has_errors());
  };
  for (int levels : {64, 80, 99}) {
    auto [reference, reference_errors] = tree(program(" ", levels));
    REQUIRE_FALSE(reference_errors);
    for (std::string unit : {"    ", "\t", "        "}) {
      INFO(levels << " levels, unit of " << unit.size());
      auto [deep, errors] = tree(program(unit, levels));
      CHECK_FALSE(errors);
      CHECK(deep == reference);
    }
  }
}

TEST_CASE("bad input: how a file parses does not depend on what the same thread parsed before it") {
  // Two fuzz-minimized fixtures (tests/fixtures/python_error_nodes/mutation_min_truncated_fstring.py
  // and mutation_min_with_paren.py): a file ending inside an f-string left state in a reused
  // tree-sitter parser that ts_parser_reset did not clear, and the next file's error recovery,
  // and the line its syntax-error notice named, changed with it (which worker thread had parsed
  // what before decided the notice, from run to run).
  const std::string truncated = "import torch\ndef e(:\n l()for a in :t(().x(m)==t).m()\n t(f\"";
  const std::string target = "import torch\ndef e(:\n with (:\n for t in :a,a(),t()\n for :\n  )";
  auto parse = [](const std::string& text) {
    stoker::python::ParsedModule m(text);
    char* s = ts_node_string(m.root());
    std::string out = s;
    std::free(s);
    auto errors = m.error_ranges();
    return std::make_pair(out, errors.empty() ? size_t(-1) : size_t(errors.front().start));
  };
  std::pair<std::string, size_t> alone, after;
  std::thread([&] { alone = parse(target); }).join();  // a thread that has parsed nothing else
  std::thread([&] {
    parse(truncated);
    after = parse(target);
  }).join();
  REQUIRE(alone.second != size_t(-1));
  CHECK(after.second == alone.second);
  CHECK(after.first == alone.first);
}

TEST_CASE("indentation with too many distinct widths to renumber is parsed as it is, findings kept") {
  // 300 functions, each indented by a different width (valid Python): too many distinct widths
  // to renumber below 256, so the file is parsed as it is.
  TempDir d;
  std::string text = kStarved;
  for (int w = 1; w <= 300; ++w) text += "def f" + std::to_string(w) + "():\n" + std::string(w, ' ') + "return " + std::to_string(w) + "\n";
  write_text(d / "many.py", text);
  auto r = stoker_in(d.path, "check --no-color --output-format concise many.py");
  INFO(r.out);
  CHECK(r.rc == 1);
  CHECK(has(r.out, "many.py:3:10: DL001"));
  // Here the wrapped widths still order correctly within each block, so nothing is lost; where
  // they do not, a syntax-error notice says so and what parsed is analyzed.
}
