// Scopes and bindings: the collection pass (scopes, bindings, functions, classes, loops, the
// statements later passes index), name lookup and qualified names through imports.
#include "python/descend.h"
#include "python/model_internal.h"
#include "python/symbol_table.h"

#include <functional>
#include <unordered_map>

namespace stoker::python {

using namespace model_detail;

void clear_registered_index();  // TypeInference::registered_tensor's index (types_classes.cpp)
void clear_list_appends();  // the list appends' index of module_list_element (model_devices.cpp)

namespace {
void clear_climb_memo();  // the statement climbs' memo (below)
}  // namespace

namespace {

constexpr int kMaxPatternDepth = 64;    // nested target patterns bound deeper than this are not bound
constexpr size_t kMaxQualifiedName = 512;  // longer dotted names are not API names

// The node types collect() treats apart, each matched by its type name once per grammar symbol
// instead of by a chain of name comparisons per node.
enum class Collected : uint8_t {
  Other, Block, Module, For, While, Comprehension, FunctionDef, ClassDef, Global, Import, ImportFrom, Lambda,
  Assignment, AugAssign, ForIn, Named, AsPattern, Return, Call
};

Collected collected_kind(std::string_view k) {
  static const std::pair<std::string_view, Collected> kinds[] = {
      {"block", Collected::Block},
      {"module", Collected::Module},
      {"for_statement", Collected::For},
      {"while_statement", Collected::While},
      {"function_definition", Collected::FunctionDef},
      {"class_definition", Collected::ClassDef},
      {"global_statement", Collected::Global},
      {"import_statement", Collected::Import},
      {"import_from_statement", Collected::ImportFrom},
      {"lambda", Collected::Lambda},
      {"assignment", Collected::Assignment},
      {"augmented_assignment", Collected::AugAssign},
      {"for_in_clause", Collected::ForIn},
      {"named_expression", Collected::Named},
      {"as_pattern", Collected::AsPattern},
      {"return_statement", Collected::Return},
      {"call", Collected::Call},
  };
  if (is_comprehension_kind(k)) return Collected::Comprehension;
  for (const auto& [name, c] : kinds)
    if (k == name) return c;
  return Collected::Other;
}

// A node's class for collect() (by its type name, as kind() gives it): one symbol read.
Collected collected_kind(Node n) {
  static const uint32_t count = ts_language_symbol_count(tree_sitter_python());
  static const std::vector<Collected> by_symbol = [] {
    std::vector<Collected> out(count);
    const std::string_view* names = symbol_names();
    for (uint32_t s = 0; s < count; ++s) out[s] = collected_kind(names[s]);
    return out;
  }();
  TSSymbol s = ts_node_symbol(n);
  return s < count ? by_symbol[s] : collected_kind(kind(n));
}

}  // namespace

void SemanticModel::collect() {
  clear_climb_memo();  // a new tree: the memo's nodes may be of trees now freed
  clear_registered_index();
  clear_list_appends();
  scopes_.push_back(Scope{Scope::Kind::Module, root_, -1, -1, -1, {}});
  struct Item {
    Node node{};
    int scope;
    int function;
    int loop;
    Node block{};
  };
  std::vector<Item> stack{{root_, 0, -1, -1, root_}};
  // Names a function declares `global` (`global args` in main() before `args =
  // parser.parse_args()`; the declaration applies to the whole function and precedes its
  // stores): its stores are also bindings of the module scope, where the other functions that
  // read the name look, when the module never binds the name itself (added after the pass). A
  // module-level binding (`global_step = 0`) keeps the readers on it, as before.
  std::unordered_map<int, std::unordered_set<std::string>> declared_global;
  std::vector<std::pair<std::string, Binding>> global_stores;
  std::unordered_set<std::string> add_argument_aliases;  // `arg = parser.add_argument`
  auto bind = [&](int scope, const std::string& name, Binding b) {
    if (name.empty()) return;
    if (scope > 0 && scopes_[scope].kind == Scope::Kind::Function) {
      auto g = declared_global.find(scope);
      if (g != declared_global.end() && g->second.count(name)) global_stores.emplace_back(name, b);
    }
    scopes_[scope].bindings[name].push_back(std::move(b));
  };
  // Binds every identifier in a target pattern.
  std::function<void(Node, int, Binding, int, int)> bind_target_at = [&](Node t, int scope, Binding b, int idx,
                                                                         int depth) {
    t = unparen(t);
    auto k = kind(t);
    if (depth > kMaxPatternDepth) return;
    if (k == "identifier") {
      b.target = t;
      b.unpack_index = idx;
      bind(scope, std::string(text(t)), b);
    } else if (k == "pattern_list" || k == "tuple_pattern" || k == "list_pattern" || k == "expression_list" ||
               k == "tuple" || k == "list") {
      int i = 0;
      for (auto c : named_children(t)) bind_target_at(c, scope, b, i++, depth + 1);
    } else if (k == "list_splat_pattern" || k == "list_splat") {
      if (named_count(t)) bind_target_at(named_child(t, 0), scope, b, -1, depth + 1);
    }
  };
  auto bind_target = [&](Node t, int scope, Binding b, int idx) { bind_target_at(t, scope, std::move(b), idx, 0); };
  // Stores to attributes of objects other than self (an argparse namespace's `args.x = ...`):
  // a plain target keeps its value, an element of a tuple target or an augmented one does not.
  auto store_attributes = [&](Node t, Node value) {
    t = unparen(t);
    if (is(t, "attribute")) {
      Node obj = unparen(field(t, "object"));
      if (!(is(obj, "identifier") && text(obj) == "self"))
        attribute_stores_[std::string(text(field(t, "attribute")))].push_back({obj, value});
      return;
    }
    auto k = kind(t);
    if (k == "pattern_list" || k == "tuple_pattern" || k == "list_pattern" || k == "expression_list" ||
        k == "tuple" || k == "list")
      for (auto c : named_children(t)) {
        c = unparen(is(c, "list_splat_pattern") || is(c, "list_splat") ? named_child(c, 0) : c);
        Node obj = unparen(field(c, "object"));
        if (is(c, "attribute") && !(is(obj, "identifier") && text(obj) == "self"))
          attribute_stores_[std::string(text(field(c, "attribute")))].push_back({obj, Node{}});
      }
  };

  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    Node n = it.node;
    Collected ck = collected_kind(n);
    int scope = it.scope, function = it.function;
    Node block = it.block;
    // A `with` body always runs when its statement does: its bindings dominate what follows
    // the statement as the statement's own would (the enclosing block stays the block).
    if ((ck == Collected::Block && !is(parent(n), "with_statement")) || ck == Collected::Module) block = n;
    // A binding is visible after its statement (a for target: inside the body). Built only for
    // the nodes that bind (reading a node's end costs a call into tree-sitter).
    auto base = [&] {
      Binding b;
      b.at = ck == Collected::For                                        ? start(field(n, "body"))
             : ck == Collected::FunctionDef || ck == Collected::ClassDef ? start(n)
                                                                         : end(n);
      b.block = range(block);
      return b;
    };

    if (ck == Collected::Global && scope > 0 && scopes_[scope].kind == Scope::Kind::Function) {
      for (Node c : named_children(n))
        if (is(c, "identifier")) declared_global[scope].insert(std::string(text(c)));
      continue;
    }
    if (ck == Collected::Import) {
      for (auto c : named_children(n)) {
        Binding b = base();
        b.kind = Binding::Kind::Import;
        if (is(c, "dotted_name")) {
          std::string full(text(c));
          auto first = full.substr(0, full.find('.'));
          b.qualified = first;
          bind(scope, first, b);
        } else if (is(c, "aliased_import")) {
          b.qualified = std::string(text(field(c, "name")));
          bind(scope, std::string(text(field(c, "alias"))), b);
        }
      }
      continue;
    }
    if (ck == Collected::ImportFrom) {
      Node mod = field(n, "module_name");
      std::string module(text(mod));
      for (auto c : named_children(n)) {
        if (same(c, mod)) continue;
        Binding b = base();
        b.kind = Binding::Kind::Import;
        // `from . import x` names the module `.x` (leading dots: the relative level).
        std::string sep = module.find_first_not_of('.') == std::string::npos ? "" : ".";
        if (is(c, "dotted_name")) {
          b.qualified = module + sep + std::string(text(c));
          bind(scope, std::string(text(c)), b);
        } else if (is(c, "aliased_import")) {
          b.qualified = module + sep + std::string(text(field(c, "name")));
          bind(scope, std::string(text(field(c, "alias"))), b);
        }
      }
      continue;
    }
    if (ck == Collected::FunctionDef) {
      int fi = static_cast<int>(functions_.size());
      Function f;
      f.node = n;
      f.name = std::string(text(field(n, "name")));
      f.klass = scopes_[scope].kind == Scope::Kind::Class ? scopes_[scope].klass : -1;
      if (Node dp = parent(n); is(dp, "decorated_definition"))
        for (Node d : named_children(dp)) {
          if (!is(d, "decorator")) continue;
          std::string_view t = text(unparen(named_child(d, 0)));  // the decorator's expression
          if (t == "staticmethod") f.static_method = f.klass >= 0;
          else if (t != "classmethod") f.other_decorators = true;
        }
      Binding b = base();
      b.kind = Binding::Kind::Def;
      b.value = n;
      b.function = fi;
      bind(scope, f.name, b);
      if (f.klass >= 0) classes_[f.klass].methods[f.name] = fi;
      int fs = static_cast<int>(scopes_.size());
      scopes_.push_back(Scope{Scope::Kind::Function, n, scope, fi, -1, {}});
      f.scope = fs;
      Node params = field(n, "parameters");
      bool kwonly = false;
      int pi = 0;
      for (auto p : named_children(params)) {
        auto pk = kind(p);
        Param param;
        if (pk == "identifier") {
          param.name = std::string(text(p));
        } else if (pk == "typed_parameter") {
          Node id = named_child(p, 0);
          if (is(id, "list_splat_pattern") || is(id, "dictionary_splat_pattern")) {
            param.is_variadic = true;
            param.double_star = is(id, "dictionary_splat_pattern");
            id = named_child(id, 0);
            if (is(named_child(p, 0), "list_splat_pattern")) kwonly = true;
          }
          param.name = std::string(text(id));
        } else if (pk == "default_parameter" || pk == "typed_default_parameter") {
          param.name = std::string(text(field(p, "name")));
          param.default_value = field(p, "value");
          // Defaults are evaluated where the function is defined: visit them in that scope.
          stack.push_back({param.default_value, scope, function, it.loop, block});
        } else if (pk == "list_splat_pattern" || pk == "dictionary_splat_pattern") {
          param.is_variadic = true;
          param.double_star = pk == "dictionary_splat_pattern";
          param.name = std::string(text(named_child(p, 0)));
          if (pk == "list_splat_pattern") kwonly = true;
        } else if (pk == "keyword_separator") {
          kwonly = true;
          continue;
        } else {
          continue;
        }
        param.node = p;
        param.keyword_only = kwonly && !param.is_variadic;
        Binding pb;
        pb.kind = Binding::Kind::Param;
        pb.at = start(p);
        pb.block = range(n);
        pb.function = fi;
        pb.param_index = pi++;
        pb.target = p;
        bind(fs, param.name, pb);
        f.params.push_back(param);
      }
      functions_.push_back(f);
      Node body = field(n, "body");
      stack.push_back({body, fs, fi, -1, body});
      continue;
    }
    if (ck == Collected::ClassDef) {
      int ci = static_cast<int>(classes_.size());
      Class c;
      c.node = n;
      c.name = std::string(text(field(n, "name")));
      Binding b = base();
      b.kind = Binding::Kind::Class;
      b.value = n;
      bind(scope, c.name, b);
      int cs = static_cast<int>(scopes_.size());
      scopes_.push_back(Scope{Scope::Kind::Class, n, scope, -1, ci, {}});
      c.scope = cs;
      classes_.push_back(c);
      Node supers = field(n, "superclasses");
      if (!is_null(supers)) stack.push_back({supers, scope, function, it.loop, block});
      Node body = field(n, "body");
      stack.push_back({body, cs, function, -1, body});
      continue;
    }
    if (ck == Collected::Lambda) {
      continue;  // parameters and body run later, elsewhere; nothing to bind for our rules
    }
    if (ck == Collected::Assignment) {
      Node left = field(n, "left"), right = field(n, "right");
      while (is(right, "assignment")) {  // a = b = value
        Node inner_left = field(right, "left");
        Binding b = base();
        b.kind = Binding::Kind::Assign;
        right = field(right, "right");
        b.value = right;
        bind_target(inner_left, scope, b, -1);
        store_attributes(inner_left, right);
      }
      if (!is_null(right)) {
        Binding b = base();
        b.kind = Binding::Kind::Assign;
        b.value = right;
        bind_target(left, scope, b, -1);
        store_attributes(left, right);
        Node l = unparen(left);
        if (is(l, "attribute") && text(field(l, "object")) == "self" && function >= 0 &&
            functions_[function].klass >= 0) {
          self_assignments_.push_back(
              {classes_[functions_[function].klass].name + "." + std::string(text(field(l, "attribute"))), right});
        }
        // `self.gr, self.autobalance = 1.0, autobalance`: each attribute takes its element.
        Node r = unparen(right);
        if ((is(l, "pattern_list") || is(l, "tuple_pattern")) && (is(r, "expression_list") || is(r, "tuple")) &&
            function >= 0 && functions_[function].klass >= 0 && named_count(l) == named_count(r)) {
          for (uint32_t i = 0; i < named_count(l); ++i) {
            Node t = unparen(named_child(l, i)), v = named_child(r, i);
            if (is(v, "list_splat") || is(v, "comment") || is(t, "list_splat_pattern") || is(t, "comment")) break;
            if (is(t, "attribute") && text(field(t, "object")) == "self")
              self_assignments_.push_back(
                  {classes_[functions_[function].klass].name + "." + std::string(text(field(t, "attribute"))), v});
          }
        }
        // `self.model, self.opt, self.loader = accelerator.prepare(model, opt, loader)`: each
        // attribute takes the element of the call's result at its position (types only).
        if ((is(l, "pattern_list") || is(l, "tuple_pattern")) && is(r, "call") && function >= 0 &&
            functions_[function].klass >= 0) {
          for (uint32_t i = 0; i < named_count(l); ++i) {
            Node t = unparen(named_child(l, i));
            if (is(t, "list_splat_pattern") || is(t, "comment")) break;
            if (is(t, "attribute") && text(field(t, "object")) == "self")
              self_unpacked_by_key_[classes_[functions_[function].klass].name + "." +
                                    std::string(text(field(t, "attribute")))]
                  .push_back({r, t});
          }
        }
        if (is(l, "subscript")) subscript_assignments_.push_back(n);
        // `arg = parser.add_argument`: the calls of `arg` declare arguments too.
        if (is(l, "identifier") && is(r, "attribute") && text(field(r, "attribute")) == "add_argument")
          add_argument_aliases.insert(std::string(text(l)));
      }
    } else if (ck == Collected::AugAssign) {
      Binding b = base();
      b.kind = Binding::Kind::AugAssign;
      b.value = n;
      bind_target(field(n, "left"), scope, b, -1);
      store_attributes(field(n, "left"), n);  // the value: the augmented assignment itself
      if (Node l = unparen(field(n, "left")); is(l, "attribute") && text(field(l, "object")) == "self" &&
                                               function >= 0 && functions_[function].klass >= 0)
        self_augmented_[classes_[functions_[function].klass].name + "." + std::string(text(field(l, "attribute")))]
            .push_back(field(n, "right"));
      if (is(unparen(field(n, "left")), "subscript")) subscript_augmented_.push_back(n);
    } else if (ck == Collected::For || ck == Collected::ForIn) {
      Binding b = base();
      b.kind = Binding::Kind::LoopTarget;
      b.value = field(n, "right");
      bind_target(field(n, "left"), scope, b, -1);
    } else if (ck == Collected::Named) {
      Binding b = base();
      b.kind = Binding::Kind::Assign;
      b.value = field(n, "value");
      bind_target(field(n, "name"), scope, b, -1);
    } else if (ck == Collected::AsPattern) {
      Binding b = base();
      b.kind = Binding::Kind::With;
      b.value = named_child(n, 0);
      Node alias = field(n, "alias");
      if (!is_null(alias)) bind_target(named_count(alias) ? named_child(alias, 0) : alias, scope, b, -1);
    } else if (ck == Collected::Return && function >= 0) {
      if (named_count(n)) functions_[function].returns.push_back(named_child(n, 0));
    } else if (ck == Collected::Call) {
      Node fn = field(n, "function");
      // A call of an alias of `parser.add_argument` (walked after the alias's assignment, in
      // source order) whose first argument is a string.
      std::string first;
      bool alias_call = is(fn, "identifier") && !add_argument_aliases.empty() &&
                        add_argument_aliases.count(std::string(text(fn))) &&
                        named_count(field(n, "arguments")) > 0 &&
                        string_literal_value(named_child(field(n, "arguments"), 0), src_, first);
      if (is(fn, "attribute")) {
        std::string_view m = text(field(fn, "attribute"));
        Node o = unparen(field(fn, "object"));
        if ((m == "update" || m == "setdefault" || m == "__setitem__") && is(o, "identifier"))
          method_filled_.insert(std::string(text(o)));
      }
      if (is(fn, "attribute") || alias_call) {
        auto attr = alias_call ? std::string_view("add_argument") : text(field(fn, "attribute"));
        if (attr == "add_argument") {
          Node args = field(n, "arguments");
          std::string dest, first_long, first_short;
          for (auto a : named_children(args)) {
            std::string s;
            if (string_literal_value(a, src_, s)) {
              if (starts_with(s, "--") && first_long.empty()) first_long = s.substr(2);
              else if (starts_with(s, "-") && first_short.empty()) first_short = s.substr(1);
              else if (!starts_with(s, "-") && first_long.empty() && first_short.empty()) first_long = s;
            } else if (is(a, "keyword_argument") && text(field(a, "name")) == "dest") {
              string_literal_value(field(a, "value"), src_, dest);
            }
          }
          if (dest.empty()) dest = !first_long.empty() ? first_long : first_short;
          std::replace(dest.begin(), dest.end(), '-', '_');
          if (!dest.empty()) argparse_args_[dest].push_back(n);
        } else if (attr == "update") {
          update_calls_.push_back(n);
        } else if (attr == "set_defaults") {
          sets_defaults_ = true;
        }
      } else if (is(fn, "identifier") && text(fn) == "setattr") {
        auto a = named_children(field(n, "arguments"));
        if (a.size() == 3) {
          std::string name;
          bool literal = string_literal_value(a[1], src_, name);
          attribute_stores_[literal ? name : "*"].push_back({unparen(a[0]), literal ? a[2] : Node{}});
        }
      }
    }

    bool comprehension = ck == Collected::Comprehension && !is_null(field(n, "body"));
    bool is_loop = (ck == Collected::For || ck == Collected::While || comprehension);
    int loop = it.loop;
    if (is_loop) {
      Loop l;
      l.node = n;
      l.body = field(n, "body");
      l.function = function;
      l.parent_loop = it.loop;
      l.comprehension = comprehension;
      loop = static_cast<int>(loops_.size());
      loop_by_node_[n.id] = loop;
      loops_.push_back(l);
    }
    Node body = is_loop ? field(n, "body") : Node{};
    for_each_named_child_reverse(n, [&](Node c) {
      // Only a loop's body runs per iteration; its iterable/condition belongs to the outside.
      int child_loop = (is_loop && same(c, body)) ? loop : it.loop;
      stack.push_back({c, scope, function, child_loop, block});
    });
  }
  std::unordered_set<std::string> module_bound;
  for (const auto& [name, b] : global_stores)
    if (scopes_[0].bindings.count(name)) module_bound.insert(name);
  for (auto& [name, b] : global_stores)
    if (!module_bound.count(name)) scopes_[0].bindings[name].push_back(std::move(b));
}

int SemanticModel::loop_index(Node loop_node) const {
  auto it = loop_by_node_.find(loop_node.id);
  return it == loop_by_node_.end() ? -1 : it->second;
}

int SemanticModel::scope_at(uint32_t offset) const {
  // Scopes are nested intervals created in source order: the last one starting at or before
  // the offset, or one of its ancestors, is the innermost containing scope.
  auto it = std::upper_bound(scope_start_.begin(), scope_start_.end(), offset);
  int s = static_cast<int>(it - scope_start_.begin()) - 1;
  while (s > 0 && !(scope_start_[s] <= offset && offset < scope_end_[s])) s = scopes_[s].parent;
  return s < 0 ? 0 : s;
}

int SemanticModel::function_at(uint32_t offset) const {
  for (int s = scope_at(offset); s >= 0; s = scopes_[s].parent)
    if (scopes_[s].kind == Scope::Kind::Function) return scopes_[s].function;
  return -1;
}

// Reaching bindings, approximated: the bindings of the innermost scope that binds the name,
// walking backwards from the use; a binding whose block encloses the use dominates it and
// ends the walk. Uses inside functions see a module's bindings as they stand at the end.
namespace {

// The node types the statement helpers below test while they climb from a binding's target,
// per symbol of the grammar (built once from the type names, so the same answers as comparing
// kind()): one table read per level instead of up to seven name comparisons (lookup asks them of
// every candidate binding).
enum class Climb : unsigned char { Other, Block, Module, ExpressionStatement, TargetPart, Scope, If, ElifElse };
Climb climb_class(Node n) {
  static const SymbolTable<Climb> table(
      [](std::string_view k) {
        if (k == "block") return Climb::Block;
        if (k == "module") return Climb::Module;
        if (k == "expression_statement") return Climb::ExpressionStatement;
        if (k == "assignment" || k == "pattern_list" || k == "tuple_pattern" || k == "list_pattern" ||
            k == "list_splat_pattern")
          return Climb::TargetPart;
        if (k == "function_definition" || k == "class_definition" || k == "lambda") return Climb::Scope;
        if (k == "if_statement") return Climb::If;
        if (k == "elif_clause" || k == "else_clause") return Climb::ElifElse;
        return Climb::Other;
      },
      Climb::Other);
  return table(n);
}
bool block_or_module(Node n) {
  Climb c = climb_class(n);
  return c == Climb::Block || c == Climb::Module;
}

// The statement (a child of a block or the module) that holds a binding's target; null past a
// few levels (a target deep in an expression).
Node binding_statement_uncached(const Binding& b) {
  Node n = b.target;
  for (int depth = 0; depth < 8 && !is_null(n); ++depth) {
    Node p = parent(n);
    if (is_null(p)) return Node{};
    if (block_or_module(p)) return n;
    n = p;
  }
  return Node{};
}

// The statement of an Assign binding when it always rebinds the name once it runs: a plain
// assignment statement (`x = ...`, `x, y = ...`, `a = x = ...`), outside a try body (an
// exception may leave the earlier value). Null otherwise (a walrus, a conditional part).
Node overwriting_statement_uncached(const Binding& b) {
  Node n = b.target;
  for (int depth = 0; depth < 8 && !is_null(n); ++depth) {
    Node p = parent(n);
    if (is_null(p)) return Node{};
    Climb c = climb_class(p);
    if (c == Climb::ExpressionStatement) {
      Node blk = parent(p);
      if (!block_or_module(blk)) return Node{};
      if (is(parent(blk), "try_statement")) return Node{};
      return p;
    }
    if (c != Climb::TargetPart) return Node{};
    n = p;
  }
  return Node{};
}

// Both memoized per target node: each climbs from the binding's target to its statement (a child
// index probe per level), a function of the node alone, and lookup asks them of every candidate
// binding of every use. The memo is this thread's and is emptied when a model starts (collect()),
// so it holds only nodes of trees that are alive (a model's tree outlives the model); an entry
// also names its tree. O(1) per question after the first.
struct ClimbMemo {
  struct Entry {
    const TSTree* tree = nullptr;
    Node statement{};
    Node overwriting{};
    unsigned char known = 0;  // bit 0: statement, bit 1: overwriting
  };
  std::unordered_map<const void*, Entry> entries;
};
ClimbMemo& climb_memo() {
  thread_local ClimbMemo memo;
  return memo;
}
void clear_climb_memo() { climb_memo().entries.clear(); }
ClimbMemo::Entry& climb_entry(Node target) {
  ClimbMemo::Entry& e = climb_memo().entries[target.id];
  if (e.tree != target.tree) e = ClimbMemo::Entry{target.tree, Node{}, Node{}, 0};
  return e;
}
Node binding_statement(const Binding& b) {
  if (is_null(b.target)) return binding_statement_uncached(b);
  ClimbMemo::Entry& e = climb_entry(b.target);
  if (!(e.known & 1)) {
    e.statement = binding_statement_uncached(b);
    e.known |= 1;
  }
  return e.statement;
}
Node overwriting_statement(const Binding& b) {
  if (is_null(b.target)) return overwriting_statement_uncached(b);
  ClimbMemo::Entry& e = climb_entry(b.target);
  if (!(e.known & 2)) {
    e.overwriting = overwriting_statement_uncached(b);
    e.known |= 2;
  }
  return e.overwriting;
}

// The next statement of the same block (comments skipped), or null. From the parent's children
// in the ChildIndex when one is installed (ts_node_next_named_sibling walks the parent's children
// from the first, thousands of instructions in a long block).
Node next_statement(Node stmt) {
  if (const ChildIndex* index = current_child_index())
    if (const ChildIndex::Entry* e = index->find(parent(stmt))) {
      const Node* kids = index->children(*e);
      uint32_t i = 0;
      while (i < e->count && !same(kids[i], stmt)) ++i;
      if (i < e->count) {
        for (++i; i < e->count; ++i)
          if (ts_node_is_named(kids[i]) && !is(kids[i], "comment")) return kids[i];
        return Node{};
      }
    }
  Node n = ts_node_next_named_sibling(stmt);
  while (!is_null(n) && is(n, "comment")) n = ts_node_next_named_sibling(n);
  return n;
}

// The if statement whose branch block holds `stmt` directly (`if c: x = a` / `elif` / `else`),
// or null.
Node branch_if(Node stmt) {
  Node blk = parent(stmt);
  if (!is(blk, "block")) return Node{};
  Node owner = parent(blk);
  if (is(owner, "if_statement")) return same(field(owner, "consequence"), blk) ? owner : Node{};
  if (is(owner, "elif_clause") || is(owner, "else_clause")) return is(parent(owner), "if_statement") ? parent(owner) : Node{};
  return Node{};
}

// Does `stmt` sit in one branch of an if statement (its consequence, an elif's or the else's
// block) whose other branch holds offset `use`? Then it reaches the use only through an
// enclosing loop's next pass. O(depth).
bool in_other_branch(Node stmt, uint32_t use) {
  auto holds = [&](Node n) { return !is_null(n) && start(n) <= use && use < end(n); };
  // Each level's type read once (climb_class), carried up as the next level's own.
  Climb nc = climb_class(stmt);
  for (Node n = stmt; !is_null(n);) {
    Node p = parent(n);
    Climb pc = climb_class(p);
    if (is_null(p) || pc == Climb::Scope) break;
    if (nc == Climb::Block && !holds(n)) {
      Node ifs = pc == Climb::If ? p : pc == Climb::ElifElse ? parent(p) : Node{};
      if (climb_class(ifs) == Climb::If && holds(ifs)) {
        if (holds(field(ifs, "consequence"))) return true;
        for (Node c : named_children(ifs))
          if ((is(c, "elif_clause") && holds(field(c, "consequence"))) || (is(c, "else_clause") && holds(field(c, "body"))))
            return true;
      }
    }
    n = p;
    nc = pc;
  }
  return false;
}

}  // namespace

// An if statement with an else whose every branch block rebinds `name` by a plain statement of
// its own (`if ds: m, loader = acc.prepare(m, loader) else: loader = acc.prepare(loader)`):
// a use after it, in a block that holds it, sees only the bindings made inside it. `list` from
// index `i` down holds the candidates, in source order.
bool SemanticModel::branches_all_bind(Node ifs, const std::vector<Binding>& list, int i) const {
  std::vector<Node> blocks{field(ifs, "consequence")};
  bool has_else = false;
  for (Node c : named_children(ifs)) {
    if (is(c, "elif_clause")) blocks.push_back(field(c, "consequence"));
    if (is(c, "else_clause")) {
      blocks.push_back(field(c, "body"));
      has_else = true;
    }
  }
  if (!has_else || blocks.size() > 8) return false;
  std::vector<bool> bound(blocks.size(), false);
  // Bounded (a name bound many times inside one if statement is left to the plain walk): each
  // lookup scans at most kMaxScan bindings here, once per if statement it meets.
  constexpr int kMaxScan = 32;
  for (int j = i; j >= 0 && list[j].at >= start(ifs); --j) {
    if (i - j >= kMaxScan) return false;
    if (list[j].kind != Binding::Kind::Assign || binding_dead(list[j])) continue;
    Node stmt = overwriting_statement(list[j]);
    if (is_null(stmt)) continue;
    for (size_t k = 0; k < blocks.size(); ++k)
      if (same(parent(stmt), blocks[k])) bound[k] = true;
  }
  // A branch that never runs (its condition known False, or an earlier one of the chain known
  // True: `if args.deepspeed:` of a store_true flag) binds nothing and lets nothing through.
  std::vector<Node> conds{field(ifs, "condition")};
  for (Node c : named_children(ifs))
    if (is(c, "elif_clause")) conds.push_back(field(c, "condition"));
  auto dead = [&](size_t k) {
    if (!types_) return false;  // guards are read once the model is built (binding_dead)
    for (size_t m = 0; m < k && m < conds.size(); ++m)
      if (auto t = guard_truth(conds[m]); t && *t) return true;
    if (k < conds.size())
      if (auto t = guard_truth(conds[k]); t && !*t) return true;
    return false;
  };
  for (size_t k = 0; k < bound.size(); ++k)
    if (!bound[k] && !dead(k)) return false;
  return true;
}

namespace {

// A name reached only by `x = None` bound before a loop and rebound later in the loop's body
// (`history = None` then `for i in ...: f(history) ... history = token_id`): from the second
// pass on the use sees the later bindings, which join the None (an optional value). Only this
// form: other values reaching a use keep the approximation (the last binding before it).
template <typename Dead>
void loop_carried(Node root, const std::vector<Binding>& list, uint32_t offset, std::vector<const Binding*>& out,
                  size_t max_candidates, Dead dead) {
  if (out.empty()) return;
  for (const Binding* b : out)
    if (b->kind != Binding::Kind::Assign || !is(unparen(b->value), "none")) return;
  uint32_t first = out.back()->at;
  // The outermost loop around the use that starts after the None (a loop that holds the None
  // rebinds it first on every pass).
  Node loop{};
  for (Node n = descendant_at(root, offset); !is_null(n); n = parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) break;
    if ((is(n, "for_statement") || is(n, "while_statement")) && start(n) > first) loop = n;
  }
  Node body = is_null(loop) ? Node{} : field(loop, "body");
  if (is_null(body)) return;
  for (const auto& b : list) {
    if (out.size() > max_candidates) return;
    if (b.at > offset && b.at < end(body) && b.kind == Binding::Kind::Assign && !dead(b)) out.push_back(&b);
  }
}

// Whether a binding at `at` runs on every pass of the innermost loop around the use at `use` (in
// the use's function) before the use: then it kills what another branch of an if stored on the
// pass before. A binding before that loop does not (`prev = zeros(...)` before the loop, `prev =
// batch.cuda()` in one branch, `prev.sum()` in the other). With no loop around the use, another
// branch's binding never reaches it. O(depth of the use).
bool binds_within_use_loop(Node root, uint32_t use, uint32_t at) {
  for (Node n = descendant_at(root, use); !is_null(n); n = parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) return true;
    if (is(n, "for_statement") || is(n, "while_statement")) return at >= start(n);
  }
  return true;
}

// A comprehension's targets are its own (Python 3): a use inside `{k: v.to(d) for k, v in
// b.items()}`, or in a later clause, reads the comprehension's `v`, which the text binds after
// the body, not the other `v`s of the function (a later `for k, v in metrics.items():`). The
// bindings of `list` that are targets of the innermost comprehension around the use binding the
// name; none when there is none (the first clause's iterable is read outside it). O(depth of the
// use x bindings of the name).
std::vector<const Binding*> comprehension_targets(Node root, const std::vector<Binding>& list, uint32_t offset) {
  std::vector<const Binding*> out;
  bool any = false;
  for (const auto& b : list) any = any || b.kind == Binding::Kind::LoopTarget;
  if (!any) return out;
  for (Node n = descendant_at(root, offset); !is_null(n); n = parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) break;
    if (!is(n, "list_comprehension") && !is(n, "dictionary_comprehension") && !is(n, "set_comprehension") &&
        !is(n, "generator_expression"))
      continue;
    // The first clause's iterable is evaluated in the enclosing scope.
    Node first{};
    for (Node c : named_children(n))
      if (is(c, "for_in_clause")) {
        first = c;
        break;
      }
    Node first_iterable = is_null(first) ? Node{} : field(first, "right");
    if (!is_null(first_iterable) && offset >= start(first_iterable) && offset < end(first_iterable)) continue;
    for (const auto& b : list) {
      if (b.kind != Binding::Kind::LoopTarget || is_null(b.target) || !contains(n, b.target)) continue;
      Node clause = parent(b.target);
      while (!is_null(clause) && !is(clause, "for_in_clause") && !same(clause, n)) clause = parent(clause);
      if (is(clause, "for_in_clause") && same(parent(clause), n)) out.push_back(&b);
    }
    if (!out.empty()) return out;
  }
  return out;
}

}  // namespace

std::vector<const Binding*> SemanticModel::lookup(std::string_view name, uint32_t offset) const {
  std::vector<const Binding*> out;
  int s = scope_at(offset);
  bool from_function = false;
  for (; s >= 0; s = scopes_[s].parent) {
    const Scope& sc = scopes_[s];
    if (sc.kind == Scope::Kind::Class && from_function) continue;  // methods do not see class scope
    auto it = sc.bindings.find(name);
    if (it != sc.bindings.end() && !it->second.empty()) {
      const auto& list = it->second;
      if (auto own = comprehension_targets(root_, list, offset); !own.empty()) return own;
      // A function body runs after the module has been executed: it sees the module's
      // bindings as they stand at its end (all branches of a module-level if/else).
      bool late = from_function && sc.kind == Scope::Kind::Module;
      uint32_t use_at = late ? end(root_) : offset;
      int last = -1;
      for (int i = 0; i < static_cast<int>(list.size()); ++i)
        if (list[i].at <= use_at && (late || list[i].at < offset)) last = i;
      // At most kMaxCandidates + 1 bindings: callers read more than kMaxCandidates as unknown.
      // A binding in a branch that never runs (binding_dead) reaches nothing.
      if (last < 0) {
        // Bound only after the use (a loop-carried value, or a use before assignment).
        for (const auto& b : list) {
          if (out.size() > kMaxCandidates) break;
          if (!binding_dead(b)) out.push_back(&b);
        }
        return out;
      }
      Node killer{};  // the statement of the last binding taken, when it overwrites unconditionally
      uint32_t stop_below = 0;  // the start of an if statement whose every branch rebinds the name
      Node checked_if{};
      // Bindings in another branch of an if statement that holds the use (`if old: x = f(x)
      // else: x = x.cuda()`): they reach it only through a loop's next pass, so only when no
      // binding before the use reaches it on every path (set AA Efficient-Segmentation-Networks
      // train.py:325, a batch moved in the else branch).
      std::vector<const Binding*> other_branch;
      bool dominated = false;
      for (int i = last; i >= 0 && out.size() <= kMaxCandidates; --i) {
        if (stop_below && list[i].at < stop_below) break;
        if (binding_dead(list[i])) continue;
        if (!late && in_other_branch(binding_statement(list[i]), offset)) {
          other_branch.push_back(&list[i]);
          continue;
        }
        if (!stop_below && list[i].kind == Binding::Kind::Assign) {
          Node stmt = overwriting_statement(list[i]);
          Node ifs = is_null(stmt) ? Node{} : branch_if(stmt);
          if (!is_null(ifs) && !same(ifs, checked_if) && end(ifs) <= use_at && is(parent(ifs), "block") &&
              start(parent(ifs)) <= use_at && use_at <= end(parent(ifs))) {
            checked_if = ifs;
            if (branches_all_bind(ifs, list, i)) stop_below = start(ifs);
          }
        }
        // A binding overwritten by the next statement of its block (`a, _ = f(x)` then
        // `a = a.cpu()`) reaches no later use: the block runs both or neither.
        Node stmt = binding_statement(list[i]);
        if (!is_null(killer) && !is_null(stmt) && same(next_statement(stmt), killer)) {
          killer = stmt;
          continue;
        }
        killer = list[i].kind == Binding::Kind::Assign ? overwriting_statement(list[i]) : Node{};
        out.push_back(&list[i]);
        if (list[i].kind == Binding::Kind::AugAssign) continue;
        if (list[i].block.start <= use_at && use_at <= list[i].block.end) {
          dominated = other_branch.empty() || binds_within_use_loop(root_, offset, list[i].at);
          break;
        }
      }
      if (!dominated)
        for (const Binding* b : other_branch)
          if (out.size() <= kMaxCandidates) out.push_back(b);
      if (!late) loop_carried(root_, list, offset, out, kMaxCandidates, [&](const Binding& b) { return binding_dead(b); });
      return out;
    }
    if (sc.kind == Scope::Kind::Function) from_function = true;
  }
  return out;
}

const std::string& SemanticModel::qualified_name(Node expr) const {
  static const std::string kEmpty;
  if (is_null(expr)) return kEmpty;
  auto cached = qualified_cache_.find(expr.id);
  if (cached != qualified_cache_.end()) return cached->second;
  // Down the attribute chain (iteratively: a chain may be as long as the file) to a node
  // already named or the root, then up again, naming each level once.
  std::vector<Node> chain{expr};
  for (Node n = unparen(expr); is(n, "attribute");) {
    n = field(n, "object");
    if (qualified_cache_.count(n.id)) break;
    chain.push_back(n);
    n = unparen(n);
  }
  const std::string* below = nullptr;
  for (size_t i = chain.size(); i-- > 0;) {
    Node n = unparen(chain[i]);
    std::string q;
    if (is(n, "attribute")) {
      if (!below) below = &qualified_name(field(n, "object"));  // the node where the walk stopped
      if (!below->empty() && below->size() < kMaxQualifiedName)
        q = *below + "." + std::string(text(field(n, "attribute")));
    } else {
      q = qualified_name_uncached(n);
    }
    below = &qualified_cache_.emplace(chain[i].id, std::move(q)).first->second;
  }
  return *below;
}

std::string SemanticModel::qualified_name_uncached(Node expr) const {
  expr = unparen(expr);
  auto k = kind(expr);
  if (k == "identifier") {
    auto bindings = lookup(text(expr), start(expr));
    if (bindings.size() > kMaxCandidates) return {};
    // Several reaching imports (try/except ImportError fallbacks): the first one written is
    // the canonical module.
    bool all_imports = !bindings.empty();
    for (const Binding* b : bindings) all_imports &= b->kind == Binding::Kind::Import;
    if (all_imports) return bindings.back()->qualified;
    if (bindings.empty()) {
      static const std::set<std::string, std::less<>> builtins = {"print", "float", "int", "bool", "len", "str",
                                                                  "iter", "next", "enumerate", "zip", "range",
                                                                  "isinstance", "list", "tuple", "sum", "min",
                                                                  "max", "abs", "round", "format", "repr", "dict",
                                                                  "hasattr", "getattr", "callable", "id", "type",
                                                                  "sorted", "reversed", "map", "filter", "any", "all",
                                                                  "setattr", "hash", "vars", "divmod", "pow",
                                                                  "set", "frozenset", "exit", "quit", "open",
                                                                  "ord", "chr", "issubclass"};
      if (builtins.count(text(expr))) return "builtins." + std::string(text(expr));
      // `from utils import *` where utils does `import torch`: `torch` is the library.
      if (facts_) {
        if (has_star_import_ < 0) {
          has_star_import_ = 0;
          for (Node st : named_children(root_))
            if (is(st, "import_from_statement"))
              for (Node c : named_children(st)) has_star_import_ |= is(c, "wildcard_import");
        }
        if (has_star_import_) {
          std::string name(text(expr));
          auto it = star_import_cache_.find(name);
          if (it == star_import_cache_.end()) it = star_import_cache_.emplace(name, facts_->star_import(name)).first;
          return it->second;
        }
      }
    }
    return {};
  }
  // `models_mage.__dict__[args.model]` (rcg's main_mage.py, `--model` defaulting to
  // 'mage_vit_large_patch16'), `vars(models)[name]`: a module's namespace read under a string the
  // value analysis knows (a literal, an argparse default) is that module's attribute of the name.
  // Only when the namespace's owner names a module or one of its attributes (a qualified name),
  // never an object's `__dict__`; one constant string, else nothing.
  if (k == "subscript") {
    Node ns = unparen(field(expr, "value"));
    Node owner{};
    if (is(ns, "attribute") && text(field(ns, "attribute")) == "__dict__") {
      owner = unparen(field(ns, "object"));
    } else if (is(ns, "call") && callee_name(ns) == "builtins.vars") {
      auto args = named_children(field(ns, "arguments"));
      if (args.size() == 1) owner = unparen(args[0]);
    }
    if (is_null(owner) || (!is(owner, "identifier") && !is(owner, "attribute"))) return {};
    Node key = unparen(field(expr, "subscript"));
    if (is_null(key)) return {};
    auto v = constant(key);
    if (!v || v->kind != Value::Kind::Str || v->s.empty() || v->s.find('.') != std::string::npos) return {};
    // The owner must be an imported module (its bindings all imports), not a local object.
    Node root = owner;
    while (is(root, "attribute")) root = unparen(field(root, "object"));
    if (!is(root, "identifier")) return {};
    auto bindings = lookup(text(root), start(root));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
    for (const Binding* b : bindings)
      if (b->kind != Binding::Kind::Import) return {};
    std::string base = qualified_name(owner);
    if (base.empty() || base.size() + v->s.size() >= kMaxQualifiedName) return {};
    return base + "." + v->s;
  }
  return {};  // attributes are named by qualified_name()
}

// This thread's memos of tree nodes emptied, as when a model starts (collect()): for checks run
// on a model after other models were built (project mode's deferred checks, checker.cpp).
void clear_tree_memos() {
  clear_climb_memo();
  clear_registered_index();
  clear_list_appends();
}

}  // namespace stoker::python
