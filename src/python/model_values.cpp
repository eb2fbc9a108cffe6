// Values: keyword arguments, constants, the candidate values of expressions through bindings,
// parameters (call sites, defaults, other modules), argparse defaults and attributes.
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

namespace {

bool same_value(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::Unknown: return a.excluded == b.excluded && a.at_least == b.at_least && a.at_most == b.at_most;
    case Value::Kind::None: return true;
    case Value::Kind::Int: return a.i == b.i;
    case Value::Kind::Float: return a.f == b.f;
    case Value::Kind::Str: return a.s == b.s;
    case Value::Kind::Bool: return a.b == b.b;
    case Value::Kind::Expr: return ts_node_eq(a.expr, b.expr);
  }
  return false;
}

// Every candidate a None (a parameter no call site passes, defaulting to None).
bool only_none(const std::vector<Value>& vs) {
  for (const auto& v : vs)
    if (v.kind != Value::Kind::None) return false;
  return !vs.empty();
}

}  // namespace

void model_detail::add_values(std::vector<Value>& out, const std::vector<Value>& in) {
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

std::string_view model_detail::method_of(Node call, std::string_view src) {
  Node fn = unparen(field(call, "function"));
  return is(fn, "attribute") ? text(field(fn, "attribute"), src) : std::string_view{};
}

// ---------------------------------------------------------------------------------------
// Values.

Node SemanticModel::Kwargs::find(std::string_view key) const {
  for (auto it = items.rbegin(); it != items.rend(); ++it)
    if (it->first == key) return it->second;
  return Node{};
}

Node SemanticModel::advanced_iterator(Node call) const {
  if (callee_name(call) == "builtins.next") return argument(call, 0, "");
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "attribute") || text(field(fn, "attribute")) != "next") return Node{};
  if (named_children(field(call, "arguments")).size() != 0) return Node{};
  return field(fn, "object");
}

bool SemanticModel::has_splat_argument(Node call) {
  for (Node c : named_children(field(call, "arguments")))
    if (is(c, "list_splat") || is(c, "dictionary_splat")) return true;
  return false;
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
  // `PytorchDataLoader(*args, collate_fn=c, **kwargs)` in a wrapper `def DataLoader(*args,
  // **kwargs)` that only other modules call: the keywords their calls pass (ArgFacts::kw_names),
  // each of unknown value (the splat itself); a keyword no call passes is absent. Loader
  // constructions only (their options are what the DL/BS rules read).
  auto forwarded = [&](Node splat) {
    Node d = unparen(named_child(splat, 0));
    if (!facts_ || !is(d, "identifier") || !is_loader_call(call)) return false;
    auto bindings = lookup(text(d), start(d));
    if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function < 0) return false;
    int f = bindings[0]->function, pi = bindings[0]->param_index;
    const Param& p = functions_[f].params[pi];
    if (!p.double_star || !callers(f).empty()) return false;
    const ArgFacts* a = ext_param(f, pi, fact::kValues);
    if (!a || !a->kw_known || a->kw_open) return false;
    for (const auto& k : a->kw_names) out.items.push_back({k, splat});
    return true;
  };
  for (auto a : named_children(args)) {
    if (is(a, "keyword_argument")) out.items.push_back({std::string(text(field(a, "name"))), field(a, "value")});
    else if (is(a, "dictionary_splat") && !forwarded(a)) add_dict_entries(named_child(a, 0), start(call), out, visited);
  }
  return kwargs_cache_.emplace(call.id, std::move(out)).first->second;
}

SemanticModel::Kwargs SemanticModel::dict_entries(Node dict) const {
  Kwargs out;
  std::unordered_set<const void*> visited;
  add_dict_entries(dict, start(dict), out, visited);
  return out;
}

void SemanticModel::add_dict_entries(Node d, uint32_t before, Kwargs& out,
                                     std::unordered_set<const void*>& visited) const {
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
        add_dict_entries(named_child(pair, 0), before, out, visited);
      }
    }
    return;
  }
  if (is(d, "dictionary_comprehension")) {
    // `{x: DataLoader(datasets[x], ...) for x in ['train', 'val']}` (set BA ChangeFormer's
    // get_loaders): one clause over a display of string literals whose variable is the key gives
    // each string the body's value. Any other comprehension: keys unknown. O(elements).
    Node body = field(d, "body"), clause{};
    bool other = false;
    for (Node c : named_children(d)) {
      if (same(c, body) || is(c, "comment")) continue;
      if (is(c, "for_in_clause") && is_null(clause)) clause = c;
      else other = true;
    }
    Node var = is_null(clause) ? Node{} : unparen(field(clause, "left"));
    Node over = is_null(clause) ? Node{} : unparen(field(clause, "right"));
    if (other || !is(body, "pair") || !is(var, "identifier") || !is(unparen(field(body, "key")), "identifier") ||
        text(unparen(field(body, "key"))) != text(var) || !(is(over, "list") || is(over, "tuple")) ||
        named_count(over) > 8) {
      out.complete = false;
      return;
    }
    for (Node e : named_children(over)) {
      std::string key;
      if (is(e, "comment")) continue;
      if (!string_literal_value(e, src_, key)) {
        out.complete = false;
        return;
      }
      out.items.push_back({key, field(body, "value")});
    }
    return;
  }
  if (is(d, "conditional_expression") && named_count(d) == 3) {
    // `{...} if use_cuda else {}`: the GPU path's keys count as present.
    add_dict_entries(named_child(d, 0), before, out, visited);
    add_dict_entries(named_child(d, 2), before, out, visited);
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
        add_dict_entries(b->value, before, out, visited);
        any = true;
      } else if (b->kind == Binding::Kind::AugAssign) {  // d |= {...}
        add_dict_entries(field(b->value, "right"), before, out, visited);
        any = true;
      } else if (b->kind == Binding::Kind::Param && b->function >= 0 && only_none(param_values(b->function, b->param_index))) {
        // `if model_config is not None: config = model_config` of a parameter no caller passes:
        // it adds no entry.
      } else if (b->kind == Binding::Kind::Param && bindings.size() == 1 && b->function >= 0) {
        // A parameter that only this file's calls pass, each handing a name (session 37, set BE
        // DIS: valid(..., hypar) hands its parameter on to basics.f1_mae_torch): the entries of
        // the names handed, as at each call (and what the function stores before this use,
        // below). Depth bounded by Step, cycles by `visited`. O(sites) per level.
        const Function& fn = functions_[b->function];
        const Param& p = fn.params[b->param_index];
        int position = b->param_index - bound_params(fn);
        const ArgFacts* ext = ext_param(b->function, b->param_index, fact::kValues);
        std::vector<int> sites = (p.is_variadic || position < 0 || (ext && ext->passed)) ? std::vector<int>{}
                                                                                           : init_sites(b->function);
        if (sites.empty() || sites.size() > kMaxCandidates) {
          out.complete = false;
          continue;
        }
        for (int ci : sites) {
          Node a = unparen(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name));
          // A name met already (two paths to the same call, or a recursive function handing
          // its own parameter on) adds what it added there.
          if (!is(a, "identifier")) out.complete = false;
          else if (!visited.count(a.id)) add_dict_entries(a, start(a), out, visited);
        }
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
      if (!is(obj, "identifier") || text(obj) != name || start(u) < first_at || start(u) > before) continue;
      if (scope_at(start(u)) != scope_at(start(d))) continue;
      for (auto a : named_children(field(u, "arguments"))) {
        if (is(a, "keyword_argument")) out.items.push_back({std::string(text(field(a, "name"))), field(a, "value")});
        else add_dict_entries(a, before, out, visited);
      }
    }
    for (Node s : subscript_assignments_) {
      Node l = unparen(field(s, "left"));
      Node obj = field(l, "value");
      if (!is(obj, "identifier") || text(obj) != name || start(s) < first_at || start(s) > before) continue;
      if (scope_at(start(s)) != scope_at(start(d))) continue;
      // A store under a guard known False stores nothing (`else: hypar["out_dir"] = ...` under
      // `if hypar["mode"] == "train":`); guards are read once the model is built.
      if (types_ && guards_dead(model_detail::branch_guards(s))) continue;
      std::string key;
      if (string_literal_value(field(l, "subscript"), src_, key)) out.items.push_back({key, field(s, "right")});
      else out.complete = false;
    }
    return;
  }
  out.complete = false;
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

// The integer a float stands for, truncated toward zero as Python's int() does; nothing for NaN,
// infinities and magnitudes past long long (Python's int is unbounded; ours is not: `2e56` in a
// fuzzed loader's size once reached an out-of-range conversion).
static std::optional<long long> truncated_int(double f) {
  if (!(f > -9.2e18 && f < 9.2e18)) return std::nullopt;
  return static_cast<long long>(f);
}

std::optional<long long> SemanticModel::constant_int(Node expr) const {
  auto v = constant(expr);
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::Int) return v->i;
  if (v->kind == Value::Kind::Bool) return v->b ? 1 : 0;
  if (v->kind == Value::Kind::Float && std::floor(v->f) == v->f) return truncated_int(v->f);
  return std::nullopt;
}

static Value make_int(long long i) {
  Value v;
  v.kind = Value::Kind::Int;
  v.i = i;
  return v;
}

static Value int_range(long long at_least, long long at_most) {
  Value v;
  v.at_least = at_least;
  v.at_most = at_most;
  return v;
}

std::optional<std::pair<long long, long long>> SemanticModel::int_bounds(Node expr) const {
  auto vs = values(expr);
  if (vs.empty()) return std::nullopt;
  std::optional<std::pair<long long, long long>> out;
  for (const auto& v : vs) {
    std::pair<long long, long long> b;
    if (v.kind == Value::Kind::Int) b = {v.i, v.i};
    else if (v.kind == Value::Kind::Unknown && v.at_least > 0) b = {v.at_least, v.at_most};
    else return std::nullopt;
    if (!out) out = b;
    else out = std::pair<long long, long long>{std::min(out->first, b.first),
                                               out->second == 0 || b.second == 0 ? 0 : std::max(out->second, b.second)};
  }
  return out;
}

namespace {

// A value that counts something at least once: a positive int, a scaled count, or the number of
// devices, processes or CPUs (`torch.cuda.device_count()` in a program that runs on CUDA).
bool count_value(const SemanticModel& m, const Value& v) {
  if (v.kind == Value::Kind::Int) return v.i >= 1;
  if (v.kind == Value::Kind::Unknown) return v.at_least >= 1;
  if (v.kind != Value::Kind::Expr || !is(unparen(v.expr), "call")) return false;
  const std::string& q = m.callee_name(unparen(v.expr));
  return q == "torch.cuda.device_count" || q == "torch.distributed.get_world_size" || q == "os.cpu_count" ||
         q == "multiprocessing.cpu_count";
}

// The bounds of a count value (at_most 0: unbounded).
std::pair<long long, long long> count_bounds(const Value& v) {
  if (v.kind == Value::Kind::Int) return {v.i, v.i};
  if (v.kind == Value::Kind::Unknown) return {v.at_least, v.at_most};
  return {1, 0};
}

}  // namespace

// `(a + n - 1)` with `n` the divisor's text: the dividend of a ceiling division.
bool SemanticModel::scaled_count(Node e, Node& count, Node& by, bool& ceil) const {
  e = unparen(e);
  auto ceil_numerator = [&](Node num, Node div) {
    num = unparen(num);
    if (!is(num, "binary_operator") || text(field(num, "operator")) != "-") return false;
    auto one = constant_int(field(num, "right"));
    Node sum = unparen(field(num, "left"));
    if (!one || *one != 1 || !is(sum, "binary_operator") || text(field(sum, "operator")) != "+") return false;
    Node a = unparen(field(sum, "left")), b = unparen(field(sum, "right"));
    std::string_view d = text(unparen(div));
    if (text(b) == d) count = a;
    else if (text(a) == d) count = b;
    else return false;
    by = unparen(div);
    return true;
  };
  if (is(e, "binary_operator")) {
    std::string_view op = text(field(e, "operator"));
    ceil = op == "//";
    if (ceil) return ceil_numerator(field(e, "left"), field(e, "right"));
    if (op != "*") return false;
    count = unparen(field(e, "left"));
    by = unparen(field(e, "right"));
    return true;
  }
  if (!is(e, "call")) return false;
  const std::string& q = callee_name(e);
  auto args = named_children(field(e, "arguments"));
  if ((q != "builtins.int" && q != "math.ceil") || args.size() != 1) return false;
  Node div = unparen(args[0]);
  if (!is(div, "binary_operator") || text(field(div, "operator")) != "/") return false;
  ceil = true;
  if (q == "math.ceil") {
    count = unparen(field(div, "left"));
    by = unparen(field(div, "right"));
    return true;
  }
  return ceil_numerator(field(div, "left"), field(div, "right"));
}

// A count `a` >= 1 divided among `n` parts rounding up stays in [1, a] whatever `n` is (it is
// known exactly when n is; a divisor known to be 0 or negative leaves it unknown); multiplied by a
// count of devices or processes it is at least `a`. Anything else is unknown.
std::vector<Value> SemanticModel::scale_values(const std::vector<Value>& xs, Node by, bool ceil) const {
  auto ns = values(by);
  std::vector<Value> out;
  for (const auto& x : xs) {
    if (!count_value(*this, x) || x.kind == Value::Kind::Expr) {
      add_values(out, {Value::unknown()});
      continue;
    }
    auto [lo, hi] = count_bounds(x);
    for (const auto& n : ns) {
      Value r = Value::unknown();
      if (ceil) {
        if (n.kind == Value::Kind::Int && n.i >= 1) {
          auto up = x.kind == Value::Kind::Int ? checked_int_op("+", x.i, n.i - 1) : std::nullopt;
          r = up ? make_int(*up / n.i) : int_range(1, hi);
        } else if (n.kind == Value::Kind::Expr || (n.kind == Value::Kind::Unknown && n.excluded.empty())) {
          r = int_range(1, hi);
        }
      } else if (count_value(*this, n)) {
        auto [nlo, nhi] = count_bounds(n);
        auto product = x.kind == Value::Kind::Int && n.kind == Value::Kind::Int ? checked_int_op("*", x.i, n.i) : std::nullopt;
        if (product) r = make_int(*product);
        else if (x.kind == Value::Kind::Int && n.kind == Value::Kind::Int) r = Value::unknown();
        else if (lo <= (1LL << 20) && nlo <= (1LL << 20)) r = int_range(lo * nlo, hi && nhi && hi <= (1LL << 20) && nhi <= (1LL << 20) ? hi * nhi : 0);
      }
      add_values(out, {r});
    }
  }
  if (out.empty()) out.push_back(Value::unknown());
  return out;
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
      if (op == "-" && x.kind == Value::Kind::Int) {
        auto negated = checked_int_op("-", 0, x.i);
        x = negated ? make_int(*negated) : Value::unknown();
      }
      else if (op == "-" && x.kind == Value::Kind::Float) x.f = -x.f;
      else if (op != "+") x = Value::unknown();
    }
    return inner;
  }
  if (k == "binary_operator") {
    Node count{}, by{};
    bool ceil = false;
    // A count scaled by a number of processes or devices (`workers * n`, `(w + n - 1) // n`).
    if (scaled_count(expr, count, by, ceil)) {
      auto xs = values(count);
      bool known = true;
      for (const auto& x : xs) known = known && x.kind == Value::Kind::Int;
      for (const auto& n : values(by)) known = known && n.kind == Value::Kind::Int;
      if (!known) return scale_values(xs, by, ceil);
    }
    auto l = values(field(expr, "left"));
    auto r = values(field(expr, "right"));
    std::string_view op = text(field(expr, "operator"));
    std::vector<Value> out;
    for (const auto& a : l)
      for (const auto& b : r) {
        if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int) {
          if (op == "+" || op == "-" || op == "*" || op == "//") {
            auto folded = checked_int_op(op, a.i, b.i);
            out.push_back(folded ? make_int(*folded) : Value::unknown());
          } else if (op == "/" && b.i != 0) {
            Value q;  // true division: a float (`int(num_workers / 2)` is then an int)
            q.kind = Value::Kind::Float;
            q.f = static_cast<double>(a.i) / static_cast<double>(b.i);
            out.push_back(q);
          } else if (op == "|") out.push_back(make_int(a.i | b.i));
          else if (op == "&") out.push_back(make_int(a.i & b.i));
          else if (op == "^") out.push_back(make_int(a.i ^ b.i));
          else out.push_back(Value::unknown());
        } else if (a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool && (op == "|" || op == "&" || op == "^")) {
          // Host flags combined bitwise (`save_txt=opt.save_txt | opt.save_hybrid`): a bool.
          Value x;
          x.kind = Value::Kind::Bool;
          x.b = op == "|" ? (a.b || b.b) : op == "&" ? (a.b && b.b) : (a.b != b.b);
          out.push_back(x);
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
  if (k == "comparison_operator") return comparison_values(expr);
  if (k == "identifier") {
    auto bindings = lookup(text(expr), start(expr));
    // `from config import num_workers` (or `import *`): a constant of another project module.
    if (bindings.empty() || (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Import))
      if (auto c = module_constant(expr); !c.empty()) return c;
    // `from option import args`: another module's parsed namespace (imported_namespace), the
    // use standing for it.
    if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Import) {
      Value ns;
      ns.kind = Value::Kind::Expr;
      ns.expr = expr;
      if (imported_namespace(ns)) return {ns};
    }
    if (bindings.empty() || bindings.size() > kMaxCandidates) return {Value::unknown()};
    std::vector<Value> out;
    for (const Binding* b : bindings) {
      std::vector<Value> vs = binding_values(*b);
      narrow_at_use(expr, *b, bindings, vs);
      add_values(out, vs);
    }
    if (out.empty()) out.push_back(Value::unknown());
    return out;
  }
  if (k == "attribute") return attribute_values(expr);
  if (k == "subscript") {
    // `config["num_workers"]` of `config = vars(parse_args())`: the argparse default, joined
    // with what the file stores under that key (`d["k"] = v` on any dict); unknown once the
    // dict is updated or stored under a key that is not a literal.
    Node obj = unparen(field(expr, "value"));
    std::string key;
    // Whether `o` is a name `is_name` accepts, or a parameter of a function of this file that a
    // call here hands such a name (`tweak(args)` with `def tweak(d): d.update(...)`). O(callers
    // of that function).
    auto names_or_handed = [&](Node o, auto&& is_name) {
      o = unparen(o);
      if (!is(o, "identifier")) return false;
      if (is_name(text(o))) return true;
      auto held = lookup(text(o), start(o));
      if (held.size() != 1 || held[0]->kind != Binding::Kind::Param || held[0]->function < 0) return false;
      if (static_cast<size_t>(held[0]->function) >= callers_.size()) return true;  // graph not built yet
      for (int ci : callers_[held[0]->function])
        for (Node a : named_children(field(calls_[ci].call, "arguments"))) {
          Node v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
          if (is(v, "identifier") && is_name(text(v))) return true;
        }
      return false;
    };
    // Whether `o` names the dict `obj`, under its own name or through such a parameter.
    auto names_dict = [&](Node o) { return names_or_handed(o, [&](std::string_view t) { return t == text(obj); }); };
    if (is(obj, "identifier") && string_literal_value(field(expr, "subscript"), src_, key)) {
      auto objs = values(obj);
      bool from_vars = !objs.empty();
      for (const auto& o : objs) from_vars = from_vars && o.kind == Value::Kind::Expr && is_argparse_vars(o.expr);
      if (from_vars) {
        std::vector<Value> out = namespace_attribute(key);
        for (Node st : subscript_assignments_) {
          Node l = unparen(field(st, "left"));
          std::string stored;
          if (string_literal_value(field(l, "subscript"), src_, stored)) {
            if (stored == key) add_values(out, values(field(st, "right")));
          } else if (names_dict(field(l, "value"))) {
            add_values(out, {Value::unknown()});
          }
        }
        for (Node u : update_calls_)
          if (names_dict(field(field(u, "function"), "object"))) add_values(out, {Value::unknown()});
        return out;
      }
    }
    // `cfg["device"]` of a parameter other modules hand a dict of settings (dict_args.cpp).
    if (auto item = param_dict_item(expr)) return *item;
    // `args['train_batch_size']` of a name every binding of which assigns a dict display (a
    // module-level settings dict: set AI pytorch-semantic-segmentation's `args = {...}` read in
    // main()): the display's value for the key, joined with every store of that key under the
    // name anywhere in the file. Unknown when a display lacks the key or has a splat or a key
    // that is not a literal, and when the file updates the dict, stores into it under a key that
    // is not a literal or augments the key, under its own name or through a parameter of a
    // function of this file that a call hands the name. O(bindings + stores + updates).
    //
    // Session 37 (set BE DIS): the name may also be a parameter of a function of this file that
    // only this file's calls pass, each handing a name that holds such displays (followed up to
    // kMaxDictParamDepth parameters deep: `hypar = {}; hypar["interm_sup"] = False` in the main
    // block, `main(hypar=hypar)`, `train(net, ..., hypar)`, `if hypar["interm_sup"]:` there);
    // stores under any name of that chain count. A display may lack the key when the file
    // stores it (the read then sees a stored value, or raises), and a store under a guard known
    // False (`else: hypar["valid_out_dir"] = "../results/"` under `if hypar["mode"] ==
    // "train":`) stores nothing. O(depth x sites) for the chain, then as above.
    if (is(obj, "identifier") && !key.empty()) {
      constexpr int kMaxDictParamDepth = 4;
      std::vector<const Binding*> bindings;
      std::set<std::string> chain{std::string(text(obj))};
      std::function<bool(Node, int)> origins = [&](Node o, int depth) -> bool {
        auto bs = lookup(text(o), start(o));
        if (bs.empty() || bs.size() > kMaxCandidates || bindings.size() > kMaxCandidates) return false;
        if (bs.size() == 1 && bs[0]->kind == Binding::Kind::Param) {
          int f = bs[0]->function, pi = bs[0]->param_index;
          if (depth >= kMaxDictParamDepth || f < 0) return false;
          const Function& fn = functions_[f];
          const Param& p = fn.params[pi];
          int position = pi - bound_params(fn);
          if (p.is_variadic || position < 0) return false;
          if (const ArgFacts* ext = ext_param(f, pi, fact::kValues); ext && ext->passed) return false;
          std::vector<int> sites = init_sites(f);
          if (sites.empty() || sites.size() > kMaxCandidates) return false;
          for (int ci : sites) {
            Node a = unparen(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name));
            if (!is(a, "identifier") || !origins(a, depth + 1)) return false;
          }
          chain.insert(p.name);
          return true;
        }
        for (const Binding* b : bs) {
          if (b->kind != Binding::Kind::Assign || !is(unparen(b->value), "dictionary") ||
              !is(b->target, "identifier") || b->unpack_index >= 0)
            return false;
          if (std::find(bindings.begin(), bindings.end(), b) == bindings.end()) bindings.push_back(b);
        }
        chain.insert(std::string(text(o)));
        return true;
      };
      bool displays = origins(obj, 0) && !bindings.empty() && bindings.size() <= kMaxCandidates;
      // A name of the chain, or a parameter of a function of this file that a call hands one.
      auto names_chain = [&](Node o) {
        return names_or_handed(o, [&](std::string_view t) { return chain.count(std::string(t)) > 0; });
      };
      if (displays) {
        std::vector<Value> out;
        bool known = true;
        for (const Binding* b : bindings) {
          for (Node pair : named_children(unparen(b->value))) {
            if (is(pair, "comment")) continue;
            std::string k2;
            if (!is(pair, "pair") || !string_literal_value(field(pair, "key"), src_, k2)) {
              known = false;
              break;
            }
            if (k2 == key) {
              add_values(out, values(field(pair, "value")));
            }
          }
        }
        for (Node st : subscript_assignments_) {
          if (!known) break;
          Node l = unparen(field(st, "left"));
          if (!names_chain(field(l, "value"))) continue;
          std::string stored;
          if (!string_literal_value(field(l, "subscript"), src_, stored)) known = false;
          else if (stored == key && !(types_ && guards_dead(model_detail::branch_guards(st))))
            add_values(out, values(field(st, "right")));
        }
        for (Node st : subscript_augmented_) {
          if (!known) break;
          Node l = unparen(field(st, "left"));
          if (!is(l, "subscript") || !names_chain(field(l, "value"))) continue;
          std::string stored;
          if (!string_literal_value(field(l, "subscript"), src_, stored) || stored == key) known = false;
        }
        for (Node u : update_calls_)
          if (known && names_chain(field(field(u, "function"), "object"))) known = false;
        if (known && !out.empty()) return out;
      }
    }
  }
  if (k == "call") {
    std::string callee = callee_name(expr);
    Node count{}, by{};
    bool ceil = false;
    if (scaled_count(expr, count, by, ceil)) return scale_values(values(count), by, ceil);  // int((w + n - 1) / n)
    if (callee == "builtins.int" || callee == "builtins.float") {
      auto inner = values(argument(expr, 0, ""));
      for (auto& x : inner) {
        if (callee == "builtins.int" && x.kind == Value::Kind::Float) {
          auto t = truncated_int(x.f);
          x = t ? make_int(*t) : Value::unknown();
        }
        if (x.kind == Value::Kind::Str) x = Value::unknown();
      }
      return inner;
    }
    if (callee == "torch.distributed.get_backend" || callee == "torch.distributed.distributed_c10d.get_backend")
      return backend_values(expr);
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

// ---------------------------------------------------------------------------------------
// Narrowing at a use.

const std::vector<std::pair<Node, Node>>& SemanticModel::membership_asserts(int scope, const std::string& name) const {
  if (!asserts_built_) {
    asserts_built_ = true;
    // An assert is a statement: the walk enters the nodes that hold statements (and any subtree
    // with a parse error), not the expressions (most of the tree).
    auto holds_statements = [](Node c) {
      auto k = kind(c);
      return k == "block" || k == "assert_statement" || k == "if_statement" || k == "elif_clause" ||
             k == "else_clause" || k == "for_statement" || k == "while_statement" || k == "try_statement" ||
             k == "except_clause" || k == "except_group_clause" || k == "finally_clause" || k == "with_statement" ||
             k == "function_definition" || k == "class_definition" || k == "decorated_definition" ||
             k == "match_statement" || k == "case_clause" || ts_node_has_error(c);
    };
    std::vector<Node> stack{root_};
    while (!stack.empty()) {
      Node n = stack.back();
      stack.pop_back();
      if (is(n, "assert_statement")) {
        Node cond = named_count(n) ? unparen(named_child(n, 0)) : Node{};
        if (is(cond, "comparison_operator") && named_count(cond) == 2 && text(ts_node_child(cond, 1)) == "in") {
          Node name_node = unparen(named_child(cond, 0)), seq = unparen(named_child(cond, 1));
          if (is(name_node, "identifier") && (is(seq, "list") || is(seq, "tuple") || is(seq, "set")))
            membership_asserts_[{scope_at(start(n)), std::string(text(name_node))}].push_back({n, seq});
        }
        continue;
      }
      for_each_named_child(n, [&](Node c) {
        if (holds_statements(c)) stack.push_back(c);
        return true;
      });
    }
  }
  static const std::vector<std::pair<Node, Node>> kNone;
  auto it = membership_asserts_.find({scope, name});
  return it == membership_asserts_.end() ? kNone : it->second;
}

void SemanticModel::narrow_at_use(Node use, const Binding& b, const std::vector<const Binding*>& reaching,
                                  std::vector<Value>& vs) const {
  uint32_t at = start(use);
  std::string name(text(use));
  // `if x is None: x = v` (no else) between this binding and the use, whose branch rebinds x:
  // x is not None after it, whatever this binding gave.
  for (const Binding* r : reaching) {
    if (r == &b || r->kind != Binding::Kind::Assign || r->unpack_index >= 0 || is_null(r->target)) continue;
    Node stmt = parent(r->target);
    if (!is(stmt, "assignment")) continue;
    stmt = parent(stmt);
    Node block = parent(stmt);
    Node owner = parent(block);
    if (!is(stmt, "expression_statement") || !is(block, "block") || !is(owner, "if_statement") ||
        !same(field(owner, "consequence"), block) || !is_null(field(owner, "alternative")))
      continue;
    Node cond = unparen(field(owner, "condition"));
    if (!is(cond, "comparison_operator") || named_count(cond) != 2 || text(ts_node_child(cond, 1)) != "is" ||
        ts_node_child_count(cond) != 3 || !is(unparen(named_child(cond, 1)), "none") ||
        text(unparen(named_child(cond, 0))) != name)
      continue;
    if (end(owner) > at || b.at > start(owner)) continue;  // the use after the if; this binding before it
    std::erase_if(vs, [](const Value& v) { return v.kind == Value::Kind::None; });
    break;
  }
  // `assert x in ("gloo", "nccl")` after this binding, dominating the use (its block encloses
  // the use): the value is one of those.
  for (const auto& [stmt, seq] : membership_asserts(scope_at(at), name)) {
    if (start(stmt) < b.at || end(stmt) > at) continue;
    Node block = parent(stmt);
    if (start(block) > at || end(block) < at) continue;
    bool later_binding = false;
    for (const Binding* r : reaching) later_binding |= r->at > end(stmt) && r->at <= at;
    if (later_binding) continue;
    std::vector<Value> listed;
    bool literal = true;
    for (Node e : named_children(seq)) {
      if (is(e, "comment")) continue;
      Node u = unparen(e);
      if (!is(u, "string") && !is(u, "integer") && !is(u, "true") && !is(u, "false") && !is(u, "none")) {
        literal = false;
        break;
      }
      add_values(listed, values(u));
    }
    if (!literal || listed.empty()) continue;
    std::vector<Value> narrowed;
    for (const Value& v : vs) {
      if (v.kind == Value::Kind::Unknown || v.kind == Value::Kind::Expr) {
        for (const Value& l : listed)
          if (l.kind != Value::Kind::Str || std::find(v.excluded.begin(), v.excluded.end(), l.s) == v.excluded.end())
            add_values(narrowed, {l});
        continue;
      }
      for (const Value& l : listed)
        if (same_value(l, v)) add_values(narrowed, {v});
    }
    vs = std::move(narrowed);
  }
}

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

int SemanticModel::class_of_self(Node attr) const {
  Node obj = field(attr, "object");
  if (!is(obj, "identifier") || text(obj) != "self") return -1;
  int f = function_at(start(attr));
  return f >= 0 ? functions_[f].klass : -1;
}

std::vector<Value> SemanticModel::init_constant(int klass, std::string_view name) const {
  if (klass < 0 || static_cast<size_t>(klass) >= classes_.size()) return {};
  const Class& c = classes_[static_cast<size_t>(klass)];
  if (is(parent(c.node), "decorated_definition")) return {};
  for (const auto& b : c.bases)
    if (b != "object" && b != "builtins.object") return {};
  if (auto same = classes_by_name_.find(c.name); same == classes_by_name_.end() || same->second.size() != 1) return {};
  std::string key = c.name + "." + std::string(name);
  if (self_augmented_.count(key) || scopes_[static_cast<size_t>(c.scope)].bindings.count(std::string(name))) return {};
  auto stores = self_stores(key);
  if (stores.empty() || stores.size() > kMaxCandidates || attribute_overridden(klass, name)) return {};
  std::vector<Value> out;
  for (int ai : stores) {
    Node v = self_assignments_[static_cast<size_t>(ai)].second;
    int f = function_at(start(v));
    if (f < 0 || functions_[static_cast<size_t>(f)].klass != klass || !functions_[static_cast<size_t>(f)].initializer())
      return {};
    auto vs = values(v);
    if (vs.empty()) return {};
    for (const Value& x : vs)
      if (x.kind == Value::Kind::Unknown || x.kind == Value::Kind::Expr) return {};
    add_values(out, vs);
  }
  return out;
}

std::vector<std::set<std::string>> SemanticModel::init_store_names() const {
  std::vector<std::set<std::string>> out(classes_.size());
  for (const auto& [key, value] : self_assignments_) {
    int f = function_at(start(value));
    if (f < 0 || !functions_[static_cast<size_t>(f)].initializer()) continue;
    int c = functions_[static_cast<size_t>(f)].klass;
    size_t dot = key.rfind('.');
    if (c < 0 || dot == std::string::npos || key.compare(0, dot, classes_[static_cast<size_t>(c)].name) != 0) continue;
    out[static_cast<size_t>(c)].insert(key.substr(dot + 1));
  }
  return out;
}

const std::set<std::string>& SemanticModel::self_stores(int klass) const {
  // Built twice at most: once the call sites are all known (resolve_calls' walk sizes callers_
  // after it; before, they may be incomplete, and the stores are built again on each question),
  // kept while the model is being built, then once more when it is (types_ set: the lookups of
  // setattr's loop variables then drop dead bindings). Everything else read here (the stores,
  // scopes and bindings) is complete after collect(). A build made while the model was being built
  // has one set more than there are classes. Without functions there are no methods, and every
  // class's stores are empty whatever the call sites.
  const bool built = types_ != nullptr;
  if (self_stores_built_ && (!built || self_stores_.size() == classes_.size()))
    return self_stores_[static_cast<size_t>(klass)];
  self_stores_built_ = built || callers_.size() == functions_.size();
  auto& out = self_stores_;
  out.assign(classes_.size() + (built ? 0 : 1), {});
  // The class whose method holds `n`, -1 outside methods.
  auto class_at = [&](Node n) {
    int f = function_at(start(n));
    return f >= 0 ? functions_[f].klass : -1;
  };
  for (const auto& [key, value] : self_assignments_) {
    int c = class_at(value);
    if (c < 0) continue;
    const std::string& name = classes_[c].name;
    if (key.size() > name.size() && key[name.size()] == '.' && starts_with(key, name))
      out[static_cast<size_t>(c)].insert(key.substr(name.size() + 1));
  }
  auto is_self = [&](Node n) { return is(unparen(n), "identifier") && text(unparen(n)) == "self"; };
  // `self.__dict__` or `vars(self)`.
  auto own_dict = [&](Node n) {
    n = unparen(n);
    if (is(n, "attribute")) return text(field(n, "attribute")) == "__dict__" && is_self(field(n, "object"));
    return is(n, "call") && text(unparen(field(n, "function"))) == "vars" && is_self(argument(n, 0, ""));
  };
  for (Node a : subscript_assignments_) {
    Node left = unparen(field(a, "left"));
    if (int c = class_at(a); c >= 0 && is(left, "subscript") && own_dict(field(left, "value")))
      out[static_cast<size_t>(c)].insert("*");
  }
  for (Node call : update_calls_)
    if (int c = class_at(call); c >= 0 && own_dict(field(unparen(field(call, "function")), "object")))
      out[static_cast<size_t>(c)].insert("*");
  // `setattr(self, k, v)`: a literal name, or every name `k` may hold (`for k in "na", "nc":`
  // copies a few known attributes); anything else is a computed name.
  for (const CallSite& cs : calls_) {
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "identifier") || text(fn) != "setattr") continue;
    auto a = named_children(field(cs.call, "arguments"));
    int c = class_at(cs.call);
    if (a.size() != 3 || !is_self(a[0]) || c < 0) continue;
    auto& stores = out[static_cast<size_t>(c)];
    std::string literal;
    if (string_literal_value(a[1], src_, literal)) {
      stores.insert(literal);
      continue;
    }
    // A loop variable over a display of string literals.
    std::vector<std::string> names;
    bool all = is(unparen(a[1]), "identifier");
    auto bindings = all ? lookup(text(unparen(a[1])), start(a[1])) : std::vector<const Binding*>{};
    all = all && bindings.size() <= kMaxCandidates && all_bindings_of_kind(bindings, Binding::Kind::LoopTarget);
    for (const Binding* b : bindings) {
      Node seq = unparen(b->value);
      all = all && is(b->target, "identifier") && (is(seq, "expression_list") || is(seq, "tuple") || is(seq, "list"));
      if (!all) break;
      for (Node e : named_children(seq)) {
        std::string v;
        if (is(e, "comment")) continue;
        all = all && string_literal_value(e, src_, v);
        names.push_back(v);
      }
    }
    if (!all || names.size() > 16) {
      stores.insert("*");
      continue;
    }
    stores.insert(names.begin(), names.end());
  }
  return out[static_cast<size_t>(klass)];
}

bool SemanticModel::attribute_overridden(int klass, std::string_view attr) const {
  auto it = overriding_stores_.find(klass);
  if (it == overriding_stores_.end()) {
    // The class's own stores under computed names, and every store of its subclasses here
    // (transitively, by the name the subclass writes for its base).
    std::set<std::string> joined;
    if (self_stores(klass).count("*")) joined.insert("*");
    std::vector<int> pending{klass};
    std::set<int> seen{klass};
    while (!pending.empty() && seen.size() <= 64) {
      const std::string& base = classes_[pending.back()].name;
      pending.pop_back();
      for (size_t c = 0; c < classes_.size(); ++c) {
        bool derives = false;
        for (const auto& b : classes_[c].bases)
          derives |= b == base || (b.size() > base.size() && b[b.size() - base.size() - 1] == '.' &&
                                   b.compare(b.size() - base.size(), base.size(), base) == 0);
        if (!derives || !seen.insert(static_cast<int>(c)).second) continue;
        const auto& stores = self_stores(static_cast<int>(c));
        joined.insert(stores.begin(), stores.end());
        pending.push_back(static_cast<int>(c));
      }
    }
    it = overriding_stores_.emplace(klass, std::move(joined)).first;
  }
  if (it->second.count("*") || it->second.count(std::string(attr))) return true;
  // Subclasses of other modules: only a module-level class has an entry in the facts.
  return facts_ && scopes_[classes_[klass].scope].parent == 0 && facts_->subclass_stores(classes_[klass].name, attr);
}

bool SemanticModel::is_super_call(Node obj) const {
  obj = unparen(obj);
  return is(obj, "call") && text(unparen(field(obj, "function"))) == "super";
}

namespace {

// A method the initializer runs while the instance is built (`self.name(...)` in an initializer of
// its class, outside loops: huggingsound's `self._load_model()` in `SpeechRecognitionModel.__init__`,
// which stores the model and the processor), and that runs again only through `self.name(...)` in
// methods of the class (`finetune` reloading the model): no other text of this file names it (a
// callback handed elsewhere, a call on another object), and no other module names the attribute.
// Its stores define the attribute as the initializer's do: they are made while the instance is
// built, and a later run stores values of the same expressions. Not a dunder, a decorated or a
// static method. O(calls + functions + file text) per question, asked only for a store outside an initializer.
bool init_only_method_impl(const SemanticModel& m, int f, const ExternalFacts* facts) {
  if (f < 0 || static_cast<size_t>(f) >= m.functions().size()) return false;
  const Function& fn = m.functions()[f];
  if (fn.klass < 0 || fn.initializer() || fn.other_decorators || fn.static_method || fn.name.empty() ||
      fn.name.rfind("__", 0) == 0)
    return false;
  const auto& sites = m.callers(f);
  if (sites.empty() || sites.size() > SemanticModel::kMaxCandidates) return false;
  std::set<uint32_t> resolved;
  bool from_initializer = false;
  for (int ci : sites) {
    const CallSite& cs = m.calls()[static_cast<size_t>(ci)];
    if (cs.caller < 0 || cs.caller == f) return false;
    const Function& caller = m.functions()[static_cast<size_t>(cs.caller)];
    if (caller.klass != fn.klass || cs.lambda_depth > 0) return false;
    Node callee = unparen(field(cs.call, "function"));
    if (!is(callee, "attribute") || m.text(unparen(field(callee, "object"))) != "self") return false;
    from_initializer = from_initializer || (caller.initializer() && cs.loops.empty());
    resolved.insert(start(field(callee, "attribute")));
  }
  if (!from_initializer) return false;
  // Every other mention of the name in this file is one of those calls, the definition of a method
  // of that name (this one, another class's), or a call resolved to such other methods only.
  std::string_view src = m.src();
  const std::string& name = fn.name;
  std::set<uint32_t> elsewhere;
  for (const Function& g : m.functions())
    if (g.name == name) elsewhere.insert(start(field(g.node, "name")));
  for (size_t ci = 0; ci < m.calls().size(); ++ci) {
    Node callee = unparen(field(m.calls()[ci].call, "function"));
    if (!is(callee, "attribute") || m.text(field(callee, "attribute")) != name) continue;
    const auto& targets = m.callees(m.calls()[ci].call);
    if (!targets.empty() && std::find(targets.begin(), targets.end(), f) == targets.end())
      elsewhere.insert(start(field(callee, "attribute")));
  }
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    if (elsewhere.count(static_cast<uint32_t>(at))) continue;
    if (at > 0 && word(src[at - 1])) continue;
    if (at + name.size() < src.size() && word(src[at + name.size()])) continue;
    if (m.inert_text_at(static_cast<uint32_t>(at))) continue;
    if (!resolved.count(static_cast<uint32_t>(at))) return false;
  }
  return !facts || !facts->attribute_mentioned(name);
}

}  // namespace

bool SemanticModel::init_only_method(int f) const {
  // The answer reads the call graph, which grows while the model is built (resolve_calls binds
  // calls as values become known): memoized only once it is final.
  if (!hot_functions_ready_) return init_only_method_impl(*this, f, facts_);
  if (auto it = init_only_memo_.find(f); it != init_only_memo_.end()) return it->second;
  bool r = init_only_method_impl(*this, f, facts_);
  init_only_memo_.emplace(f, r);
  return r;
}

std::vector<Node> SemanticModel::instance_attribute_stores(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  if (!is(obj, "identifier") || text(obj) == "self") return {};
  auto bindings = lookup(text(obj), start(obj));
  if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
  std::vector<Node> out;
  for (const Binding* b : bindings) {
    Node v = b->plain_value();
    if (!is(v, "call")) return {};
    int klass = -1;
    for (const auto& cv : values(unparen(field(v, "function"))))
      if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition"))
        if (auto c = class_by_node_.find(cv.expr.id); c != class_by_node_.end()) klass = c->second;
    if (klass < 0) return {};
    auto stores = self_stores(klass, text(field(attr, "attribute")));
    if (stores.empty()) return {};
    for (int ai : stores) {
      Node v = self_assignments_[ai].second;
      int f = function_at(start(v));
      if (f < 0 || (!functions_[f].initializer() && !init_only_method(f)))
        return {};  // stored again later: not known
      if (out.size() < kMaxCandidates) out.push_back(v);
    }
  }
  return out;
}

int model_detail::property_getter(const SemanticModel& m, int klass, std::string_view name) {
  if (klass < 0 || klass >= static_cast<int>(m.classes().size())) return -1;
  const auto& methods = m.classes()[klass].methods;
  auto it = methods.find(std::string(name));
  if (it == methods.end()) return -1;
  Node def = m.functions()[it->second].node;
  Node decorated = parent(def);
  if (!is(decorated, "decorated_definition")) return -1;
  for (Node d : named_children(decorated)) {
    if (!is(d, "decorator")) continue;
    std::string_view e = m.text(named_child(d, 0));
    if (e == "property" || e == "functools.cached_property" || e == "cached_property") return it->second;
  }
  return -1;
}

namespace {

// What names the plain class a name holds an instance of, or the class object itself: every
// binding of it is `x = Cls(...)` (`refs` gets `Cls`), `x = configs.Cls`, the class's own
// definition or import (the name itself), another name so bound, or a parameter of a function of
// this file (not an initializer) that every call site here hands such a name or construction and
// no other module's call passes anything. False when one binding is anything else; whether each
// ref names a class is the caller's question. At most 4 names deep and 64 bindings and call sites
// in all (`budget`), so O(1) per read.
bool config_class_refs(const SemanticModel& m, Node id, int depth, std::vector<Node>& refs, int& budget) {
  if (depth > 4 || !is(id, "identifier")) return false;
  auto bindings = m.lookup(m.text(id), start(id));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return false;
  budget -= static_cast<int>(bindings.size());
  if (budget < 0) return false;
  auto bound = [&](Node v) {
    v = unparen(v);
    if (is(v, "call")) {
      refs.push_back(unparen(field(v, "function")));
      return true;
    }
    if (is(v, "attribute")) {
      refs.push_back(v);
      return true;
    }
    return config_class_refs(m, v, depth + 1, refs, budget);
  };
  for (const Binding* b : bindings) {
    switch (b->kind) {
      case Binding::Kind::Assign:
        if (b->unpack_index >= 0 || is_null(b->value) || !bound(b->value)) return false;
        break;
      case Binding::Kind::Class:
      case Binding::Kind::Import: refs.push_back(id); break;
      case Binding::Kind::Param: {
        if (b->function < 0) return false;
        const Function& fn = m.functions()[static_cast<size_t>(b->function)];
        const Param& p = fn.params[static_cast<size_t>(b->param_index)];
        int position = b->param_index - bound_params(fn);
        if (p.is_variadic || position < 0 || fn.name == "__init__") return false;
        if (const ArgFacts* ext = m.incoming_param_facts(b->function, b->param_index, fact::kValues); ext && ext->passed)
          return false;
        const std::vector<int>& sites = m.callers(b->function);
        budget -= static_cast<int>(sites.size());
        if (sites.empty() || sites.size() > SemanticModel::kMaxCandidates || budget < 0) return false;
        for (int ci : sites) {
          Node arg = m.argument(m.calls()[static_cast<size_t>(ci)].call, p.keyword_only ? -1 : position, p.name);
          if (is_null(arg) || !bound(arg)) return false;
        }
        break;
      }
      default: return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Value> SemanticModel::attribute_values(Node attr) const {
  Node obj = unparen(field(attr, "object"));
  std::string_view name = text(field(attr, "attribute"));
  int klass = class_of_self(attr);
  // The argument the class's `__init__` hands its first base's `__init__` (a class of another
  // module, by its "Class" entry: a parameter of the attribute's name and an attribute of that
  // name typed a host value) through `super().__init__(...)`; null when there is none.
  auto inherited_init_argument = [&](int k) -> Node {
    const Class& c = classes_[k];
    auto init = c.methods.find("__init__");
    if (!facts_ || c.bases.empty() || init == c.methods.end()) return Node{};
    const FunctionFacts* base = facts_->callee(c.bases[0], fact::kClass | fact::kParams);
    if (!base || !base->is_class) return Node{};
    const FunctionFacts::Attr* base_attr = facts_->class_attr(c.bases[0], name);
    bool typed = base_attr && base_attr->kind == static_cast<int>(AbstractType::Kind::Host);
    int position = -1;
    for (size_t i = 1; i < base->params.size(); ++i)
      if (base->params[i].name == name && !base->params[i].star && !base->params[i].double_star)
        position = static_cast<int>(i);
    if (!typed || position < 0) return Node{};
    for (int ci : calls_by_caller_[init->second]) {
      Node callee = unparen(field(calls_[ci].call, "function"));
      if (is(callee, "attribute") && text(field(callee, "attribute")) == "__init__" &&
          is_super_call(field(callee, "object")))
        return argument(calls_[ci].call, base->params[position].keyword_only ? -1 : position - 1, name);
    }
    return Node{};
  };
  if (klass >= 0) {
    std::vector<Value> out;
    std::string key = classes_[klass].name + "." + std::string(name);
    auto stores = self_stores(key);
    // A property of the class (or of a base defined here) that nothing stores over: what its
    // getter returns (`self.device` -> `self.model.device`, `self.unwrapped_model` ->
    // `self.accelerator.unwrap_model(self.model)`).
    if (stores.empty()) {
      std::set<int> seen;
      for (int c = klass; c >= 0 && seen.insert(c).second;) {
        if (int g = property_getter(*this, c, name); g >= 0) {
          for (Node r : functions_[g].returns) add_values(out, values(r));
          if (out.empty()) add_values(out, {Value::unknown()});
          return out;
        }
        int base = -1;
        for (const auto& b : classes_[c].bases)
          if (auto named = classes_by_name_.find(std::string(last_part(b))); named != classes_by_name_.end()) {
            base = named->second.back();
            break;
          }
        c = base;
      }
      // Stored by the initializer of the first base, a class of another module, from the parameter
      // of the attribute's name that the class's `super().__init__(...)` hands an argument
      // (Autoformer's `Exp_Basic.__init__(self, args)` with `self.args = args`, its class entry
      // typing `self.args` a host value): that argument, so `self.args.num_workers` reads the
      // namespace the subclass's constructor is handed (set AA exp_main.py's `_get_data`).
      if (Node a = inherited_init_argument(klass); !is_null(a)) {
        add_values(out, values(a));
        if (out.empty() || attribute_overridden(klass, name)) add_values(out, {Value::unknown()});
        return out;
      }
    }
    for (int ai : stores) {
      Node v = self_assignments_[ai].second;
      // Only initializer assignments (`__init__`, `__post_init__`) define the attribute's value
      // for the rest of the class.
      int f = function_at(start(v));
      // Or a method only an initializer calls (init_only_method): it runs while the instance is built.
      if (f < 0 || (!functions_[f].initializer() && !init_only_method(f))) {
        add_values(out, {Value::unknown()});
        continue;
      }
      add_values(out, values(v));
    }
    // `self.step += 1` in a method: the attribute changes from the initializer's value (Diffuser's
    // `self.step = 0` then `if self.step == 0 and self.sample_freq:` is not always true).
    if (self_augmented_.count(key)) add_values(out, {Value::unknown()});
    if (out.empty() || attribute_overridden(klass, name)) add_values(out, {Value::unknown()});
    return out;
  }
  // `device.type` of a device known to be CUDA: "cuda" (`"mps" in device.type` is False).
  if (name == "type" && types_ && device_kind(obj) == DeviceKind::Cuda) {
    Value v;
    v.kind = Value::Kind::Str;
    v.s = "cuda";
    return {v};
  }
  // args.<dest> where every candidate of args is a parsed namespace.
  auto objs = values(obj);
  bool from_argparse = !objs.empty();
  for (const auto& o : objs)
    if (!namespace_value(o)) {
      from_argparse = false;
      break;
    }
  if (from_argparse) {
    // A parameter another module's call sites hand a namespace reads their values (a dest they
    // do not carry is unknown), with this module's stores; the others this module's parsers'.
    std::vector<Value> out;
    bool local = false;
    for (const auto& o : objs) {
      const ArgFacts* a = namespace_param(o);
      // Imported from the module that parses it: that module's values (imported_namespace).
      if (const FunctionFacts* f = a ? nullptr : imported_namespace(o)) {
        std::vector<Value> declared = keyed_values(f->namespace_values, name);
        add_values(out, namespace_attribute(name, &declared, attr));
        continue;
      }
      if (!a) {
        local = true;
        continue;
      }
      std::vector<Value> declared = keyed_values(a->ns_values, name);
      add_values(out, namespace_attribute(name, &declared, attr));
    }
    if (local) add_values(out, namespace_attribute(name, nullptr, attr));
    return out;
  }
  // `CFG.num_workers` after `import config as CFG`: a constant of another project module.
  if (auto c = module_constant(attr); !c.empty()) return c;
  // `opt.num_workers`, `if opt.display:` where every binding of `opt` constructs a plain
  // configuration class (`opt = Config()`: arcface-pytorch's config/config.py, read in train.py)
  // or is the class object itself (`config = setting_config` handed to `main(config)`: EGE-UNet),
  // also through the parameters of this file's functions (config_classes): its class-level
  // constant (model_detail::class_level_constant), of a class of this file or, in project mode,
  // of another module (its "Config.num_workers" entry, which the project drops when a module
  // stores an attribute of that name). Not when this file stores an attribute of the name on any
  // object (`opt.display = True`). At most 64 bindings and call sites read (config_class_refs).
  if (is(obj, "identifier") && text(obj) != "self" && !attribute_reassigned(name)) {
    std::vector<Node> refs;
    std::vector<Value> out;
    int budget = 64;
    bool all = config_class_refs(*this, obj, 0, refs, budget) && !refs.empty() && refs.size() <= kMaxCandidates;
    auto binding_vals = [this](const Binding& b) { return binding_values(b); };
    for (Node r : refs) {
      if (!all) break;
      int klass = -1;
      for (const auto& cv : values(r))
        if (cv.kind == Value::Kind::Expr && is(cv.expr, "class_definition"))
          if (auto c = class_by_node_.find(cv.expr.id); c != class_by_node_.end()) klass = c->second;
      std::vector<Value> vs;
      if (klass >= 0) {
        vs = class_level_constant(*this, klass, name, self_stores(klass), binding_vals);
        if (vs.empty()) vs = init_constant(klass, name);
      } else if (const std::string& q = qualified_name(r); facts_ && !q.empty() && facts_->project_name(q)) {
        const FunctionFacts* cls = facts_->callee(q, fact::kClass);
        std::string key = q + "." + std::string(name);
        if (cls && cls->is_class) {
          if (module_reads_.size() < 256) module_reads_.insert(key);
          if (const FunctionFacts* f = facts_->callee(key, fact::kConstValues)) vs = to_values(f->const_values);
        }
      }
      all = !vs.empty();
      add_values(out, vs);
    }
    if (all && !out.empty()) return out;
  }
  Value v;
  v.kind = Value::Kind::Expr;
  v.expr = attr;
  return {v};
}

}  // namespace stoker::python
