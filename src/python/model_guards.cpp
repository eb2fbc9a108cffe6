// Guards on a hot loop's own index that hold on a bounded number of steps of each pass: the
// index below a bound the loop does not change (`if idx < hp.log.num_audio:`, the first few
// batches of a validation logged), or in a small collection of indices (`if i in rand` with
// `rand = torch.randint(0, 100, (3,))`). Split from model_hotness.cpp (apply_guards asks).
#include "python/model_internal.h"
#include "python/symbol_table.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace stoker::python {

using namespace model_detail;

namespace {
// At most this many steps per pass (or per run, for a `range` loop's counter) count as bounded;
// the same bound as empty_until_filled's `len(acc) < K`.
constexpr long long kMaxBoundedSteps = 1000;
// Nodes a region walk visits at most (a larger loop body proves nothing fixed).
constexpr size_t kMaxRegionNodes = 20000;
}  // namespace

const SemanticModel::RegionStores& SemanticModel::region_stores(Node region) const {
  auto [it, fresh] = region_stores_.try_emplace(region.id);
  RegionStores& r = it->second;
  if (!fresh) return r;
  // The texts a store target writes: names, attributes, and the container of a subscript store
  // (`x[0] = v` changes what `x` holds).
  std::function<void(Node, int)> store = [&](Node t, int depth) {
    t = unparen(t);
    if (is_null(t) || depth > 8) return;
    if (is(t, "identifier") || is(t, "attribute")) {
      r.stored.insert(std::string(text(t)));
    } else if (is(t, "subscript")) {
      r.receivers.insert(std::string(text(unparen(field(t, "value")))));
    } else if (is(t, "pattern_list") || is(t, "tuple_pattern") || is(t, "list_pattern") || is(t, "tuple") ||
               is(t, "list") || is(t, "list_splat_pattern") || is(t, "list_splat")) {
      for (Node c : named_children(t)) store(c, depth + 1);
    }
  };
  // (node, inside a loop nested in the region: its `break` leaves that loop only)
  std::vector<std::pair<Node, bool>> stack{{region, false}};
  for (size_t visited = 0; !stack.empty(); ++visited) {
    if (visited > kMaxRegionNodes) {
      r.complete = false;
      break;
    }
    auto [n, nested] = stack.back();
    stack.pop_back();
    std::string_view k = kind(n);
    if (k == "function_definition" || k == "class_definition" || k == "lambda") continue;  // other scopes
    if (k == "return_statement" || (k == "break_statement" && !nested)) r.exits = true;
    if (k == "assignment" || k == "augmented_assignment") store(field(n, "left"), 0);
    if (k == "for_statement" || k == "for_in_clause") store(field(n, "left"), 0);
    if (k == "named_expression") store(field(n, "name"), 0);
    if (k == "delete_statement")
      for (Node c : named_children(n)) store(c, 0);
    if (k == "as_pattern") store(named_child(n, named_count(n) - 1), 0);
    if (k == "call") {
      Node fn = unparen(field(n, "function"));
      if (is(fn, "attribute")) r.receivers.insert(std::string(text(unparen(field(fn, "object")))));
    }
    bool inner = nested || k == "for_statement" || k == "while_statement";
    for (Node c : named_children(n)) stack.push_back({c, inner});
  }
  return r;
}

std::optional<long long> SemanticModel::index_collection_size(Node e, Node hot_region, int depth) const {
  e = unparen(e);
  if (is_null(e) || depth > 4) return std::nullopt;
  auto k = kind(e);
  if (k == "list" || k == "tuple" || k == "set") {
    long long n = 0;
    for (Node c : named_children(e)) {
      if (is(c, "comment")) continue;
      if (is(c, "list_splat") || is(c, "dictionary_splat")) return std::nullopt;
      ++n;
    }
    return n;
  }
  // `xs[:k]`, `xs[a:b]`: at most b - a elements.
  if (k == "subscript") {
    auto subs = named_children(e);
    if (subs.size() != 2 || !is(subs[1], "slice")) return std::nullopt;
    auto bounds = named_children(subs[1]);
    if (bounds.empty() || bounds.size() > 2) return std::nullopt;
    // `[:k]` names only the stop; `[a:b]` both (a step is another child: not handled).
    std::string_view slice = text(subs[1]);
    bool starts = slice.substr(0, slice.find(':')).find_first_not_of(" \t") != std::string_view::npos;
    if (starts && bounds.size() != 2) return std::nullopt;
    auto stop = constant_int(bounds.back());
    auto from = starts ? constant_int(bounds[0]) : std::optional<long long>(0);
    if (!stop || !from || *stop < *from || *from < 0) return std::nullopt;
    return *stop - *from;
  }
  if (k == "call") {
    const std::string& q = callee_name(e);
    auto args = named_children(field(e, "arguments"));
    std::vector<Node> positional;
    for (Node a : args) {
      if (is(a, "list_splat") || is(a, "dictionary_splat")) return std::nullopt;
      if (!is(a, "keyword_argument") && !is(a, "comment")) positional.push_back(a);
    }
    auto keyword = [&](std::string_view name) -> Node {
      for (Node a : args)
        if (is(a, "keyword_argument") && text(field(a, "name")) == name) return field(a, "value");
      return Node{};
    };
    // A size given as an int or a tuple of ints: their product.
    auto size_of = [&](Node s) -> std::optional<long long> {
      s = unparen(s);
      if (is_null(s)) return std::nullopt;
      if (is(s, "tuple") || is(s, "list")) {
        long long n = 1;
        for (Node c : named_children(s)) {
          auto v = constant_int(c);
          if (!v || *v < 0 || *v > kMaxBoundedSteps) return std::nullopt;
          n *= *v;
        }
        return n;
      }
      return constant_int(s);
    };
    if (q == "range" || q == "builtins.range") {
      if (positional.empty() || positional.size() > 3 || positional.size() != args.size()) return std::nullopt;
      std::vector<long long> v;
      for (Node a : positional) {
        auto c = constant_int(a);
        if (!c) return std::nullopt;
        v.push_back(*c);
      }
      long long start = v.size() == 1 ? 0 : v[0], stop = v.size() == 1 ? v[0] : v[1], step = v.size() == 3 ? v[2] : 1;
      if (step <= 0) return std::nullopt;
      return stop <= start ? 0 : (stop - start + step - 1) / step;
    }
    if (q == "torch.randint") {  // randint(high, size) / randint(low, high, size)
      Node s = keyword("size");
      if (is_null(s) && (positional.size() == 2 || positional.size() == 3)) s = positional.back();
      return size_of(s);
    }
    if (q == "numpy.random.randint") {  // randint(low, high=None, size=None)
      Node s = keyword("size");
      if (is_null(s) && positional.size() == 3) s = positional[2];
      return size_of(s);
    }
    if (q == "numpy.random.choice") {  // choice(a, size=None, ...)
      Node s = keyword("size");
      if (is_null(s) && positional.size() >= 2) s = positional[1];
      return size_of(s);
    }
    if (q == "random.sample") {  // sample(population, k)
      Node s = keyword("k");
      if (is_null(s) && positional.size() == 2) s = positional[1];
      return size_of(s);
    }
    if (q == "torch.randperm" || q == "numpy.random.permutation" || q == "numpy.arange") {
      if (positional.size() != 1) return std::nullopt;
      return constant_int(positional[0]);
    }
    if (q == "set" || q == "list" || q == "tuple" || q == "sorted" || q == "builtins.set" || q == "builtins.list" ||
        q == "builtins.tuple" || q == "builtins.sorted") {
      if (positional.size() != 1 || args.size() != 1) return std::nullopt;
      return index_collection_size(positional[0], hot_region, depth + 1);
    }
    return std::nullopt;
  }
  // A name every binding of which is such a collection, which the hot region neither rebinds nor
  // changes in place (no method called on it, no item stored).
  if (k == "identifier") {
    const RegionStores& r = region_stores(hot_region);
    std::string name(text(e));
    if (!r.complete || r.stored.count(name) || r.receivers.count(name)) return std::nullopt;
    auto bindings = lookup(name, start(e));
    if (bindings.empty() || bindings.size() > kMaxCandidates) return std::nullopt;
    long long most = 0;
    for (const Binding* b : bindings) {
      if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || is_null(b->value)) return std::nullopt;
      if (!is_null(b->target) && contains(hot_region, b->target)) return std::nullopt;
      auto n = index_collection_size(b->value, hot_region, depth + 1);
      if (!n) return std::nullopt;
      most = std::max(most, *n);
    }
    return most;
  }
  return std::nullopt;
}

bool SemanticModel::bounded_index_guard(Node cond, Node hot_region) const {
  if (is_null(hot_region)) return false;
  auto [memo, fresh] = bounded_index_guard_.try_emplace({cond.id, hot_region.id}, false);
  if (!fresh) return memo->second;
  bool& answer = memo->second;
  // The loop's own index: the first name of `for i, x in enumerate(xs)` (a pass's index, from
  // zero each pass), or the name of `for i in range(...)` (a run's step when that loop is the
  // training loop).
  Node loop = parent(hot_region);
  if (!is(loop, "for_statement")) return false;
  Node target = unparen(field(loop, "left"));
  Node over = unparen(field(loop, "right"));
  if (!is(over, "call")) return false;
  std::string_view iter_fn = text(unparen(field(over, "function")));
  bool enumerated = false;
  if (iter_fn == "enumerate") {
    if (!is(target, "pattern_list") && !is(target, "tuple_pattern")) return false;
    auto parts = named_children(target);
    if (parts.empty()) return false;
    target = unparen(parts.front());
    Node inner = unparen(named_child(field(over, "arguments"), 0));
    enumerated = !(is(inner, "call") && text(unparen(field(inner, "function"))) == "range");
  } else if (iter_fn != "range") {
    return false;
  }
  if (!is(target, "identifier")) return false;
  std::string_view counter = text(target);
  const RegionStores& stores = region_stores(hot_region);
  if (!stores.complete || stores.stored.count(std::string(counter))) return false;

  auto parts = named_children(cond);
  if (parts.size() != 2) return false;
  Node l = unparen(parts[0]), r = unparen(parts[1]);
  std::string_view op = text(ts_node_child(cond, 1));
  // `i in C`: at most |C| steps, whatever the loop.
  if (op == "in") {
    if (!is(l, "identifier") || text(l) != counter) return false;
    auto n = index_collection_size(r, hot_region, 0);
    answer = n && *n <= kMaxBoundedSteps;
    return answer;
  }
  // `i < K`, `i <= K`, `K > i`, `K >= i`.
  bool inclusive = op == "<=" || op == ">=";
  Node bound{};
  if (is(l, "identifier") && text(l) == counter && (op == "<" || op == "<=")) bound = r;
  else if (is(r, "identifier") && text(r) == counter && (op == ">" || op == ">=")) bound = l;
  if (is_null(bound)) return false;
  if (auto k = constant_int(bound)) {
    answer = *k + (inclusive ? 1 : 0) <= kMaxBoundedSteps;
    return answer;
  }
  // An unresolved bound: only a pass's index (a run's step below a warmup bound may be a long
  // phase), in a loop that does not stop at the bound (no `break` or `return`: `if i < limit:
  // ... else: break` is every step the loop runs), the bound fixed in the loop and not the pass's
  // length, and the branch side work that runs no step of its own (a forward, `backward()`, an
  // optimizer step: `if i < n_train: loss = model(x)...` is the pass's work, limited).
  if (!enumerated || stores.exits) return false;
  std::string_view iterable = text(over);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto written_in_iterable = [&](std::string_view s) {
    for (size_t at = iterable.find(s); at != std::string_view::npos; at = iterable.find(s, at + 1)) {
      bool before = at > 0 && (word(iterable[at - 1]) || iterable[at - 1] == '.');
      bool after = at + s.size() < iterable.size() && word(iterable[at + s.size()]);
      if (!before && !after) return true;
    }
    return false;
  };
  std::function<bool(Node, int)> fixed = [&](Node e, int depth) -> bool {
    e = unparen(e);
    if (is_null(e) || depth > 8) return false;
    if (is(e, "integer")) return true;
    if (is(e, "identifier") || is(e, "attribute")) {
      std::string_view t = text(e);
      if (t == counter || written_in_iterable(t)) return false;
      // Neither it nor what it is read from (`hp`, `hp.log` of `hp.log.num_audio`) is stored here.
      for (size_t dot = 0;; ++dot) {
        dot = t.find('.', dot);
        if (stores.stored.count(std::string(t.substr(0, dot)))) return false;
        if (dot == std::string_view::npos) break;
      }
      // The pass's length: `n_batches = len(loader)`, `steps_per_epoch`.
      std::string_view name = is(e, "attribute") ? text(field(e, "attribute")) : t;
      if (name.find("per_epoch") != std::string_view::npos || name == "epoch_size" || name == "epoch_length" ||
          name == "epoch_len")
        return false;
      if (is(e, "identifier"))
        for (const Binding* b : lookup(std::string(t), start(e)))
          if (b->kind == Binding::Kind::Assign && !is_null(b->value) && text(b->value).find("len(") != std::string_view::npos)
            return false;
      return true;
    }
    if (is(e, "binary_operator")) {
      std::string_view o = text(field(e, "operator"));
      return (o == "+" || o == "-" || o == "*" || o == "//") && fixed(field(e, "left"), depth + 1) &&
             fixed(field(e, "right"), depth + 1);
    }
    if (is(e, "call") && text(field(e, "function")) == "int") {
      auto args = named_children(field(e, "arguments"));
      return args.size() == 1 && fixed(args[0], depth + 1);
    }
    return false;  // `len(loader)` and other calls: maybe the pass's length
  };
  if (!fixed(bound, 0)) return false;
  Node owner = parent(cond);
  while (is(owner, "parenthesized_expression") || is(owner, "boolean_operator")) owner = parent(owner);
  if (!is(owner, "if_statement") && !is(owner, "elif_clause")) return false;
  Node branch = field(owner, "consequence");
  if (is_null(branch)) return false;
  std::vector<Node> stack{branch};
  for (size_t visited = 0; !stack.empty(); ++visited) {
    if (visited > kMaxRegionNodes) return false;
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) continue;
    if (is(n, "call") && is_step_call(n, true)) return false;
    for (Node c : named_children(n)) stack.push_back(c);
  }
  answer = true;
  return answer;
}

}  // namespace stoker::python
