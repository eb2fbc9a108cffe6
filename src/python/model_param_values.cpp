// Values of bindings and parameters: process-group backends, None tests, comparisons, what a
// binding gives, unpacked returns, and parameters through call sites (here, spawned processes,
// other modules) and defaults. Split from model_values.cpp (session 41).
#include "python/call_positions.h"
#include "python/checked_int.h"
#include "python/class_constants.h"
#include "python/model_internal.h"
#include "python/reflective_namespace.h"
#include "python/project_fields.h"
#include "python/types.h"
#include "python/types_detail.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>

namespace stoker::python {

using namespace model_detail;

// ---------------------------------------------------------------------------------------
// Process-group backends (torch.distributed API knowledge).

std::vector<Value> SemanticModel::backend_values(Node call) const {
  Node g = argument(call, 0, "group");
  if (is_null(g) || is(unparen(g), "none")) return default_backend_at(call);
  std::vector<Value> out;
  for (const Value& v : values(g)) add_values(out, group_backend(v, 0));
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

std::vector<Value> SemanticModel::group_backend(const Value& group, int depth) const {
  if (group.kind == Value::Kind::None) return {Value::unknown()};  // the default group; where taken: unknown
  if (group.kind != Value::Kind::Expr || depth > 4) return {Value::unknown()};
  Node e = unparen(group.expr);
  const std::string& q = is(e, "call") ? callee_name(e) : qualified_name(e);
  if (q == "torch.distributed.group.WORLD" || q == "torch.distributed.GroupMember.WORLD")
    return default_backend_at(e);
  if (!is(e, "call")) return {Value::unknown()};
  if (q == "torch.distributed.new_group" || q == "torch.distributed.distributed_c10d.new_group") {
    Node bk = argument(e, 2, "backend");
    if (is_null(bk)) return default_backend_at(e);
    std::vector<Value> out;
    for (const Value& v : values(bk)) out.push_back(v.kind == Value::Kind::Str ? v : Value::unknown());
    return out;
  }
  // A group returned by a function of this file: each return, where it is.
  auto targets = callees(e);
  if (targets.empty()) return {Value::unknown()};
  std::vector<Value> out;
  for (int f : targets) {
    if (functions_[f].returns.empty()) return {Value::unknown()};
    for (Node r : functions_[f].returns)
      for (const Value& v : values(r)) add_values(out, group_backend(v, depth + 1));
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

std::vector<Value> SemanticModel::default_backend_at(Node at) const {
  // The innermost enclosing `if dist.get_backend() == "x":` (or `!=`) decides: in its branch the
  // default group's backend is "x", in the other branch it is anything but "x".
  for (Node n = at, p = parent(at); !is_null(p) && !is(p, "function_definition") && !is(p, "module");
       n = p, p = parent(p)) {
    if (!is(p, "if_statement")) continue;
    bool in_consequence = same(field(p, "consequence"), n);
    bool in_else = !in_consequence && (is(n, "else_clause") || is(n, "elif_clause"));
    if (!in_consequence && !in_else) continue;
    Node cond = unparen(field(p, "condition"));
    if (!is(cond, "comparison_operator") || named_count(cond) != 2) continue;
    std::string_view op = text(ts_node_child(cond, 1));
    if (op != "==" && op != "!=") continue;
    Node l = unparen(named_child(cond, 0)), r = unparen(named_child(cond, 1));
    if (is(l, "string")) std::swap(l, r);
    std::string s;
    if (!is(l, "call") || !string_literal_value(r, src_, s)) continue;
    const std::string& q = callee_name(l);
    if (q != "torch.distributed.get_backend" && q != "torch.distributed.distributed_c10d.get_backend") continue;
    if (named_count(field(l, "arguments")) != 0) continue;
    bool equal = (op == "==") == in_consequence;
    Value v;
    if (equal) {
      v.kind = Value::Kind::Str;
      v.s = s;
    } else {
      v.excluded.push_back(s);
    }
    return {v};
  }
  return {Value::unknown()};
}

// A comparison of two known operands. A name counts as known only when it holds the same
// constant wherever it is read (stable_constant): `x = None` before a loop that assigns x
// under `if x is None:` leaves the test unknown. Anything else is the comparison itself.
// Whether some call site of f runs: a site of this module no guard or unreached caller silences
// (dead_call), another module's site (its facts: it passes or leaves the parameter), or a spawn.
// Only then are the dead sites left out of a parameter's values (a function reached through dead
// sites only keeps what they hand, as before session 39). O(sites).
bool SemanticModel::some_live_site(int f, int pi, const std::vector<int>& sites, bool spawned) const {
  if (spawned) return true;
  for (int ci : sites)
    if (!dead_call(calls_[ci])) return true;
  const ArgFacts* ext = ext_param(f, pi, fact::kValues);
  return ext && (ext->passed || ext->defaulted);
}

// A parameter that every call hands a value that is never None (set BG VideoMAEv2
// engine_for_pretraining.py: `train_one_epoch(..., loss_scaler, ...)` of `loss_scaler = NativeScaler()`
// from run_mae_pretraining.py, its only caller: `if loss_scaler is None:` never holds). Each call site
// here passes a value arg_never_none accepts; the sites of other modules the same by their facts (the
// project class every passing site passes, or a tensor type joined over them, and no None among their
// values); a site leaving it out needs a default that is a known constant other than None. No site at
// all: unknown. Session 39: tensors (glow-tts commons.squeeze's `x_mask`, every caller passing a mask)
// and parameters handed on (mar's `p_sample_loop(noise=noise)` relaying its caller's noise), at most
// kMaxNeverNoneDepth relays. O(sites x depth), the values and types memoized.
bool SemanticModel::param_never_none(int f, int pi, int depth) const {
  if (depth > kMaxNeverNoneDepth || f < 0 || !types_) return false;
  const Function& fn = functions_[f];
  if (pi < 0 || pi >= static_cast<int>(fn.params.size())) return false;
  const Param& p = fn.params[pi];
  int position = pi - bound_params(fn);
  if (p.is_variadic || position < 0) return false;
  bool any = false, defaulted = false;
  const std::vector<int> sites = init_sites(f);
  const bool skip_dead = some_live_site(f, pi, sites, false);
  for (int ci : sites) {
    Node call = calls_[ci].call;
    // A site that never runs (a branch known not taken) hands nothing where another site does.
    if (skip_dead && dead_call(calls_[ci])) continue;
    Node a = argument(call, p.keyword_only ? -1 : position, p.name);
    if (is_null(a)) {
      if (has_splat_argument(call)) return false;
      defaulted = true;
      continue;
    }
    if (!arg_never_none(a, depth)) return false;
    any = true;
  }
  if (const ArgFacts* ext = ext_param(f, pi, fact::kValues | fact::kArgClass | fact::kType)) {
    if (ext->passed) {
      bool klass = !ext->klass.empty() && ext->klass != "?" && ext->klass.find('|') == std::string::npos;
      // A tensor that is no part of a step's batch (a collate may leave an element None).
      bool tensor = ext->type_kind == static_cast<int>(AbstractType::Kind::Tensor);
      if (tensor)
        if (const ArgFacts* b = ext_param(f, pi, fact::kBatch); !b || b->step || b->batch) tensor = false;
      if (!klass && !tensor) return false;
      for (const ScalarFact& v : ext->values)
        if (v.kind == ScalarFact::Kind::None) return false;
      any = true;
    }
    defaulted |= ext->defaulted;
  }
  if (!any) return false;
  if (defaulted) {
    if (is_null(p.default_value)) return false;
    auto d = constant(p.default_value);
    if (!d || d->kind == Value::Kind::None || d->kind == Value::Kind::Unknown || d->kind == Value::Kind::Expr)
      return false;
  }
  return true;
}

// An argument never None: a parameter of the caller handed on (param_never_none of that one, one
// relay deeper), or an expression whose every value is known and not None (no None constant, no
// unknown) typed an instance of a project class (not a framework's) or a tensor.
bool SemanticModel::arg_never_none(Node a, int depth) const {
  a = unparen(a);
  if (is(a, "identifier")) {
    auto bs = lookup(text(a), start(a));
    if (bs.size() == 1 && bs[0]->kind == Binding::Kind::Param && bs[0]->function >= 0 &&
        param_never_none(bs[0]->function, bs[0]->param_index, depth + 1))
      return true;
  }
  for (const Value& v : values(a))
    if (v.kind != Value::Kind::Expr) return false;  // None, or a value not known
  AbstractType t = types_->type_of(a);
  // A tensor computed here, not an element of a step's batch (a collate may leave one None).
  if (t.kind == AbstractType::Kind::Tensor) return !is_step_data(a) && !is_batch_value(a);
  if ((t.kind != AbstractType::Kind::Module && t.kind != AbstractType::Kind::Object) || t.framework >= 0 ||
      (t.klass < 0 && types_->class_name(t).empty()))
    return false;
  return true;
}

// `x is None` of an operand (a helper `exists(x)` returning `x is not None` asks it too): true
// when its known value is None, false when it is a known constant other than None or a parameter
// param_never_none holds for; nullopt otherwise. As comparison_values' `is None`.
std::optional<bool> SemanticModel::none_truth(Node e) const {
  e = unparen(e);
  if (is_null(e) || !types_) return std::nullopt;
  std::optional<Value> c;
  if (is(e, "identifier")) {
    auto bs = lookup(text(e), start(e));
    if (bs.size() == 1 && bs[0]->kind == Binding::Kind::Param && bs[0]->function >= 0) {
      if (param_never_none(bs[0]->function, bs[0]->param_index)) return false;
      // A parameter of a function no call site reaches (a library class's constructor, built
      // by its users): its default is no known value for a helper's test (set AS
      // naturalspeech2-pytorch's Trainer, `elif exists(folder):`).
      if (!some_live_site(bs[0]->function, bs[0]->param_index, init_sites(bs[0]->function), false))
        return std::nullopt;
    }
    c = stable_constant(e);
  } else if (is(e, "attribute")) {
    Node obj = unparen(field(e, "object"));
    bool on_self = is(obj, "identifier") && text(obj) == "self";
    if (!on_self && attribute_reassigned(text(field(e, "attribute")), e)) return std::nullopt;
    c = constant(e);
  } else {
    c = constant(e);
  }
  if (!c || c->kind == Value::Kind::Unknown || c->kind == Value::Kind::Expr) return std::nullopt;
  return c->kind == Value::Kind::None;
}

std::vector<Value> SemanticModel::comparison_values(Node cmp) const {
  Value self;
  self.kind = Value::Kind::Expr;
  self.expr = cmp;
  auto parts = named_children(cmp);
  // Not while calls are being resolved (call sites, and so parameters, are not all known yet).
  if (parts.size() != 2 || !types_) return {self};
  // The operator: the source between the operands, spaces collapsed ("is not", "not in").
  std::string op;
  for (uint32_t i = end(parts[0]); i < start(parts[1]) && i < src_.size(); ++i) {
    char ch = src_[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\\') {
      if (!op.empty() && op.back() != ' ') op += ' ';
    } else {
      op += ch;
    }
  }
  while (!op.empty() && op.back() == ' ') op.pop_back();
  auto known = [&](Node e) -> std::optional<Value> {
    e = unparen(e);
    if (is(e, "identifier")) return stable_constant(e);
    if (is(e, "attribute")) {
      // `args.rank == 0` where `args.rank = int(os.environ["RANK"])` somewhere: unknown.
      Node obj = unparen(field(e, "object"));
      bool on_self = is(obj, "identifier") && text(obj) == "self";
      if (!on_self && attribute_reassigned(text(field(e, "attribute")), e)) return std::nullopt;
    }
    return constant(e);
  };
  auto boolean = [](bool b) {
    Value v;
    v.kind = Value::Kind::Bool;
    v.b = b;
    return std::vector<Value>{v};
  };
  // Equality of two constants: nullopt when Python's answer is not plain.
  auto equal = [](const Value& a, const Value& b) -> std::optional<bool> {
    if (a.is_number() && b.is_number()) return a.number() == b.number();
    if (a.kind == Value::Kind::Str && b.kind == Value::Kind::Str) return a.s == b.s;
    if (a.kind == Value::Kind::None || b.kind == Value::Kind::None) return a.kind == b.kind;
    if ((a.kind == Value::Kind::Str && b.is_number()) || (b.kind == Value::Kind::Str && a.is_number())) return false;
    return std::nullopt;
  };
  // A parameter that every call hands an instance of a project class, never None (set BG
  // VideoMAEv2 engine_for_pretraining.py: `train_one_epoch(..., loss_scaler, ...)` of `loss_scaler =
  // NativeScaler()` from run_mae_pretraining.py, its only caller: `if loss_scaler is None:` never
  // holds). Each call site here passes a value typed an instance of a project class among whose
  // values is no None (`NativeScaler() if amp else None` has one: the optional is not followed by
  // the type's join); the sites of other modules the same by their facts (the class every passing
  // site passes, and no None among their values); a site leaving it out needs a default that is a
  // known constant other than None. No site at all: unknown. O(sites), the values and types memoized.
  auto param_never_none = [&](int f, int pi) { return this->param_never_none(f, pi, 0); };
  Node l = unparen(parts[0]), r = unparen(parts[1]);
  if (op == "is" || op == "is not") {
    // `x is None`: a known None, or a known value that is not None.
    Node other = is(r, "none") ? l : is(l, "none") ? r : Node{};
    // `flag is True`, `x is not False`: the bool singleton a known bool is (a None never is); a
    // known number or string is left open (an argparse string default is often rebound to a bool:
    // `args.flag = args.flag == "True"`, Chinese-LLaMA-Alpaca's ceval, set T).
    if (Node lit = is(r, "true") || is(r, "false") ? r : is(l, "true") || is(l, "false") ? l : Node{}; !is_null(lit)) {
      Node operand = unparen(same(lit, r) ? l : r);
      // A parameter's known value may be its default only, where another module's call passes a
      // bool computed at run time (`eval_subject(..., constrained_decoding=args.flag)`, set T):
      // left open.
      if (is(operand, "identifier"))
        for (const Binding* b : lookup(text(operand), start(operand)))
          if (b->kind == Binding::Kind::Param) return {self};
      auto c = known(operand);
      if (!c || (c->kind != Value::Kind::Bool && c->kind != Value::Kind::None)) return {self};
      bool identical = c->kind == Value::Kind::Bool && c->b == is(lit, "true");
      return boolean(op == "is" ? identical : !identical);
    }
    if (is_null(other)) return {self};
    if (is(unparen(other), "identifier")) {
      auto bs = lookup(text(unparen(other)), start(other));
      if (bs.size() == 1 && bs[0]->kind == Binding::Kind::Param && bs[0]->function >= 0 &&
          param_never_none(bs[0]->function, bs[0]->param_index))
        return boolean(op != "is");
    }
    auto c = known(other);
    if (!c) return {self};
    bool is_none = c->kind == Value::Kind::None;
    return boolean(op == "is" ? is_none : !is_none);
  }
  if (op == "==" || op == "!=") {
    auto a = known(l), b = known(r);
    if (a && b) {
      auto eq = equal(*a, *b);
      if (!eq) return {self};
      return boolean(op == "==" ? *eq : !*eq);
    }
    // A name of several known constants against a constant (`iou_type == "keypoints"` with
    // `iou_type` one of ("segm", "bbox")): known when every candidate gives the same answer.
    auto several = [&](Node e, const std::optional<Value>& one) -> std::optional<std::vector<Value>> {
      if (one) return std::vector<Value>{*one};
      if (is(e, "identifier")) return stable_candidates(e);
      return std::nullopt;
    };
    auto as = several(l, a), bs = several(r, b);
    if (!as || !bs) return {self};
    std::optional<bool> all;
    for (const Value& x : *as)
      for (const Value& y : *bs) {
        auto eq = equal(x, y);
        if (!eq || (all && *all != *eq)) return {self};
        all = eq;
      }
    if (!all) return {self};
    return boolean(op == "==" ? *all : !*all);
  }
  if (op == "<" || op == "<=" || op == ">" || op == ">=") {
    auto a = known(l), b = known(r);
    if (!a || !b || !a->is_number() || !b->is_number()) return {self};
    double x = a->number(), y = b->number();
    return boolean(op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y);
  }
  if (op == "in" || op == "not in") {
    auto a = known(l);
    if (!a) return {self};
    std::optional<bool> found;
    if (is(r, "tuple") || is(r, "list") || is(r, "set")) {
      found = false;
      for (Node e : named_children(r)) {
        auto c = is(e, "comment") ? std::optional<Value>{} : known(e);
        auto eq = c ? equal(*a, *c) : std::nullopt;
        if (!eq) return {self};
        if (*eq) found = true;
      }
    } else if (a->kind == Value::Kind::Str) {
      auto b = known(r);
      if (!b || b->kind != Value::Kind::Str) return {self};
      found = b->s.find(a->s) != std::string::npos;
    }
    if (!found) return {self};
    return boolean(op == "in" ? *found : !*found);
  }
  return {self};
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
        if (b.unpack_index == 0 && is(v, "call") && method_of(v, src_) == "parse_known_args") {
          Value ns;  // `args, rest = parser.parse_known_args()`: the target stands for the namespace
          ns.kind = Value::Kind::Expr;
          ns.expr = b.target;
          return {ns};
        }
        if (is(v, "call")) return unpacked_return_values(v, b);
        if (is(v, "identifier")) return unpacked_name_values(v, b);
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
      // `for iou_type in self.iou_types:` (a tuple of strings set in `__init__`, a parameter, a
      // filtered generator): the values the container's elements may take.
      if (b.unpack_index < 0 && same(unparen(field(parent(b.value), "left")), b.target)) {
        auto out = element_values(iterable);
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

// `args, extra = get_args()` with `def get_args(): ... return parser.parse_args(), extra`: the
// target takes the element at its position of every `return` of the project function(s) the
// call invokes (each a tuple display as long as the target pattern, which has no starred
// target); anything else is unknown.
std::vector<Value> SemanticModel::unpacked_return_values(Node call, const Binding& b) const {
  Node pattern = parent(b.target);
  if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) || !is(parent(pattern), "assignment") ||
      !same(unparen(field(parent(pattern), "left")), pattern))
    return {Value::unknown()};
  size_t width = 0;
  for (Node c : named_children(pattern)) {
    if (!is(c, "identifier")) return {Value::unknown()};  // starred, nested or attribute targets
    ++width;
  }
  auto targets = callees(call);
  if (targets.empty()) return {Value::unknown()};
  std::vector<Value> out;
  for (int f : targets) {
    if (functions_[f].name == "__init__" || functions_[f].returns.empty()) return {Value::unknown()};
    for (Node r : functions_[f].returns) {
      r = unparen(r);
      if (!(is(r, "tuple") || is(r, "expression_list")) || named_count(r) != width) return {Value::unknown()};
      for (Node e : named_children(r))
        if (is(e, "list_splat") || is(e, "comment")) return {Value::unknown()};
      add_values(out, values(named_child(r, static_cast<uint32_t>(b.unpack_index))));
    }
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

// `train_loader, eval_loader = loaders` with `loaders` a name whose values are tuple or list
// displays (a parameter every call site hands `[train_loader, eval_loader]`, a local assigned
// `(a, b)`): the target takes the element at its position of each display as wide as the target
// pattern (no starred element or target); any other value of the name leaves it unknown (joined).
std::vector<Value> SemanticModel::unpacked_name_values(Node name, const Binding& b) const {
  Node pattern = parent(b.target);
  if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern") || is(pattern, "list_pattern")) ||
      !is(parent(pattern), "assignment") || !same(unparen(field(parent(pattern), "left")), pattern))
    return {Value::unknown()};
  size_t width = 0;
  for (Node c : named_children(pattern)) {
    if (!is(c, "identifier")) return {Value::unknown()};  // starred, nested or attribute targets
    ++width;
  }
  std::vector<Value> out;
  for (const Value& v : values(name)) {
    Node d = v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{};
    bool display = !is_null(d) && (is(d, "tuple") || is(d, "list") || is(d, "expression_list")) &&
                   named_count(d) == width;
    if (display)
      for (Node e : named_children(d)) display = display && !is(e, "list_splat") && !is(e, "comment");
    if (!display) {
      add_values(out, {Value::unknown()});
      continue;
    }
    add_values(out, values(named_child(d, static_cast<uint32_t>(b.unpack_index))));
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
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

// O(calls + classes x bases) once per class.
const std::vector<int>& SemanticModel::constructor_calls(int klass) const {
  auto [it, fresh] = constructor_calls_.try_emplace(klass);
  if (!fresh) return it->second;
  // The class and the subclasses here that inherit its __init__ (constructing one runs it); a
  // subclass with its own __init__ runs it through its `super().__init__(...)`, a call site of
  // its own (callers()). O(classes x bases) per level, at most kMaxCandidates classes.
  std::vector<int> classes{klass};
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string& name = classes_[classes[i]].name;
    for (size_t o = 0; o < classes_.size(); ++o)
      for (const std::string& b : classes_[o].bases) {
        if (!base_names_class(b, name)) continue;
        if (classes_[o].methods.count("__init__")) continue;
        if (std::find(classes.begin(), classes.end(), static_cast<int>(o)) != classes.end()) continue;
        if (classes.size() >= kMaxCandidates) return it->second;  // too many to follow: none read
        classes.push_back(static_cast<int>(o));
      }
  }
  std::vector<int> out;
  for (size_t ci = 0; ci < calls_.size(); ++ci) {
    Node fn = unparen(field(calls_[ci].call, "function"));
    if (!is(fn, "identifier")) continue;
    int c = -1;
    for (int k : classes)
      if (text(fn) == classes_[k].name) c = k;
    if (c < 0) continue;
    auto bindings = lookup(text(fn), start(fn));
    if (bindings.empty()) continue;
    if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Class || !same(bindings[0]->value, classes_[c].node))
      return constructor_calls_[klass];  // the name is rebound: some constructions are not read
    out.push_back(static_cast<int>(ci));
  }
  auto& slot = constructor_calls_[klass];
  slot = std::move(out);
  return slot;
}

std::vector<int> SemanticModel::init_sites(int f) const {
  const Function& fn = functions_[f];
  if (fn.klass < 0 || fn.name != "__init__") return callers(f);
  // `__init__` is called by constructing its class (`Trainer(args)`) and by the initializers of
  // subclasses (`super().__init__(...)`).
  std::vector<int> out = callers(f);
  for (int ci : constructor_calls(fn.klass))
    if (std::find(out.begin(), out.end(), ci) == out.end()) out.push_back(ci);
  // `super().__init__(...)` / `super(Sub, self).__init__(...)` in the __init__ of a subclass
  // here: the arguments bind as a construction's do. O(classes x bases + the subclasses' calls).
  const std::string& name = classes_[fn.klass].name;
  for (const Class& sub : classes_) {
    // Its first base (what `super()` names in the method resolution order).
    const std::string b = sub.bases.empty() ? std::string{} : sub.bases[0];
    auto init = base_names_class(b, name) ? sub.methods.find("__init__") : sub.methods.end();
    if (init == sub.methods.end()) continue;
    for (int ci : calls_by_caller_[init->second]) {
      Node callee = unparen(field(calls_[ci].call, "function"));
      if (!is(callee, "attribute") || text(field(callee, "attribute")) != "__init__") continue;
      if (!is_super_call(field(callee, "object"))) continue;
      if (std::find(out.begin(), out.end(), ci) == out.end()) out.push_back(ci);
    }
  }
  return out;
}

std::vector<Value> SemanticModel::param_values_uncached(int f, int pi) const {
  const Function& fn = functions_[f];
  const Param& p = fn.params[pi];
  if (p.is_variadic) return {Value::unknown()};
  std::vector<Value> out;
  int position = pi - bound_params(fn);  // `self` is not passed explicitly
  if (position < 0) return {Value::unknown()};
  // `__init__` is called by constructing its class (`Trainer(args)`).
  const std::vector<int> sites = init_sites(f);
  // `torch.multiprocessing.spawn(fn, args=(a, b), nprocs=n)` runs `fn(i, a, b)` in each process:
  // the process index first (process 0 is followed), then the elements of the tuple given (a
  // tuple written out, or the parameter's value stays unknown).
  std::vector<Node> spawns;
  if (!spawn_calls_built_) {  // one scan of the calls per model, not one per parameter
    spawn_calls_built_ = true;
    for (size_t ci = 0; ci < calls_.size(); ++ci) {
      Node callee = unparen(field(calls_[ci].call, "function"));
      std::string_view spelled = text(is(callee, "attribute") ? field(callee, "attribute") : callee);
      if (spelled != "spawn" && spelled != "start_processes") continue;
      const std::string& q = callee_name(calls_[ci].call);
      if (q == "torch.multiprocessing.spawn" || q == "torch.multiprocessing.start_processes")
        spawn_calls_.push_back(static_cast<int>(ci));
    }
  }
  if (fn.klass < 0)
    for (int ci : spawn_calls_) {
      const auto& c = calls_[ci];
      Node target = unparen(argument(c.call, 0, "fn"));
      if (!is(target, "identifier") || text(target) != fn.name) continue;
      auto vs = values(target);
      bool names_f = !vs.empty();
      for (const auto& v : vs)
        names_f = names_f && v.kind == Value::Kind::Expr && is(v.expr, "function_definition") && function_of(v.expr) == f;
      if (names_f) spawns.push_back(c.call);
    }
  for (Node call : spawns) {
    Node passed = unparen(argument(call, 1, "args"));
    if (pi == 0) {
      // The process index: 0 .. nprocs - 1. Process 0 runs in every launch, and it is the one
      // the analysis follows (its `if rank == 0:` logging runs).
      add_values(out, {make_int(0)});
      continue;
    }
    if (is_null(passed)) {
      add_values(out, {Value::unknown()});
      continue;
    }
    bool starred = false;
    if (is(passed, "tuple") || is(passed, "list"))
      for (Node c : named_children(passed)) starred |= is(c, "list_splat");
    if ((!is(passed, "tuple") && !is(passed, "list")) || starred || pi - 1 >= static_cast<int>(named_count(passed)))
      add_values(out, {Value::unknown()});
    else
      add_values(out, values(named_child(passed, pi - 1)));
  }
  bool default_used = sites.empty() && spawns.empty();
  unsigned plain = sites.empty() && is_null(p.default_value) ? fact::kPlain : 0;
  const bool skip_dead = types_ && some_live_site(f, pi, sites, !spawns.empty());
  if (const ArgFacts* ext = ext_param(f, pi, fact::kValues | plain)) {  // call sites in other modules
    if (sites.empty()) default_used = false;
    default_used |= ext->defaulted;
    bool all_unknown = ext->passed;
    for (const auto& v : ext->values) all_unknown = all_unknown && v.kind == ScalarFact::Kind::Unknown;
    // Every site hands it an argparse namespace (`build_loaders(args)` from main.py): the
    // parameter's node stands for it, and `args.<dest>` reads the sites' values
    // (namespace_param).
    const ArgFacts* ns = all_unknown ? ext_param(f, pi, fact::kNamespaceArg) : nullptr;
    if (ns && ns->ns == 1) {
      namespace_params_[p.node.id] = ns;
      Value v;
      v.kind = Value::Kind::Expr;
      v.expr = p.node;
      add_values(out, {v});
    } else if (ns && ns->ns == 3 && sites.empty() && spawns.empty() && !ext->defaulted &&
               reflective_namespace_param(*this, f, pi)) {
      // Only subclasses' `super().__init__(args)` handing on a parameter no call passes (a
      // subclass built by name too): the namespace of a class built by name (below).
      Value v;
      v.kind = Value::Kind::Expr;
      v.expr = p.node;
      add_values(out, {v});
    } else if (ext->passed) {
      add_values(out, to_values(ext->values));
    }
  }
  for (int ci : sites) {
    Node call = calls_[ci].call;
    // A construction or call that never runs (in a branch known not taken: Trainer's
    // `RectifiedFlow(**rectified_flow)` under `isinstance(rectified_flow, dict)` when every
    // Trainer is handed a module; in a method nothing reaches) hands the parameter nothing
    // where another site does (session 39); a function reached only through such sites keeps
    // their values, as before. Only once the model is built (types_ set).
    if (skip_dead && dead_call(calls_[ci])) continue;
    Node a = argument(call, p.keyword_only ? -1 : position, p.name);
    if (is_null(a)) {
      // Possibly passed through *args/**kwargs: unknown unless the call has neither.
      bool splat = false, namespace_splat = false;
      for (auto c : named_children(field(call, "arguments"))) {
        if (is(c, "list_splat")) splat = true;
        if (!is(c, "dictionary_splat")) continue;
        // `run(**vars(opt))` with opt a parsed namespace: the parameter is opt's attribute.
        if (is_argparse_vars(named_child(c, 0))) namespace_splat = true;
        else splat = true;
      }
      if (!splat && namespace_splat && (argparse_args_.count(p.name) || attribute_stores_.count(p.name)))
        add_values(out, namespace_attribute(p.name));
      else if (splat || namespace_splat) add_values(out, {Value::unknown()});
      else default_used = true;
      continue;
    }
    add_values(out, values(a));
  }
  if (default_used) {
    // An `__init__` of a class built by name, whose static method declares the program's flags
    // (reflective_namespace.h): the parsed namespace, read with this module's declarations.
    if (is_null(p.default_value) && sites.empty() && spawns.empty() && reflective_namespace_param(*this, f, pi)) {
      Value v;
      v.kind = Value::Kind::Expr;
      v.expr = p.node;
      add_values(out, {v});
    } else if (is_null(p.default_value)) {
      add_values(out, {Value::unknown()});
    } else {
      add_values(out, values(p.default_value));
    }
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
}

}  // namespace stoker::python
