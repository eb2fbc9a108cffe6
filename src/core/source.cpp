#include "core/source.h"
#include "core/utf8.h"

#include <algorithm>

namespace stoker {

Language language_for_path(std::string_view path) {
  auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return Language::Unknown;
  std::string_view ext = path.substr(dot + 1);
  if (ext == "py" || ext == "pyi" || ext == "ipynb") return Language::Python;  // notebooks: core/notebook.h
  static constexpr std::string_view cxx[] = {"cu", "cuh", "cpp", "cc", "cxx", "h", "hpp", "hh", "hxx"};
  for (auto e : cxx)
    if (ext == e) return Language::Cxx;
  return Language::Unknown;
}

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

uint32_t LineIndex::row_of(uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<uint32_t>(it - starts_.begin());
}

static bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

Position LineIndex::position(std::string_view text, uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t row = row_of(offset);
  uint32_t col = 1;
  for (uint32_t i = starts_[row - 1]; i < offset; ++i)
    if (!is_continuation(static_cast<unsigned char>(text[i]))) ++col;
  return {row, col};
}

std::pair<uint32_t, uint32_t> LineIndex::lsp_position(std::string_view text, uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t row = row_of(offset);
  uint32_t col = 0;
  for (uint32_t i = starts_[row - 1]; i < offset; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (is_continuation(c)) continue;
    col += (c >= 0xF0) ? 2 : 1;  // 4-byte sequences are surrogate pairs in UTF-16
  }
  return {row - 1, col};
}

uint32_t LineIndex::offset_from_lsp(std::string_view text, uint32_t line, uint32_t utf16_col) const {
  if (line >= starts_.size()) return static_cast<uint32_t>(text.size());
  uint32_t i = starts_[line];
  uint32_t col = 0;
  while (i < text.size() && text[i] != '\n' && col < utf16_col) {
    auto c = static_cast<unsigned char>(text[i]);
    col += (c >= 0xF0) ? 2 : 1;
    ++i;
    while (i < text.size() && is_continuation(static_cast<unsigned char>(text[i]))) ++i;
  }
  return i;
}

uint32_t LineIndex::line_start(uint32_t row) const {
  if (row == 0) return 0;
  if (row > starts_.size()) return starts_.back();
  return starts_[row - 1];
}

uint32_t LineIndex::line_end(std::string_view text, uint32_t row) const {
  uint32_t end = row < starts_.size() ? starts_[row] : static_cast<uint32_t>(text.size());
  while (end > line_start(row) && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  return end;
}

SourceFile::SourceFile(std::string p, std::string t) : path(std::move(p)), text(std::move(t)) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF) {
    has_bom = true;
    text.erase(0, 3);
  }
  language = language_for_path(path);
  lines = LineIndex(text);
}

size_t first_invalid_utf8(std::string_view s) {
  char32_t cp;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8_multibyte_at(s, i, cp);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool looks_binary(std::string_view text) {
  return text.substr(0, 8192).find('\0') != std::string_view::npos;
}

}  // namespace stoker
