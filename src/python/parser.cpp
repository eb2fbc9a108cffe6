#include "python/parser.h"
#include "python/descend.h"
#include "python/node_fields.h"

#include "core/test_hooks.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace stoker::python {

namespace {

// tree-sitter 0.20 corrupts its heap (and aborts) when 65,535 or more extras follow each other
// without a token between them: a statement followed by that many comment lines. Such runs are
// parsed with the comment text blanked (spaces: every offset stays the same), so the tree lacks
// those comment nodes; nothing else changes. A comment-looking line with a quote, backslash or
// brace (it may sit inside a string, where blanking would change the string's tokens) ends a run.
constexpr size_t kLongCommentRun = 16384;

bool comment_only_line(std::string_view line, size_t& hash_at) {
  size_t i = line.find_first_not_of(" \t\f\r");
  if (i == std::string_view::npos || line[i] != '#') return false;
  if (line.find_first_of("'\"\\{}", i) != std::string_view::npos) return false;
  hash_at = i;
  return true;
}

// tree-sitter-python's scanner keeps each indentation width in one byte when it saves its state,
// so a width of 256 columns or more (64 levels of four spaces, 32 tabs) comes back wrong and
// valid code gets syntax errors. Only the order of the widths matters to the parse (INDENT when
// wider than the enclosing block, DEDENT when narrower), so when a line is indented that deep,
// every distinct width is renumbered to a small value, in the same order and in the same number
// of bytes: the scanner counts a space as 1 column and a tab as 8, and a form feed resets the count
// (as in CPython), so "  \f " measures 1 column in 4 bytes. Offsets do not change, and the tree
// has the same shape. A file whose widths cannot all be renumbered below 256 (about 255
// distinct widths or more) is parsed as it is (CPython allows 100 levels; such a file gets syntax
// errors where the widths wrap).
constexpr uint32_t kMaxScannerIndent = 255;

struct Indent {
  size_t start, bytes;  // the leading whitespace of a line
  uint32_t width;       // as the scanner measures it
};

// `bytes` bytes of leading whitespace that the scanner measures as `width` columns: spaces and
// tabs, or anything, then a form feed, then tabs and spaces.
bool encodable(uint32_t width, size_t bytes) {
  if (width >= bytes && (width - bytes) % 7 == 0 && (width - bytes) / 7 <= bytes) return true;
  return bytes >= 1 && width / 8 + width % 8 <= bytes - 1;
}

void encode_indent(uint32_t width, size_t bytes, std::string& out) {
  out.clear();
  if (width >= bytes && (width - bytes) % 7 == 0 && (width - bytes) / 7 <= bytes) {
    size_t tabs = (width - bytes) / 7;  // tabs + spaces == bytes, 8 * tabs + spaces == width
    out.append(tabs, '\t').append(bytes - tabs, ' ');
    return;
  }
  size_t tabs = width / 8, spaces = width % 8;
  out.append(bytes - 1 - tabs - spaces, ' ').append(1, '\f').append(tabs, '\t').append(spaces, ' ');
}

// Returns true (and fills `patched` from `text`) when the indentation had to be renumbered.
// The widest indentation in the file, without storing anything (the common, shallow case).
uint32_t deepest_indentation(std::string_view text) {
  uint32_t deepest = 0;
  bool at_line_start = true;
  uint32_t width = 0;
  for (char c : text) {
    if (at_line_start) {
      if (c == ' ') ++width;
      else if (c == '\t') width += 8;
      else if (c == '\f' || c == '\r') width = 0;
      else {
        if (c != '\n') deepest = std::max(deepest, width);
        at_line_start = false;
      }
    }
    if (c == '\n') {
      at_line_start = true;
      width = 0;
    }
  }
  return deepest;
}

bool renumber_deep_indentation(std::string_view text, std::string& patched) {
  if (deepest_indentation(text) <= kMaxScannerIndent) return false;
  std::vector<Indent> lines;
  uint32_t deepest = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t i = pos;
    uint32_t width = 0;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == ' ') ++width;
      else if (c == '\t') width += 8;
      else if (c == '\f' || c == '\r') width = 0;
      else break;
    }
    bool blank = i == text.size() || text[i] == '\n';
    if (!blank && i > pos) {
      lines.push_back({pos, i - pos, width});
      deepest = std::max(deepest, width);
    }
    size_t nl = text.find('\n', i);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  if (deepest <= kMaxScannerIndent) return false;
  // The new width of each old one: in increasing order, the smallest value above the previous
  // one that every line of that width can spell in its own bytes (the old width itself always
  // can, so the new one is never larger). Greedy is optimal: a smaller value leaves more room.
  std::map<uint32_t, std::set<size_t>> byte_counts;  // width -> the byte counts of its lines
  for (const Indent& l : lines) byte_counts[l.width].insert(l.bytes);
  std::map<uint32_t, uint32_t> renumbered;
  uint32_t previous = 0;  // column 0 is the module level
  for (const auto& [width, counts] : byte_counts) {
    if (width == 0) {  // a line that starts with a form feed: stays at the module level
      renumbered[0] = 0;
      continue;
    }
    uint32_t v = previous + 1;
    for (; v < width && v <= kMaxScannerIndent; ++v) {
      bool all = true;
      for (size_t b : counts) all = all && encodable(v, b);
      if (all) break;
    }
    if (v > kMaxScannerIndent) return false;  // too many distinct widths: parsed as it is
    renumbered[width] = previous = v;
  }
  std::string result(text);
  std::string enc;
  for (const Indent& l : lines) {
    uint32_t v = renumbered[l.width];
    if (v == l.width) continue;
    encode_indent(v, l.bytes, enc);
    result.replace(l.start, l.bytes, enc);
  }
  patched = std::move(result);
  return true;
}

// The text to parse: `text` itself unless it holds a run of kLongCommentRun comment lines.
std::string_view parse_input(std::string_view text, std::string& patched) {
  struct Line {
    size_t start, hash;
  };
  std::vector<Line> run;
  bool copied = false;
  auto flush = [&] {
    if (run.size() >= kLongCommentRun) {
      if (!copied) patched.assign(text);
      copied = true;
      for (const Line& l : run) {
        size_t e = l.hash;
        while (e < text.size() && text[e] != '\n' && text[e] != '\r') patched[e++] = ' ';
      }
    }
    run.clear();
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    size_t hash_at = 0;
    if (comment_only_line(line, hash_at)) run.push_back({pos, pos + hash_at});
    else if (line.find_first_not_of(" \t\f\r") != std::string_view::npos) flush();
    pos = end + 1;
  }
  flush();
  std::string_view out = copied ? std::string_view(patched) : text;
  std::string renumbered;
  if (renumber_deep_indentation(out, renumbered)) {
    patched = std::move(renumbered);
    return patched;
  }
  return out;
}


}  // namespace

ParsedModule::ParsedModule(std::string_view original) {
  test_hooks::fail_if_requested(original);
  std::string patched;
  std::string_view text = parse_input(original, patched);
  // A parser of its own for each parse. One parser per thread, reset before and after each parse,
  // let one file change how the next one parsed: ts_parser_reset does not clear all of the state an
  // unfinished parse leaves (after a file ending inside an f-string, the next file with a syntax
  // error recovered differently, so its notice named another line, depending on which worker
  // thread had parsed what before it). Creating a parser costs a few percent of parsing a file.
  std::unique_ptr<TSParser, void (*)(TSParser*)> parser(ts_parser_new(), ts_parser_delete);
  if (!ts_parser_set_language(parser.get(), tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python grammar version does not match the runtime");
  tree_ = ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size()));
  if (!tree_) throw std::runtime_error("tree-sitter failed to parse");
}

ParsedModule::~ParsedModule() { ts_tree_delete(tree_); }

std::vector<TextRange> ParsedModule::error_ranges() const {
  std::vector<TextRange> out;
  if (!has_errors()) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(root());
  bool descend = true;
  for (;;) {
    Node n = ts_tree_cursor_current_node(&cursor);
    if (descend && (kind(n) == "ERROR" || ts_node_is_missing(n))) {
      out.push_back(range(n));
      descend = false;
    } else if (descend && ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cursor)) {
      continue;
    }
    if (ts_tree_cursor_goto_next_sibling(&cursor)) {
      descend = true;
      continue;
    }
    bool up = false;
    while (ts_tree_cursor_goto_parent(&cursor)) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        up = true;
        break;
      }
    }
    if (!up) break;
    descend = true;
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

const TSFieldId* syntax_detail::field_ids() {
  static const std::array<TSFieldId, syntax_detail::kFieldCount> ids = [] {
    std::array<TSFieldId, syntax_detail::kFieldCount> out{};
    const TSLanguage* lang = tree_sitter_python();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = ts_language_field_id_for_name(lang, syntax_detail::kFieldNames[i].data(),
                                             static_cast<uint32_t>(syntax_detail::kFieldNames[i].size()));
    return out;
  }();
  return ids.data();
}

TSFieldId field_id(const char* name) {
  static const std::unordered_map<std::string, TSFieldId> ids = [] {
    std::unordered_map<std::string, TSFieldId> out;
    const TSLanguage* lang = tree_sitter_python();
    for (TSFieldId id = 1; id <= ts_language_field_count(lang); ++id)
      if (const char* n = ts_language_field_name_for_id(lang, id)) out.emplace(n, id);
    return out;
  }();
  // Per thread, by the literal's address: the names are string literals.
  thread_local std::unordered_map<const char*, TSFieldId> by_pointer;
  auto it = by_pointer.find(name);
  if (it != by_pointer.end()) return it->second;
  auto found = ids.find(name);
  TSFieldId id = found == ids.end() ? 0 : found->second;
  by_pointer.emplace(name, id);
  return id;
}

namespace {
// Per public symbol of the grammar, the field ids its children may carry (kNodeTypeFields).
const std::vector<std::vector<TSFieldId>>& fields_by_symbol() {
  static const std::vector<std::vector<TSFieldId>> table = [] {
    const TSLanguage* lang = tree_sitter_python();
    std::unordered_map<std::string_view, std::vector<TSFieldId>> by_name;
    for (size_t i = 0; i < kNodeTypeFieldsCount; ++i) {
      std::vector<TSFieldId> ids;
      std::string_view names = kNodeTypeFields[i].fields;
      while (!names.empty()) {
        size_t b = names.find_first_not_of(' ');
        if (b == std::string_view::npos) break;
        names.remove_prefix(b);
        std::string_view name = names.substr(0, names.find(' '));
        names.remove_prefix(name.size());
        TSFieldId id = ts_language_field_id_for_name(lang, name.data(), static_cast<uint32_t>(name.size()));
        if (!id) throw std::runtime_error("tree-sitter-python grammar lacks the field " + std::string(name));
        ids.push_back(id);
      }
      by_name[kNodeTypeFields[i].type] = std::move(ids);
    }
    std::vector<std::vector<TSFieldId>> out(ts_language_symbol_count(lang));
    for (uint32_t s = 0; s < out.size(); ++s) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(s)) != TSSymbolTypeRegular) continue;
      const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
      auto it = name ? by_name.find(name) : by_name.end();
      if (it != by_name.end()) out[s] = it->second;
    }
    return out;
  }();
  return table;
}
}  // namespace

void ChildIndex::add_child(Node c) {
  nodes_.push_back(c);
  code_.push_back(ts_node_is_named(c) && !ts_node_is_extra(c));
}

ChildIndex::ChildIndex(Node root) : tree_(root.tree) {
  if (is_null(root)) return;
  const auto& symbol_fields = fields_by_symbol();
  // Breadth-first: entry k is the root (k = 0) or nodes_[k - 1]; its children are appended to
  // nodes_ when it is reached, each with an entry whose parent is it. One cursor step per node.
  entries_.push_back(Entry{0, 0, 0, 0, ts_node_parent(root)});
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (size_t k = 0; k < entries_.size(); ++k) {
    Node n = k == 0 ? root : nodes_[k - 1];
    uint32_t first = static_cast<uint32_t>(nodes_.size()), fields_first = static_cast<uint32_t>(fields_.size());
    // The cursor visits the node's visible children, ts_node_child_count of them: it is moved to
    // the next sibling only while one is left (a failed step, past the last child, costs as
    // much as a successful one in tree-sitter 0.20: one per node with children saved).
    if (uint32_t count = ts_node_child_count(n); count > 0) {
      // A node type without fields in the grammar (an argument list, a string...) has no child to
      // ask the field of; an ERROR node (a symbol past the table) is always asked.
      TSSymbol symbol = ts_node_symbol(n);
      bool may_have_fields = symbol >= symbol_fields.size() || !symbol_fields[symbol].empty();
      ts_tree_cursor_reset(&cursor, n);
      bool more = ts_tree_cursor_goto_first_child(&cursor);
      for (uint32_t visited = 0; more; more = ++visited < count && ts_tree_cursor_goto_next_sibling(&cursor)) {
        add_child(ts_tree_cursor_current_node(&cursor));
        if (!may_have_fields) continue;
        // The first child of each field (what ts_node_child_by_field_id answers).
        TSFieldId f = ts_tree_cursor_current_field_id(&cursor);
        bool seen = false;
        for (uint32_t i = fields_first; i < fields_.size() && !seen; ++i) seen = fields_[i].id == f;
        if (f && !seen) fields_.push_back({f, nodes_.back()});
      }
    }
    Entry& e = entries_[k];
    e.first = first;
    e.count = static_cast<uint32_t>(nodes_.size()) - first;
    e.fields_first = fields_first;
    e.fields_count = static_cast<uint32_t>(fields_.size()) - fields_first;
    for (uint32_t i = first; i < nodes_.size(); ++i) entries_.push_back(Entry{0, 0, 0, 0, n});
  }
  ts_tree_cursor_delete(&cursor);
  size_t capacity = 16;
  while (capacity < entries_.size() * 2) capacity <<= 1;
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  for (size_t k = 0; k < entries_.size(); ++k) {
    const void* id = k == 0 ? root.id : nodes_[k - 1].id;
    size_t i = slot_of(id);
    while (slots_[i].id && slots_[i].id != id) i = (i + 1) & mask_;
    slots_[i] = Slot{id, static_cast<uint32_t>(k)};
  }
}

Node descendant_at(Node root, uint32_t at) {
  const ChildIndex* index = current_child_index();
  const ChildIndex::Entry* e = index && !is_null(root) ? index->find(root) : nullptr;
  if (!e) return ts_node_descendant_for_byte_range(root, at, at);
  // A node's visible children are in source order without overlap, so their ends never
  // decrease: the first one ending after `at` is found by bisection. A hidden node of the raw
  // tree (which tree-sitter's walk descends through) is transparent here: its visible children
  // are the parent's, in the same order. Every child the index holds is visible, named or not
  // (tree-sitter's walk returns the last visible node of its path, anonymous tokens included).
  Node last = root;
  while (e->count > 0) {
    const Node* kids = index->children(*e);
    uint32_t lo = 0, hi = e->count;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (ts_node_end_byte(kids[mid]) > at) hi = mid;
      else lo = mid + 1;
    }
    if (lo == e->count || at < start(kids[lo])) break;
    last = kids[lo];
    e = index->find(last);
    if (!e) return ts_node_descendant_for_byte_range(root, at, at);
  }
  return last;
}

const std::string_view* symbol_names() {
  static const std::vector<std::string_view> names = [] {
    const TSLanguage* lang = tree_sitter_python();
    std::vector<std::string_view> out;
    for (uint32_t s = 0; s < ts_language_symbol_count(lang); ++s) {
      const char* n = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
      out.push_back(n ? std::string_view(n) : std::string_view{});
    }
    return out;
  }();
  return names.data();
}

const syntax_detail::KindSlots& syntax_detail::kind_slots() {
  static const std::vector<uint16_t> slots = [] {
    const TSLanguage* lang = tree_sitter_python();
    std::unordered_map<std::string_view, uint16_t> by_name;
    for (size_t i = 0; i < kKindCount; ++i) by_name.emplace(kKindNames[i], static_cast<uint16_t>(i));
    std::vector<uint16_t> out(ts_language_symbol_count(lang), static_cast<uint16_t>(kKindCount));
    const std::string_view* names = symbol_names();
    for (size_t s = 0; s < out.size(); ++s) {
      auto it = by_name.find(names[s]);
      if (it != by_name.end() && !names[s].empty()) out[s] = it->second;
    }
    return out;
  }();
  static const KindSlots table{slots.data(), static_cast<uint32_t>(slots.size())};
  return table;
}

syntax_detail::SymbolTables syntax_detail::symbol_tables;

namespace {
// Sets symbol_tables while the program starts (before main; a static initializer that asks kind()
// or is() earlier gets the slow path's same answers).
[[maybe_unused]] const bool symbol_tables_set = [] {
  syntax_detail::symbol_tables.names = symbol_names();
  syntax_detail::symbol_tables.slots = syntax_detail::kind_slots().slots;
  syntax_detail::symbol_tables.count = syntax_detail::kind_slots().count;
  return true;
}();
}  // namespace

// A symbol past the grammar's count (the error node's): its name from tree-sitter. Also every
// symbol before symbol_tables is set.
std::string_view syntax_detail::kind_slow(Node n) {
  TSSymbol s = ts_node_symbol(n);
  if (s < ts_language_symbol_count(tree_sitter_python())) return symbol_names()[s];
  return std::string_view(ts_node_type(n));
}

bool syntax_detail::is_slow(Node n, uint16_t slot) { return kind_slow(n) == kKindNames[slot]; }

const bool* paren_symbols() {
  static const std::unique_ptr<bool[]> table = [] {
    const TSLanguage* lang = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(lang);
    std::unique_ptr<bool[]> out(new bool[count + 1]());
    const std::string_view* names = symbol_names();
    for (uint32_t s = 0; s < count; ++s) out[s] = names[s] == "parenthesized_expression";
    return out;
  }();
  return table.get();
}

size_t count_syntax_errors(std::string_view text) { return ParsedModule(text).error_ranges().size(); }

bool string_literal_value(Node n, std::string_view src, std::string& out) {
  n = unparen(n);
  if (!is(n, "string")) {
    if (is(n, "concatenated_string")) {
      std::string acc;
      for (auto c : named_children(n)) {
        std::string part;
        if (!string_literal_value(c, src, part)) return false;
        acc += part;
      }
      out = acc;
      return true;
    }
    return false;
  }
  out.clear();
  for (auto c : named_children(n)) {
    auto k = kind(c);
    if (k == "interpolation") return false;
    if (k == "string_content" || k == "escape_sequence") out += text(c, src);
  }
  return true;
}

bool string_literal_prefix(Node n, std::string_view src, std::string& out, bool& complete) {
  n = unparen(n);
  out.clear();
  complete = true;
  if (is(n, "concatenated_string")) {
    for (auto c : named_children(n)) {
      std::string part;
      bool whole = true;
      if (!string_literal_prefix(c, src, part, whole)) return false;
      out += part;
      if (!whole) {
        complete = false;
        return true;
      }
    }
    return true;
  }
  if (!is(n, "string")) return false;
  for (auto c : named_children(n)) {
    auto k = kind(c);
    if (k == "interpolation") {
      complete = false;
      return true;
    }
    if (k == "string_content" || k == "escape_sequence") out += text(c, src);
  }
  return true;
}

}  // namespace stoker::python
