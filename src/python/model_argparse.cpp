// Argparse namespaces: `vars(args)` dicts, a parser's required flags and defaults, the namespaces
// other project modules hand this one, and what `args.<dest>` reads of a namespace value. Split
// from model_values.cpp by concern (issue 10's layout: no source file over 2,000 lines).
#include "python/checked_int.h"
#include "python/model_internal.h"
#include "python/model_argparse.h"
#include "python/reflective_namespace.h"
#include "python/project_fields.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace stoker::python {

using namespace model_detail;

// `vars(args)` where every value of args is an argparse namespace (namespace_value); also a
// call of a function of this file every return of which is such a dict (`args = parse_opt()`
// with `return vars(parser.parse_args())`, or a name bound to it: fasterrcnn's train.py).
// At most 2 such calls nested: deeper chains (and a function returning its own call) are not one.
bool SemanticModel::is_argparse_vars(Node e) const {
  e = unparen(e);
  if (!is(e, "call")) return false;
  if (callee_name(e) != "builtins.vars") {
    static thread_local int nested = 0;
    auto targets = callees(e);
    if (targets.size() != 1 || nested >= 2) return false;
    const auto& returns = functions_[targets[0]].returns;
    if (returns.empty()) return false;
    Step step(*this);
    if (!step) return false;
    struct Depth {  // one level deeper for the returns' values, also when a budget throws
      int& n;
      explicit Depth(int& c) : n(c) { ++n; }
      ~Depth() { --n; }
    } depth(nested);
    bool out = true;
    for (size_t r = 0; out && r < returns.size(); ++r) {
      auto vs = values(returns[r]);
      if (vs.empty()) out = false;
      for (const auto& v : vs) out = out && v.kind == Value::Kind::Expr && is_argparse_vars(v.expr);
    }
    return out;
  }
  if (named_count(field(e, "arguments")) != 1) return false;
  for (const auto& o : values(named_child(field(e, "arguments"), 0)))
    if (!namespace_value(o)) return false;
  return true;
}

bool SemanticModel::argparse_required(Node call) const {
  Node req = argument(call, -1, "required");
  if (!is_null(req)) {
    auto c = constant(req);
    return c && c->kind == Value::Kind::Bool && c->b;
  }
  Node args = field(call, "arguments");
  Node first = named_count(args) > 0 ? named_child(args, 0) : Node{};
  std::string name;
  if (is_null(first) || !string_literal_value(first, src_, name) || name.empty() || name[0] == '-') return false;
  std::string nargs;
  Node n = argument(call, -1, "nargs");
  if (!is_null(n) && (!string_literal_value(n, src_, nargs) || nargs == "?" || nargs == "*")) return false;
  return true;
}

// `if not args.do_train and not args.do_eval: raise ValueError(...)` (a `raise` first in the
// consequence of a conjunction of at least two negated attributes, one of them `.dest`): the
// program runs on only when one of the switches is given, so they are not all their default
// False (set J LoRA's run_openai_gpt.py, whose training and evaluation sit under `if
// args.do_train:` / `if args.do_eval:`). O(calls).
static bool one_switch_required(const SemanticModel& m, std::string_view dest) {
  std::string_view src = m.src();
  for (const auto& cs : m.calls()) {
    Node raise = parent(cs.call);
    if (!is(raise, "raise_statement")) continue;
    Node block = parent(raise), branch = parent(block);
    if (!is(branch, "if_statement") || !same(field(branch, "consequence"), block) || !same(named_child(block, 0), raise))
      continue;
    std::vector<Node> terms, work{unparen(field(branch, "condition"))};
    bool all_not = true;
    while (!work.empty() && all_not && terms.size() < 16) {
      Node c = work.back();
      work.pop_back();
      if (is(c, "boolean_operator") && text(ts_node_child(c, 1), src) == "and") {
        work.push_back(unparen(field(c, "left")));
        work.push_back(unparen(field(c, "right")));
      } else if (is(c, "not_operator") && is(unparen(field(c, "argument")), "attribute")) {
        terms.push_back(unparen(field(c, "argument")));
      } else {
        all_not = false;
      }
    }
    if (!all_not || terms.size() < 2) continue;
    for (Node t : terms)
      if (text(field(t, "attribute"), src) == dest) return true;
  }
  return false;
}

std::vector<Value> SemanticModel::argparse_default(std::string_view dest) const {
  std::vector<Value> out;
  std::string key(dest);
  if (auto cached = argparse_cache_.find(key); cached != argparse_cache_.end()) return cached->second;
  auto found = argparse_args_.find(key);
  // `parser.set_defaults(dest=v)`: the parser's default for dest (model_detail::set_default_applies).
  Node set_value = sets_defaults_ ? model_detail::last_set_default(*this, dest) : Node{};
  if (found == argparse_args_.end() && !is_null(set_value)) {
    out = values(set_value);
    if (out.empty()) out.push_back(Value::unknown());
    argparse_cache_[key] = out;
    return out;
  }
  if (found == argparse_args_.end()) {
    // Declared by a parser of another module whose function returns the namespace
    // (`args = add_args(parser)` with `add_args` in configs.py).
    out = ext_namespace_values(dest);
    if (!out.empty()) {
      argparse_cache_[key] = out;
      return out;
    }
  }
  static const std::vector<Node> kNone;
  for (Node call : found == argparse_args_.end() ? kNone : found->second) {
    // A required argument (`required=True`, or a positional one that `nargs` does not make
    // optional) always holds what the command line gives: no default resolves it.
    if (argparse_required(call)) {
      add_values(out, {Value::unknown()});
      continue;
    }
    Node def = argument(call, -1, "default");
    if (model_detail::set_default_applies(set_value, call, !is_null(def))) {
      add_values(out, values(set_value));
      continue;
    }
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
  if (out.size() == 1 && out[0].kind == Value::Kind::Bool && !out[0].b && one_switch_required(*this, dest)) {
    Value on = out[0];
    on.b = true;
    add_values(out, {on});
  }
  if (out.empty()) out.push_back(Value::unknown());
  argparse_cache_[key] = out;
  return out;
}

static bool parses_command_line(const SemanticModel& m, Node call);

const std::vector<const FunctionFacts*>& SemanticModel::ext_namespaces() const {
  if (ext_namespaces_built_) return ext_namespaces_;
  ext_namespaces_built_ = true;
  if (!facts_) return ext_namespaces_;
  // O(calls) once: each call naming a function of another module (ext_name_ is filled).
  for (size_t ci = 0; ci < calls_.size() && ci < ext_name_.size(); ++ci) {
    if (ext_name_[ci].empty()) continue;
    const FunctionFacts* f = ext_callee(static_cast<int>(ci), fact::kNamespace);
    if (!f || !f->returns_namespace || f->namespace_values.empty()) continue;
    if (std::find(ext_namespaces_.begin(), ext_namespaces_.end(), f) == ext_namespaces_.end() &&
        ext_namespaces_.size() < 8)
      ext_namespaces_.push_back(f);
  }
  // `from opts import parser` then `args = parser.parse_args()`: a parser another module builds
  // at module level, whose `add_argument` defaults its entry carries (returns_namespace on the
  // name's entry; temporal-shift-module's main.py reading `args.workers` of opts.py, set AH,
  // rec28b). The receiver a name every binding of which is an import.
  for (const auto& cs : calls_) {
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute")) continue;
    auto method = text(field(fn, "attribute"));
    if (method != "parse_args" && method != "parse_known_args") continue;
    Node recv = unparen(field(fn, "object"));
    if (!is(recv, "identifier") && !is(recv, "attribute")) continue;
    Node root = recv;
    while (is(root, "attribute")) root = unparen(field(root, "object"));
    if (!is(root, "identifier")) continue;
    auto bindings = lookup(text(root), start(root));
    bool imported = !bindings.empty();
    for (const Binding* b : bindings) imported = imported && b->kind == Binding::Kind::Import;
    if (!imported) continue;
    const FunctionFacts* f = module_attribute(recv, fact::kNamespace);
    if (!f || !f->returns_namespace || f->namespace_values.empty()) continue;
    if (std::find(ext_namespaces_.begin(), ext_namespaces_.end(), f) == ext_namespaces_.end() &&
        ext_namespaces_.size() < 8)
      ext_namespaces_.push_back(f);
  }
  // A parser another module's function builds and returns (FunctionFacts::returns_parser) that
  // this module parses with: a parent of one of its parsers (`parents=[main.get_args_parser()]`
  // in DeiT's, ConViT's and MDETR's run_with_submitit.py, also through a name bound to the call),
  // or the receiver of its `parse_args()`. Its dests hold that module's defaults here, as the
  // parent's arguments are this parser's. O(calls).
  auto parser_of = [&](Node e) {
    for (const auto& v : values(e)) {
      if (v.kind != Value::Kind::Expr || !is(unparen(v.expr), "call")) continue;
      Node call = unparen(v.expr);
      if (!callees(call).empty()) continue;
      const FunctionFacts* f = ext_callee_of(call, fact::kNamespace);
      if (!f || !f->returns_parser || f->namespace_values.empty()) continue;
      if (std::find(ext_namespaces_.begin(), ext_namespaces_.end(), f) == ext_namespaces_.end() &&
          ext_namespaces_.size() < 8)
        ext_namespaces_.push_back(f);
    }
  };
  for (const auto& cs : calls_) {
    if (callee_name(cs.call) == "argparse.ArgumentParser") {
      Node parents = unparen(argument(cs.call, -1, "parents"));
      if (is(parents, "list") || is(parents, "tuple"))
        for (Node e : named_children(parents))
          if (!is(e, "comment") && !is(e, "list_splat")) parser_of(e);
      continue;
    }
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute")) continue;
    auto method = text(field(fn, "attribute"));
    if ((method == "parse_args" || method == "parse_known_args") && parses_command_line(*this, cs.call))
      parser_of(field(fn, "object"));
  }
  return ext_namespaces_;
}

std::vector<Value> SemanticModel::ext_namespace_values(std::string_view dest) const {
  std::vector<Value> out;
  for (const FunctionFacts* f : ext_namespaces()) {
    auto at = std::lower_bound(f->namespace_values.begin(), f->namespace_values.end(), dest,
                               [](const auto& entry, std::string_view d) { return entry.first < d; });
    if (at != f->namespace_values.end() && at->first == dest) add_values(out, to_values(at->second));
  }
  return out;
}

// parse_args()/parse_known_args() on the command line: not handed a literal list of arguments
// (those set values the defaults do not tell) nor a namespace to fill.
static bool parses_command_line(const SemanticModel& m, Node call) {
  if (!is_null(m.argument(call, -1, "namespace")) || !is_null(m.argument(call, 1, ""))) return false;
  Node a = m.argument(call, 0, "args");
  if (is_null(a)) return true;
  for (const auto& v : m.values(a)) {
    if (v.kind == Value::Kind::None || v.kind == Value::Kind::Unknown) continue;
    if (v.kind != Value::Kind::Expr) return false;
    auto k = kind(unparen(v.expr));
    if (k == "list" || k == "tuple" || k == "list_comprehension" || k == "string") return false;
  }
  return true;
}

const FunctionFacts* SemanticModel::imported_namespace(const Value& v) const {
  if (!facts_ || v.kind != Value::Kind::Expr) return nullptr;
  Node e = unparen(v.expr);
  if (!is(e, "identifier")) return nullptr;
  auto bindings = lookup(text(e), start(e));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Import) return nullptr;
  const FunctionFacts* f = module_attribute(e, fact::kNamespace);
  return f && f->namespace_object && f->returns_namespace && !f->namespace_values.empty() ? f : nullptr;
}

// A candidate value that is an argparse namespace: `parser.parse_args()`,
// `parser.parse_known_args()[0]`, the first target of `args, rest = parser.parse_known_args()`,
// a call of a project function whose every return is one of those, or another module's
// namespace imported by name.
bool SemanticModel::namespace_value(const Value& v) const {
  if (v.kind != Value::Kind::Expr) return false;
  if (namespace_param(v)) return true;
  if (imported_namespace(v)) return true;
  Node e = unparen(v.expr);
  if (is(e, "call")) return namespace_call(e);
  if (is(e, "subscript")) {
    Node inner = unparen(field(e, "value"));
    auto i = constant_int(field(e, "subscript"));
    return i && *i == 0 && is(inner, "call") && method_of(inner, src_) == "parse_known_args" &&
           parses_command_line(*this, inner);
  }
  if (is(e, "identifier")) {
    Node pattern = parent(e), assign = parent(pattern);
    if ((is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) && is(assign, "assignment") &&
        same(unparen(field(assign, "left")), pattern) && same(named_child(pattern, 0), e)) {
      Node right = unparen(field(assign, "right"));
      return is(right, "call") && method_of(right, src_) == "parse_known_args" && parses_command_line(*this, right);
    }
  }
  // The parameter of an `__init__` of a class built by name that declares its own flags.
  if (!is_null(parent(e)) && (is(parent(e), "parameters") || is(parent(e), "typed_parameter")))
    return reflective_namespace_node(*this, e);
  return false;
}

bool model_detail::returns_self_namespace(const SemanticModel& m, Node ret,
                                          const std::function<bool(const Value&)>& is_namespace) {
  Node r = unparen(ret);
  if (!is(r, "attribute")) return false;
  Node obj = unparen(field(r, "object"));
  if (!is(obj, "identifier") || text(obj, m.src()) != "self") return false;
  int f = m.function_at(start(r));
  if (f < 0 || m.functions()[f].klass < 0) return false;
  std::string_view name = text(field(r, "attribute"), m.src());
  bool stored = false, all = true;
  for_each_identifier(m.classes()[m.functions()[f].klass].node, false, [&](Node id) {
    Node a = parent(id);
    if (text(id, m.src()) != "self" || !is(a, "attribute") || !same(unparen(field(a, "object")), id) ||
        text(field(a, "attribute"), m.src()) != name)
      return true;
    Node up = parent(a);
    while (is(up, "parenthesized_expression")) up = parent(up);
    if (is(up, "augmented_assignment") && same(unparen(field(up, "left")), a)) return all = false;
    if (is(up, "pattern_list") || is(up, "tuple_pattern") || is(up, "list_pattern")) return all = false;
    if (!is(up, "assignment") || !same(unparen(field(up, "left")), a)) return true;  // a read
    auto vs = m.values(field(up, "right"));
    stored = true;
    all = !vs.empty();
    for (const auto& v : vs) all = all && is_namespace(v);
    return all;
  });
  return stored && all;
}

Node model_detail::last_set_default(const SemanticModel& m, std::string_view dest) {
  Node out{};
  for (const auto& cs : m.calls()) {
    if (method_of(cs.call, m.src()) != "set_defaults") continue;
    for (Node a : named_children(field(cs.call, "arguments")))
      if (is(a, "keyword_argument") && text(field(a, "name"), m.src()) == dest &&
          (is_null(out) || start(a) > start(out)))
        out = field(a, "value");
  }
  return out;
}

bool SemanticModel::namespace_call(Node call) const {
  if (auto cached = namespace_cache_.find(call.id); cached != namespace_cache_.end()) return cached->second == 1;
  Step step(*this);
  if (!step) return false;
  namespace_cache_[call.id] = 2;  // in progress (a recursion): not a namespace
  bool out = false;
  if (method_of(call, src_) == "parse_args") {
    out = parses_command_line(*this, call);
  } else if (const FunctionFacts* ext = callees(call).empty() ? ext_callee_of(call, fact::kNamespace) : nullptr;
             ext && ext->returns_namespace) {
    out = true;  // a function of another module returning its parser's namespace
  } else if (auto targets = callees(call); targets.size() == 1) {
    // `args = parse_args()`: every `return` of the function hands back a namespace.
    const auto& returns = functions_[targets[0]].returns;
    out = !returns.empty();
    auto is_namespace = [&](const Value& x) { return namespace_value(x); };
    for (size_t r = 0; out && r < returns.size(); ++r) {
      if (model_detail::returns_self_namespace(*this, returns[r], is_namespace)) continue;
      auto vs = values(returns[r]);
      if (vs.empty()) out = false;
      for (const auto& x : vs) out = out && namespace_value(x);
    }
  }
  namespace_cache_[call.id] = out ? 1 : 0;
  return out;
}

// `args.<dest>` of a namespace: the argparse defaults, joined with what the program stores in
// that attribute of a namespace (`args.x = ...`, setattr); a store that is not read is unknown.
// `setattr(ns, name, v)` whose name argument may hold only string constants, none of them
// `dest` (`def replace(name): ... setattr(args, name, getattr(cfg, name))` called as
// `replace('lr')`, `replace('decay')`: YOLACT's train.py, set AL; the parameter's values are its
// call sites'): the store never writes `dest`. `obj` is the call's first argument. O(values of
// the name).
static bool setattr_names_exclude(const SemanticModel& m, Node obj, std::string_view dest) {
  Node call = parent(parent(obj));
  if (!is(call, "call")) return false;
  auto a = named_children(field(call, "arguments"));
  if (a.size() != 3 || !is(unparen(a[1]), "identifier")) return false;
  auto names = m.values(unparen(a[1]));
  if (names.empty() || names.size() > SemanticModel::kMaxCandidates) return false;
  for (const auto& v : names)
    if (v.kind != Value::Kind::Str || v.s == dest) return false;
  return true;
}

const ArgFacts* SemanticModel::namespace_param(const Value& v) const {
  if (v.kind != Value::Kind::Expr || namespace_params_.empty()) return nullptr;
  auto it = namespace_params_.find(v.expr.id);
  return it == namespace_params_.end() ? nullptr : it->second;
}

// A store `obj.<dest> = v` that runs only after the test reading `read` (an `if`/`elif` whose
// condition holds `read` and whose statement holds the store) cannot change what that test
// reads: `if args.resume is not None: args = pickle.load(f); args.resume = resume` leaves the
// test reading the default None. Only where the test runs once per namespace: the `if` sits in
// no loop of its scope, and its scope is the module or a function whose object name is bound
// there by assignments of calls' results only (a namespace parsed per call; not a parameter, which a
// second call may hand with the store already made, nor a local alias of one). O(depth of read + depth of the if).
bool model_detail::stored_after_own_test(const SemanticModel& m, Node read, Node obj) {
  if (is_null(read)) return false;
  Node test{}, child = read;
  for (Node p = parent(read); !is_null(p); child = p, p = parent(p)) {
    auto k = kind(p);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "block") return false;
    if ((k == "if_statement" || k == "elif_clause") && same(field(p, "condition"), child)) {
      test = p;
      break;
    }
  }
  if (is_null(test) || !contains(test, obj)) return false;
  Node scope{};
  for (Node p = parent(test); !is_null(p); p = parent(p)) {
    auto k = kind(p);
    if (k == "for_statement" || k == "while_statement") return false;
    if (k == "function_definition" || k == "lambda" || k == "class_definition") {
      scope = p;
      break;
    }
  }
  // The store itself in a nested function or class of the branch runs whenever that is called.
  for (Node p = parent(obj); !is_null(p) && !same(p, test); p = parent(p)) {
    auto k = kind(p);
    if (k == "function_definition" || k == "lambda" || k == "class_definition") return false;
  }
  if (is_null(scope)) return true;
  if (!is(scope, "function_definition")) return false;
  Node o = unparen(obj);
  if (!is(o, "identifier")) return false;
  auto bindings = m.lookup(text(o, m.src()), start(read));
  if (bindings.empty()) return false;
  // Each binding a call's result (`args = parser.parse_args()`, `pickle.load(f)`): an object made by
  // this run of the function, not an alias of one that outlives it (`opt = args` of a parameter or
  // a global, whose store a second call's test would see).
  for (const Binding* b : bindings)
    if (b->kind != Binding::Kind::Assign || b->at < start(scope) || b->at >= end(scope) || !is(b->plain_value(), "call"))
      return false;
  return true;
}

std::vector<Value> SemanticModel::namespace_attribute(std::string_view dest, const std::vector<Value>* declared,
                                                      Node read) const {
  // An attribute no add_argument declares (nor set_defaults may) and the program stores
  // (`args.num_gpu = torch.cuda.device_count()`): reading it before a store raises, so a read
  // sees one of the stores.
  auto own = attribute_stores_.find(std::string(dest));
  bool stored_only = !declared && !sets_defaults_ && !argparse_args_.count(std::string(dest)) &&
                     own != attribute_stores_.end() && !own->second.empty() && ext_namespace_values(dest).empty();
  std::vector<Value> out = declared ? *declared : stored_only ? std::vector<Value>{} : argparse_default(dest);
  std::vector<Node> augmented;
  struct Scaled {
    Node by{};
    bool ceil;
  };
  std::vector<Scaled> scaled;  // `args.w = int((args.w + n - 1) / n)`, `args.w = args.w * n`
  for (std::string key : {std::string(dest), std::string("*")}) {
    auto stores = attribute_stores_.find(key);
    if (stores == attribute_stores_.end()) continue;
    for (const auto& [obj, value] : stores->second) {
      // A config's new keys copied onto the parsed arguments leave the parser's own alone.
      if (key == "*" && argparse_args_.count(std::string(dest)) && setattr_adds_only_new(obj)) continue;
      if (key == "*" && setattr_names_exclude(*this, obj, dest)) continue;
      if (model_detail::stored_after_own_test(*this, read, obj)) continue;
      auto objs = values(obj);
      bool ns = !objs.empty();
      for (const auto& o : objs) ns = ns && namespace_value(o);
      if (!ns) continue;
      // A store in a branch that a flag left off never runs (`if args.output_web_json:
      // args.output_coco_json = True` with store_true flags: set AL yolact eval.py) stores
      // nothing; one under a comparison of a choice (`if opts.dataset == "voc":`) is another
      // configuration's value, kept.
      if (types_) {
        bool dead = false;
        for (const auto& g : branch_guards(obj)) dead = dead || (flag_test(g.first, src_) && guards_dead({g}));
        if (dead) continue;
      }
      Node count{}, by{};
      bool ceil = false;
      if (is(value, "augmented_assignment")) augmented.push_back(value);
      else if (!is_null(value) && scaled_count(value, count, by, ceil) && is(count, "attribute") &&
               text(field(count, "attribute")) == dest && text(unparen(field(count, "object"))) == text(unparen(obj)))
        scaled.push_back({by, ceil});
      else add_values(out, is_null(value) ? std::vector<Value>{Value::unknown()} : values(value));
    }
  }
  // Scaled stores of the attribute by itself, applied to every candidate until nothing new comes.
  for (size_t round = 0; !scaled.empty() && round <= kMaxCandidates; ++round) {
    size_t before = out.size();
    for (const auto& sc : scaled) add_values(out, scale_values(out, sc.by, sc.ceil));
    if (out.size() == before) break;
  }
  // `args.x |= args.y`, `args.x += n`: applied to every candidate until nothing new comes (or
  // the candidates saturate into unknown), whatever order the stores run in.
  for (size_t round = 0; !augmented.empty() && round <= kMaxCandidates; ++round) {
    size_t before = out.size();
    for (Node a : augmented) {
      std::string_view op = text(field(a, "operator"));
      auto rhs = values(field(a, "right"));
      std::vector<Value> next;
      for (const auto& x : out)
        for (const auto& y : rhs) {
          Value r = Value::unknown();
          if (x.kind == Value::Kind::Bool && y.kind == Value::Kind::Bool && (op == "|=" || op == "&=")) {
            r.kind = Value::Kind::Bool;
            r.b = op == "|=" ? (x.b || y.b) : (x.b && y.b);
          } else if (x.kind == Value::Kind::Int && y.kind == Value::Kind::Int && (op == "+=" || op == "-=" || op == "*=")) {
            if (auto folded = checked_int_op(op, x.i, y.i)) {
              r.kind = Value::Kind::Int;
              r.i = *folded;
            }
          }
          next.push_back(r);
        }
      add_values(out, next);
    }
    if (out.size() == before) break;
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

// `setattr(ns, k, v)` under `if k not in vars(ns):` (or a name bound to `vars(ns)` or
// `ns.__dict__`): the store only adds attributes the namespace lacks, so it never changes one
// the parser defines (DINO's config keys copied onto `args`, `else: raise`). `obj` is the
// call's first argument. O(depth of the call) nodes and the name's bindings.
bool SemanticModel::setattr_adds_only_new(Node obj) const {
  Node call = parent(parent(obj));
  if (!is(call, "call")) return false;
  auto a = named_children(field(call, "arguments"));
  if (a.size() != 3 || !is(unparen(a[1]), "identifier")) return false;
  std::string_view key = text(unparen(a[1])), ns = text(unparen(a[0]));
  auto names_dict = [&](Node e) {  // `vars(ns)` / `ns.__dict__`
    e = unparen(e);
    if (is(e, "call") && text(unparen(field(e, "function"))) == "vars") {
      auto args = named_children(field(e, "arguments"));
      return args.size() == 1 && text(unparen(args[0])) == ns;
    }
    return is(e, "attribute") && text(field(e, "attribute")) == "__dict__" && text(unparen(field(e, "object"))) == ns;
  };
  Node child = call;
  for (Node p = parent(call); !is_null(p); child = p, p = parent(p)) {
    auto k = kind(p);
    if (k == "function_definition" || k == "class_definition" || k == "lambda") return false;
    if (k != "if_statement" || !same(field(p, "consequence"), child)) continue;
    Node cond = unparen(field(p, "condition"));
    if (!is(cond, "comparison_operator") || named_count(cond) != 2) continue;
    Node left = unparen(named_child(cond, 0)), right = unparen(named_child(cond, 1));
    std::string_view between = src_.substr(end(left), start(right) - end(left));
    if (!is(left, "identifier") || text(left) != key) continue;
    if (between.find("not") == std::string_view::npos || between.find("in") == std::string_view::npos) continue;
    if (names_dict(right)) return true;
    if (is(right, "identifier")) {
      auto bindings = lookup(text(right), start(right));
      bool all = !bindings.empty() && bindings.size() <= kMaxCandidates;
      for (const Binding* b : bindings) all = all && b->is_plain_assign() && names_dict(b->value);
      if (all) return true;
    }
  }
  return false;
}

// `args.<dest>` (an attribute whose object's every candidate is a namespace this module's parsers
// fill) where every add_argument of dest declares an option that takes its value from the
// command line, not a switch: no action but "store", no `const=`, no bool type (`type=bool`, a
// converter named for bools: `str2bool`) nor choices of bools, not required, default None
// (absent or the literal). Its None says only that the user gave no value, not that a test of
// its truth is off: `if args.train_file:` around a whole training program (set AS XLdefgen
// run_model.py). guard_truth leaves such a test unknown. Not when set_defaults or another
// module's parser may give the dest its default. O(candidates of the object + add_argument calls).
bool SemanticModel::value_option_unset(Node attr) const {
  attr = unparen(attr);
  if (!is(attr, "attribute")) return false;
  std::string dest(text(field(attr, "attribute")));
  auto found = argparse_args_.find(dest);
  if (found == argparse_args_.end() || found->second.empty()) return false;
  if (sets_defaults_ && !is_null(model_detail::last_set_default(*this, dest))) return false;
  auto objs = values(field(attr, "object"));
  if (objs.empty()) return false;
  for (const auto& o : objs)
    if (!namespace_value(o) || namespace_param(o)) return false;
  for (Node call : found->second) {
    if (argparse_required(call)) return false;
    std::string action;
    Node act = argument(call, -1, "action");
    if (!is_null(act) && (!string_literal_value(act, src_, action) || action != "store")) return false;
    if (!is_null(argument(call, -1, "const"))) return false;
    Node type = argument(call, -1, "type");
    if (!is_null(type) && text(type).find("bool") != std::string_view::npos) return false;
    Node choices = argument(call, -1, "choices");
    if (!is_null(choices) && (text(choices).find("True") != std::string_view::npos ||
                              text(choices).find("False") != std::string_view::npos))
      return false;
    Node def = argument(call, -1, "default");
    if (!is_null(def) && !is(unparen(def), "none")) return false;
  }
  return true;
}

// `if args.train_file:` as a mode of a function that does nothing with the defaults: the test of
// a value option defaulting to None (value_option_unset) is a statement of a function's body
// whose every statement (but a docstring, `pass`) is an `if` without elif/else whose condition is
// off with the defaults (such a test, or one guard_truth knows False). Run with its defaults the
// function would do nothing, so it is run with a value (set AS XLdefgen run_model.py: `def
// main(args): if args.train_file: ... if args.generate: ...`, `--generate` a store_true switch
// that stays off). A test deeper in the body (`if args.noise_offset:` in a training loop, type
// float, default None: set G IP-Adapter) keeps reading the default. O(statements of the body).
bool SemanticModel::value_option_mode(Node cond) const {
  cond = unparen(cond);
  auto unset = [&](Node c) {
    c = unparen(c);
    if (!is(c, "attribute")) return false;
    auto v = constant(c);
    return v && v->kind == Value::Kind::None && value_option_unset(c);
  };
  if (!unset(cond)) return false;
  Node stmt = parent(cond);
  while (is(stmt, "parenthesized_expression")) stmt = parent(stmt);
  if (!is(stmt, "if_statement") || !same(unparen(field(stmt, "condition")), cond)) return false;
  Node body = parent(stmt);
  if (!is(body, "block") || !is(parent(body), "function_definition")) return false;
  for (Node st : named_children(body)) {
    if (is(st, "comment") || is(st, "pass_statement")) continue;
    if (is(st, "expression_statement") && named_count(st) == 1 && is(named_child(st, 0), "string")) continue;
    if (!is(st, "if_statement")) return false;
    for (Node c : named_children(st))
      if (is(c, "elif_clause") || is(c, "else_clause")) return false;
    if (same(st, stmt)) continue;
    Node c = unparen(field(st, "condition"));
    if (unset(c)) continue;
    auto t = guard_truth(c);
    if (!t || *t) return false;
  }
  return true;
}

// The namespace `a` (a name) handed by a call whose guards the namespace's own values decide
// against: the call runs only when the user gave another value, so the dests those guards read
// (`args.task` of `if 'pretrain' not in args.task:`) are not handed on with the values that
// contradict the call (rules.md, "Resolved value": the default is the value of the default run,
// and this call is not in it). Other dests keep theirs. O(guards x condition size), bounded.
void SemanticModel::drop_contradicted_dests(Node call, Node a,
                                            std::vector<std::pair<std::string, std::vector<ScalarFact>>>& out) const {
  a = unparen(a);
  if (out.empty() || !is(a, "identifier")) return;
  const std::string_view name = text(a);
  auto dest_of = [&](Node e) -> std::string {
    e = unparen(e);
    if (!is(e, "attribute")) return {};
    Node obj = unparen(field(e, "object"));
    return is(obj, "identifier") && text(obj) == name ? std::string(text(field(e, "attribute"))) : std::string{};
  };
  std::vector<std::string> dests, named;
  for (const auto& [cond, positive] : branch_guards(call)) {
    auto truth = guard_truth(cond);
    if (!truth || *truth == positive) continue;
    // `args.distill in ['abound', 'factor', 'fsp']`, `args.task == "pretrain_mpc"` (`not in`/`!=`
    // on the else side): a guard naming the values the call runs with leaves the dest as it was
    // (RepDistiller's init(), set J helper/pretrain.py:54; handing those values on is not done).
    Node c = unparen(cond);
    if (is(c, "comparison_operator") && named_count(c) == 2) {
      std::string op;
      for (uint32_t i = end(named_child(c, 0)); i < start(named_child(c, 1)) && i < src_.size(); ++i)
        if (src_[i] != ' ' && src_[i] != '\t') op += src_[i];
      bool eq = (op == "==" && positive) || (op == "!=" && !positive);
      bool in = (op == "in" && positive) || (op == "notin" && !positive);
      std::string d = dest_of(named_child(c, 0));
      if (d.empty() && eq) d = dest_of(named_child(c, 1));
      if (!d.empty() && (eq || in)) {
        named.push_back(d);
        continue;
      }
    }
    // Otherwise the attributes `name.<dest>` in the condition leave: a walk of its nodes, at most 256.
    std::vector<Node> stack{cond};
    for (int seen = 0; !stack.empty() && seen < 256; ++seen) {
      Node n = stack.back();
      stack.pop_back();
      if (std::string d = dest_of(n); !d.empty()) {
        dests.push_back(d);
        continue;
      }
      for (Node ch : named_children(n)) stack.push_back(ch);
    }
  }
  // A dest some guard names the values of (the elif of `if args.X == default:`) keeps its own.
  dests.erase(std::remove_if(dests.begin(), dests.end(),
                             [&](const std::string& d) { return std::find(named.begin(), named.end(), d) != named.end(); }),
              dests.end());
  if (dests.empty()) return;
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const auto& d) { return std::find(dests.begin(), dests.end(), d.first) != dests.end(); }),
            out.end());
}

}  // namespace stoker::python
