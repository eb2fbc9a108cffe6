// A notebook in the editor: its code cells (in notebook order) are laid out as one program with
// core/notebook.h, analyzed once, and each diagnostic is moved into the cell it lies in, with
// cell-local offsets, so publishing, hover and code actions work on cells as on documents.
#include <algorithm>

#include "core/analyzer.h"
#include "core/notebook.h"
#include "lsp/session.h"
#include "lsp/uri.h"

namespace stoker::lsp {

namespace {

TextRange local_range(const NotebookCell& c, TextRange r) {
  auto clamp = [&](uint32_t o) {
    uint32_t local = o > c.start ? o - c.start : 0;
    return std::min<uint32_t>(local, static_cast<uint32_t>(c.text.size()));
  };
  return {clamp(r.start), clamp(std::max(r.start, r.end))};
}

size_t cell_index(const Notebook& nb, uint32_t offset) {
  const NotebookCell* c = nb.cell_at(offset);
  return c ? static_cast<size_t>(c - nb.cells.data()) : nb.cells.size();
}

}  // namespace

std::vector<Session::CellAnalysis> Session::analyze_notebook(const std::string& notebook_uri) {
  std::vector<CellAnalysis> out;
  auto refs = notebooks.cells(notebook_uri);
  if (!refs) return out;
  auto nb = std::make_shared<Notebook>();
  nb->path = path_from_uri(notebook_uri);
  nb->writable_error = "a notebook open in the editor is edited through the editor";
  uint32_t number = 0;
  for (const auto& ref : *refs) {
    ++number;
    if (ref.kind != 2) continue;  // markup
    auto snap = documents.snapshot(ref.uri);
    if (!snap) continue;
    if (!snap->language_id.empty() && snap->language_id != "python") continue;
    NotebookCell cell;
    cell.number = number;
    cell.text = snap->text;
    cell.python = !is_foreign_cell(cell.text);
    nb->cells.push_back(std::move(cell));
    out.push_back({std::move(*snap), nullptr});
  }
  nb->program = build_notebook_program(nb->cells);
  Snapshot whole;
  whole.uri = notebook_uri;
  whole.path = nb->path;
  whole.language_id = "python";
  const bool skipped = nb->program.size() > kMaxAnalyzedBytes;
  AnalysisResult result;
  if (!skipped) result = analyze(*notebook_source(nb), settings_for(whole));
  for (const auto& n : result.notices) log(4, n.file + ": " + n.message);

  for (size_t i = 0; i < out.size(); ++i) {
    auto a = std::make_shared<Analysis>();
    a->generation = out[i].snap.generation;
    a->skipped = skipped;
    auto source = std::make_shared<SourceFile>();
    source->path = out[i].snap.path;
    source->text = out[i].snap.text;
    source->language = Language::Python;
    source->lines = LineIndex(source->text);
    a->source = std::move(source);
    out[i].analysis = std::move(a);
  }
  for (const auto& d : result.diagnostics) {
    size_t i = cell_index(*nb, d.range.start);
    if (i >= out.size()) continue;
    const NotebookCell& cell = nb->cells[i];
    Diagnostic local = d;
    local.range = local_range(cell, d.range);
    local.related.clear();
    for (const auto& r : d.related) {
      if (!r.file.empty() && r.file != d.file) {
        local.related.push_back(r);  // another file: positions are that file's
      } else if (cell_index(*nb, r.range.start) == i) {
        local.related.push_back({r.file, local_range(cell, r.range), r.message});
      }
      // A related location in another cell has no place in this cell's diagnostic.
    }
    if (local.fix && !local.fix->edits.empty()) {
      std::vector<std::vector<Edit>> cell_edits;
      bool here = split_notebook_edits(*nb, d.fix->edits, cell_edits) &&
                  std::all_of(cell_edits.begin(), cell_edits.end(), [&](const auto& e) {
                    return e.empty() || &e == &cell_edits[i];
                  });
      local.fix->edits.clear();
      if (here)  // else: shown as a suggestion (its edits span cells or touch IPython syntax)
        for (const auto& e : cell_edits[i])
          local.fix->edits.push_back({local_range(cell, {e.range.start + cell.start, e.range.end + cell.start}),
                                      e.replacement});
    }
    out[i].analysis->result.diagnostics.push_back(std::move(local));
  }
  return out;
}

void Session::publish_notebook(const std::string& notebook_uri) {
  try {
    auto cells = analyze_notebook(notebook_uri);
    {
      std::lock_guard lock(queue_mutex_);
      if (stopping_) return;
    }
    for (auto& cell : cells)
      documents.commit(cell.snap.uri, cell.analysis, [this](const Snapshot& s, const Analysis& a) { publish(s, a); });
  } catch (const std::exception& e) {
    log(1, "stoker: analysis of notebook " + notebook_uri + " failed: " + e.what());
  }
}

}  // namespace stoker::lsp
