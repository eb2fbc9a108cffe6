// Jupyter notebooks (.ipynb): the code cells of a Python notebook are analyzed as one program, in
// cell order, as ruff does. IPython syntax that is not Python (line magics `%x`, shell escapes
// `!x`, `x = !cmd`, help `x?`/`?x`, and cells that start with a cell magic of another language
// such as `%%bash`, or with an automagic such as `pip install`) is blanked: the program keeps
// every byte offset of the cells' text, with a `0` expression in place of each magic, so
// positions map back to (cell, row, column) by subtraction.
//
// Fixes go back into the cells' `source` at the byte level: the file's JSON layout (indent, key
// order, escaping, outputs, metadata, trailing newline, source as a list of lines or as one
// string) is unchanged outside the lines that changed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/source.h"

namespace stoker {

// One string of a cell's `source` in the file: its decoded text and where its bytes are.
struct NotebookPiece {
  std::string text;          // decoded
  uint32_t raw_begin = 0;    // offset of the opening quote in the file
  uint32_t raw_end = 0;      // one past the closing quote
};

struct NotebookCell {
  uint32_t number = 0;       // 1-based position among all the notebook's cells ("cell 3")
  std::string text;          // the source as the user wrote it (magics included)
  bool python = true;        // false: a cell of another language (`%%bash`, automagic); not analyzed
  uint32_t start = 0;        // offset of the cell's text in the program (python cells)
  bool added_newline = false;// the program has a "\n" after the cell that its text lacks
  std::vector<TextRange> blanked;  // cell-local byte ranges replaced in the program (magics)
  // Layout in the file.
  bool source_is_array = true;
  TextRange raw_source;      // the `source` value: `[...]` or `"..."`
  std::vector<NotebookPiece> pieces;  // array: one per element; string: one per line
};

struct Notebook {
  std::string path;
  std::string raw;                  // the file's bytes
  std::vector<NotebookCell> cells;  // the code cells, in notebook order
  std::string program;              // what is analyzed
  bool ascii_escapes = false;       // the file writes non-ASCII as \uXXXX (json ensure_ascii)
  std::string writable_error;       // non-empty: sources cannot be located in the bytes; no writes

  // The cell whose program range holds `offset` (nullptr before the first / in no cell).
  const NotebookCell* cell_at(uint32_t offset) const;
  // 1-based row and code-point column within the cell, with `cell` set to its number.
  Position position(uint32_t offset) const;
  // Where the character at program `offset` is written in the file's bytes: 1-based line and
  // code-point column of the .ipynb text (for consumers that show the raw file: SARIF, GitHub
  // annotations, GitLab). {0, 0} when the bytes could not be located.
  Position file_position(uint32_t offset) const;
  // The same notebook with new cell texts (program and blanking recomputed, bytes unchanged).
  Notebook with_texts(const std::vector<std::string>& texts) const;
  // The file's bytes with every cell's `source` replaced by `texts` (one per code cell).
  std::string render(const std::vector<std::string>& texts) const;
  std::vector<std::string> texts() const;
};

bool is_notebook_path(std::string_view path);

// Parses a notebook file. Returns nullptr with `error` set when it is not valid notebook JSON.
// A notebook whose language is not Python has no code cells to analyze (cells stays empty).
std::shared_ptr<const Notebook> parse_notebook(const std::string& path, std::string raw, std::string& error);

// Lays out the program of `cells` (python cells only): sets start, added_newline and blanked.
std::string build_notebook_program(std::vector<NotebookCell>& cells);
// Cell-local ranges of the IPython syntax in one cell's text that Python cannot parse.
std::vector<TextRange> ipython_escapes(std::string_view cell_text);
// True when the cell is not Python: a cell magic other than Python's own (%%time, %%capture...)
// or an automagic command line (`pip install x`), as ruff decides.
bool is_foreign_cell(std::string_view cell_text);

// The SourceFile every consumer analyzes for a path: notebooks become their program (with
// `notebook` set), other files their text. Returns nullptr with `error` for a bad notebook.
std::shared_ptr<SourceFile> make_source_file(const std::string& path, std::string bytes, std::string& error);
std::shared_ptr<SourceFile> notebook_source(std::shared_ptr<const Notebook> nb);

// A position for users: in a notebook, cell-relative (with `cell`); otherwise the file's.
Position source_position(const SourceFile& file, uint32_t offset);

// Maps edits of the program to per-cell edits. Returns false (with `why`) when an edit spans
// cells or touches blanked IPython syntax. `cell_edits[i]` are local to cells[i]'s text plus
// its added newline.
bool split_notebook_edits(const Notebook& nb, const std::vector<Edit>& edits,
                          std::vector<std::vector<Edit>>& cell_edits, std::string* why = nullptr);
// The cells' texts after applying per-cell edits (see split_notebook_edits).
std::vector<std::string> apply_cell_edits(const Notebook& nb, const std::vector<std::vector<Edit>>& cell_edits);

// JSON string escaping as Python's json module writes it (ensure_ascii or not).
std::string json_escape(std::string_view s, bool ascii);

}  // namespace stoker
