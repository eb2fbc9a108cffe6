// python::ChildIndex (src/python/syntax.h) answers children, named flags, parents and fields
// exactly as a tree-sitter cursor does, on every node: it asks the field of a child only under
// node types that have fields in the grammar (node-types.json) and ERROR nodes, and keeps the
// first child of each field. Also the inline helpers: NodeList, FieldName, is_null/start/same,
// and descendant_at (src/python/descend.h), which reads the index to answer as tree-sitter's
// ts_node_descendant_for_byte_range does for a point.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "python/descend.h"
#include "python/parser.h"
#include "test_support.h"

using namespace stoker;
using namespace stoker::python;

namespace {

// Every Python file of the fixtures and examples (recursively), read once per call: visit(path,
// text) for each; the number of files.
template <class Visit>
size_t for_each_python_sample(Visit&& visit) {
  size_t files = 0;
  for (const char* dir : {"tests/fixtures/python", "examples"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::filesystem::path(STOKER_SOURCE_DIR) / dir)) {
      if (entry.path().extension() != ".py") continue;
      ++files;
      visit(entry.path(), test::read_file(entry.path()));
    }
  return files;
}

// The number of nodes whose index entry disagrees with a tree-sitter cursor on the node: its
// children, their named flags, the first child of each field (the cursor's field of each child),
// and, for each child, that the node is its parent. `nodes` counts the nodes. (tree-sitter 0.20's
// own ts_node_parent and ts_node_child_by_field_id differ from the cursor in corner cases: the
// parent of a zero-width node in an error, a field inherited through a visible aliased child;
// the index keeps the cursor's answers, as it always did.)
size_t index_mismatches(const std::string& text, size_t& nodes) {
  ParsedModule module(text);
  ChildIndex index(module.root());
  const TSLanguage* lang = tree_sitter_python();
  size_t mismatches = 0;
  std::vector<Node> stack{module.root()};
  ScopedChildIndex use(&index);
  CHECK(is_null(parent(module.root())));
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    ++nodes;
    std::vector<Node> plain;
    std::vector<TSFieldId> fields;
    TSTreeCursor c = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&c)) {
      do {
        plain.push_back(ts_tree_cursor_current_node(&c));
        fields.push_back(ts_tree_cursor_current_field_id(&c));
      } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    const ChildIndex::Entry* e = index.find(n);
    bool ok = e && e->count == plain.size();
    for (size_t i = 0; ok && i < plain.size(); ++i)
      ok = same(index.children(*e)[i], plain[i]) && same(parent(plain[i]), n) &&
           index.is_named_code(*e, static_cast<uint32_t>(i)) == (ts_node_is_named(plain[i]) && !ts_node_is_extra(plain[i]));
    for (TSFieldId f = 1; ok && f <= ts_language_field_count(lang); ++f) {
      Node want{};
      for (size_t i = 0; i < plain.size() && is_null(want); ++i)
        if (fields[i] == f) want = plain[i];
      ok = same(index.field(*e, f), want) && is_null(index.field(*e, f)) == is_null(want);
      if (!ok)
        UNSCOPED_INFO("field " << ts_language_field_name_for_id(lang, f) << " of " << ts_node_type(n) << " at " << start(n));
    }
    if (!ok) ++mismatches;
    for (Node k : plain) stack.push_back(k);
  }
  return mismatches;
}

}  // namespace

TEST_CASE("the child index answers as a tree-sitter cursor does on every node of the Python fixtures and examples") {
  size_t nodes = 0, mismatches = 0;
  size_t files = for_each_python_sample([&](const std::filesystem::path& path, const std::string& text) {
    size_t bad = index_mismatches(text, nodes);
    if (bad) FAIL_CHECK(path.string() << ": " << bad << " index mismatches");
    mismatches += bad;
  });
  CHECK(files > 50);
  CHECK(nodes > 50000);
  CHECK(mismatches == 0);
}

TEST_CASE("the child index agrees with a tree-sitter cursor on comments between children, errors and long child lists") {
  std::string many_args = "f(";
  for (int i = 0; i < 40; ++i) many_args += "a" + std::to_string(i) + "=" + std::to_string(i) + ", ";
  many_args += ")\n";
  const std::vector<std::string> cases = {
      // comments (extras) between a node's children, fields after them
      "x = (  # comment\n  1 +  # another\n  2)\n",
      "for i in range(3):  # loop\n    pass\nelse:\n    pass\n",
      "if a:\n    pass\nelif b:  # c\n    pass\nelif c:\n    pass\nelse:\n    pass\n",
      // a long argument list, a string with interpolations (node types without fields)
      many_args,
      "s = 'a' 'b' f'{c}' \"d\"\n",
      // decorators, type parameters, match, lambda defaults, f-strings with format specs
      "@dec\ndef f[T](a: int = 1, *args, b, **kw) -> T:\n    return lambda x=1: x\n",
      "match p:\n    case {'k': v, **rest} if v:\n        pass\n    case [1, *others]:\n        pass\n",
      "s = f'{x!r:>{width}} {y=}'\n",
      "try:\n    pass\nexcept (A, B) as e:\n    raise C from e\nfinally:\n    pass\n",
      "with a as b, c as d:\n    print >> f, x\n",
      // syntax errors (ERROR and MISSING nodes)
      "def f(:\n    x = = 1\n",
      "x = [1, 2\ny = f(a b)\n",
      "class (A:\n  def\n",
  };
  // Tuples of k elements, with and without a trailing comma.
  std::vector<std::string> all = cases;
  for (uint32_t k = 1; k <= 6; ++k) {
    std::string t = "t = (";
    for (uint32_t i = 0; i < k; ++i) t += std::to_string(i) + (i + 1 < k ? ", " : "");
    all.push_back(t + ")\n");
    all.push_back(t + ",)\n");
  }
  for (const auto& text : all) {
    size_t nodes = 0;
    CAPTURE(text);
    CHECK(index_mismatches(text, nodes) == 0);
    CHECK(nodes > 3);
  }
}

TEST_CASE("fields by name, node lists and node identity read what tree-sitter reads") {
  ParsedModule module("y = model(x, *rest, key=1)  # call\n");
  ChildIndex index(module.root());
  for (bool with_index : {false, true}) {
    ScopedChildIndex use(with_index ? &index : nullptr);
    Node stmt = named_child(module.root(), 0);
    Node assign = named_child(stmt, 0);
    REQUIRE(is(assign, "assignment"));
    Node call = field(assign, "right");
    REQUIRE(is(call, "call"));
    CHECK(same(field(call, "function"), ts_node_child_by_field_name(call, "function", 8)));
    CHECK(is_null(field(call, "body")));  // a field of the grammar that calls do not have
    NodeList args = named_children(field(call, "arguments"));
    REQUIRE(args.size() == 3);
    CHECK(is(args[1], "list_splat"));
    CHECK(is(args.back(), "keyword_argument"));
    CHECK(start(args[0]) == ts_node_start_byte(args[0]));
    CHECK(same(args[0], ts_node_named_child(field(call, "arguments"), 0)));
    CHECK_FALSE(same(args[0], args[1]));
    std::vector<Node> copied = args;
    CHECK(copied.size() == 3);
    std::vector<std::string> reversed;
    for_each_named_child_reverse(field(call, "arguments"), [&](Node c) { reversed.emplace_back(ts_node_type(c)); });
    CHECK(reversed == std::vector<std::string>{"keyword_argument", "list_splat", "identifier"});
  }
  NodeList many;
  for (uint32_t i = 0; i < 3 * NodeList::kInline; ++i) many.push_back(module.root());
  NodeList copy = many;
  CHECK(copy.size() == 3 * NodeList::kInline);
  CHECK(same(copy[2 * NodeList::kInline], module.root()));
  CHECK(is_null(Node{}));
}

namespace {
// The offsets (every byte of `text`, and one past its end) at which descendant_at, reading the
// index, answers otherwise than tree-sitter's ts_node_descendant_for_byte_range(root, at, at).
size_t descent_mismatches(const std::string& text) {
  ParsedModule module(text);
  ChildIndex index(module.root());
  ScopedChildIndex use(&index);
  size_t mismatches = 0;
  for (uint32_t at = 0; at <= text.size() + 1; ++at) {
    Node want = ts_node_descendant_for_byte_range(module.root(), at, at);
    Node got = descendant_at(module.root(), at);
    if (!same(got, want)) {
      if (mismatches < 5)
        UNSCOPED_INFO("at " << at << ": " << ts_node_type(got) << " [" << start(got) << ", " << end(got) << ") against "
                            << ts_node_type(want) << " [" << start(want) << ", " << end(want) << ")");
      ++mismatches;
    }
  }
  return mismatches;
}
}  // namespace

TEST_CASE("descendant_at answers as ts_node_descendant_for_byte_range at every byte of the Python fixtures and examples") {
  size_t bytes = 0, mismatches = 0;
  size_t files = for_each_python_sample([&](const std::filesystem::path& path, const std::string& text) {
    bytes += text.size();
    size_t bad = descent_mismatches(text);
    if (bad) FAIL_CHECK(path.string() << ": " << bad << " offsets differ");
    mismatches += bad;
  });
  CHECK(files > 50);
  CHECK(bytes > 100000);
  CHECK(mismatches == 0);
}

TEST_CASE("descendant_at agrees with tree-sitter on comments, strings, errors, missing nodes and line continuations") {
  const std::vector<std::string> cases = {
      "x = (  # comment\n  1 +  # another\n  2)\n",
      "a.b.c(d).e\nobj . name\nobj.\\\n  name()\n",
      "s = f'{x!r:>{width}} {y=}' 'b' \"\"\"doc\n\"\"\"\n",
      "def f(:\n    x = = 1\n",
      "x = [1, 2\ny = f(a b)\n",
      "class (A:\n  def\n",
      "if a:\n    pass\nelif b:  # c\n    pass\nelse:\n    pass\n\n\n",
      "for k, v in {k: v for k, v in d.items()}.items():\n    print(k)\n",
      "",
      "\n\n# only a comment",
      "print(1)",
  };
  for (const auto& text : cases) {
    CAPTURE(text);
    CHECK(descent_mismatches(text) == 0);
  }
}

TEST_CASE("every name the grammar gives a symbol is a kind name, and each symbol maps to its name's index") {
  const TSLanguage* lang = tree_sitter_python();
  const auto& table = syntax_detail::kind_slots();
  REQUIRE(table.count == ts_language_symbol_count(lang));
  for (uint32_t s = 0; s < table.count; ++s) {
    const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(s));
    CAPTURE(s, name ? name : "(null)");
    if (!name) {
      CHECK(table.slots[s] == syntax_detail::kKindCount);
      continue;
    }
    REQUIRE(table.slots[s] < syntax_detail::kKindCount);
    CHECK(syntax_detail::kKindNames[table.slots[s]] == name);
  }
  // The list has each name once (the first of two equal entries would take every symbol).
  for (size_t i = 0; i < syntax_detail::kKindCount; ++i)
    for (size_t j = i + 1; j < syntax_detail::kKindCount; ++j) CHECK(syntax_detail::kKindNames[i] != syntax_detail::kKindNames[j]);
}

namespace {
// The nodes of `text` (every node, anonymous ones and ERROR nodes included) at which is() with a
// literal answers otherwise than comparing kind(), and, for an identifier with bytes, those that
// the point lookup at its first byte does not return (SemanticModel::quiet_attribute_call's
// shortcut relies on it).
size_t kind_mismatches(const std::string& text, size_t& nodes) {
  ParsedModule module(text);
  ChildIndex index(module.root());
  ScopedChildIndex use(&index);
  size_t mismatches = 0;
  std::vector<Node> stack{module.root()};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    ++nodes;
    for_each_child(n, [&](Node c) {
      stack.push_back(c);
      return true;
    });
    std::string_view k = kind(n);
    bool same_answers = is(n, "identifier") == (k == "identifier") && is(n, "call") == (k == "call") &&
                        is(n, "attribute") == (k == "attribute") && is(n, "ERROR") == (k == "ERROR") &&
                        is(n, "(") == (k == "(") && is(n, "string_content") == (k == "string_content") &&
                        is(n, "comment") == (k == "comment") && is(n, "block") == (k == "block") &&
                        is(n, "string") == (k == "string") && is(n, "as_pattern_target") == (k == "as_pattern_target") &&
                        is(n, "end") == (k == "end") && is(n, "\\") == (k == "\\") && is(n, k) == true;
    if (!same_answers) {
      UNSCOPED_INFO("node " << k << " at " << start(n));
      ++mismatches;
    }
    if (k == "identifier" && end(n) > start(n) && !same(descendant_at(module.root(), start(n)), n)) {
      UNSCOPED_INFO("identifier at " << start(n) << " is not the point lookup's answer");
      ++mismatches;
    }
  }
  return mismatches;
}
}  // namespace

TEST_CASE("is() with a literal answers as comparing the node's kind name, on every node of the Python fixtures and examples") {
  size_t nodes = 0, mismatches = 0;
  size_t files = for_each_python_sample([&](const std::filesystem::path& path, const std::string& text) {
    size_t bad = kind_mismatches(text, nodes);
    if (bad) FAIL_CHECK(path.string() << ": " << bad << " nodes differ");
    mismatches += bad;
  });
  const std::vector<std::string> cases = {
      "def f(:\n    x = = 1\n", "x = [1, 2\ny = f(a b)\n", "class (A:\n  def\n", "print 'x'\nexec 'y'\n",
      "match x:\n    case [a, *rest] as whole:\n        pass\n", "s = f'{x!r:>{width}}' \\\n  'b'\n", "a.\n", "f(a.)\n"};
  for (const auto& text : cases) {
    CAPTURE(text);
    CHECK(kind_mismatches(text, nodes) == 0);
  }
  CHECK(files > 50);
  CHECK(nodes > 100000);
  CHECK(mismatches == 0);
}
