// The fixer: merging edits, the fix loop, unified diffs (checked with `git apply`), atomic writes.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fix/atomic_write.h"
#include "fix/diff.h"
#include "fix/edits.h"
#include "fix/fix_files.h"
#include "fix/fixer.h"

using namespace stoker;
using namespace stoker::fix;
namespace fs = std::filesystem;

namespace {

Diagnostic diag_with_fix(std::string code, uint32_t start, uint32_t end, std::string replacement,
                         Applicability a = Applicability::Safe) {
  Diagnostic d;
  d.code = std::move(code);
  d.message = "m";
  d.file = "t.py";
  d.range = {start, end};
  d.fix = Fix{"Replace", a, {Edit{{start, end}, std::move(replacement)}}};
  return d;
}

// A toy analyzer for the loop: every "aa" is a finding whose fix rewrites it to "b". Two
// overlapping findings in "aaa" force a second round.
AnalysisResult toy_analyze(const std::string& text) {
  AnalysisResult r;
  for (size_t i = text.find("aa"); i != std::string::npos; i = text.find("aa", i + 1))
    r.diagnostics.push_back(diag_with_fix("T001", uint32_t(i), uint32_t(i + 2), "b"));
  return r;
}

size_t no_parse_errors(const std::string&, const AnalysisResult&) { return 0; }

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "stoker-fix-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void write(const fs::path& p, std::string_view s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

}  // namespace

TEST_CASE("edits apply in offset order whatever order they are given in") {
  std::vector<Edit> edits = {{{5, 6}, "Y"}, {{0, 1}, "X"}, {{3, 3}, "+"}};
  CHECK(apply_edits("abcdefg", edits) == "Xbc+deYg");
  CHECK_THROWS_AS(apply_edits("abc", {{{2, 9}, "x"}}), std::invalid_argument);
  CHECK_THROWS_AS(apply_edits("abcdef", {{{1, 4}, "x"}, {{3, 5}, "y"}}), std::invalid_argument);
}

TEST_CASE("edit conflicts: overlap, same start, insertion inside a replacement") {
  CHECK(edits_conflict({{1, 4}, ""}, {{3, 5}, ""}));
  CHECK(edits_conflict({{2, 2}, "a"}, {{2, 2}, "b"}));
  CHECK(edits_conflict({{3, 3}, "a"}, {{1, 5}, ""}));
  CHECK_FALSE(edits_conflict({{1, 3}, ""}, {{3, 5}, ""}));  // touching replacements
  CHECK_FALSE(edits_conflict({{5, 5}, "a"}, {{1, 5}, ""}));  // insertion right after a replacement
}

TEST_CASE("merging takes non-conflicting fixes, defers conflicting ones, honours applicability") {
  std::string text = "aaaa cc dd";
  std::vector<Diagnostic> diags = {
      diag_with_fix("A", 0, 2, "X"),
      diag_with_fix("B", 1, 3, "Y"),                             // overlaps A: deferred
      diag_with_fix("C", 5, 7, "Z", Applicability::Unsafe),      // only with unsafe
      diag_with_fix("D", 8, 10, "W", Applicability::DisplayOnly),  // never
      diag_with_fix("E", 0, 2, "X"),                             // identical to A: applied once
  };
  auto safe = merge_fixes(text, diags, false);
  CHECK(safe.text == "Xaa cc dd");
  CHECK(safe.applied.size() == 2);  // A and its duplicate E
  CHECK(safe.deferred == 1);
  auto all = merge_fixes(text, diags, true);
  CHECK(all.text == "Xaa Z dd");
  CHECK(all.deferred == 1);
}

TEST_CASE("a malformed fix is skipped and reported, not applied") {
  auto r = merge_fixes("abc", {diag_with_fix("A", 2, 10, "x")}, true);
  CHECK(r.text == "abc");
  CHECK(r.invalid.size() == 1);
}

TEST_CASE("inserted newlines follow the file's CRLF line endings") {
  CHECK(dominant_newline("a\r\nb\r\nc\n") == "\r\n");
  CHECK(dominant_newline("a\nb\n") == "\n");
  Diagnostic d = diag_with_fix("A", 3, 3, "x = 1\ny = 2\n");
  auto r = merge_fixes("a\r\nb\r\n", {d}, false, "\r\n");
  CHECK(r.text == "a\r\nx = 1\r\ny = 2\r\nb\r\n");
}

TEST_CASE("the fix loop re-analyzes until nothing changes, deferring overlaps to later rounds") {
  std::string text = "aaaa";  // findings at 0, 1, 2 overlap: round 1 takes 0 and 2
  auto out = fix_until_stable(text, toy_analyze(text), toy_analyze, no_parse_errors, {});
  REQUIRE(out.error.empty());
  CHECK(out.text == "bb");
  CHECK(out.rounds == 1);
  std::string longer = "aaaaaaa";  // "aaaaaaa" -> "bbba" -> converged
  auto out2 = fix_until_stable(longer, toy_analyze(longer), toy_analyze, no_parse_errors, {});
  REQUIRE(out2.error.empty());
  CHECK(out2.text == "bbba");
  CHECK(out2.analysis.diagnostics.empty());
  std::string chain = "aab";  // "aab" -> "bb"... the fix output never re-creates "aa": one round
  CHECK(fix_until_stable(chain, toy_analyze(chain), toy_analyze, no_parse_errors, {}).text == "bb");
}

TEST_CASE("a fix whose output triggers a new finding on every round is stopped with an error") {
  // Every text gets a fix appending "x": never converges.
  auto grow = [](const std::string& t) {
    AnalysisResult r;
    r.diagnostics.push_back(diag_with_fix("G", uint32_t(t.size()), uint32_t(t.size()), "x"));
    return r;
  };
  FixLoopOptions opts;
  opts.max_rounds = 5;
  auto out = fix_until_stable("a", grow("a"), grow, no_parse_errors, opts);
  CHECK_THAT(out.error, Catch::Contains("did not converge after 5 rounds"));
  CHECK(out.text == "a");
  CHECK(out.applied.empty());
}

TEST_CASE("fixes that flip a text back and forth are detected as a cycle") {
  auto flip = [](const std::string& t) {
    AnalysisResult r;
    r.diagnostics.push_back(diag_with_fix("F", 0, 1, t[0] == 'a' ? "b" : "a"));
    return r;
  };
  auto out = fix_until_stable("a", flip("a"), flip, no_parse_errors, {});
  CHECK_THAT(out.error, Catch::Contains("cycle"));
  CHECK(out.text == "a");
}

TEST_CASE("a fix that breaks Python syntax is refused and the text is left unchanged") {
  std::string text = "loader = DataLoader(ds)\n";
  auto breaking = [](const std::string& t) {
    AnalysisResult r;
    auto pos = t.find("ds)");
    if (pos != std::string::npos && t.find("num_workers") == std::string::npos)
      r.diagnostics.push_back(diag_with_fix("DL001", uint32_t(pos + 2), uint32_t(pos + 2), ", num_workers=("));
    return r;
  };
  auto out = fix_until_stable(text, breaking(text), breaking, parse_error_counter(Language::Python), {});
  CHECK_THAT(out.error, Catch::Contains("syntax error"));
  CHECK(out.text == text);

  // The same fix done right is accepted.
  auto good = [](const std::string& t) {
    AnalysisResult r;
    auto pos = t.find("ds)");
    if (pos != std::string::npos && t.find("num_workers") == std::string::npos)
      r.diagnostics.push_back(diag_with_fix("DL001", uint32_t(pos + 2), uint32_t(pos + 2), ", num_workers=4"));
    return r;
  };
  auto ok = fix_until_stable(text, good(text), good, parse_error_counter(Language::Python), {});
  CHECK(ok.error.empty());
  CHECK(ok.text == "loader = DataLoader(ds, num_workers=4)\n");
  // A file that already had a syntax error may be fixed as long as no new one appears.
  std::string broken = "loader = DataLoader(ds)\ndef (:\n";
  auto ok2 = fix_until_stable(broken, good(broken), good, parse_error_counter(Language::Python), {});
  CHECK(ok2.error.empty());
}

TEST_CASE("C++ files are checked through the analysis' parse-error notices") {
  auto counter = parse_error_counter(Language::Cxx);
  AnalysisResult r;
  CHECK(counter("int x;", r) == 0);
  r.notices.push_back({"k.cu", "error: expected ';'", std::nullopt});
  CHECK(counter("int x", r) == 1);
}

TEST_CASE("unified diffs apply with git apply and reproduce the fixed file") {
  TempDir dir;
  std::string before, after;
  for (int i = 0; i < 40; ++i) before += "line " + std::to_string(i) + "\n";
  after = before;
  after.replace(after.find("line 3\n"), 7, "line three\nline 3b\n");
  after.replace(after.find("line 30\n"), 8, "");
  after += "tail without newline";
  std::string diff = unified_diff(before, after, "f.txt");
  CHECK_THAT(diff, Catch::StartsWith("--- a/f.txt\n+++ b/f.txt\n@@ -1,7 +1,8 @@\n"));
  CHECK_THAT(diff, Catch::Contains("\\ No newline at end of file"));
  CHECK(unified_diff(before, before, "f.txt").empty());
  write(dir.path / "f.txt", before);
  write(dir.path / "p.diff", diff);
  std::string cmd = "cd '" + dir.path.string() + "' && git apply p.diff 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read(dir.path / "f.txt") == after);
}

TEST_CASE("CRLF lines keep their carriage returns in a diff that patch applies") {
  TempDir dir;
  std::string before = "a\r\nb\r\nc\r\n", after = "a\r\nB\r\nc\r\n";
  write(dir.path / "f.txt", before);
  write(dir.path / "p.diff", unified_diff(before, after, "f.txt"));
  std::string cmd = "cd '" + dir.path.string() + "' && patch -s -p1 < p.diff";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read(dir.path / "f.txt") == after);
}

TEST_CASE("atomic replacement keeps the mode, follows symlinks, refuses a file changed on disk") {
  TempDir dir;
  fs::path p = dir.path / "train.py";
  write(p, "old\n");
  ::chmod(p.c_str(), 0751);
  std::string error;
  REQUIRE(replace_file_atomically(p.string(), "new\n", "old\n", error));
  CHECK(read(p) == "new\n");
  struct stat st{};
  ::stat(p.c_str(), &st);
  CHECK((st.st_mode & 07777) == 0751);

  fs::path link = dir.path / "link.py";
  fs::create_symlink(p, link);
  REQUIRE(replace_file_atomically(link.string(), "newer\n", "new\n", error));
  CHECK(fs::is_symlink(link));
  CHECK(read(p) == "newer\n");

  CHECK_FALSE(replace_file_atomically(p.string(), "x\n", "something else\n", error));
  CHECK_THAT(error, Catch::Contains("changed on disk"));
  CHECK(read(p) == "newer\n");
  // No temporary files are left behind.
  size_t entries = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 2);
}

TEST_CASE("fixing a report writes BOM and CRLF files back faithfully and updates the report") {
  TempDir dir;
  fs::path p = dir.path / "train.py";
  const std::string bom = "\xEF\xBB\xBF";
  const std::string original = bom + "import torch\r\nloader = DataLoader(ds)\r\n";
  write(p, original);
  ::chmod(p.c_str(), 0640);

  auto source = std::make_shared<SourceFile>(p.string(), original);
  REQUIRE(source->has_bom);
  Diagnostic d;
  d.code = "DL001";
  d.file = p.string();
  auto pos = uint32_t(source->text.find("ds)") + 2);
  d.range = {pos, pos};
  d.fix = Fix{"Add `num_workers`", Applicability::Safe, {Edit{{pos, pos}, ",\nnum_workers=4"}}};
  Report report;
  report.files.push_back({source, AnalysisResult{{d}, {}}});

  SECTION("--diff computes the change and writes nothing") {
    FixRunOptions opts;
    opts.write = false;
    auto summary = fix_report(report, [](const std::string&) { return Settings{}; }, opts);
    REQUIRE(summary.files.size() == 1);
    CHECK(summary.changed_files() == 1);
    CHECK(read(p) == original);
    std::ostringstream diff;
    write_diffs(diff, summary);
    CHECK_THAT(diff.str(), Catch::Contains("+loader = DataLoader(ds,\r\n"));
  }
  SECTION("--fix writes through a rename, keeping BOM, CRLF and mode") {
    auto summary = fix_report(report, [](const std::string&) { return Settings{}; }, {});
    CHECK(summary.applied() == 1);
    CHECK(report.fixed == 1);
    CHECK(read(p) == bom + "import torch\r\nloader = DataLoader(ds,\r\nnum_workers=4)\r\n");
    struct stat st{};
    ::stat(p.c_str(), &st);
    CHECK((st.st_mode & 07777) == 0640);
    CHECK(report.files.empty());  // nothing left to report in that file
    std::ostringstream listing;
    write_applied_fixes(listing, summary, false);
    CHECK_THAT(listing.str(), Catch::Contains("1 \xC3\x97 DL001 (Add `num_workers`)"));
  }
  SECTION("a file edited since it was read is not touched") {
    write(p, original + "# edited\n");
    auto summary = fix_report(report, [](const std::string&) { return Settings{}; }, {});
    CHECK(summary.applied() == 0);
    REQUIRE(report.errors.size() == 1);
    CHECK_THAT(report.errors[0].message, Catch::Contains("changed on disk"));
    CHECK(read(p) == original + "# edited\n");
  }
}
