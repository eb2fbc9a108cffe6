// Python analysis throughput on a corpus, as a ratio against plain tree-sitter parsing of the
// same files, measured in one run (so that a shared, noisy machine affects both alike).
//
//   build/stoker_pybench [--repeat N] [--top K] [--verify-index] [--tsv OUT] PATH...
//
// For every .py file under PATH (discovered as `stoker check` does): the text is read once;
// then, interleaved file by file and repeated N times, (a) parse only: tree-sitter parses the
// text; (b) full: stoker::analyze() (parse, semantic model, every rule, suppressions, impact)
// with default settings. The minimum over the repetitions is kept per file and phase. Prints
// files/s and MB/s of each phase, the full/parse ratio, and the K slowest files by full time.
// --verify-index first checks that python::ChildIndex answers children, parents and fields
// exactly as tree-sitter does, on every node of the corpus. --tsv OUT writes one line per file
// (path, bytes, lines, parse s, full s, diagnostics) for per-file figures (bench/scaling).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "core/discover.h"
#include "core/settings.h"
#include "core/source.h"
#include "python/parser.h"

using namespace stoker;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Entry {
  SourceFile file;
  double parse_s = 1e30;
  double full_s = 1e30;
  size_t diagnostics = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  size_t top = 5;
  bool verify_index = false;
  std::string tsv;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--repeat" || a == "--top") && i + 1 < argc) {
      int v = std::atoi(argv[++i]);
      if (v < (a == "--top" ? 0 : 1)) {
        std::fprintf(stderr, "pybench: %s wants a %s number\n", a.c_str(), a == "--top" ? "non-negative" : "positive");
        return 2;
      }
      if (a == "--repeat") repeat = v;
      else top = static_cast<size_t>(v);
    } else if (a == "--tsv" && i + 1 < argc) {
      tsv = argv[++i];
    } else if (a == "--verify-index") {
      verify_index = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: stoker_pybench [--repeat N] [--top K] [--verify-index] [--tsv OUT] PATH...\n");
      return 0;
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: stoker_pybench [--repeat N] [--top K] [--verify-index] [--tsv OUT] PATH...\n");
    return 2;
  }
  auto found = discover_files(paths);
  for (const auto& e : found.errors) std::fprintf(stderr, "pybench: %s: %s\n", e.file.c_str(), e.message.c_str());
  std::vector<Entry> entries;
  size_t bytes = 0, lines = 0;
  for (const auto& p : found.files) {
    if (language_for_path(p) != Language::Python) continue;
    std::string text, error;
    if (!read_source_file(p, text, error)) {
      std::fprintf(stderr, "pybench: %s: %s\n", p.c_str(), error.c_str());
      continue;
    }
    Entry e;
    e.file = SourceFile(p, std::move(text));
    bytes += e.file.text.size();
    lines += e.file.lines.line_count();
    entries.push_back(std::move(e));
  }
  if (entries.empty()) {
    std::fprintf(stderr, "pybench: no Python files under the given paths\n");
    return 1;
  }
  if (verify_index) {
    // The child index must answer exactly as tree-sitter does, for every node and field.
    size_t nodes = 0, mismatches = 0;
    const TSLanguage* lang = tree_sitter_python();
    for (const auto& e : entries) {
      python::ParsedModule module(e.file.text);
      python::ChildIndex index(module.root());
      std::vector<python::Node> stack{module.root()};
      while (!stack.empty()) {
        python::Node n = stack.back();
        stack.pop_back();
        ++nodes;
        std::vector<python::Node> plain;
        {
          TSTreeCursor c = ts_tree_cursor_new(n);
          if (ts_tree_cursor_goto_first_child(&c)) {
            do plain.push_back(ts_tree_cursor_current_node(&c));
            while (ts_tree_cursor_goto_next_sibling(&c));
          }
          ts_tree_cursor_delete(&c);
        }
        python::ScopedChildIndex use(&index);
        const auto* entry = index.find(n);
        bool ok = entry && entry->count == plain.size() && python::same(python::parent(n), ts_node_parent(n));
        for (size_t i = 0; ok && i < plain.size(); ++i)
          ok = python::same(index.children(*entry)[i], plain[i]) &&
               index.is_named_code(*entry, static_cast<uint32_t>(i)) ==
                   (ts_node_is_named(plain[i]) && !ts_node_is_extra(plain[i]));
        for (TSFieldId f = 1; ok && f <= ts_language_field_count(lang); ++f)
          ok = python::same(index.field(*entry, f), ts_node_child_by_field_id(n, f)) &&
               python::is_null(index.field(*entry, f)) == python::is_null(ts_node_child_by_field_id(n, f));
        if (!ok && ++mismatches <= 5)
          std::fprintf(stderr, "pybench: index mismatch at %s:%u (%s)\n", e.file.path.c_str(), ts_node_start_byte(n),
                       ts_node_type(n));
        for (auto c : plain) stack.push_back(c);
      }
    }
    std::printf("child index: %zu nodes checked, %zu mismatches\n", nodes, mismatches);
    if (mismatches) return 1;
  }
  Settings settings;
  for (int r = 0; r < repeat; ++r) {
    for (auto& e : entries) {
      auto t0 = Clock::now();
      { python::ParsedModule module(e.file.text); }
      e.parse_s = std::min(e.parse_s, seconds_since(t0));
      t0 = Clock::now();
      auto result = analyze(e.file, settings);
      e.full_s = std::min(e.full_s, seconds_since(t0));
      e.diagnostics = result.diagnostics.size();
    }
  }
  double parse = 0, full = 0;
  size_t diags = 0;
  for (const auto& e : entries) {
    parse += e.parse_s;
    full += e.full_s;
    diags += e.diagnostics;
  }
  double mb = bytes / 1e6;
  std::printf("corpus: %zu Python files, %zu lines, %.1f MB, %zu diagnostics (best of %d runs per file)\n",
              entries.size(), lines, mb, diags, repeat);
  std::printf("parse only (tree-sitter): %8.3f s  %9.0f files/s  %7.1f MB/s\n", parse, entries.size() / parse,
              mb / parse);
  std::printf("full analysis (analyze):  %8.3f s  %9.0f files/s  %7.1f MB/s\n", full, entries.size() / full,
              mb / full);
  std::printf("full / parse: %.2fx\n", full / parse);
  if (!tsv.empty()) {
    FILE* out = std::fopen(tsv.c_str(), "w");
    if (!out) {
      std::fprintf(stderr, "pybench: cannot write %s\n", tsv.c_str());
      return 2;
    }
    for (const auto& e : entries)
      std::fprintf(out, "%s\t%zu\t%u\t%.9f\t%.9f\t%zu\n", e.file.path.c_str(), e.file.text.size(),
                   e.file.lines.line_count(), e.parse_s, e.full_s, e.diagnostics);
    std::fclose(out);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.full_s > b.full_s; });
  for (size_t i = 0; i < std::min(top, entries.size()); ++i) {
    const auto& e = entries[i];
    std::printf("  %8.2f ms full, %6.2f ms parse (%5.1fx)  %6u lines  %s\n", e.full_s * 1e3, e.parse_s * 1e3,
                e.full_s / e.parse_s, e.file.lines.line_count(), e.file.path.c_str());
  }
  return 0;
}
