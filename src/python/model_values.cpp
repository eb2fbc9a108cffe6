// Values: arguments of a call (by position, keyword, `**` dicts), constants and folded integer
// arithmetic, the candidate values of expressions (values_uncached), and narrowing at a use.
// Bindings' and parameters' values: model_param_values.cpp; attributes': model_attribute_values.cpp.
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
#include <limits>
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

Value model_detail::make_int(long long i) {
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

// `min(a, b, ...)`, `max(a, b, ...)`, also of one list or tuple display (`min([os.cpu_count(),
// batch_size if batch_size > 1 else 0, 8])`, deeplab_v3's train.py): per operand the bounds of its
// values (an int; a count of CPUs, devices or processes, at least 1; a count range), then the
// bounds of the minimum or maximum. Exact when they meet; a range when its lower bound is at
// least 1 (a count: `min(os.cpu_count(), 8)` is in [1, 8]); unknown otherwise (an operand of
// unknown value, or one that may be 0: `min(os.cpu_count(), 0)` is 0 or less). O(operands x
// values), operands at most 16.
std::vector<Value> SemanticModel::min_max_values(Node call, bool is_min) const {
  auto args = named_children(field(call, "arguments"));
  std::vector<Node> operands;
  for (Node a : args) {
    if (is(a, "comment")) continue;
    if (is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat")) return {Value::unknown()};
    operands.push_back(unparen(a));
  }
  if (operands.size() == 1) {
    Node d = operands[0];
    if (!is(d, "list") && !is(d, "tuple")) return {Value::unknown()};
    operands.clear();
    for (Node e : named_children(d)) {
      if (is(e, "comment")) continue;
      if (is(e, "list_splat")) return {Value::unknown()};
      operands.push_back(unparen(e));
    }
  }
  constexpr long long kInf = std::numeric_limits<long long>::max(), kNegInf = std::numeric_limits<long long>::min();
  if (operands.empty() || operands.size() > 16) return {Value::unknown()};
  long long lo = is_min ? kInf : kNegInf, hi = is_min ? kInf : kNegInf;
  for (Node o : operands) {
    auto vs = values(o);
    if (vs.empty()) return {Value::unknown()};
    long long olo = kInf, ohi = kNegInf;
    for (const Value& v : vs) {
      long long vlo = kNegInf, vhi = kInf;
      if (v.kind == Value::Kind::Int) {
        vlo = vhi = v.i;
      } else if (v.kind == Value::Kind::Bool) {
        vlo = vhi = v.b ? 1 : 0;
      } else if (count_value(*this, v)) {
        auto [clo, chi] = count_bounds(v);
        vlo = clo;
        vhi = chi > 0 ? chi : kInf;
      }
      olo = std::min(olo, vlo);
      ohi = std::max(ohi, vhi);
    }
    lo = is_min ? std::min(lo, olo) : std::max(lo, olo);
    hi = is_min ? std::min(hi, ohi) : std::max(hi, ohi);
  }
  if (lo == hi && lo != kInf && lo != kNegInf) return {make_int(lo)};
  if (lo >= 1 && lo != kInf) return {int_range(lo, hi == kInf ? 0 : hi)};
  return {Value::unknown()};
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
    if (callee == "builtins.min" || callee == "builtins.max") return min_max_values(expr, callee == "builtins.min");
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

}  // namespace stoker::python
