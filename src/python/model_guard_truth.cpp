// Guards: the truth of a branch's test (constants, parameters, device-type and isinstance
// tests, accelerator probes), branch guards of a node, flag and step-period tests, step counters,
// names re-bound or declared global, latches, and branches that end the run. Split from
// model_hotness.cpp (session 41).
#include <cmath>

#include "python/descend.h"
#include "python/call_positions.h"
#include "python/loop_shape.h"
#include "python/model_internal.h"
#include "python/module_api.h"
#include "python/symbol_table.h"
#include "python/project_fields.h"
#include "python/types.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <unordered_set>

namespace stoker::python {

using namespace model_detail;

namespace {
// A decision memoized per node: -1 unknown, 0, 1, and 2 while in progress (a cycle answers
// unknown). `compute` clears its flag when the step budget is spent: that answer is not kept.
template <class Compute>
std::optional<bool> memoized_truth(std::unordered_map<const void*, signed char>& cache, const void* key,
                                   Compute compute) {
  auto [it, fresh] = cache.try_emplace(key, 2);
  if (!fresh) return it->second == 0 || it->second == 1 ? std::optional<bool>(it->second == 1) : std::nullopt;
  bool budget = true;
  std::optional<bool> t = compute(budget);
  if (!budget) {
    cache.erase(key);
    return std::nullopt;
  }
  cache[key] = t ? static_cast<signed char>(*t) : -1;  // looked up again: `compute` may rehash
  return t;
}
// `is_sagemaker_mp_enabled()`, `is_torch_tpu_available()` of transformers or accelerate (a copied
// Hugging Face Trainer's branches): the setup analyzed is CUDA GPUs (rules.md), without SageMaker
// model parallelism or an XLA/TPU/Neuron device, so the probe answers False (set I MiniCPM-V
// finetune/trainer.py:109/123). Only these library probes: a project's own `is_*` is its code.
std::optional<bool> accelerator_probe(const SemanticModel& m, Node call) {
  if (!m.uses_cuda() || named_count(field(call, "arguments")) != 0) return std::nullopt;
  const std::string& q = m.qualified_name(unparen(field(call, "function")));
  if (!starts_with(q, "transformers.") && !starts_with(q, "accelerate.")) return std::nullopt;
  static const std::set<std::string, std::less<>> probes = {
      "is_sagemaker_mp_enabled", "is_sagemaker_dp_enabled", "is_torch_tpu_available", "is_torch_xla_available",
      "is_torch_neuroncore_available", "is_tpu_available"};
  if (probes.count(last_part(q))) return false;
  return std::nullopt;
}

}  // namespace

// Truthiness of a known constant: bool, None, numbers, strings (Python's rules).
static std::optional<bool> truthy(const std::optional<Value>& c) {
  if (!c) return std::nullopt;
  switch (c->kind) {
    case Value::Kind::Bool: return c->b;
    case Value::Kind::None: return false;
    case Value::Kind::Int: return c->i != 0;
    case Value::Kind::Float: return c->f != 0;
    case Value::Kind::Str: return !c->s.empty();
    default: return std::nullopt;
  }
}

std::optional<bool> SemanticModel::guard_truth(Node cond) const {
  cond = unparen(cond);
  if (is_null(cond)) return std::nullopt;
  // Every node under a guard asks: decided once per condition.
  return memoized_truth(guard_truth_cache_, cond.id, [&](bool& budget) -> std::optional<bool> {
    Step step(*this);
    if (!step) {
      budget = false;
      return std::nullopt;
    }
    return guard_truth_uncached(cond);
  });
}

std::optional<bool> SemanticModel::guard_truth_uncached(Node cond) const {
  auto k = kind(cond);
  if (k == "true" || k == "false" || k == "none" || k == "integer") return truthy(constant(cond));
  if (k == "not_operator") {
    auto t = guard_truth(field(cond, "argument"));
    return t ? std::optional<bool>(!*t) : std::nullopt;
  }
  if (k == "boolean_operator") {
    std::string_view op = text(field(cond, "operator"));
    auto l = guard_truth(field(cond, "left")), r = guard_truth(field(cond, "right"));
    if (op == "and") {
      if ((l && !*l) || (r && !*r)) return false;
      if (l && r) return true;
    } else if (op == "or") {
      if ((l && *l) || (r && *r)) return true;
      if (l && r) return false;
    }
    return std::nullopt;
  }
  if (k == "identifier") return truthy(stable_constant(cond));
  if (k == "attribute") {
    Node obj = unparen(field(cond, "object"));
    bool on_self = is(obj, "identifier") && text(obj) == "self";  // __init__ decides (attribute_values)
    if (!on_self && attribute_reassigned(text(field(cond, "attribute")), cond)) return std::nullopt;
    auto c = constant(cond);
    // The mode of a function that does nothing with the defaults (`--train_file`, default None):
    // not known off.
    if (c && c->kind == Value::Kind::None && !on_self && value_option_mode(cond)) return std::nullopt;
    return truthy(c);
  }
  if (k == "comparison_operator") {
    if (auto t = truthy(constant(cond))) return t;
    return device_type_test(cond);
  }
  if (k == "subscript") return truthy(constant(cond));  // `config["flag"]` of vars(parse_args())
  if (k == "call") {
    if (auto t = accelerator_probe(*this, cond)) return t;
    // `exists(x)` / `is_none(x)` of a helper returning `x is not None` (`x is None`): the test of
    // its argument (session 39, self-rewarding-lm-pytorch's `if not exists(eos_id): continue`).
    if (Node x = none_test_argument(cond, false); !is_null(x))
      if (auto none = none_truth(x)) return !*none;
    if (Node x = none_test_argument(cond, true); !is_null(x))
      if (auto none = none_truth(x)) return *none;
    return isinstance_truth(cond);
  }
  return std::nullopt;
}

std::optional<bool> SemanticModel::isinstance_truth(Node call) const {
  if (!types_ || callee_name(call) != "builtins.isinstance") return std::nullopt;
  std::vector<Node> args;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "comment")) continue;
    if (is(a, "keyword_argument") || is(a, "list_splat") || is(a, "dictionary_splat")) return std::nullopt;
    args.push_back(unparen(a));
  }
  if (args.size() != 2) return std::nullopt;
  // The classes tested: builtin containers and scalars only (a tensor or a module is none of them).
  static const std::set<std::string, std::less<>> kBuiltins = {
      "builtins.dict", "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset",
      "builtins.str",  "builtins.bytes", "builtins.int",  "builtins.float", "builtins.bool"};
  std::vector<Node> classes;
  if (is(args[1], "tuple")) {
    for (Node c : named_children(args[1]))
      if (!is(c, "comment")) classes.push_back(unparen(c));
  } else {
    classes.push_back(args[1]);
  }
  if (classes.empty() || classes.size() > 8) return std::nullopt;
  for (Node c : classes)
    if (!is(c, "identifier") || !kBuiltins.count(qualified_name(c))) return std::nullopt;
  // A module or an optimizer only: a batch's elements are typed tensors where the collate may
  // hand lists (`batch["text"]` of a prepared loader), so a tensor type proves nothing here.
  AbstractType t = types_->type_of(args[0]);
  switch (t.kind) {
    case AbstractType::Kind::Module:
    case AbstractType::Kind::Optimizer: return false;  // (None, its optional, is none of them either)
    default: return std::nullopt;
  }
}

bool SemanticModel::after_taken_exit(Node at) const {
  if (!types_) return false;
  // The jump a block's last statement makes: "continue"/"break" (the loop's pass); empty otherwise.
  auto jump_of = [&](Node block) -> std::string_view {
    if (!is(block, "block") || !named_count(block)) return {};
    Node last = named_child(block, named_count(block) - 1);
    for (uint32_t i = named_count(block); i > 0 && is(last, "comment"); --i) last = named_child(block, i - 1);
    if (is(last, "continue_statement")) return "continue";
    if (is(last, "break_statement")) return "break";
    // A `return` or `raise` of a function is left out: `if not args.plus: ...; return` splits a
    // script's modes (set BD ST-PlusPlus main.py), whose later mode the user selects.
    return {};
  };
  constexpr size_t kMaxStatements = 4096;  // preceding statements looked at, over all levels
  size_t looked = 0;
  Node below = at;
  for (Node n = parent(at); !is_null(n) && looked < kMaxStatements; below = n, n = parent(n)) {
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") break;
    if (k != "block") continue;
    // The statements of this block before the one holding `at`.
    for (Node st : named_children(n)) {
      if (same(st, below) || start(st) >= start(below)) break;
      if (++looked > kMaxStatements) return false;
      if (!is(st, "if_statement")) continue;
      std::string_view jump = jump_of(field(st, "consequence"));
      if (jump.empty()) continue;
      // A `continue`/`break` ends the pass of the innermost loop around the `if`, which holds
      // `at` after it (at any depth: a loop nested below starts after the jump was taken): `at`
      // runs only when `cond` is False.
      auto truth = guard_truth(field(st, "condition"));
      if (truth && *truth) return true;
    }
  }
  return false;
}


// `device.type == "mps"`, `device.type != "cuda"`, `"cpu" in device.type`, `device.type in ("cpu",
// "mps")` of a device whose kind is not resolved, in a program that uses CUDA: the GPU path is the
// one analyzed (rules.md), so the device's type is "cuda" there and code for another device type
// does not run. The object must be a device or of unknown type (not a known host value, tensor or
// object), and the other side name device types (strings device_string_kind knows). O(1).
std::optional<bool> SemanticModel::device_type_test(Node cond) const {
  if (!uses_cuda_ || !types_ || named_count(cond) != 2) return std::nullopt;
  Node a = unparen(named_child(cond, 0)), b = unparen(named_child(cond, 1));
  std::string op;
  for (uint32_t i = end(a); i < start(b) && i < src_.size(); ++i)
    if (src_[i] != ' ' && src_[i] != '\t' && src_[i] != '\n' && src_[i] != '\r' && src_[i] != '(' && src_[i] != ')') {
      if (!op.empty() && op.back() != ' ' && (src_[i - 1] == ' ' || src_[i - 1] == '\t')) op += ' ';
      op += src_[i];
    }
  auto device_type_of = [&](Node x) {
    if (!is(x, "attribute") || text(field(x, "attribute")) != "type") return false;
    Node obj = unparen(field(x, "object"));
    DeviceKind d = device_kind(obj);
    if (d != DeviceKind::Unknown && d != DeviceKind::Cuda) return false;
    AbstractType::Kind t = types_->type_of(obj).kind;
    return t == AbstractType::Kind::Device || t == AbstractType::Kind::Unknown;
  };
  // The device type names a literal (or a tuple/list of literals) holds; false when any is not one.
  auto names = [&](Node x, std::vector<std::string>& out) {
    std::vector<Node> items;
    if (is(x, "tuple") || is(x, "list") || is(x, "set"))
      for (Node c : named_children(x)) items.push_back(c);
    else
      items.push_back(x);
    for (Node c : items) {
      std::string s;
      if (!string_literal_value(c, src_, s) || device_string_kind(s) == DeviceKind::Unknown ||
          s.find(':') != std::string::npos)
        return false;
      out.push_back(s);
    }
    return !out.empty();
  };
  std::vector<std::string> lits;
  if ((op == "==" || op == "!=") && (device_type_of(a) || device_type_of(b))) {
    if (!names(device_type_of(a) ? b : a, lits) || lits.size() != 1 || is(device_type_of(a) ? b : a, "tuple") ||
        is(device_type_of(a) ? b : a, "list") || is(device_type_of(a) ? b : a, "set"))
      return std::nullopt;
    return (lits[0] == "cuda") == (op == "==");
  }
  if ((op == "in" || op == "not in") && device_type_of(b)) {  // "mps" in device.type: a substring
    if (!names(a, lits) || lits.size() != 1) return std::nullopt;
    bool in = std::string_view("cuda").find(lits[0]) != std::string_view::npos;
    return in == (op == "in");
  }
  if ((op == "in" || op == "not in") && device_type_of(a)) {
    if (!is(b, "tuple") && !is(b, "list") && !is(b, "set")) return std::nullopt;
    if (!names(b, lits)) return std::nullopt;
    bool in = std::find(lits.begin(), lits.end(), "cuda") != lits.end();
    return in == (op == "in");
  }
  return std::nullopt;
}

// The constant a name holds wherever it is read: every binding of the name in the scope that
// binds it gives the same constant (a flag assigned once, a parameter whose default and call
// sites agree), and no function rebinds it through `global`/`nonlocal`.
std::optional<Value> SemanticModel::stable_constant(Node name) const {
  auto c = constant(name);
  if (!c) return std::nullopt;
  // Every binding of the name in its scope gives that one constant.
  auto all = stable_candidates(name);
  if (!all || all->size() != 1) return std::nullopt;
  const Value& v = all->front();
  if (v.kind != c->kind || (v.kind == Value::Kind::Bool && v.b != c->b) || (v.kind == Value::Kind::Int && v.i != c->i) ||
      (v.kind == Value::Kind::Float && v.f != c->f) || (v.kind == Value::Kind::Str && v.s != c->s))
    return std::nullopt;
  return c;
}

// As stable_constant, several constants allowed: the union of what every binding of the name in
// its scope gives (a superset of what reaches any one use), all of them known constants.
std::optional<std::vector<Value>> SemanticModel::stable_candidates(Node name) const {
  std::string key(text(name));
  auto reaching = lookup(key, start(name));
  if (reaching.empty()) return std::nullopt;
  std::vector<Value> out;
  bool from_function = false;
  auto known = [](const Value& v) { return v.kind != Value::Kind::Unknown && v.kind != Value::Kind::Expr; };
  for (int s = scope_at(start(name)); s >= 0; s = scopes_[s].parent) {
    const Scope& sc = scopes_[s];
    if (sc.kind == Scope::Kind::Class && from_function) continue;
    auto it = sc.bindings.find(key);
    if (it != sc.bindings.end() && !it->second.empty()) {
      if (it->second.size() > kMaxCandidates) return std::nullopt;
      for (const Binding& b : it->second) {
        if (b.kind != Binding::Kind::Assign && b.kind != Binding::Kind::Param) return std::nullopt;
        std::vector<Value> vs = binding_values(b);
        narrow_at_use(name, b, reaching, vs);
        if (vs.empty()) return std::nullopt;
        for (const Value& v : vs) {
          if (!known(v)) return std::nullopt;
          bool dup = false;
          for (const Value& o : out)
            dup = dup || (o.kind == v.kind && o.i == v.i && o.f == v.f && o.s == v.s && o.b == v.b);
          if (!dup) out.push_back(v);
        }
        if (out.size() > kMaxCandidates) return std::nullopt;
      }
      break;
    }
    if (sc.kind == Scope::Kind::Function) from_function = true;
  }
  if (out.empty() || declared_global(key)) return std::nullopt;
  return out;
}

std::vector<std::pair<Node, bool>> model_detail::branch_guards(Node n) {
  std::vector<std::pair<Node, bool>> out;
  // The conditions of the if/elif chain `owner`, up to (not including) the clause `upto`.
  auto chain_false = [&](Node owner, Node upto) {
    out.push_back({field(owner, "condition"), false});
    for (Node c : named_children(owner)) {
      if (same(c, upto)) break;
      if (is(c, "elif_clause")) out.push_back({field(c, "condition"), false});
    }
  };
  for (int depth = 0; !is_null(n) && depth < 4096; ++depth) {
    Node p = parent(n);
    if (is_null(p)) break;
    auto k = kind(p);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") break;
    if (is(n, "block")) {
      if (k == "if_statement" && same(field(p, "consequence"), n)) {
        out.push_back({field(p, "condition"), true});
      } else if (k == "elif_clause" && same(field(p, "consequence"), n) && is(parent(p), "if_statement")) {
        out.push_back({field(p, "condition"), true});
        chain_false(parent(p), p);
      } else if (k == "else_clause" && is(parent(p), "if_statement")) {
        chain_false(parent(p), p);
      } else if (k == "while_statement" && same(field(p, "body"), n)) {
        out.push_back({field(p, "condition"), true});
      }
    }
    n = p;
  }
  for (auto& g : out) g.first = unparen(g.first);
  std::erase_if(out, [](const auto& g) { return is_null(g.first); });
  return out;
}

namespace {
// A condition naming the out-of-memory case: a string or name with "out of memory" or
// "OutOfMemoryError" in it (case-insensitive); `negated`: it tests for the other case (`not in`,
// `not isinstance(...)`).
bool names_oom(Node cond, std::string_view src, bool& negated) {
  std::string t(text(cond, src));
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("out of memory") == std::string::npos && t.find("outofmemoryerror") == std::string::npos) return false;
  negated = t.find("not ") != std::string::npos;
  return true;
}
}  // namespace

bool model_detail::flag_test(Node cond, std::string_view src) {
  cond = unparen(cond);
  for (int depth = 0; is(cond, "not_operator") && depth < 64; ++depth) cond = unparen(field(cond, "argument"));
  if (is(cond, "identifier") || is(cond, "attribute")) return true;
  if (is(cond, "comparison_operator") && named_count(cond) == 2 && ts_node_child_count(cond) == 3) {
    Node x = unparen(named_child(cond, 0)), n = unparen(named_child(cond, 1));
    std::string_view op = text(ts_node_child(cond, 1), src), lit = is(n, "integer") ? text(n, src) : std::string_view{};
    return (is(x, "identifier") || is(x, "attribute")) &&
           (((op == ">" || op == "!=") && lit == "0") || (op == ">=" && lit == "1"));
  }
  if (is(cond, "boolean_operator")) {
    static thread_local int nested = 0;
    if (nested > 32) return false;
    ++nested;
    bool out = flag_test(field(cond, "left"), src) && flag_test(field(cond, "right"), src);
    --nested;
    return out;
  }
  return false;
}

Node model_detail::period_modulo(Node cond, bool positive, std::string_view src) {
  auto modulo = [&](Node e) {
    e = unparen(e);
    return is(e, "binary_operator") && text(field(e, "operator"), src) == "%" ? e : Node{};
  };
  cond = unparen(cond);
  for (int depth = 0; is(cond, "not_operator") && depth < 64; ++depth) {
    cond = unparen(field(cond, "argument"));
    positive = !positive;
  }
  if (!positive) return modulo(cond);
  if (!is(cond, "comparison_operator") || named_count(cond) != 2 || text(ts_node_child(cond, 1), src) != "==")
    return Node{};
  Node m = modulo(named_child(cond, 1));
  return is_null(m) ? modulo(named_child(cond, 0)) : m;
}

bool model_detail::in_oom_handler(Node at, std::string_view src) {
  bool oom_branch = false;
  Node below = at;
  for (Node n = parent(at); !is_null(n); below = n, n = parent(n)) {
    auto k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda" || k == "module") return false;
    if ((k == "if_statement" || k == "elif_clause") && same(field(n, "consequence"), below)) {
      bool negated = false;
      if (names_oom(field(n, "condition"), src, negated) && !negated) oom_branch = true;
      continue;
    }
    if (k != "except_clause" || !is(below, "block")) continue;
    Node caught = unparen(field(n, "value"));
    if (is(caught, "as_pattern")) caught = unparen(named_child(caught, 0));
    std::vector<Node> types;
    if (is(caught, "tuple")) {
      for (Node c : named_children(caught)) types.push_back(unparen(c));
    } else if (!is_null(caught)) {
      types.push_back(caught);
    }
    for (Node t : types) {
      std::string_view name = text(t, src);
      if (last_part(name) == "OutOfMemoryError") return true;
    }
    if (oom_branch) return true;
    // `if "out of memory" not in str(e): raise` before the statement: what follows is the OOM case.
    for (Node st : named_children(below)) {
      if (start(st) >= start(at)) break;
      if (!is(st, "if_statement")) continue;
      bool negated = false;
      Node body = field(st, "consequence");
      if (!names_oom(field(st, "condition"), src, negated) || !negated || !is(body, "block") || !named_count(body))
        continue;
      if (is(named_child(body, named_count(body) - 1), "raise_statement")) return true;
    }
  }
  return false;
}

// The conditions of the branches enclosing a binding's statement, up to its scope
// (model_detail::branch_guards of its target; parameters and imports: none).
const std::vector<std::pair<Node, bool>>& SemanticModel::binding_guards(const Binding& b) const {
  auto [it, fresh] = binding_guards_.try_emplace(&b);
  if (!fresh) return it->second;
  // The binding's target (a def/class: its definition); parameters and imports: none.
  Node n = !is_null(b.target) ? b.target : b.value;
  if (b.kind == Binding::Kind::Param || b.kind == Binding::Kind::Import) n = Node{};
  it->second = branch_guards(n);
  return it->second;
}

bool SemanticModel::step_counter(Node counter, Node increments, Node stores) const {
  counter = unparen(counter);
  if (is_null(increments) || is_null(stores)) return false;
  auto incremented_by_int = [&](Node aug) {  // the augmented assignment
    return text(field(aug, "operator")) == "+=" && is(unparen(field(aug, "right")), "integer");
  };
  bool incremented = false;
  if (is(counter, "attribute")) {
    int klass = class_of_self(counter);
    if (klass < 0) return false;
    std::string key = classes_[klass].name + "." + std::string(text(field(counter, "attribute")));
    auto aug = self_augmented_.find(key);
    if (aug == self_augmented_.end()) return false;
    for (Node v : aug->second) {  // the right sides
      if (!contains(increments, v)) continue;
      if (!incremented_by_int(parent(v))) return false;
      incremented = true;
    }
    if (!incremented) return false;
    for (int ai : self_stores(key))
      if (contains(stores, self_assignments_[ai].second)) return false;
    return true;
  }
  if (!is(counter, "identifier")) return false;
  const auto& bindings = scopes_[scope_at(start(counter))].bindings;
  auto it = bindings.find(std::string(text(counter)));
  if (it == bindings.end()) return false;
  for (const Binding& b : it->second) {
    if (is_null(b.target)) continue;
    if (b.kind != Binding::Kind::AugAssign) {
      if (contains(stores, b.target)) return false;
    } else if (contains(increments, b.target)) {
      if (!incremented_by_int(b.value)) return false;
      incremented = true;
    }
  }
  return incremented;
}

bool SemanticModel::binding_dead(const Binding& b) const {
  // Not while the model is being built: guards read values (parameters from call sites,
  // comparisons) that are only complete once the call graph is.
  if (!types_ || b.kind == Binding::Kind::Param || b.kind == Binding::Kind::Import) return false;
  for (const auto& [cond, need] : binding_guards(b)) {
    auto truth = guard_truth(cond);
    if (truth && *truth != need) return true;
  }
  return false;
}

// One pass over the file (on first use): the names of global/nonlocal statements, and the
// attribute names assigned on objects other than `self` (assignment, augmented assignment and
// for-loop targets, tuple targets included).
namespace {
// What collect_rebinds reads of a node type, per symbol of the grammar (built once from the type
// names, so the same answers as comparing kind()): one table read per node of the file.
enum class Rebind : unsigned char { Other, Declaration, Store };
Rebind rebind_class(Node n) {
  static const SymbolTable<Rebind> table(
      [](std::string_view k) {
        if (k == "global_statement" || k == "nonlocal_statement") return Rebind::Declaration;
        if (k == "assignment" || k == "augmented_assignment" || k == "for_statement" || k == "for_in_clause")
          return Rebind::Store;
        return Rebind::Other;
      },
      Rebind::Other);
  return table(n);
}
}  // namespace

static void collect_rebinds(Node root, std::string_view src, std::unordered_set<std::string>& globals,
                            std::unordered_set<std::string>& attributes) {
  std::vector<Node> stack{root};
  std::vector<Node> targets;
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    // The node's type read once, as a table entry (this walk visits every named node of the file).
    Rebind k = rebind_class(n);
    if (k == Rebind::Declaration) {
      for (Node c : named_children(n))
        if (is(c, "identifier")) globals.insert(std::string(text(c, src)));
      continue;
    }
    Node left{};
    if (k == Rebind::Store) left = field(n, "left");
    if (!is_null(left)) {
      targets.assign(1, left);
      while (!targets.empty()) {
        Node t = unparen(targets.back());
        targets.pop_back();
        if (is(t, "attribute")) {
          Node obj = unparen(field(t, "object"));
          if (!(is(obj, "identifier") && text(obj, src) == "self"))
            attributes.insert(std::string(text(field(t, "attribute"), src)));
        } else if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern") ||
                   is(t, "list_splat_pattern")) {
          for (Node c : named_children(t)) targets.push_back(c);
        }
      }
    }
    for_each_named_child(n, [&](Node c) {
      stack.push_back(c);
      return true;
    });
  }
}

bool SemanticModel::declared_global(std::string_view name) const {
  if (!global_names_built_) {
    global_names_built_ = true;
    collect_rebinds(root_, src_, global_names_, assigned_attributes_);
  }
  return global_names_.count(std::string(name)) > 0;
}

// An attribute name stored on an object other than `self` somewhere in the file, by a store that
// may run and may hit the read's object. A store does not count when it is
// - on torch's module state (`cudnn.benchmark = True`, `torch.backends.cudnn.deterministic =
//   True`: the object's qualified name is `torch` or under it): a module is no namespace or
//   configuration object, so `args.benchmark` keeps its default (set AL yolact eval.py, whose
//   `cudnn.benchmark = True` left `elif args.benchmark:` unresolved);
// - in a branch that never runs by a flag left off (`if args.output_web_json:
//   args.output_coco_json = True` with a store_true flag: a guard of the store that is a
//   model_detail::flag_test resolves to False; a comparison of a choice keeps the store).
// Before the types are built every store counts (guards are read once the model is built).
// Memoized per name; while a name's answer is computed it reads as reassigned (stores guarded by
// each other's flags prove nothing). O(stores of the name) once per name.
bool SemanticModel::attribute_reassigned(std::string_view attribute, Node read) const {
  declared_global("");  // builds both sets
  std::string name(attribute);
  if (!assigned_attributes_.count(name)) return false;
  if (!types_) return true;
  // The stores of the name the scope pass recorded (assignment and augmented targets: `obj.x =`;
  // not `setattr`, whose object's parent is no attribute). A name collect_rebinds saw stored
  // but recorded there by no such target (a `for obj.x in ...` target) counts as reassigned.
  // `skip`: a store that does not count.
  auto live_store = [&](auto&& skip) {
    std::vector<Node> stores;
    if (auto found = attribute_stores_.find(name); found != attribute_stores_.end())
      for (const auto& [obj, value] : found->second)
        if (is(parent(obj), "attribute") && same(field(parent(obj), "object"), obj)) stores.push_back(parent(obj));
    bool out = stores.empty();
    for (Node t : stores) {
      const std::string& q = qualified_name(field(t, "object"));
      if (q == "torch" || starts_with(q, "torch.")) continue;
      if (skip(field(t, "object"))) continue;
      bool dead = false;
      for (const auto& g : branch_guards(t)) dead = dead || (flag_test(g.first, src_) && guards_dead({g}));
      if (dead) continue;
      out = true;
      break;
    }
    return out;
  };
  std::string key = "reassigned:" + name;
  bool out;
  if (auto it = memo_.find(key); it != memo_.end()) {
    out = it->second != 0;
  } else {
    memo_[key] = 1;
    out = live_store([](Node) { return false; });
    memo_[key] = out ? 1 : 0;
  }
  // Reassigned somewhere, but not for this read when every live store runs only after the `if`
  // whose test holds it (`if args.resume is not None: args = pickle.load(f); args.resume =
  // resume`: the test reads the default). O(stores of the name) per such read.
  if (out && !is_null(read))
    out = live_store([&](Node obj) { return model_detail::stored_after_own_test(*this, read, obj); });
  return out;
}

// The `if` statement whose condition is `cond`, alone or and-ed (parentheses skipped); null if none.
static Node guarding_if(Node cond, std::string_view src) {
  Node owner = parent(cond);
  while (is(owner, "parenthesized_expression") ||
         (is(owner, "boolean_operator") && python::text(field(owner, "operator"), src) == "and"))
    owner = parent(owner);
  return is(owner, "if_statement") ? owner : Node{};
}

// A latch: `if self.flag:` (alone or and-ed) whose branch clears the flag with a top-level
// `self.flag = False`, and no method of any class of the file but `__init__` stores anything
// else in an attribute of that name: the branch runs at most once.
bool SemanticModel::latch_cleared(Node cond) const {
  int klass = class_of_self(cond);
  if (klass < 0) return false;
  Node owner = guarding_if(cond, src_);
  if (ts_node_is_null(owner)) return false;
  std::string_view flag = text(cond);
  bool cleared = false;
  for (Node stmt : named_children(field(owner, "consequence"))) {
    Node a = is(stmt, "expression_statement") && named_count(stmt) == 1 ? named_child(stmt, 0) : Node{};
    if (is(a, "assignment") && text(unparen(field(a, "left"))) == flag && is(unparen(field(a, "right")), "false"))
      cleared = true;
  }
  if (!cleared) return false;
  std::string suffix = "." + std::string(text(field(cond, "attribute")));
  for (const auto& [key, value] : self_assignments_) {
    if (key.size() < suffix.size() || key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    if (is(unparen(value), "false")) continue;
    int f = function_at(start(value));
    if (f < 0 || !functions_[f].initializer()) return false;
  }
  return true;
}

bool SemanticModel::buffer_latch_set(Node cond) const {
  // `self.x.item() == c`, `int(self.x) == c`, `self.x == c` (c a number) in a method, as the
  // condition of an `if` (alone or and-ed).
  if (!is(cond, "comparison_operator") || named_count(cond) != 2 || ts_node_child_count(cond) != 3 ||
      text(ts_node_child(cond, 1)) != "==")
    return false;
  // A literal only (syntax: no value inference from inside the hotness questions).
  auto number = [&](Node e) -> std::optional<double> {
    e = unparen(e);
    if (is(e, "true")) return 1.0;
    if (is(e, "false")) return 0.0;
    if (!is(e, "integer") && !is(e, "float")) return std::nullopt;
    std::string t(text(e));
    t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0') return std::nullopt;
    return v;
  };
  Node read = unparen(named_child(cond, 0));
  auto tested = number(named_child(cond, 1));
  if (!tested) {
    read = unparen(named_child(cond, 1));
    tested = number(named_child(cond, 0));
  }
  if (!tested) return false;
  if (is(read, "call")) {
    Node fn = unparen(field(read, "function"));
    Node args = field(read, "arguments");
    if (is(fn, "attribute") && text(field(fn, "attribute")) == "item" && named_count(args) == 0)
      read = unparen(field(fn, "object"));
    else if (is(fn, "identifier") && (text(fn) == "int" || text(fn) == "float" || text(fn) == "bool") &&
             named_count(args) == 1)
      read = unparen(named_child(args, 0));
    else
      return false;
  }
  if (!is(read, "attribute") || text(unparen(field(read, "object"))) != "self") return false;
  int klass = class_of_self(read);
  if (klass < 0) return false;
  Node owner = guarding_if(cond, src_);
  if (ts_node_is_null(owner)) return false;
  Node branch = field(owner, "consequence");
  const std::string buffer(text(read));
  // The branch's own statement `self.x.fill_(k)` (k another number than c) sets it.
  Node set{};
  for (Node stmt : named_children(branch)) {
    Node c = is(stmt, "expression_statement") && named_count(stmt) == 1 ? unparen(named_child(stmt, 0)) : Node{};
    if (!is(c, "call")) continue;
    Node fn = unparen(field(c, "function"));
    if (!is(fn, "attribute") || text(field(fn, "attribute")) != "fill_" || text(unparen(field(fn, "object"))) != buffer)
      continue;
    auto k = number(argument(c, 0, "value"));
    if (k && *k != *tested) set = c;
  }
  if (is_null(set)) return false;
  // Nothing else writes it outside the initializers (a method that re-arms it, `self.x.zero_()`,
  // makes the branch run again): no other in-place call on it, no store, no augmented store.
  // O(calls of the class's methods).
  const std::string key = classes_[klass].name + "." + std::string(text(field(read, "attribute")));
  for (int ai : self_stores(key)) {
    int f = function_at(start(self_assignments_[static_cast<size_t>(ai)].second));
    if (f < 0 || !functions_[f].initializer()) return false;
  }
  if (self_augmented_.count(key)) return false;
  for (const auto& cs : calls_) {
    if (cs.caller < 0 || functions_[cs.caller].klass != klass || functions_[cs.caller].initializer() || same(cs.call, set))
      continue;
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute")) continue;
    Node obj = unparen(field(fn, "object"));
    if (is(obj, "attribute") && text(field(obj, "attribute")) == "data") obj = unparen(field(obj, "object"));
    std::string_view meth = text(field(fn, "attribute"));
    if (text(obj) == buffer && !meth.empty() && meth.back() == '_') return false;
  }
  return true;
}

bool SemanticModel::flag_cleared_in_branch(Node cond) const {
  // `self.flag` (alone or and-ed): a latch only if nothing but `__init__` sets the attribute to
  // anything else (a method that re-arms it makes the branch run again).
  if (is(cond, "attribute")) return latch_cleared(cond);
  Node owner = parent(cond);
  if (!is(owner, "if_statement") && !is(owner, "elif_clause")) return false;
  Node branch = field(owner, "consequence");
  if (is_null(branch)) return false;
  std::string_view name = text(cond);
  const auto& bindings = scopes_[scope_at(start(cond))].bindings;
  auto it = bindings.find(std::string(name));
  if (it == bindings.end()) return false;
  for (const Binding& b : it->second)
    if (b.is_plain_assign() && !is_null(b.target) && contains(branch, b.target) &&
        is(unparen(b.value), "false"))
      return true;
  return false;
}

// `exists(x)` of a function of this file (not a method) whose only statement is `return p is
// not None` (`return p is None` when `is_none`) of its first parameter: the argument given for p;
// null otherwise. O(1) past the callee lookup.
Node SemanticModel::none_test_argument(Node call, bool is_none) const {
  auto targets = callees(call);
  if (targets.size() != 1) return {};
  const Function& f = functions_[targets[0]];
  if (f.klass >= 0 || f.other_decorators || f.returns.size() != 1 || f.params.empty() || f.params[0].is_variadic)
    return {};
  Node body = field(f.node, "body");
  if (named_count(body) != 1) return {};  // the return alone (no docstring, no other statement)
  Node r = unparen(f.returns[0]);
  if (!is(r, "comparison_operator") || named_count(r) != 2 || ts_node_child_count(r) != 3) return {};
  std::string_view op = text(ts_node_child(r, 1));
  if (op != (is_none ? "is" : "is not") || !is(unparen(named_child(r, 1)), "none")) return {};
  Node p = unparen(named_child(r, 0));
  if (!is(p, "identifier") || text(p) != f.params[0].name) return {};
  Node arg = argument(call, 0, f.params[0].name);
  return is_null(arg) ? Node{} : unparen(arg);
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

std::optional<bool> SemanticModel::hot_param_truth(int function, Node cond) const {
  cond = unparen(cond);
  if (is(cond, "not_operator")) {
    auto t = hot_param_truth(function, field(cond, "argument"));
    return t ? std::optional<bool>(!*t) : std::nullopt;
  }
  if (!is(cond, "identifier")) return std::nullopt;
  return memoized_truth(hot_param_truth_cache_, cond.id, [&](bool& budget) -> std::optional<bool> {
    Step step(*this);
    if (!step) {
      budget = false;
      return std::nullopt;
    }
    return hot_param_truth_uncached(function, cond);
  });
}

std::optional<bool> SemanticModel::hot_param_truth_uncached(int function, Node name) const {
  auto bindings = lookup(text(name), start(name));
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function != function)
    return std::nullopt;
  int pi = bindings[0]->param_index;
  const Function& fn = functions_[function];
  const Param& p = fn.params[pi];
  if (p.is_variadic || pi < bound_params(fn)) return std::nullopt;
  std::vector<Value> vs;
  bool any = false, default_used = false;
  if (const ArgFacts* ext = ext_param(function, pi, fact::kHotValues)) {  // hot call sites elsewhere
    if (ext->hot_passed)
      for (const Value& v : to_values(ext->hot_values)) vs.push_back(v);
    default_used |= ext->hot_defaulted;
    any |= ext->hot_passed || ext->hot_defaulted;
  }
  int position = pi - bound_params(fn);
  for (int ci : callers(function)) {
    const CallSite& cs = calls_[ci];
    HotContext h = frame_hot_context(cs.caller, cs.loops, cs.guards, cs.guard_loop_depth, cs.lambda_depth);
    if (!h.hot || h.once_per_epoch) continue;
    any = true;
    Node a = argument(cs.call, p.keyword_only ? -1 : position, p.name);
    if (!is_null(a)) {
      for (const Value& v : values(a)) vs.push_back(v);
      continue;
    }
    if (has_splat_argument(cs.call)) return std::nullopt;
    default_used = true;
  }
  if (!any) return std::nullopt;
  if (default_used) {
    if (is_null(p.default_value)) return std::nullopt;
    for (const Value& v : values(p.default_value)) vs.push_back(v);
  }
  std::optional<bool> out;
  for (const Value& v : vs) {
    auto b = truthy(v);
    if (!b || (out && *out != *b)) return std::nullopt;
    out = b;
  }
  return out;
}

bool SemanticModel::guards_dead(const std::vector<std::pair<Node, bool>>& guards) const {
  for (const auto& [cond, positive] : guards) {
    auto truth = guard_truth(cond);
    if (truth && *truth != positive) return true;
  }
  return false;
}

}  // namespace stoker::python
