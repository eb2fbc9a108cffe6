// Source text and positions. Offsets are byte offsets into the UTF-8 text; rows and
// columns handed to users are 1-based, columns counted in Unicode code points (as ruff does),
// and LSP positions are 0-based with UTF-16 columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stoker {

enum class Language { Python, Cxx, Unknown };

Language language_for_path(std::string_view path);

struct TextRange {
  uint32_t start = 0;  // byte offset, inclusive
  uint32_t end = 0;    // byte offset, exclusive
  bool operator==(const TextRange&) const = default;
};

struct Position {
  uint32_t row = 1;     // 1-based
  uint32_t column = 1;  // 1-based, in code points
  uint32_t cell = 0;    // notebooks: the 1-based cell the row and column are in (0: not a notebook)
};

class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // 1-based row and code-point column of a byte offset.
  Position position(std::string_view text, uint32_t offset) const;
  // 0-based line and UTF-16 column (LSP).
  std::pair<uint32_t, uint32_t> lsp_position(std::string_view text, uint32_t offset) const;
  // Inverse of lsp_position; clamps to the text.
  uint32_t offset_from_lsp(std::string_view text, uint32_t line, uint32_t utf16_col) const;
  // Byte offset of the start of 1-based row.
  uint32_t line_start(uint32_t row) const;
  uint32_t line_end(std::string_view text, uint32_t row) const;  // excluding the newline
  uint32_t line_count() const { return static_cast<uint32_t>(starts_.size()); }
  uint32_t row_of(uint32_t offset) const;  // 1-based

 private:
  std::vector<uint32_t> starts_;
};

struct Notebook;  // core/notebook.h

struct SourceFile {
  std::string path;     // as given on the command line or by the editor
  std::string text;     // UTF-8 (a BOM is stripped into has_bom)
  bool has_bom = false;
  Language language = Language::Unknown;
  LineIndex lines{std::string_view{}};
  // Set for a Jupyter notebook: `text` is then the program of its code cells (core/notebook.h).
  std::shared_ptr<const Notebook> notebook;

  SourceFile() = default;
  SourceFile(std::string path, std::string text);
  std::string_view slice(TextRange r) const {
    return std::string_view(text).substr(r.start, r.end - r.start);
  }
};

// Checks UTF-8 validity; returns the byte offset of the first invalid sequence, or npos.
size_t first_invalid_utf8(std::string_view text);
// True when the text looks binary (NUL bytes in the first 8 KiB).
bool looks_binary(std::string_view text);

}  // namespace stoker
