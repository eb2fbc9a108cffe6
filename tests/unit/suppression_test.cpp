// Suppression comments: each form, placement, ignore-file, unused reports (ST001) and their
// fixes, and the --add-ignore round trip. Diagnostics are constructed directly so that every
// form is tested independently of which rules exist.
#include <catch2/catch.hpp>

#include "core/suppression.h"

using namespace stoker;

namespace {

const RuleRegistry& test_rules() {
  static const RuleRegistry rules = [] {
    std::vector<RuleInfo> list;
    for (const char* code : {"DL001", "DL002", "SY001", "SY004", "CU003", "ST001"}) {
      RuleInfo r;
      r.code = code;
      r.name = code;
      r.family = std::string(code).substr(0, 2);
      list.push_back(r);
    }
    return RuleRegistry(std::move(list));
  }();
  return rules;
}

// A diagnostic on the `occurrence`-th match of `needle`.
Diagnostic at(const SourceFile& f, const std::string& code, const std::string& needle, int occurrence = 1) {
  size_t pos = std::string::npos;
  for (int i = 0; i < occurrence; ++i) pos = f.text.find(needle, pos == std::string::npos ? 0 : pos + 1);
  REQUIRE(pos != std::string::npos);
  Diagnostic d;
  d.code = code;
  d.file = f.path;
  d.message = "finding";
  d.range = {static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + needle.size())};
  return d;
}

std::vector<std::string> remaining(const SourceFile& f, std::vector<Diagnostic> diags, bool report_unused = false,
                                   std::vector<Notice>* notices = nullptr) {
  AnalysisResult r;
  r.diagnostics = std::move(diags);
  Settings s;
  s.report_unused_ignores = report_unused;
  apply_suppressions(f, s, r, test_rules());
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) out.push_back(d.code + "@" + std::to_string(f.lines.row_of(d.range.start)));
  if (notices) *notices = r.notices;
  return out;
}

using Codes = std::vector<std::string>;

}  // namespace

TEST_CASE("Python: stoker: ignore on the line, or alone on the line above") {
  SourceFile f("t.py",
               "a = load()  # stoker: ignore[DL001] -- tiny dataset\n"
               "# stoker: ignore[SY001]\n"
               "b = x.item()\n"
               "c = x.item()\n"
               "d = x.item()  # stoker: ignore[DL001]\n");
  CHECK(remaining(f, {at(f, "DL001", "load()"), at(f, "SY001", "x.item()", 1), at(f, "SY001", "x.item()", 2),
                      at(f, "SY001", "x.item()", 3)}) == Codes{"SY001@4", "SY001@5"});
}

TEST_CASE("a trailing comment does not reach the next line, prefixes and lists work") {
  SourceFile f("t.py",
               "a = 1  # stoker: ignore[SY001]\n"
               "b = x.item()\n"
               "c = y.item(); torch.cuda.synchronize()  # stoker: ignore[SY]\n"
               "d = load(); e = x.item()  # stoker: ignore[DL001, SY001]\n"
               "e = load()  # stoker: ignore[DL001 SY004]\n");
  CHECK(remaining(f, {at(f, "SY001", "x.item()", 1), at(f, "SY001", "y.item()"), at(f, "SY004", "torch.cuda"),
                      at(f, "DL001", "load()", 1), at(f, "SY001", "x.item()", 2), at(f, "DL001", "load()", 2)}) ==
        Codes{"SY001@2"});
}

TEST_CASE("noqa: only stoker codes count, blanket noqa belongs to other tools") {
  SourceFile f("t.py",
               "a = load()  # noqa: E501, DL001\n"
               "b = load()  # noqa\n"
               "c = load()  # NOQA:DL001\n"
               "# noqa: DL001\n"
               "d = load()\n");
  CHECK(remaining(f, {at(f, "DL001", "load()", 1), at(f, "DL001", "load()", 2), at(f, "DL001", "load()", 3),
                      at(f, "DL001", "load()", 4)}) == Codes{"DL001@2"});
}

TEST_CASE("a multi-line diagnostic is suppressed from any of its lines") {
  SourceFile f("t.py",
               "loader = DataLoader(\n"
               "    ds,\n"
               "    batch_size=4)  # stoker: ignore[DL001]\n");
  Diagnostic d = at(f, "DL001", "DataLoader(\n    ds,\n    batch_size=4)");
  CHECK(remaining(f, {d}).empty());
}

TEST_CASE("directive-looking text inside strings is not a suppression") {
  SourceFile f("t.py",
               "a = load('# stoker: ignore[DL001]')\n"
               "b = '''\n"
               "# stoker: ignore[DL001]\n"
               "'''\n"
               "c = load()\n"
               "s = \"it's # noqa: DL001\"; d = load()\n");
  CHECK(remaining(f, {at(f, "DL001", "load(", 1), at(f, "DL001", "load()", 1), at(f, "DL001", "load()", 2)}) ==
        Codes{"DL001@1", "DL001@5", "DL001@6"});
}

TEST_CASE("ignore-file in the leading comments") {
  SourceFile f("t.py",
               "#!/usr/bin/env python\n"
               "# Copyright\n"
               "# stoker: ignore-file[SY] -- benchmark script, syncs on purpose\n"
               "import torch\n"
               "a = x.item()\n"
               "b = load()\n");
  CHECK(remaining(f, {at(f, "SY001", "x.item()"), at(f, "DL001", "load()")}) == Codes{"DL001@6"});

  SourceFile all("t.py", "# stoker: ignore-file\nimport torch\na = x.item()\nb = load()\n");
  CHECK(remaining(all, {at(all, "SY001", "x.item()"), at(all, "DL001", "load()")}).empty());

  SourceFile late("t.py", "import torch\n# stoker: ignore-file[SY]\na = x.item()\n");
  std::vector<Notice> notices;
  CHECK(remaining(late, {at(late, "SY001", "x.item()")}, false, &notices) == Codes{"SY001@3"});
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].message.find("must be in the comments at the top") != std::string::npos);
}

TEST_CASE("C++: // stoker: ignore, NOLINT(stoker-CODE), NOLINTNEXTLINE") {
  SourceFile f("k.cu",
               "for (int i = 0; i < n; ++i) {\n"
               "  cudaDeviceSynchronize();  // stoker: ignore[CU003] -- timing loop\n"
               "  // stoker: ignore[CU003]\n"
               "  cudaStreamSynchronize(s);\n"
               "  cudaDeviceSynchronize();  // NOLINT(bugprone-foo, stoker-CU003)\n"
               "  // NOLINTNEXTLINE(stoker-CU003)\n"
               "  cudaDeviceSynchronize();\n"
               "  cudaDeviceSynchronize();  // NOLINT\n"
               "  const char* s = \"// stoker: ignore[CU003]\"; cudaDeviceSynchronize();\n"
               "  auto r = R\"x(\n// stoker: ignore[CU003]\n)x\"; int big = 1'000; cudaDeviceSynchronize();\n"
               "}\n");
  std::vector<Diagnostic> diags;
  for (int i = 1; i <= 6; ++i) diags.push_back(at(f, "CU003", "cudaDeviceSynchronize();", i));
  diags.push_back(at(f, "CU003", "cudaStreamSynchronize(s);"));
  CHECK(remaining(f, diags) == Codes{"CU003@8", "CU003@9", "CU003@12"});
}

TEST_CASE("unknown codes in a suppression are reported as notices") {
  SourceFile f("t.py", "a = load()  # stoker: ignore[DL001, XY123]\n");
  std::vector<Notice> notices;
  CHECK(remaining(f, {at(f, "DL001", "load()")}, false, &notices).empty());
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].message.find("unknown rule code `XY123`") != std::string::npos);
}

TEST_CASE("unused suppressions are ST001 findings only when asked, with fixes") {
  std::string text =
      "import torch\n"
      "a = load()  # stoker: ignore[DL001, SY001] -- partly stale\n"
      "b = 2  # stoker: ignore[DL001]\n"
      "# stoker: ignore[SY004]\n"
      "c = 3\n"
      "d = 4  # noqa: E501, SY001\n"
      "e = 5  # stoker: ignore[ST001]\n";
  SourceFile f("t.py", text);
  CHECK(remaining(f, {at(f, "DL001", "load()")}).empty());
  AnalysisResult r;
  r.diagnostics = {at(f, "DL001", "load()")};
  Settings s;
  s.report_unused_ignores = true;
  s.rules.ignore = {"ST001X"};  // does not match ST001: still enabled
  apply_suppressions(f, s, r, test_rules());
  REQUIRE(r.diagnostics.size() == 5);
  for (const auto& d : r.diagnostics) {
    CHECK(d.code == "ST001");
    REQUIRE(d.fix);
    CHECK(d.fix->applicability == Applicability::Safe);
  }
  CHECK(r.diagnostics[0].message == "Unused suppression for `SY001`: no such finding here");
  std::vector<Edit> edits;
  for (const auto& d : r.diagnostics) edits.insert(edits.end(), d.fix->edits.begin(), d.fix->edits.end());
  CHECK(apply_edits(text, edits) ==
        "import torch\n"
        "a = load()  # stoker: ignore[DL001] -- partly stale\n"
        "b = 2\n"
        "c = 3\n"
        "d = 4  # noqa: E501\n"
        "e = 5\n");

  // A disabled rule's suppression is not "unused": another configuration may enable it.
  Settings only_dl;
  only_dl.report_unused_ignores = true;
  only_dl.rules.select = {"DL", "ST"};
  SourceFile g("t.py", "a = x.item()  # stoker: ignore[SY001]\n");
  AnalysisResult r2;
  apply_suppressions(g, only_dl, r2, test_rules());
  CHECK(r2.diagnostics.empty());
  // And ST001 itself can be disabled.
  Settings no_st;
  no_st.report_unused_ignores = true;
  no_st.rules.ignore = {"ST"};
  SourceFile h("t.py", "a = 1  # stoker: ignore[DL001]\n");
  AnalysisResult r3;
  apply_suppressions(h, no_st, r3, test_rules());
  CHECK(r3.diagnostics.empty());
}

TEST_CASE("add-ignore edits suppress every finding, and nothing is unused afterwards") {
  std::string text =
      "import torch\n"
      "loader = DataLoader(ds)\n"
      "for x in loader:\n"
      "    y = x.cuda(); t = y.item(); u = y.item()\n"
      "    s = '''\n"
      "''' + str(y.item())\n"
      "    z = w  # stoker: ignore[SY004] -- reason kept\n"
      "    q = \"\\\n"
      "\" + load()\n";
  SourceFile f("t.py", text);
  std::vector<Diagnostic> diags{at(f, "DL001", "DataLoader(ds)"), at(f, "DL002", "DataLoader(ds)"),
                                at(f, "SY001", "y.item()", 1),   at(f, "SY001", "y.item()", 2),
                                at(f, "SY001", "y.item()", 3),   at(f, "SY001", "w"),
                                at(f, "DL001", "\"\\\n\" + load()")};
  size_t skipped = 0;
  auto edits = add_ignore_edits(f, diags, &skipped, test_rules());
  CHECK(skipped == 0);
  std::string fixed = apply_edits(text, edits);
  CHECK(fixed ==
        "import torch\n"
        "loader = DataLoader(ds)  # stoker: ignore[DL001, DL002]\n"
        "for x in loader:\n"
        "    y = x.cuda(); t = y.item(); u = y.item()  # stoker: ignore[SY001]\n"
        "    s = '''\n"
        "''' + str(y.item())  # stoker: ignore[SY001]\n"
        "    z = w  # stoker: ignore[SY004, SY001] -- reason kept\n"
        "    q = \"\\\n"
        "\" + load()  # stoker: ignore[DL001]\n");
  // Same diagnostics on the new text: all suppressed, none unused.
  SourceFile g("t.py", fixed);
  std::vector<Diagnostic> again{at(g, "DL001", "DataLoader(ds)"), at(g, "DL002", "DataLoader(ds)"),
                                at(g, "SY001", "y.item()", 1),   at(g, "SY001", "y.item()", 2),
                                at(g, "SY001", "y.item()", 3),   at(g, "SY001", "w  #"),
                                at(g, "DL001", "\"\\\n\" + load()"), at(g, "SY004", "w  #")};
  CHECK(remaining(g, again, true).empty());
}

TEST_CASE("add-ignore in C++ uses // comments") {
  SourceFile f("k.cu", "void f() {\n  cudaDeviceSynchronize();\n}\n");
  auto edits = add_ignore_edits(f, {at(f, "CU003", "cudaDeviceSynchronize")}, nullptr, test_rules());
  CHECK(apply_edits(f.text, edits) == "void f() {\n  cudaDeviceSynchronize();  // stoker: ignore[CU003]\n}\n");
}

TEST_CASE("C++: NOLINTBEGIN / NOLINTEND ranges, with codes or bare, as clang-tidy") {
  SourceFile f("k.cu",
               "void f() {\n"
               "  cudaDeviceSynchronize();\n"
               "  // NOLINTBEGIN(stoker-CU003)\n"
               "  cudaDeviceSynchronize();\n"
               "  cudaMemcpy(a, b, n, k);\n"
               "  // NOLINTEND(stoker-CU003)\n"
               "  cudaDeviceSynchronize();\n"
               "  // NOLINTBEGIN\n"
               "  cudaDeviceSynchronize();\n"
               "  cudaMemcpy(a, b, n, k);\n"
               "  // NOLINTEND -- bare: every check\n"
               "  // NOLINTBEGIN(stoker-CU, google-runtime-int)\n"
               "  cudaDeviceSynchronize();\n"
               "  // NOLINTEND(stoker-CU, google-runtime-int)\n"
               "}\n");
  std::vector<Diagnostic> diags;
  for (int i = 1; i <= 5; ++i) diags.push_back(at(f, "CU003", "cudaDeviceSynchronize();", i));
  diags.push_back(at(f, "CU001", "cudaMemcpy", 1));
  diags.push_back(at(f, "CU001", "cudaMemcpy", 2));
  std::vector<Notice> notices;
  CHECK(remaining(f, diags, false, &notices) == Codes{"CU003@2", "CU003@7", "CU001@5"});
  CHECK(notices.empty());
}

TEST_CASE("C++: unmatched NOLINTBEGIN / NOLINTEND are notices and suppress nothing") {
  SourceFile f("k.cu",
               "// NOLINTEND(stoker-CU003)\n"
               "void f() {\n"
               "  // NOLINTBEGIN(stoker-CU003)\n"
               "  cudaDeviceSynchronize();\n"
               "  // NOLINTEND(stoker-SY001)\n"
               "}\n");
  std::vector<Notice> notices;
  CHECK(remaining(f, {at(f, "CU003", "cudaDeviceSynchronize();")}, false, &notices) == Codes{"CU003@4"});
  std::vector<std::string> messages;
  for (const auto& n : notices) messages.push_back(n.message);
  CHECK(messages == std::vector<std::string>{
                        "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment",
                        "unmatched 'NOLINTEND' comment without a previous 'NOLINTBEGIN' comment",
                        "unmatched 'NOLINTBEGIN' comment without a subsequent 'NOLINTEND' comment"});
  REQUIRE(notices[0].range);
  CHECK(f.lines.row_of(notices[0].range->start) == 1);
}

TEST_CASE("C++: an unused NOLINTBEGIN code is ST001 without an edit (its NOLINTEND must change too)") {
  SourceFile f("k.cu",
               "// NOLINTBEGIN(stoker-CU003)\n"
               "void f() {}\n"
               "// NOLINTEND(stoker-CU003)\n"
               "// NOLINTBEGIN\n"
               "void g() {}\n"
               "// NOLINTEND\n");
  AnalysisResult r;
  Settings s;
  s.report_unused_ignores = true;
  apply_suppressions(f, s, r, test_rules());
  REQUIRE(r.diagnostics.size() == 1);  // the bare range may be clang-tidy's: never "unused"
  CHECK(r.diagnostics[0].code == "ST001");
  CHECK(f.lines.row_of(r.diagnostics[0].range.start) == 1);
  REQUIRE(r.diagnostics[0].fix);
  CHECK(r.diagnostics[0].fix->edits.empty());
}
