#include "python/semantic_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "python/frameworks.h"
#include "python/types.h"

namespace stoker::python {

const std::vector<int> SemanticModel::kNoCallers;

namespace {

constexpr int kMaxPatternDepth = 64;    // nested target patterns bound deeper than this are not bound
constexpr size_t kMaxQualifiedName = 512;  // longer dotted names are not API names

bool same_value(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::Unknown:
    case Value::Kind::None: return true;
    case Value::Kind::Int: return a.i == b.i;
    case Value::Kind::Float: return a.f == b.f;
    case Value::Kind::Str: return a.s == b.s;
    case Value::Kind::Bool: return a.b == b.b;
    case Value::Kind::Expr: return ts_node_eq(a.expr, b.expr);
  }
  return false;
}

// Adds candidates without duplicates; past kMaxCandidates the value is unknown.
void add_values(std::vector<Value>& out, const std::vector<Value>& in) {
  if (out.size() == 1 && out.front().kind == Value::Kind::Unknown && out.front().s == "saturated") return;
  for (const auto& v : in) {
    bool dup = false;
    for (const auto& o : out) dup = dup || same_value(o, v);
    if (dup) continue;
    if (out.size() >= SemanticModel::kMaxCandidates) {
      out.assign(1, Value::unknown());
      out.front().s = "saturated";
      return;
    }
    out.push_back(v);
  }
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The last component of a dotted name.
std::string_view last_part(std::string_view s) {
  auto dot = s.rfind('.');
  return dot == std::string_view::npos ? s : s.substr(dot + 1);
}

const char* const kLoaderNames[] = {
    "torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader",
    "torch_geometric.loader.DataLoader", "torch_geometric.data.DataLoader", "monai.data.DataLoader",
};

}  // namespace

SemanticModel::Step::Step(const SemanticModel& m) : m_(m) {
  if (m.budget_ && ++m.work_ > m.budget_) throw BudgetExceeded();
  if (!m.budget_) ++m.work_;
  ok_ = m.active_depth_ < kMaxActiveDepth;
  if (ok_) ++m.active_depth_;
}

template <class F>
bool SemanticModel::memo_bool(std::unordered_map<const void*, char>& cache, Node expr, F&& compute) const {
  auto cached = cache.find(expr.id);
  if (cached != cache.end()) return cached->second == 1;
  Step step(*this);
  if (!step) return false;  // too deep: unknown, not remembered
  cache[expr.id] = 2;       // in progress: a cycle answers "no"
  bool result = compute();
  cache[expr.id] = result ? 1 : 0;
  return result;
}

SemanticModel::SemanticModel(std::string_view src, Node root, const Settings& settings, const ExternalFacts* facts)
    : facts_(facts), src_(src), root_(root), settings_(settings), budget_(settings.analysis_budget) {
  collect();
  std::vector<int> order(scopes_.size());
  for (size_t i = 0; i < scopes_.size(); ++i) {
    Node n = scopes_[i].node;
    uint32_t s = i == 0 ? 0
                 : scopes_[i].kind == Scope::Kind::Function ? start(field(n, "parameters"))
                                                              : start(field(n, "body"));
    scope_start_.push_back(s);
    scope_end_.push_back(i == 0 ? UINT32_MAX : end(n));
  }
  build_indexes();
  resolve_calls();
  resolve_external_calls();
  index_calls();
  types_ = std::make_unique<TypeInference>(*this);
  compute_cuda();
  if (facts_ && facts_->cuda()) uses_cuda_ = true;  // another module hands this one CUDA values
  classify_loops();
  compute_hot_functions();
}

SemanticModel::~SemanticModel() = default;

// ---------------------------------------------------------------------------------------
// Collection: scopes, bindings, functions, classes, loops.

void SemanticModel::collect() {
  scopes_.push_back(Scope{Scope::Kind::Module, root_, -1, -1, -1, {}});
  struct Item {
    Node node;
    int scope;
    int function;
    int loop;
    Node block;
  };
  std::vector<Item> stack{{root_, 0, -1, -1, root_}};
  auto bind = [&](int scope, const std::string& name, Binding b) {
    if (!name.empty()) scopes_[scope].bindings[name].push_back(std::move(b));
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

  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    Node n = it.node;
    auto k = kind(n);
    int scope = it.scope, function = it.function;
    Node block = it.block;
    if (k == "block" || k == "module") block = n;
    // A binding is visible after its statement (a for target: inside the body).
    uint32_t at = end(n);
    if (k == "for_statement") at = start(field(n, "body"));
    if (k == "function_definition" || k == "class_definition") at = start(n);
    Binding base;
    base.at = at;
    base.block = range(block);

    if (k == "import_statement") {
      for (auto c : named_children(n)) {
        Binding b = base;
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
    if (k == "import_from_statement") {
      Node mod = field(n, "module_name");
      std::string module(text(mod));
      for (auto c : named_children(n)) {
        if (same(c, mod)) continue;
        Binding b = base;
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
    if (k == "function_definition") {
      int fi = static_cast<int>(functions_.size());
      Function f;
      f.node = n;
      f.name = std::string(text(field(n, "name")));
      f.klass = scopes_[scope].kind == Scope::Kind::Class ? scopes_[scope].klass : -1;
      Binding b = base;
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
    if (k == "class_definition") {
      int ci = static_cast<int>(classes_.size());
      Class c;
      c.node = n;
      c.name = std::string(text(field(n, "name")));
      Binding b = base;
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
    if (k == "lambda") {
      continue;  // parameters and body run later, elsewhere; nothing to bind for our rules
    }
    if (k == "assignment") {
      Node left = field(n, "left"), right = field(n, "right");
      while (is(right, "assignment")) {  // a = b = value
        Node inner_left = field(right, "left");
        Binding b = base;
        b.kind = Binding::Kind::Assign;
        right = field(right, "right");
        b.value = right;
        bind_target(inner_left, scope, b, -1);
      }
      if (!is_null(right)) {
        Binding b = base;
        b.kind = Binding::Kind::Assign;
        b.value = right;
        bind_target(left, scope, b, -1);
        Node l = unparen(left);
        if (is(l, "attribute") && text(field(l, "object")) == "self" && function >= 0 &&
            functions_[function].klass >= 0) {
          self_assignments_.push_back(
              {classes_[functions_[function].klass].name + "." + std::string(text(field(l, "attribute"))), right});
        }
        if (is(l, "subscript")) subscript_assignments_.push_back(n);
      }
    } else if (k == "augmented_assignment") {
      Binding b = base;
      b.kind = Binding::Kind::AugAssign;
      b.value = n;
      bind_target(field(n, "left"), scope, b, -1);
    } else if (k == "for_statement" || k == "for_in_clause") {
      Binding b = base;
      b.kind = Binding::Kind::LoopTarget;
      b.value = field(n, "right");
      bind_target(field(n, "left"), scope, b, -1);
    } else if (k == "named_expression") {
      Binding b = base;
      b.kind = Binding::Kind::Assign;
      b.value = field(n, "value");
      bind_target(field(n, "name"), scope, b, -1);
    } else if (k == "as_pattern") {
      Binding b = base;
      b.kind = Binding::Kind::With;
      b.value = named_child(n, 0);
      Node alias = field(n, "alias");
      if (!is_null(alias)) bind_target(named_count(alias) ? named_child(alias, 0) : alias, scope, b, -1);
    } else if (k == "return_statement" && function >= 0) {
      if (named_count(n)) functions_[function].returns.push_back(named_child(n, 0));
    } else if (k == "call") {
      Node fn = field(n, "function");
      if (is(fn, "attribute")) {
        auto attr = text(field(fn, "attribute"));
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
        }
      }
    }

    bool is_loop = (k == "for_statement" || k == "while_statement");
    int loop = it.loop;
    if (is_loop) {
      Loop l;
      l.node = n;
      l.body = field(n, "body");
      l.function = function;
      l.parent_loop = it.loop;
      loop = static_cast<int>(loops_.size());
      loop_by_node_[n.id] = loop;
      loops_.push_back(l);
    }
    auto kids = named_children(n);
    Node body = is_loop ? field(n, "body") : Node{};
    for (size_t i = kids.size(); i-- > 0;) {
      Node c = kids[i];
      // Only a loop's body runs per iteration; its iterable/condition belongs to the outside.
      int child_loop = (is_loop && same(c, body)) ? loop : it.loop;
      stack.push_back({c, scope, function, child_loop, block});
    }
  }
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
std::vector<const Binding*> SemanticModel::lookup(std::string_view name, uint32_t offset) const {
  std::vector<const Binding*> out;
  int s = scope_at(offset);
  bool from_function = false;
  for (; s >= 0; s = scopes_[s].parent) {
    const Scope& sc = scopes_[s];
    if (sc.kind == Scope::Kind::Class && from_function) continue;  // methods do not see class scope
    auto it = sc.bindings.find(std::string(name));
    if (it != sc.bindings.end() && !it->second.empty()) {
      const auto& list = it->second;
      // A function body runs after the module has been executed: it sees the module's
      // bindings as they stand at its end (all branches of a module-level if/else).
      bool late = from_function && sc.kind == Scope::Kind::Module;
      uint32_t use_at = late ? end(root_) : offset;
      int last = -1;
      for (int i = 0; i < static_cast<int>(list.size()); ++i)
        if (list[i].at <= use_at && (late || list[i].at < offset)) last = i;
      // At most kMaxCandidates + 1 bindings: callers read more than kMaxCandidates as unknown.
      if (last < 0) {
        // Bound only after the use (a loop-carried value, or a use before assignment).
        for (const auto& b : list) {
          if (out.size() > kMaxCandidates) break;
          out.push_back(&b);
        }
        return out;
      }
      for (int i = last; i >= 0 && out.size() <= kMaxCandidates; --i) {
        out.push_back(&list[i]);
        if (list[i].kind == Binding::Kind::AugAssign) continue;
        if (list[i].block.start <= use_at && use_at <= list[i].block.end) break;
      }
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
    }
    return {};
  }
  return {};  // attributes are named by qualified_name()
}

// ---------------------------------------------------------------------------------------
// Values.

Node SemanticModel::Kwargs::find(std::string_view key) const {
  for (auto it = items.rbegin(); it != items.rend(); ++it)
    if (it->first == key) return it->second;
  return Node{};
}

Node SemanticModel::argument(Node call, int position, std::string_view keyword) const {
  Node args = field(call, "arguments");
  int pos = 0;
  for (auto a : named_children(args)) {
    auto k = kind(a);
    if (k == "keyword_argument") {
      if (text(field(a, "name")) == keyword) return field(a, "value");
    } else if (k == "list_splat" || k == "dictionary_splat" || k == "comment") {
      if (k == "list_splat") pos = 1 << 20;  // positions after *args are unknown
    } else {
      if (pos == position) return a;
      ++pos;
    }
  }
  if (!keyword.empty()) return keyword_arguments(call).find(keyword);
  return Node{};
}

SemanticModel::Kwargs SemanticModel::keyword_arguments(Node call) const {
  auto cached = kwargs_cache_.find(call.id);
  if (cached != kwargs_cache_.end()) return cached->second;
  Kwargs out;
  Node args = field(call, "arguments");
  std::unordered_set<const void*> visited;  // each dictionary expression is read once
  std::function<void(Node)> add_dict = [&](Node d) {
    d = unparen(d);
    Step step(*this);
    if (!step || !visited.insert(d.id).second) {
      out.complete = false;
      return;
    }
    if (is(d, "dictionary")) {
      for (auto pair : named_children(d)) {
        if (is(pair, "pair")) {
          std::string key;
          if (string_literal_value(field(pair, "key"), src_, key)) out.items.push_back({key, field(pair, "value")});
          else out.complete = false;
        } else if (is(pair, "dictionary_splat")) {
          add_dict(named_child(pair, 0));
        }
      }
      return;
    }
    if (is(d, "conditional_expression") && named_count(d) == 3) {
      // `{...} if use_cuda else {}`: the GPU path's keys count as present.
      add_dict(named_child(d, 0));
      add_dict(named_child(d, 2));
      return;
    }
    if (is(d, "call") && qualified_name(field(d, "function")) == "builtins.dict") {
      for (auto a : named_children(field(d, "arguments"))) {
        if (is(a, "keyword_argument")) out.items.push_back({std::string(text(field(a, "name"))), field(a, "value")});
        else out.complete = false;
      }
      return;
    }
    if (is(d, "identifier")) {
      auto bindings = lookup(text(d), start(d));
      if (bindings.empty() || bindings.size() > kMaxCandidates) {
        out.complete = false;
        return;
      }
      // The earliest reaching assignment is the base; later ones (in branches) add keys.
      bool any = false;
      for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
        const Binding* b = *it;
        if (b->kind == Binding::Kind::Assign) {
          add_dict(b->value);
          any = true;
        } else if (b->kind == Binding::Kind::AugAssign) {  // d |= {...}
          add_dict(field(b->value, "right"));
          any = true;
        } else {
          out.complete = false;
        }
      }
      if (!any) return;
      // Keys added before the call: d.update({...}), d.update(k=v), d["k"] = v.
      std::string_view name = text(d);
      uint32_t first_at = bindings.back()->at;
      for (Node u : update_calls_) {
        Node obj = field(field(u, "function"), "object");
        if (!is(obj, "identifier") || text(obj) != name || start(u) < first_at || start(u) > start(call)) continue;
        if (scope_at(start(u)) != scope_at(start(d))) continue;
        for (auto a : named_children(field(u, "arguments"))) {
          if (is(a, "keyword_argument")) out.items.push_back({std::string(text(field(a, "name"))), field(a, "value")});
          else add_dict(a);
        }
      }
      for (Node s : subscript_assignments_) {
        Node l = unparen(field(s, "left"));
        Node obj = field(l, "value");
        if (!is(obj, "identifier") || text(obj) != name || start(s) < first_at || start(s) > start(call)) continue;
        if (scope_at(start(s)) != scope_at(start(d))) continue;
        std::string key;
        if (string_literal_value(field(l, "subscript"), src_, key)) out.items.push_back({key, field(s, "right")});
        else out.complete = false;
      }
      return;
    }
    out.complete = false;
  };
  for (auto a : named_children(args)) {
    if (is(a, "keyword_argument")) out.items.push_back({std::string(text(field(a, "name"))), field(a, "value")});
    else if (is(a, "dictionary_splat")) add_dict(named_child(a, 0));
  }
  return kwargs_cache_.emplace(call.id, std::move(out)).first->second;
}

// Values are memoized per node; a node met again while its own values are being computed (a
// recursion through parameters, `x = f(x)` in a loop) is unknown there.
std::vector<Value> SemanticModel::values(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return {Value::unknown()};
  auto cached = values_cache_.find(expr.id);
  if (cached != values_cache_.end()) return cached->second.done ? cached->second.values : std::vector<Value>{Value::unknown()};
  Step step(*this);
  if (!step) return {Value::unknown()};  // too deep: unknown, not remembered
  values_cache_[expr.id];                // in progress
  std::vector<Value> out;
  add_values(out, values_uncached(expr));
  ValuesEntry& e = values_cache_[expr.id];
  e.done = true;
  e.values = out;
  return out;
}

std::optional<Value> SemanticModel::constant(Node expr) const {
  auto vs = values(expr);
  if (vs.empty()) return std::nullopt;
  for (const auto& v : vs)
    if (v.kind == Value::Kind::Unknown || v.kind == Value::Kind::Expr) return std::nullopt;
  const Value& first = vs.front();
  for (const auto& v : vs) {
    if (v.kind != first.kind) {
      if (v.is_number() && first.is_number() && v.number() == first.number()) continue;
      return std::nullopt;
    }
    if (v.kind == Value::Kind::Int && v.i != first.i) return std::nullopt;
    if (v.kind == Value::Kind::Float && v.f != first.f) return std::nullopt;
    if (v.kind == Value::Kind::Str && v.s != first.s) return std::nullopt;
    if (v.kind == Value::Kind::Bool && v.b != first.b) return std::nullopt;
  }
  return first;
}

std::optional<long long> SemanticModel::constant_int(Node expr) const {
  auto v = constant(expr);
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::Int) return v->i;
  if (v->kind == Value::Kind::Bool) return v->b ? 1 : 0;
  if (v->kind == Value::Kind::Float && std::floor(v->f) == v->f) return static_cast<long long>(v->f);
  return std::nullopt;
}

static Value make_int(long long i) {
  Value v;
  v.kind = Value::Kind::Int;
  v.i = i;
  return v;
}

std::vector<Value> SemanticModel::values_uncached(Node expr) const {
  auto k = kind(expr);
  Value v;
  if (k == "integer") {
    std::string t(text(expr));
    t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
    try {
      v.kind = Value::Kind::Int;
      v.i = std::stoll(t, nullptr, 0);
    } catch (...) {
      return {Value::unknown()};
    }
    return {v};
  }
  if (k == "float") {
    try {
      v.kind = Value::Kind::Float;
      std::string t(text(expr));
      t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
      v.f = std::stod(t);
    } catch (...) {
      return {Value::unknown()};
    }
    return {v};
  }
  if (k == "true" || k == "false") {
    v.kind = Value::Kind::Bool;
    v.b = k == "true";
    return {v};
  }
  if (k == "none") {
    v.kind = Value::Kind::None;
    return {v};
  }
  if (k == "string" || k == "concatenated_string") {
    if (string_literal_value(expr, src_, v.s)) {
      v.kind = Value::Kind::Str;
      return {v};
    }
    return {Value::unknown()};
  }
  if (k == "unary_operator") {
    auto inner = values(field(expr, "argument"));
    std::string_view op = text(ts_node_child(expr, 0));
    for (auto& x : inner) {
      if (op == "-" && x.kind == Value::Kind::Int) x.i = -x.i;
      else if (op == "-" && x.kind == Value::Kind::Float) x.f = -x.f;
      else if (op != "+") x = Value::unknown();
    }
    return inner;
  }
  if (k == "binary_operator") {
    auto l = values(field(expr, "left"));
    auto r = values(field(expr, "right"));
    std::string_view op = text(field(expr, "operator"));
    std::vector<Value> out;
    for (const auto& a : l)
      for (const auto& b : r) {
        if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int) {
          if (op == "+") out.push_back(make_int(a.i + b.i));
          else if (op == "-") out.push_back(make_int(a.i - b.i));
          else if (op == "*") out.push_back(make_int(a.i * b.i));
          else if (op == "//" && b.i != 0) out.push_back(make_int(a.i / b.i));
          else out.push_back(Value::unknown());
        } else {
          out.push_back(Value::unknown());
        }
        if (out.size() > 16) return {Value::unknown()};
      }
    return out;
  }
  if (k == "conditional_expression") {
    // a if cond else b
    auto parts = named_children(expr);
    if (parts.size() == 3) {
      auto c = constant(parts[1]);
      if (c && c->kind == Value::Kind::Bool) return values(c->b ? parts[0] : parts[2]);
      auto a = values(parts[0]);
      add_values(a, values(parts[2]));
      return a;
    }
    return {Value::unknown()};
  }
  if (k == "identifier") {
    auto bindings = lookup(text(expr), start(expr));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {Value::unknown()};
    std::vector<Value> out;
    for (const Binding* b : bindings) add_values(out, binding_values(*b));
    return out;
  }
  if (k == "attribute") return attribute_values(expr);
  if (k == "call") {
    std::string callee = callee_name(expr);
    if (callee == "builtins.int" || callee == "builtins.float") {
      auto inner = values(argument(expr, 0, ""));
      for (auto& x : inner) {
        if (callee == "builtins.int" && x.kind == Value::Kind::Float) x = make_int(static_cast<long long>(x.f));
        if (x.kind == Value::Kind::Str) x = Value::unknown();
      }
      return inner;
    }
    if (callee == "builtins.min" || callee == "builtins.max") {
      auto args = named_children(field(expr, "arguments"));
      if (args.size() == 2) {
        auto a = constant_int(args[0]), b = constant_int(args[1]);
        if (a && b) return {make_int(callee == "builtins.min" ? std::min(*a, *b) : std::max(*a, *b))};
      }
      return {Value::unknown()};
    }
  }
  v.kind = Value::Kind::Expr;
  v.expr = expr;
  return {v};
}

std::vector<Value> SemanticModel::binding_values(const Binding& b) const {
  switch (b.kind) {
    case Binding::Kind::Assign:
    case Binding::Kind::With: {
      if (b.unpack_index >= 0) {
        Node v = unparen(b.value);
        if ((is(v, "tuple") || is(v, "expression_list") || is(v, "list")) &&
            b.unpack_index < static_cast<int>(named_count(v)))
          return values(named_child(v, b.unpack_index));
        return {Value::unknown()};
      }
      return values(b.value);
    }
    case Binding::Kind::Param: return param_values(b.function, b.param_index);
    case Binding::Kind::LoopTarget: {
      // `for loader in (train_loader, val_loader):` takes each element's values.
      Node iterable = unparen(b.value);
      if (b.unpack_index < 0 && (is(iterable, "tuple") || is(iterable, "list")) &&
          same(unparen(field(parent(b.value), "left")), b.target)) {
        std::vector<Value> out;
        for (auto e : named_children(iterable)) {
          if (is(e, "list_splat") || is(e, "comment")) return {Value::unknown()};
          add_values(out, values(e));
        }
        if (!out.empty()) return out;
      }
      return {Value::unknown()};
    }
    case Binding::Kind::Def:
    case Binding::Kind::Class: {
      Value v;
      v.kind = Value::Kind::Expr;
      v.expr = b.value;
      return {v};
    }
    default: return {Value::unknown()};
  }
}

std::vector<Value> SemanticModel::param_values(int f, int pi) const {
  auto [it, fresh] = param_cache_.try_emplace({f, pi});
  if (!fresh) return it->second.done ? it->second.values : std::vector<Value>{Value::unknown()};
  Step step(*this);
  if (!step) {
    param_cache_.erase(it);
    return {Value::unknown()};
  }
  auto out = param_values_uncached(f, pi);
  ValuesEntry& e = param_cache_[{f, pi}];
  e.done = true;
  e.values = out;
  return out;
}

std::vector<Value> SemanticModel::param_values_uncached(int f, int pi) const {
  const Function& fn = functions_[f];
  const Param& p = fn.params[pi];
  if (p.is_variadic) return {Value::unknown()};
  std::vector<Value> out;
  int position = pi;
  if (fn.klass >= 0 && pi > 0) position = pi - 1;  // `self` is not passed explicitly
  if (fn.klass >= 0 && pi == 0) return {Value::unknown()};
  const auto& sites = callers(f);
  bool default_used = sites.empty();
  unsigned plain = sites.empty() && is_null(p.default_value) ? fact::kPlain : 0;
  if (const ArgFacts* ext = ext_param(f, pi, fact::kValues | plain)) {  // call sites in other modules
    if (sites.empty()) default_used = false;
    default_used |= ext->defaulted;
    if (ext->passed) add_values(out, to_values(ext->values));
  }
  for (int ci : sites) {
    Node call = calls_[ci].call;
    Node a = argument(call, p.keyword_only ? -1 : position, p.name);
    if (is_null(a)) {
      // Possibly passed through *args/**kwargs: unknown unless the call has neither.
      bool splat = false;
      for (auto c : named_children(field(call, "arguments")))
        if (is(c, "list_splat") || is(c, "dictionary_splat")) splat = true;
      if (splat) add_values(out, {Value::unknown()});
      else default_used = true;
      continue;
    }
    add_values(out, values(a));
  }
  if (default_used) {
    if (is_null(p.default_value)) add_values(out, {Value::unknown()});
    else add_values(out, values(p.default_value));
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

std::vector<Value> SemanticModel::argparse_default(std::string_view dest) const {
  std::vector<Value> out;
  std::string key(dest);
  if (auto cached = argparse_cache_.find(key); cached != argparse_cache_.end()) return cached->second;
  auto found = argparse_args_.find(key);
  static const std::vector<Node> kNone;
  for (Node call : found == argparse_args_.end() ? kNone : found->second) {
    Node def = argument(call, -1, "default");
    if (!is_null(def)) {
      add_values(out, values(def));
      continue;
    }
    std::string action;
    string_literal_value(argument(call, -1, "action"), src_, action);
    Value v;
    if (action == "store_true" || action == "store_false") {
      v.kind = Value::Kind::Bool;
      v.b = action == "store_false";
    } else {
      v.kind = Value::Kind::None;
    }
    add_values(out, {v});
  }
  if (out.empty()) out.push_back(Value::unknown());
  argparse_cache_[key] = out;
  return out;
}

int SemanticModel::class_of_self(Node attr) const {
  Node obj = field(attr, "object");
  if (!is(obj, "identifier") || text(obj) != "self") return -1;
  int f = function_at(start(attr));
  return f >= 0 ? functions_[f].klass : -1;
}

std::vector<Value> SemanticModel::attribute_values(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  std::string_view name = text(field(attr, "attribute"));
  int klass = class_of_self(attr);
  if (klass >= 0) {
    std::vector<Value> out;
    std::string key = classes_[klass].name + "." + std::string(name);
    auto indexed = self_assignments_by_key_.find(key);
    static const std::vector<int> kNone;
    for (int ai : indexed == self_assignments_by_key_.end() ? kNone : indexed->second) {
      Node v = self_assignments_[ai].second;
      // Only __init__ assignments define the attribute's value for the rest of the class.
      int f = function_at(start(v));
      if (f < 0 || functions_[f].name != "__init__") {
        add_values(out, {Value::unknown()});
        continue;
      }
      add_values(out, values(v));
    }
    if (out.empty()) out.push_back(Value::unknown());
    return out;
  }
  // args.<dest> where args comes from parse_args() (or parse_known_args()[0]).
  auto objs = values(obj);
  bool from_argparse = !objs.empty();
  for (const auto& o : objs) {
    if (o.kind != Value::Kind::Expr || !is(o.expr, "call")) {
      from_argparse = false;
      break;
    }
    Node fn = field(o.expr, "function");
    if (!is(fn, "attribute") || text(field(fn, "attribute")) != "parse_args") from_argparse = false;
  }
  if (from_argparse) return argparse_default(name);
  Value v;
  v.kind = Value::Kind::Expr;
  v.expr = attr;
  return {v};
}

// ---------------------------------------------------------------------------------------
// Calls.

void SemanticModel::resolve_calls() {
  walk([&](Node n, const WalkFrame& frame) {
    if (!is(n, "call")) return;
    CallSite cs;
    cs.call = n;
    cs.caller = frame.function;
    cs.loops = frame.loops;
    cs.guards = frame.guards;
    cs.guard_loop_depth = frame.guard_loop_depth;
    cs.lambda_depth = frame.lambda_depth;
    call_index_[n.id] = static_cast<int>(calls_.size());
    calls_.push_back(cs);
  });
  callers_.assign(functions_.size(), {});
  callees_by_call_.assign(calls_.size(), {});
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    Node fn = unparen(field(call, "function"));
    std::vector<int> targets;
    auto add_class_method = [&](int klass, std::string_view method) {
      // The method, or one inherited from a base class defined in this file.
      std::set<int> seen;
      while (klass >= 0 && seen.insert(klass).second) {
        auto it = classes_[klass].methods.find(std::string(method));
        if (it != classes_[klass].methods.end()) {
          targets.push_back(it->second);
          return;
        }
        int next = -1;
        for (const auto& b : classes_[klass].bases) {
          auto named = classes_by_name_.find(std::string(last_part(b)));
          if (named != classes_by_name_.end()) next = named->second.back();
        }
        klass = next;
      }
    };
    auto instance_class = [&](Node expr) -> int {
      // The class whose instance the expression holds: Net(), Net().to(dev), ...
      for (const auto& v : values(expr)) {
        if (v.kind != Value::Kind::Expr) continue;
        Node e = v.expr;
        for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
          Node f = unparen(field(e, "function"));
          if (is(f, "attribute")) {
            auto a = text(field(f, "attribute"));
            if (a == "to" || a == "cuda" || a == "train" || a == "eval" || a == "half" || a == "float") {
              e = unparen(field(f, "object"));
              continue;
            }
          }
          for (const auto& cv : values(f))
            if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition")) {
              auto c = class_by_node_.find(cv.expr.id);
              if (c != class_by_node_.end()) return c->second;
            }
          break;
        }
      }
      return -1;
    };
    if (is(fn, "identifier")) {
      for (const auto& v : values(fn)) {
        if (v.kind != Value::Kind::Expr) continue;
        if (is(v.expr, "function_definition")) {
          auto f = function_by_node_.find(v.expr.id);
          if (f != function_by_node_.end()) targets.push_back(f->second);
        }
      }
      int klass = instance_class(fn);
      if (klass >= 0) {
        add_class_method(klass, "forward");
        add_class_method(klass, "__call__");
      }
    } else if (is(fn, "attribute")) {
      Node obj = unparen(field(fn, "object"));
      std::string_view method = text(field(fn, "attribute"));
      int klass = -1;
      if (is(obj, "identifier") && text(obj) == "self") {
        int f = function_at(start(call));
        klass = f >= 0 ? functions_[f].klass : -1;
      } else {
        klass = instance_class(obj);
      }
      if (klass >= 0) add_class_method(klass, method);
      // self.model(x) where self.model holds an instance of a class defined here
      int attr_class = instance_class(fn);
      if (attr_class >= 0) {
        add_class_method(attr_class, "forward");
        add_class_method(attr_class, "__call__");
      }
    }
    if (is(fn, "identifier") && text(fn) == "self") {
      int f = function_at(start(call));
      int klass = f >= 0 ? functions_[f].klass : -1;
      if (klass >= 0) add_class_method(klass, "forward");
    }
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    callees_by_call_[ci] = targets;
    for (int t : targets) callers_[t].push_back(static_cast<int>(ci));
  }
  // Class bases, now that imports resolve.
  for (auto& c : classes_) {
    Node supers = field(c.node, "superclasses");
    for (auto b : named_children(supers)) {
      if (is(b, "keyword_argument")) continue;
      std::string q = qualified_name(b);
      c.bases.push_back(q.empty() ? std::string(text(b)) : q);
    }
  }
}

void SemanticModel::build_indexes() {
  for (size_t c = 0; c < classes_.size(); ++c) {
    class_by_node_.emplace(classes_[c].node.id, static_cast<int>(c));
    classes_by_name_[classes_[c].name].push_back(static_cast<int>(c));
  }
  for (size_t f = 0; f < functions_.size(); ++f) function_by_node_.emplace(functions_[f].node.id, static_cast<int>(f));
  for (size_t i = 0; i < self_assignments_.size(); ++i)
    self_assignments_by_key_[self_assignments_[i].first].push_back(static_cast<int>(i));
  loops_by_function_.assign(functions_.size(), {});
  for (size_t l = 0; l < loops_.size(); ++l)
    if (loops_[l].function >= 0) loops_by_function_[loops_[l].function].push_back(static_cast<int>(l));
}

void SemanticModel::index_calls() {
  calls_by_caller_.assign(functions_.size(), {});
  calls_in_loop_.assign(loops_.size(), {});
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    if (calls_[ci].caller >= 0) calls_by_caller_[calls_[ci].caller].push_back(static_cast<int>(ci));
    std::vector<int> seen_loops;
    for (int l : calls_[ci].loops)
      if (std::find(seen_loops.begin(), seen_loops.end(), l) == seen_loops.end()) {
        seen_loops.push_back(l);
        calls_in_loop_[l].push_back(static_cast<int>(ci));
      }
  }
  step_call_[0].assign(calls_.size(), -1);
  step_call_[1].assign(calls_.size(), -1);
  loader_call_.assign(calls_.size(), 0);
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node call = calls_[ci].call;
    std::string q = callee_name(call);
    for (auto name : kLoaderNames)
      if (q == name) loader_call_[ci] = 1;
    Node fn = unparen(field(call, "function"));
    if (!is(fn, "attribute")) continue;
    auto m = text(field(fn, "attribute"));
    if (m != "append" && m != "extend") continue;
    Node obj = unparen(field(fn, "object"));
    if (is(obj, "identifier")) appends_[{scope_at(start(call)), std::string(text(obj))}].push_back(call);
  }
}

std::vector<int> SemanticModel::callees(Node call) const {
  auto it = call_index_.find(call.id);
  return it == call_index_.end() ? std::vector<int>{} : callees_by_call_[it->second];
}

const std::vector<int>& SemanticModel::callers(int f) const {
  if (f < 0 || f >= static_cast<int>(callers_.size())) return kNoCallers;
  return callers_[f];
}

bool SemanticModel::is_subclass_of(int klass, std::initializer_list<std::string_view> bases) const {
  std::set<int> seen;
  std::function<bool(int)> rec = [&](int k) {
    if (k < 0 || !seen.insert(k).second) return false;
    for (const auto& b : classes_[k].bases) {
      for (auto want : bases)
        if (b == want) return true;
      auto named = classes_by_name_.find(b);
      if (named != classes_by_name_.end())
        for (int c : named->second)
          if (rec(c)) return true;
    }
    return false;
  };
  return rec(klass);
}

bool SemanticModel::is_lightning_module(int klass) const {
  if (klass < 0) return false;
  if (static_cast<size_t>(klass) < lightning_class_.size()) return lightning_class_[klass] != 0;
  return is_subclass_of(klass, {"pytorch_lightning.LightningModule", "lightning.LightningModule",
                                "lightning.pytorch.LightningModule", "pytorch_lightning.core.LightningModule",
                                "lightning.pytorch.core.LightningModule"});
}

bool SemanticModel::is_step_hook(int f) const {
  if (f < 0) return false;
  const auto& fn = functions_[f];
  if (fn.klass < 0 || !is_lightning_module(fn.klass)) return false;
  return fn.name == "training_step" || fn.name == "validation_step" || fn.name == "test_step" ||
         fn.name == "predict_step";
}


// ---------------------------------------------------------------------------------------
// Loaders and loops.

bool SemanticModel::is_loader_call(Node call) const {
  if (!is(call, "call")) return false;
  auto idx = call_index_.find(call.id);
  if (idx != call_index_.end() && !loader_call_.empty()) return loader_call_[idx->second] != 0;
  std::string q = callee_name(call);
  for (auto name : kLoaderNames)
    if (q == name) return true;
  return false;
}

bool SemanticModel::is_loader_expr(Node expr) const { return is_loader_impl(expr); }

bool SemanticModel::is_loader_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(loader_cache_, expr, [&] { return is_loader_uncached(expr); });
}

bool SemanticModel::is_loader_uncached(Node expr) const {
  if (is(expr, "call")) {
    if (is_loader_call(expr)) return true;
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    std::string_view last = is(fn, "attribute") ? text(field(fn, "attribute")) : text(fn);
    // Iteration wrappers: enumerate(loader), tqdm(loader), zip(a, b), iter(loader), islice(...)
    if (last == "enumerate" || last == "tqdm" || last == "iter" || last == "islice" || last == "zip" ||
        last == "trange" || q == "builtins.iter") {
      for (auto a : named_children(field(expr, "arguments"))) {
        if (is(a, "keyword_argument")) continue;
        if (is_loader_impl(a)) return true;
        if (last != "zip") break;
      }
      return false;
    }
    if (last == "__iter__" && is(fn, "attribute")) return is_loader_impl(field(fn, "object"));
    if (const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsLoader); ext && ext->returns_loader) return true;
    // A function defined here that returns a loader.
    for (int f : callees(expr))
      for (Node r : functions_[f].returns)
        if (is_loader_impl(r)) return true;
    // Any other (non-builtin) wrapper handed a loader yields its batches:
    // `metric_logger.log_every(data_loader, 20)`, `prefetcher(loader)`. Not Accelerate's
    // `prepare` or Fabric's `setup_dataloaders`: their loaders yield batches already on the
    // device, so host-batch rules must not see them.
    if (q.rfind("builtins.", 0) != 0 && !FrameworkTable::get().is_prepare_method(last)) {
      for (auto a : named_children(field(expr, "arguments")))
        if (!is(a, "keyword_argument") && is_loader_impl(a)) return true;
    }
    return false;
  }
  if (is(expr, "identifier") && ext_param_flag(expr, fact::kLoader)) return true;
  if (is(expr, "identifier") || is(expr, "attribute")) {
    bool unknown = false;
    for (const auto& v : values(expr)) {
      if (v.kind == Value::Kind::Expr && !same(v.expr, expr) && is_loader_impl(v.expr)) return true;
      if (v.kind == Value::Kind::Unknown || (v.kind == Value::Kind::Expr && same(v.expr, expr))) unknown = true;
    }
    if (unknown && is(expr, "identifier")) {
      // Rebound to what Accelerate/Fabric return (`model, opt, loader = accelerator.prepare(...)`):
      // a loader of device batches.
      for (const Binding* b : lookup(text(expr), start(expr))) {
        Node v = b->kind == Binding::Kind::Assign ? unparen(b->value) : Node{};
        Node f = is(v, "call") ? unparen(field(v, "function")) : Node{};
        auto m = is(f, "attribute") ? text(field(f, "attribute")) : std::string_view{};
        if (FrameworkTable::get().is_prepare_method(m)) return false;
      }
    }
    if (unknown) {
      // Unresolvable (a parameter without call sites, an attribute of another object): the
      // name is the remaining evidence.
      std::string_view name = is(expr, "attribute") ? text(field(expr, "attribute")) : text(expr);
      std::string lower(name);
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      return lower.find("loader") != std::string::npos;
    }
  }
  return false;
}

// Loader identity, from the loops' side: each loop's iterable is resolved once to the loader
// constructions it may evaluate to, and the loops are indexed by construction. O(loops x
// origins) after the memoized resolution, instead of every loop resolved for every loader.
const std::vector<Node>& SemanticModel::loader_origins(Node expr) const {
  static const std::vector<Node> kNone;
  expr = unparen(expr);
  if (is_null(expr)) return kNone;
  auto cached = origins_cache_.find(expr.id);
  if (cached != origins_cache_.end()) return cached->second;
  if (origins_active_.count(expr.id)) return kNone;  // a cycle
  Step step(*this);
  if (!step) return kNone;
  origins_active_.insert(expr.id);
  std::vector<Node> out;
  auto add = [&](Node e) {
    for (Node o : loader_origins(e)) {
      bool dup = false;
      for (Node x : out) dup = dup || same(x, o);
      if (!dup && out.size() < kMaxCandidates) out.push_back(o);
    }
  };
  if (is(expr, "call")) {
    Node fn = unparen(field(expr, "function"));
    std::string_view last = is(fn, "attribute") ? text(field(fn, "attribute")) : text(fn);
    const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsLoader);
    if (is_loader_call(expr) || (ext && ext->returns_loader)) {
      out.push_back(expr);
    } else if (last == "enumerate" || last == "tqdm" || last == "iter" || last == "islice" || last == "zip" ||
               last == "trange") {
      for (auto a : named_children(field(expr, "arguments")))
        if (!is(a, "keyword_argument")) add(a);
    } else {
      for (int f : callees(expr))
        for (Node r : functions_[f].returns) add(r);
      Node source = types_->prepared_source(expr, Node{});
      if (!is_null(source)) add(source);  // the loader handed to `accelerator.prepare(loader)`
      else if (qualified_name(fn).rfind("builtins.", 0) != 0 && !FrameworkTable::get().is_prepare_method(last))
        for (auto a : named_children(field(expr, "arguments")))
          if (!is(a, "keyword_argument")) add(a);
    }
  } else if (is(expr, "identifier") || is(expr, "attribute")) {
    for (const auto& v : values(expr))
      if (v.kind == Value::Kind::Expr && !same(v.expr, expr)) add(v.expr);
    // `model, opt, train_dl = accelerator.prepare(model, opt, train_loader)`: train_dl is the
    // prepared train_loader (same workers and pinning).
    if (is(expr, "identifier"))
      for (const Binding* b : lookup(text(expr), start(expr)))
        if (b->kind == Binding::Kind::Assign && b->unpack_index >= 0) {
          Node source = types_->prepared_source(b->value, b->target);
          if (!is_null(source)) add(source);
        }
  }
  origins_active_.erase(expr.id);
  return origins_cache_.emplace(expr.id, std::move(out)).first->second;
}

std::vector<int> SemanticModel::loops_iterating(Node loader_call) const {
  if (!loops_by_loader_built_) {
    loops_by_loader_built_ = true;
    for (size_t i = 0; i < loops_.size(); ++i) {
      Node n = loops_[i].node;
      if (!is(n, "for_statement")) continue;
      for (Node o : loader_origins(field(n, "right"))) loops_by_loader_[o.id].push_back(static_cast<int>(i));
    }
    // `it = iter(loader)` consumed with next(it) in a while loop.
    for (size_t i = 0; i < loops_.size(); ++i) {
      if (!is(loops_[i].node, "while_statement")) continue;
      std::vector<Node> seen;
      for (int ci : calls_in_loop_[i]) {
        const CallSite& cs = calls_[ci];
        if (qualified_name(field(cs.call, "function")) != "builtins.next") continue;
        for (Node o : loader_origins(argument(cs.call, 0, ""))) {
          bool dup = false;
          for (Node x : seen) dup = dup || same(x, o);
          if (dup) continue;
          seen.push_back(o);
          loops_by_loader_[o.id].push_back(static_cast<int>(i));
        }
      }
    }
  }
  if (is_null(loader_call)) return {};
  auto it = loops_by_loader_.find(loader_call.id);
  return it == loops_by_loader_.end() ? std::vector<int>{} : it->second;
}

bool SemanticModel::is_optimizer_value(Node expr) const {
  expr = unparen(expr);
  for (const auto& v : values(expr)) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) continue;
    std::string q = callee_name(v.expr);
    if (starts_with(q, "torch.optim.") && q.find("lr_scheduler") == std::string::npos) return true;
    if (q.find("GradScaler") != std::string::npos) return true;
    if (q.find("optim") != std::string::npos && q.find("sched") == std::string::npos) return true;
  }
  std::string_view name = is(expr, "attribute") ? text(field(expr, "attribute")) : text(expr);
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.find("sched") != std::string::npos) return false;
  return lower.find("optim") != std::string::npos || lower == "opt" || lower.find("scaler") != std::string::npos ||
         (lower.size() > 4 && lower.substr(lower.size() - 4) == "_opt");
}

bool SemanticModel::is_module_value(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(module_cache_, expr, [&] { return is_module_uncached(expr); });
}

bool SemanticModel::is_module_uncached(Node expr) const {
  if (is(expr, "identifier") && ext_param_flag(expr, fact::kModule)) return true;
  if (const FunctionFacts* ext = is(expr, "call") ? ext_callee_of(expr, fact::kReturnsModule) : nullptr;
      ext && ext->returns_module)
    return true;
  for (const auto& v : values(expr)) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) continue;
    Node e = v.expr;
    for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
      Node f = unparen(field(e, "function"));
      if (const FunctionFacts* ext = ext_callee_of(e, fact::kReturnsModule); ext && ext->returns_module) return true;
      if (is(f, "attribute")) {
        auto a = text(field(f, "attribute"));
        if (a == "to" || a == "cuda" || a == "train" || a == "eval" || a == "half" || a == "float" || a == "bfloat16") {
          e = unparen(field(f, "object"));
          continue;
        }
        if (a == "from_pretrained") return true;
      }
      std::string q = qualified_name(f);
      if (starts_with(q, "torch.nn.") && !last_part(q).empty() && std::isupper(static_cast<unsigned char>(last_part(q)[0])))
        return true;
      if (starts_with(q, "torchvision.models.") || starts_with(q, "timm.")) return true;
      for (const auto& cv : values(f))
        if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition")) {
          auto c = class_by_node_.find(cv.expr.id);
          if (c != class_by_node_.end() &&
              is_subclass_of(c->second, {"torch.nn.Module", "torch.nn.modules.module.Module"}))
            return true;
        }
      if (is(e, "call") && !same(unparen(field(e, "function")), f)) continue;
      break;
    }
  }
  return false;
}

bool SemanticModel::is_step_call(Node call, bool allow_forward) const {
  Node fn = unparen(field(call, "function"));
  if (is(fn, "attribute")) {
    auto m = text(field(fn, "attribute"));
    if (m == "backward") return true;
    if (m == "step" && is_optimizer_value(field(fn, "object"))) return true;
  }
  // A module by construction, or by its abstract type (prepared by a framework, DDP-wrapped).
  return allow_forward && (is_module_value(fn) || types_->type_of(fn).kind == AbstractType::Kind::Module);
}

bool SemanticModel::is_step_call_at(int ci, bool allow_forward) const {
  signed char& memo = step_call_[allow_forward ? 1 : 0][ci];
  if (memo < 0) {
    const FunctionFacts* ext = ext_callee(ci, fact::kSteps);  // a project function of another module that steps
    memo = (is_step_call(calls_[ci].call, allow_forward) || (ext && (ext->steps || (allow_forward && ext->steps_forward))))
               ? 1 : 0;
  }
  return memo == 1;
}

bool SemanticModel::loop_contains_hot_loop(int li) const {
  if (nested_hot_[li]) return true;
  for (int ci : calls_in_loop_[li]) {
    for (int c : callees_by_call_[ci])
      if (function_has_hot_loop_[c]) return true;
    if (const FunctionFacts* ext = ext_callee(ci, fact::kHotLoop); ext && ext->has_hot_loop) return true;
  }
  return false;
}

// Call-graph reachability for the current loop kinds, each by one worklist over the reverse
// call edges: O(loops + functions + calls).
void SemanticModel::compute_reachability() {
  const size_t nf = functions_.size();
  nested_hot_.assign(loops_.size(), 0);
  for (size_t j = 0; j < loops_.size(); ++j) {
    if (loops_[j].kind != LoopKind::Hot) continue;
    for (int p = loops_[j].parent_loop; p >= 0 && !nested_hot_[p]; p = loops_[p].parent_loop) nested_hot_[p] = 1;
  }
  // Backwards from the seeds to every caller through the call sites `through` accepts.
  auto propagate = [&](std::vector<char>& reach, auto&& through) {
    std::vector<int> work;
    for (size_t f = 0; f < nf; ++f)
      if (reach[f]) work.push_back(static_cast<int>(f));
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      for (int ci : callers_[f]) {
        int caller = calls_[ci].caller;
        if (caller < 0 || reach[caller] || !through(ci)) continue;
        reach[caller] = 1;
        work.push_back(caller);
      }
    }
  };
  function_has_hot_loop_.assign(nf, 0);
  for (size_t f = 0; f < nf; ++f)
    for (int l : loops_by_function_[f])
      if (loops_[l].kind == LoopKind::Hot) function_has_hot_loop_[f] = 1;
  for (size_t ci = 0; ci < calls_.size(); ++ci)
    if (const FunctionFacts* ext = calls_[ci].caller >= 0 ? ext_callee(static_cast<int>(ci), fact::kHotLoop) : nullptr;
        ext && ext->has_hot_loop)
      function_has_hot_loop_[calls_[ci].caller] = 1;
  propagate(function_has_hot_loop_, [](int) { return true; });
  // A function steps when a call outside its hot loops (and outside lambdas) steps or reaches a
  // function that does.
  auto outside_hot = [&](int ci) {
    const CallSite& cs = calls_[ci];
    if (cs.lambda_depth > 0) return false;
    for (int l : cs.loops)
      if (loops_[l].kind == LoopKind::Hot) return false;
    return true;
  };
  for (int allow = 0; allow < 2; ++allow) {
    auto& steps = function_steps_[allow];
    steps.assign(nf, 0);
    for (size_t f = 0; f < nf; ++f)
      for (int ci : calls_by_caller_[f])
        if (!steps[f] && outside_hot(ci) && is_step_call_at(ci, allow == 1)) steps[f] = 1;
    propagate(steps, outside_hot);
  }
}

bool SemanticModel::loop_performs_step(int li, bool allow_forward) const {
  for (int ci : calls_in_loop_[li]) {
    const CallSite& cs = calls_[ci];
    auto pos = std::find(cs.loops.begin(), cs.loops.end(), li);
    if (pos == cs.loops.end() || cs.lambda_depth > 0) continue;
    bool nested_hot = false;
    for (auto it = pos + 1; it != cs.loops.end(); ++it) nested_hot |= loops_[*it].kind == LoopKind::Hot;
    if (nested_hot) continue;
    if (is_step_call_at(ci, allow_forward)) return true;
    for (int c : callees_by_call_[ci])
      if (function_steps_[allow_forward ? 1 : 0][c]) return true;
  }
  return false;
}

void SemanticModel::classify_loops() {
  for (auto& l : loops_)
    l.iterates_loader = is(l.node, "for_statement") && (is_loader_expr(field(l.node, "right")) ||
                                                        types_->is_loader_iteration(field(l.node, "right")));
  for (int pass = 0; pass < 4; ++pass) {
    compute_reachability();
    bool changed = false;
    for (int i = static_cast<int>(loops_.size()); i-- > 0;) {
      // A loop around training loops (an epoch loop) is hot only if it also steps the
      // optimizer itself; a forward there (sampling, a per-epoch evaluation) runs once per epoch.
      bool around_hot = loop_contains_hot_loop(i);
      LoopKind k = (loops_[i].iterates_loader || loop_performs_step(i, !around_hot)) ? LoopKind::Hot : LoopKind::Setup;
      if (k != loops_[i].kind) {
        loops_[i].kind = k;
        changed = true;
      }
    }
    if (!changed) break;
  }
  compute_reachability();
  for (int i = 0; i < static_cast<int>(loops_.size()); ++i)
    if (loops_[i].kind != LoopKind::Hot && loop_contains_hot_loop(i)) loops_[i].kind = LoopKind::Epoch;
}

bool SemanticModel::loop_runs_per_epoch(int li) const {
  if (li < 0) return false;
  if (loops_[li].parent_loop >= 0) return true;
  return function_called_in_loop(loops_[li].function);
}

bool SemanticModel::function_called_in_loop(int fn) const {
  if (fn < 0) return false;
  if (called_in_loop_.empty()) {
    // Forwards from functions called in a loop to everything they call: O(functions + calls).
    called_in_loop_.assign(functions_.size(), 0);
    std::vector<int> work;
    for (size_t ci = 0; ci < calls_.size(); ++ci)
      if (!calls_[ci].loops.empty())
        for (int c : callees_by_call_[ci])
          if (!called_in_loop_[c]) {
            called_in_loop_[c] = 1;
            work.push_back(c);
          }
    for (size_t g = 0; g < functions_.size(); ++g)  // called from a loop in another module
      if (!called_in_loop_[g] && facts_) {
        const IncomingCalls* in = facts_->incoming(local_name(static_cast<int>(g)), fact::kInLoop);
        if (in && in->in_loop) {
          called_in_loop_[g] = 1;
          work.push_back(static_cast<int>(g));
        }
      }
    while (!work.empty()) {
      int f = work.back();
      work.pop_back();
      for (int ci : calls_by_caller_[f])
        for (int c : callees_by_call_[ci])
          if (!called_in_loop_[c]) {
            called_in_loop_[c] = 1;
            work.push_back(c);
          }
    }
  }
  return called_in_loop_[fn] != 0;
}

bool SemanticModel::loader_feeds_training(Node loader_call) const {
  if (is_null(loader_call)) return loader_feeds_training_uncached(loader_call);
  auto it = feeds_training_cache_.find(loader_call.id);
  if (it != feeds_training_cache_.end()) return it->second;
  bool out = loader_feeds_training_uncached(loader_call);
  feeds_training_cache_.emplace(loader_call.id, out);
  return out;
}

bool SemanticModel::loader_feeds_training_uncached(Node loader_call) const {
  for (int l : loops_iterating(loader_call))
    if (loops_[l].kind == LoopKind::Hot) return true;
  // Returned from a Lightning *_dataloader hook, or passed to Trainer.fit/validate/test/predict.
  int f = function_at(start(loader_call));
  auto returns_it = [&](int fn) {
    for (Node r : functions_[fn].returns) {
      r = unparen(r);
      if (same(r, loader_call)) return true;
      for (const auto& v : values(r))
        if (v.kind == Value::Kind::Expr && same(v.expr, loader_call)) return true;
    }
    return false;
  };
  if (f >= 0 && functions_[f].name.size() > 11 &&
      functions_[f].name.substr(functions_[f].name.size() - 11) == "_dataloader" && returns_it(f))
    return true;
  if (!fit_arguments_built_) {
    fit_arguments_built_ = true;
    for (const auto& cs : calls_) {
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute")) continue;
      auto m = text(field(fn, "attribute"));
      if (m != "fit" && m != "validate" && m != "test" && m != "predict") continue;
      for (auto a : named_children(field(cs.call, "arguments"))) {
        Node v = is(a, "keyword_argument") ? field(a, "value") : a;
        for (const auto& val : values(v))
          if (val.kind == Value::Kind::Expr) fit_arguments_.insert(val.expr.id);
        fit_arguments_.insert(unparen(v).id);
      }
    }
  }
  if (fit_arguments_.count(loader_call.id)) return true;
  return external_feeds_training(loader_call);
}

// ---------------------------------------------------------------------------------------
// Hot contexts and amortization.

void SemanticModel::apply_guards(HotContext& ctx, const std::vector<std::pair<Node, bool>>& guards, size_t from,
                                 Node hot_region) const {
  // `step % N`: the guarded code runs once every N steps (N unknown: -1; N = 1: every step).
  auto amortize = [&](Node modulo) {
    auto n = constant_int(field(modulo, "right"));
    if (n && *n == 1) return;
    ctx.every = n ? std::max(ctx.every, *n) : (ctx.every == 0 ? -1 : ctx.every);
  };
  std::function<void(Node, bool)> apply = [&](Node cond, bool positive) {
    cond = unparen(cond);
    auto k = kind(cond);
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "and") {
      apply(field(cond, "left"), true);
      apply(field(cond, "right"), true);
      return;
    }
    if (k == "boolean_operator" && positive && text(field(cond, "operator")) == "or") {
      // `i % 100 == 99 or i == 0`: amortized when each side is amortized or runs once; the
      // period is the shortest side's.
      HotContext outer = ctx, sides[2];
      Node parts[2] = {field(cond, "left"), field(cond, "right")};
      for (int i = 0; i < 2; ++i) {
        ctx = HotContext{};
        apply(parts[i], true);
        sides[i] = ctx;
      }
      ctx = outer;
      auto rare = [](const HotContext& h) { return h.every != 0 || h.once_per_epoch; };
      if (!rare(sides[0]) || !rare(sides[1])) return;
      if (sides[0].once_per_epoch && sides[1].once_per_epoch) {
        ctx.once_per_epoch = true;
        return;
      }
      long long every = 0;
      for (const auto& h : sides) {
        if (h.once_per_epoch && h.every == 0) continue;
        if (h.every < 0 || every < 0) every = -1;
        else every = every == 0 ? h.every : std::min(every, h.every);
      }
      ctx.every = every > 0 ? std::max(ctx.every, every) : (ctx.every == 0 ? -1 : ctx.every);
      return;
    }
    if (k == "not_operator") {
      Node arg = unparen(field(cond, "argument"));
      if (is(arg, "binary_operator") && text(field(arg, "operator")) == "%") {
        if (positive) amortize(arg);  // `not i % N`: once every N steps
        return;
      }
      apply(arg, !positive);
      return;
    }
    if (!positive) {
      // The else branch of a condition that always holds never runs (`if use_cuda: ... else:`).
      if (k == "identifier" || k == "attribute") {
        auto c = constant(cond);
        if (c && c->kind == Value::Kind::Bool && c->b) ctx.once_per_epoch = true;
      }
      return;
    }
    if (k == "comparison_operator") {
      auto parts = named_children(cond);
      std::string_view op = text(ts_node_child(cond, 1));
      if (parts.size() == 2 && op == "==") {
        Node l = unparen(parts[0]), r = unparen(parts[1]);
        if (is(r, "binary_operator") && text(field(r, "operator")) == "%") std::swap(l, r);
        if (is(l, "binary_operator") && text(field(l, "operator")) == "%") {
          amortize(l);
          return;
        }
        // step == 0, batch_idx == 0: one step per epoch or run
        if (is(l, "identifier") && is(r, "integer")) ctx.once_per_epoch = true;
        if (is(r, "identifier") && is(l, "integer")) ctx.once_per_epoch = true;
      }
      // `if features is None: features = ...`: a lazy initialization, once.
      if (parts.size() == 2 && op == "is" && ts_node_child_count(cond) == 3 && is(unparen(parts[1]), "none")) {
        Node name = unparen(parts[0]);
        Node owner = parent(cond);
        while (is(owner, "parenthesized_expression")) owner = parent(owner);
        Node branch = field(owner, "consequence");
        if ((is(name, "identifier") || is(name, "attribute")) && !is_null(branch) &&
            assigned_within(text(name), branch))
          ctx.once_per_epoch = true;
      }
      return;
    }
    if (k == "identifier" || k == "attribute") {
      auto c = constant(cond);
      if (c && c->kind == Value::Kind::Bool) {
        if (!c->b) ctx.once_per_epoch = true;  // never runs at all
        return;
      }
      // A first-iteration flag: set False inside the hot region.
      if (k == "identifier" && !is_null(hot_region)) {
        // Every node under the guard asks: decided once per (condition, hot region).
        auto [memo, fresh] = first_iteration_flag_.try_emplace({cond.id, hot_region.id}, false);
        if (fresh) {
          auto it = scopes_[scope_at(start(cond))].bindings.find(std::string(text(cond)));
          if (it != scopes_[scope_at(start(cond))].bindings.end())
            for (const auto& b : it->second)
              if (b.kind == Binding::Kind::Assign && contains(hot_region, b.target) && is(unparen(b.value), "false"))
                memo->second = true;
        }
        if (memo->second) {
          ctx.once_per_epoch = true;
          return;
        }
      }
      // A configuration flag (`args.x`, `cfg.x`, `self.x`) whose value is unknown.
      if (k == "attribute") ctx.flag_guarded = true;
    }
  };
  for (size_t i = from; i < guards.size(); ++i) {
    if (branch_ends_run(guards[i].first, guards[i].second)) ctx.once_per_epoch = true;  // at most once
    apply(guards[i].first, guards[i].second);
  }
}

// Does the branch an if-condition guards (the consequence, or the else body for a negative
// guard) end the run: its last statement a `raise`, `sys.exit()`, `exit()`, `quit()`, `os._exit()`?
bool SemanticModel::branch_ends_run(Node condition, bool positive) const {
  Node owner = parent(condition);
  Node block{};
  if (positive) {
    block = field(owner, "consequence");
  } else if (is(owner, "if_statement")) {
    for (Node c : named_children(owner))
      if (is(c, "else_clause")) block = field(c, "body");
  }
  if (!is(block, "block") || !named_count(block)) return false;
  Node last = named_child(block, named_count(block) - 1);
  if (is(last, "raise_statement")) return true;
  if (!is(last, "expression_statement") || !named_count(last)) return false;
  Node call = unparen(named_child(last, 0));
  if (!is(call, "call")) return false;
  const std::string& q = callee_name(call);
  return q == "sys.exit" || q == "builtins.exit" || q == "builtins.quit" || q == "os._exit" || q == "os.abort";
}

HotContext SemanticModel::frame_hot_context(int function, const std::vector<int>& loops,
                                            const std::vector<std::pair<Node, bool>>& guards,
                                            const std::vector<uint32_t>& guard_loop_depth, int lambda_depth) const {
  HotContext ctx;
  if (lambda_depth > 0) return ctx;
  // The innermost hot loop decides: guards inside it amortize. A hot loop nested under a
  // step-counter guard (an evaluation loop run every N steps) still runs a step per iteration.
  for (size_t i = loops.size(); i-- > 0;) {
    if (loops_[loops[i]].kind != LoopKind::Hot) continue;
    ctx.hot = true;
    ctx.loop = loops[i];
    size_t from = 0;
    while (from < guards.size() && guard_loop_depth[from] <= i) ++from;
    apply_guards(ctx, guards, from, loops_[loops[i]].body);
    return ctx;
  }
  if (function >= 0 && hot_function_.size() > static_cast<size_t>(function) && hot_function_[function].hot) {
    ctx = hot_function_[function];
    ctx.loop = -1;
    apply_guards(ctx, guards, 0, Node{});
  }
  return ctx;
}

HotContext SemanticModel::hot_context(const WalkFrame& frame, uint32_t) const {
  return frame_hot_context(frame.function, frame.loops, frame.guards, frame.guard_loop_depth, frame.lambda_depth);
}

void SemanticModel::compute_hot_functions() {
  hot_function_.assign(functions_.size(), HotContext{});
  std::vector<int> work;
  for (int f = 0; f < static_cast<int>(functions_.size()); ++f)
    if (is_step_hook(f)) {
      hot_function_[f].hot = true;
      work.push_back(f);
    }
  // Called per step from another module.
  for (int f = 0; facts_ && f < static_cast<int>(functions_.size()); ++f) {
    if (hot_function_[f].hot) continue;
    const IncomingCalls* in = facts_->incoming(local_name(f), fact::kHot);
    if (!in || !in->hot) continue;
    HotContext& h = hot_function_[f];
    h.hot = true;
    h.every = in->every;
    h.once_per_epoch = in->once_per_epoch;
    h.flag_guarded = in->flag_guarded;
    h.via_module = in->via;
    work.push_back(f);
  }
  // Seed with call sites in hot loops, then propagate through hot functions.
  auto visit_site = [&](const CallSite& cs) {
    HotContext site = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!site.hot) return;
    for (int c : callees(cs.call)) {
      HotContext& h = hot_function_[c];
      bool was_hot = h.hot;
      if (!h.hot) {
        h = site;
        h.via_call = cs.call;
        h.via_module.clear();
        h.loop = -1;
      } else {
        // Reached unamortized from anywhere: the function runs every step.
        if (site.every == 0) h.every = 0;
        if (!site.once_per_epoch) h.once_per_epoch = false;
        if (!site.flag_guarded) h.flag_guarded = false;
        if (!h.via_call && !is_step_hook(c)) h.via_call = cs.call;
      }
      if (!was_hot) work.push_back(c);
    }
  };
  for (const auto& cs : calls_) visit_site(cs);
  for (size_t guard = 0; !work.empty() && guard < 10000; ++guard) {
    int f = work.back();
    work.pop_back();
    for (int ci : calls_by_caller_[f]) visit_site(calls_[ci]);
  }
}

// ---------------------------------------------------------------------------------------
// CUDA.

void SemanticModel::compute_cuda() {
  // Evidence that the program uses CUDA.
  std::vector<Node> stack{root_};
  bool lightning_cpu = false, lightning_module = false;
  for (size_t c = 0; c < classes_.size(); ++c) {
    bool l = is_lightning_module(static_cast<int>(c));
    lightning_class_.push_back(l);
    lightning_module |= l;
  }
  while (!stack.empty() && !uses_cuda_) {
    Node n = stack.back();
    stack.pop_back();
    auto k = kind(n);
    if (k == "string") {
      std::string s;
      if (string_literal_value(n, src_, s) && (s == "cuda" || starts_with(s, "cuda:"))) uses_cuda_ = true;
      continue;
    }
    if (k == "call") {
      Node fn = unparen(field(n, "function"));
      if (is(fn, "attribute") && text(field(fn, "attribute")) == "cuda") uses_cuda_ = true;
      std::string q = qualified_name(fn);
      if (starts_with(q, "torch.cuda.") || starts_with(q, "torch.accelerator.")) uses_cuda_ = true;
      if (FrameworkTable::get().uses_cuda(q)) uses_cuda_ = true;  // Accelerate, Fabric, HF Trainer
      if (last_part(q) == "Trainer") {
        std::string acc;
        if (string_literal_value(argument(n, -1, "accelerator"), src_, acc) && acc == "cpu") lightning_cpu = true;
      }
    }
    for (Node c : named_children(n)) stack.push_back(c);
  }
  if (lightning_module && !lightning_cpu) {
    uses_cuda_ = true;
    lightning_gpu_ = true;
  }
}

SemanticModel::DeviceKind SemanticModel::device_kind(Node expr) const { return device_kind_impl(expr); }

SemanticModel::DeviceKind SemanticModel::device_kind_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return DeviceKind::Unknown;
  auto cached = device_cache_.find(expr.id);
  if (cached != device_cache_.end())
    return cached->second ? static_cast<DeviceKind>(cached->second - 1) : DeviceKind::Unknown;
  Step step(*this);
  if (!step) return DeviceKind::Unknown;
  device_cache_[expr.id] = 0;  // in progress: a cycle answers unknown
  DeviceKind d = device_kind_uncached(expr);
  device_cache_[expr.id] = static_cast<char>(static_cast<int>(d) + 1);
  return d;
}

SemanticModel::DeviceKind SemanticModel::device_kind_uncached(Node expr) const {
  auto from_string = [](const std::string& s) {
    if (s == "cuda" || starts_with(s, "cuda:")) return DeviceKind::Cuda;
    if (s == "cpu" || s == "mps" || s == "meta" || starts_with(s, "cpu:")) return DeviceKind::Cpu;
    return DeviceKind::Unknown;
  };
  auto k = kind(expr);
  if (k == "string") {
    std::string s;
    return string_literal_value(expr, src_, s) ? from_string(s) : DeviceKind::Unknown;
  }
  if (k == "integer") return DeviceKind::Cuda;
  if (k == "attribute") {
    std::string q = qualified_name(expr);
    if (starts_with(q, "torch.")) {
      static const std::set<std::string, std::less<>> dtypes = {
          "float", "float16", "float32", "float64", "half", "double", "bfloat16", "int", "int8", "int16",
          "int32", "int64", "long", "uint8", "bool", "short", "complex64", "complex128", "cfloat", "float8_e4m3fn"};
      if (dtypes.count(last_part(q))) return DeviceKind::NotDevice;
    }
    if (text(field(expr, "attribute")) == "device" && is_cuda(field(expr, "object"))) return DeviceKind::Cuda;
    AbstractType t = types_->type_of(expr);  // `accelerator.device`, `fabric.device`
    if (t.kind == AbstractType::Kind::Device && t.device == TypeDevice::Cuda) return DeviceKind::Cuda;
  }
  if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() == 3) {
      auto c = constant(parts[1]);
      if (c && c->kind == Value::Kind::Bool) return device_kind_impl(c->b ? parts[0] : parts[2]);
      auto a = device_kind_impl(parts[0]), b = device_kind_impl(parts[2]);
      if (a == DeviceKind::Cuda || b == DeviceKind::Cuda) return DeviceKind::Cuda;
      if (a == b) return a;
      return DeviceKind::Unknown;
    }
  }
  if (k == "call") {
    std::string q = callee_name(expr);
    if (q == "torch.device") return device_kind_impl(argument(expr, 0, "type"));
    if (starts_with(q, "torch.accelerator.")) return DeviceKind::Cuda;
    return DeviceKind::Unknown;
  }
  if (k == "identifier" || k == "attribute") {
    if (is_cuda(expr)) return DeviceKind::NotDevice;  // a tensor: `.to(other)`
    if (k == "identifier" && ext_param_flag(expr, fact::kDevice)) return DeviceKind::Cuda;
    bool any_cuda = false, all_cpu = true, any = false;
    for (const auto& v : values(expr)) {
      any = true;
      DeviceKind d = DeviceKind::Unknown;
      if (v.kind == Value::Kind::Str) d = from_string(v.s);
      else if (v.kind == Value::Kind::Int) d = DeviceKind::Cuda;
      else if (v.kind == Value::Kind::Expr && !same(v.expr, expr)) d = device_kind_impl(v.expr);
      if (d == DeviceKind::NotDevice) return d;
      any_cuda |= d == DeviceKind::Cuda;
      all_cpu &= d == DeviceKind::Cpu;
    }
    if (any_cuda) return DeviceKind::Cuda;
    if (any && all_cpu) return DeviceKind::Cpu;
  }
  return DeviceKind::Unknown;
}

bool SemanticModel::is_move_to_cuda(Node call) const {
  if (!is(call, "call") || !uses_cuda_) return false;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute")) return false;
  auto m = text(field(fn, "attribute"));
  if (m == "cuda") return true;
  if (m != "to") return false;
  Node dev = argument(call, 0, "device");
  if (is_null(dev)) return false;
  if (is(unparen(argument(call, 0, "")), "keyword_argument")) return false;
  DeviceKind d = device_kind(dev);
  return d == DeviceKind::Cuda || d == DeviceKind::Unknown;
}

bool SemanticModel::is_cuda(Node expr) const { return uses_cuda_ && is_cuda_impl(expr); }

bool SemanticModel::binding_is_cuda(const Binding& b) const {
  switch (b.kind) {
    case Binding::Kind::Assign:
    case Binding::Kind::With:
      if (b.unpack_index >= 0) {
        Node v = unparen(b.value);
        if ((is(v, "tuple") || is(v, "expression_list") || is(v, "list")) &&
            b.unpack_index < static_cast<int>(named_count(v)))
          return is_cuda_impl(named_child(v, b.unpack_index));
      }
      return is_cuda_impl(b.value);
    case Binding::Kind::AugAssign: return is_cuda_impl(field(b.value, "right"));
    case Binding::Kind::LoopTarget: return is_cuda_impl(b.value);
    case Binding::Kind::Param: {
      const Function& fn = functions_[b.function];
      const Param& p = fn.params[b.param_index];
      if (const ArgFacts* ext = ext_param(b.function, b.param_index, fact::kCuda); ext && ext->cuda) return true;
      if (lightning_gpu_ && is_step_hook(b.function) && b.param_index > 0 && p.name != "batch_idx" &&
          p.name != "dataloader_idx")
        return true;
      int position = fn.klass >= 0 ? b.param_index - 1 : b.param_index;
      if (position < 0 || p.is_variadic) return false;
      for (int ci : callers(b.function)) {
        Node a = argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name);
        if (!is_null(a) && is_cuda_impl(a)) return true;
      }
      return false;
    }
    default: return false;
  }
}

bool SemanticModel::is_cuda_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  // The expression's abstract type decides where it is known; the CUDA taint below otherwise.
  return memo_bool(cuda_cache_, expr, [&] {
    switch (types_->cuda(expr)) {
      case CudaAnswer::Host: return false;
      case CudaAnswer::Cuda: return true;
      default: return is_cuda_uncached(expr, kind(expr));
    }
  });
}

bool SemanticModel::is_cuda_uncached(Node expr, std::string_view k) const {
  bool result = false;
  static const std::set<std::string, std::less<>> host_attrs = {
      "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad_fn", "layout", "is_leaf", "training",
      "names", "itemsize", "nbytes", "param_groups", "defaults"};
  static const std::set<std::string, std::less<>> host_methods = {
      "item", "tolist", "numpy", "cpu", "size", "dim", "numel", "data_ptr", "element_size", "nelement", "stride",
      "is_contiguous", "__len__", "get_device", "storage_offset", "state_dict", "parameters", "named_parameters",
      "keys", "__repr__", "__str__", "is_floating_point", "is_complex", "log", "log_dict", "format"};
  // Builtins that hand back (parts of) their arguments; every other builtin returns a host value.
  static const std::set<std::string, std::less<>> passing_builtins = {
      "builtins.sum", "builtins.min", "builtins.max", "builtins.abs", "builtins.list", "builtins.tuple",
      "builtins.sorted", "builtins.reversed", "builtins.next", "builtins.iter", "builtins.zip",
      "builtins.enumerate", "builtins.map", "builtins.filter", "builtins.getattr", "builtins.pow"};
  if (k == "identifier") {
    for (const Binding* b : lookup(text(expr), start(expr)))
      if (binding_is_cuda(*b)) {
        result = true;
        break;
      }
  } else if (k == "attribute") {
    std::string_view attr = text(field(expr, "attribute"));
    int klass = class_of_self(expr);
    if (host_attrs.count(attr) || attr.substr(0, 3) == "is_") {
      result = false;
    } else if (klass >= 0) {
      std::string key = classes_[klass].name + "." + std::string(attr);
      auto indexed = self_assignments_by_key_.find(key);
      if (indexed != self_assignments_by_key_.end())
        for (int ai : indexed->second)
          if (is_cuda_impl(self_assignments_[ai].second)) {
            result = true;
            break;
          }
    } else if (!starts_with(qualified_name(expr), "torch")) {
      result = is_cuda_impl(field(expr, "object"));
    }
  } else if (k == "subscript") {
    result = is_cuda_impl(field(expr, "value"));
  } else if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    auto any_arg_cuda = [&] {
      for (auto a : named_children(field(expr, "arguments"))) {
        Node v = is(a, "keyword_argument") ? field(a, "value") : a;
        if (is(v, "list_splat") || is(v, "dictionary_splat")) v = named_child(v, 0);
        // A module passed along (`create_optimizer(model)`, `DDP(model)`) does not make the
        // result a tensor; calling the module does.
        if (is_cuda_impl(v) && !is_module_value(v)) return true;
      }
      return false;
    };
    if ((starts_with(q, "builtins.") && !passing_builtins.count(q)) || starts_with(q, "numpy.") || starts_with(q, "math.") || starts_with(q, "time.") ||
        starts_with(q, "torch.cuda.") || starts_with(q, "logging.")) {
      result = false;
    } else if (starts_with(q, "torch.") && !is_null(argument(expr, -1, "device"))) {
      // Factories: torch.zeros(..., device=dev)
      DeviceKind d = device_kind(argument(expr, -1, "device"));
      result = d == DeviceKind::Cuda || d == DeviceKind::Unknown;
    } else if (is(fn, "attribute")) {
      std::string_view m = text(field(fn, "attribute"));
      Node recv = field(fn, "object");
      if (m == "cuda") result = true;
      else if (m == "to") {
        Node dev = argument(expr, 0, "device");
        DeviceKind d = is_null(dev) ? DeviceKind::NotDevice : device_kind(dev);
        if (d == DeviceKind::Cuda || d == DeviceKind::Unknown) result = true;
        else if (d == DeviceKind::Cpu) result = false;
        else result = is_cuda_impl(recv) || any_arg_cuda();
      } else if (host_methods.count(m)) {
        result = false;
      } else if (m == "append" || m == "extend") {
        result = false;
      } else {
        result = is_cuda_impl(recv) || any_arg_cuda() || is_cuda_impl(fn);
      }
    } else {
      result = any_arg_cuda() || is_cuda_impl(fn);
    }
    // A function defined here: what it returns decides (an `accuracy()` that returns
    // `.item()` hands back a Python float).
    if (const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsCuda)) result = ext->returns_cuda;  // another module's
    auto targets = callees(expr);
    if (!targets.empty()) {
      bool returns_cuda = false;
      for (int f : targets)
        for (Node r : functions_[f].returns) returns_cuda |= is_cuda_impl(r);
      result = returns_cuda;
    }
  } else if (k == "binary_operator") {
    // `"%s" % t` is a host string (the formatting itself is the readback).
    bool formatting = text(field(expr, "operator")) == "%" && is(unparen(field(expr, "left")), "string");
    result = !formatting &&
             (is_cuda_impl(field(expr, "left")) || is_cuda_impl(field(expr, "right")));
  } else if (k == "unary_operator") {
    result = is_cuda_impl(field(expr, "argument"));
  } else if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1));
    // `is`, `is not`, `in`, `not in` compare identities or membership: Python booleans.
    if (op.substr(0, 2) != "is" && op != "in" && op.substr(0, 3) != "not") {
      for (auto c : named_children(expr)) result |= is_cuda_impl(c);
    }
  } else if (k == "conditional_expression") {
    auto parts = named_children(expr);
    if (parts.size() == 3) result = is_cuda_impl(parts[0]) || is_cuda_impl(parts[2]);
  } else if (k == "boolean_operator") {
    result = is_cuda_impl(field(expr, "left")) || is_cuda_impl(field(expr, "right"));
  } else if (k == "list" || k == "tuple" || k == "expression_list") {
    for (auto c : named_children(expr)) result |= is_cuda_impl(c);
  } else if (k == "list_comprehension" || k == "generator_expression") {
    result = is_cuda_impl(field(expr, "body"));
  }
  // A container appended CUDA values: `losses.append(loss)` taints `losses`.
  if (!result && k == "identifier") {
    auto found = appends_.find({scope_at(start(expr)), std::string(text(expr))});
    if (found != appends_.end())
      for (Node call : found->second)
        if (is_cuda_impl(argument(call, 0, ""))) {
          result = true;
          break;
        }
  }
  return result;
}

bool SemanticModel::is_cuda_bool(Node expr) const { return uses_cuda_ && is_cuda_bool_impl(expr); }

bool SemanticModel::is_cuda_bool_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(cuda_bool_cache_, expr, [&] { return is_cuda_bool_uncached(expr); });
}

bool SemanticModel::is_cuda_bool_uncached(Node expr) const {
  auto k = kind(expr);
  if (k == "comparison_operator") {
    std::string_view op = text(ts_node_child(expr, 1));
    if (op.substr(0, 2) == "is" || op == "in" || op.substr(0, 3) == "not") return false;
    return is_cuda_impl(expr);
  }
  if (k == "unary_operator" && text(ts_node_child(expr, 0)) == "~") return is_cuda_bool_impl(field(expr, "argument"));
  if (k == "binary_operator") {
    auto op = text(field(expr, "operator"));
    if (op == "&" || op == "|" || op == "^")
      return is_cuda_bool_impl(field(expr, "left")) || is_cuda_bool_impl(field(expr, "right"));
    return false;
  }
  if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    static const std::set<std::string, std::less<>> bool_fns = {
        "torch.isnan", "torch.isinf", "torch.isfinite", "torch.logical_and", "torch.logical_or", "torch.logical_not",
        "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.isin"};
    if (bool_fns.count(q)) return is_cuda_impl(expr);
    if (is(fn, "attribute")) {
      static const std::set<std::string, std::less<>> bool_methods = {"bool", "eq", "ne", "gt", "lt", "ge", "le",
                                                                      "isnan", "isinf", "logical_not", "logical_and",
                                                                      "logical_or"};
      if (bool_methods.count(text(field(fn, "attribute")))) return is_cuda_impl(expr);
    }
    return false;
  }
  if (k == "identifier") {
    for (const Binding* b : lookup(text(expr), start(expr)))
      if ((b->kind == Binding::Kind::Assign) && b->unpack_index < 0 && is_cuda_bool_impl(b->value))
        return true;
  }
  return false;
}

bool SemanticModel::is_batch_value(Node expr) const { return is_batch_impl(expr); }

bool SemanticModel::is_batch_impl(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(batch_cache_, expr, [&] { return is_batch_uncached(expr); });
}

bool SemanticModel::is_batch_uncached(Node expr) const {
  bool result = false;
  auto k = kind(expr);
  if (k == "identifier") {
    for (const Binding* b : lookup(text(expr), start(expr))) {
      if (b->kind == Binding::Kind::LoopTarget) {
        result = is_loader_impl(b->value) || is_batch_impl(b->value);
      } else if (b->kind == Binding::Kind::Assign) {
        Node v = unparen(b->value);
        if (b->unpack_index >= 0 && (is(v, "tuple") || is(v, "expression_list")) &&
            b->unpack_index < static_cast<int>(named_count(v)))
          v = named_child(v, b->unpack_index);
        result = is_batch_impl(v);
      } else if (b->kind == Binding::Kind::Param) {
        const Function& fn = functions_[b->function];
        const Param& p = fn.params[b->param_index];
        int position = fn.klass >= 0 ? b->param_index - 1 : b->param_index;
        if (position >= 0 && !p.is_variadic)
          for (int ci : callers(b->function)) {
            Node a = argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name);
            if (!is_null(a) && is_batch_impl(a)) result = true;
          }
      }
      if (result) break;
    }
  } else if (k == "subscript") {
    result = is_batch_impl(field(expr, "value"));
  } else if (k == "attribute") {
    result = is_batch_impl(field(expr, "object"));
  } else if (k == "call") {
    Node fn = unparen(field(expr, "function"));
    if (qualified_name(fn) == "builtins.next") result = is_loader_impl(argument(expr, 0, ""));
    else if (is(fn, "attribute")) result = is_batch_impl(field(fn, "object"));
  }
  return result;
}

bool SemanticModel::assigned_within(std::string_view name, Node region) const {
  if (starts_with(name, "self.")) {
    for (const auto& [key, v] : self_assignments_)
      if (last_part(key) == name.substr(5) && contains(region, v)) return true;
    return false;
  }
  for (const auto& sc : scopes_) {
    auto it = sc.bindings.find(std::string(name));
    if (it == sc.bindings.end()) continue;
    for (const auto& b : it->second)
      if (!is_null(b.target) && contains(region, b.target)) return true;
  }
  return false;
}


}  // namespace stoker::python
