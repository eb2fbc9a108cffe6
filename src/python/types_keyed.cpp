#include <algorithm>
#include <string>

#include "python/call_positions.h"
#include "python/dict_fills.h"
#include "python/loader_wrappers.h"
#include "python/semantic_model.h"
#include "python/types.h"
#include "python/types_detail.h"

// Keyed containers: what `d["key"]` holds (a dict display's value under the key, joined with the
// stores of the key in the file), the item stores of a name (`x[i] = v`), a batch whose items are
// replaced by device tensors under its keys, and a collate_fn's host lists. Split from types.cpp
// by concern (issue 10's layout).

namespace stoker::python {

using Kind = AbstractType::Kind;
using namespace type_detail;

bool type_detail::mapping_read(const SemanticModel& m, Node item) {
  Node up = parent(item);
  while (is(up, "parenthesized_expression")) up = parent(up);
  if (is(up, "subscript") && same(unparen(field(up, "value")), item)) {
    std::string key;
    return string_literal_value(unparen(field(up, "subscript")), m.src(), key);
  }
  if (is(up, "attribute") && same(unparen(field(up, "object")), item)) {
    std::string_view a = text(field(up, "attribute"), m.src());
    Node call = parent(up);
    return (a == "items" || a == "keys" || a == "values") && is(call, "call") && same(unparen(field(call, "function")), up);
  }
  return false;
}

bool TypeInference::collated_host_list(Node batch, const std::string& key) const {
  auto bindings = visible(m_, batch);
  if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::LoopTarget) return false;
  // The one Def a name binds, as a function index.
  auto function_named = [&](Node name) -> int {
    if (!is(unparen(name), "identifier")) return -1;
    auto bs = visible(m_, unparen(name));
    return bs.size() == 1 && bs[0]->kind == Binding::Kind::Def ? bs[0]->function : -1;
  };
  // The value stored under `k` by every return of f, each a dict display; null otherwise.
  auto returned_under = [&](int f, const std::string& k, std::vector<Node>& out) {
    const auto& returns = m_.functions()[f].returns;
    if (returns.empty() || returns.size() > 4) return false;
    for (Node r : returns) {
      r = unparen(r);
      if (!is(r, "dictionary")) return false;
      Node found{};
      for (Node pair : named_children(r)) {
        std::string s;
        if (is(pair, "pair") && string_literal_value(field(pair, "key"), m_.src(), s) && s == k) found = field(pair, "value");
        else if (!is(pair, "pair") && !is(pair, "comment")) return false;  // `**other`
      }
      if (is_null(found)) return false;
      out.push_back(found);
    }
    return true;
  };
  // A name's single assigned expression (`xs = [...]`), or the expression itself.
  auto single = [&](Node e) {
    e = unparen(e);
    if (!is(e, "identifier")) return e;
    auto vs = m_.values(e);
    return vs.size() == 1 && vs[0].kind == Value::Kind::Expr ? unparen(vs[0].expr) : Node{};
  };
  const auto& origins = m_.loader_origins(bindings[0]->value);
  if (origins.empty()) return false;
  for (Node loader : origins) {
    if (!is_null(wrapped_loader_construction(m_, loader))) continue;  // its construction is an origin too
    if (!is(loader, "call") || !m_.is_loader_call(loader)) return false;
    int collate = function_named(m_.keyword_arguments(loader).find("collate_fn"));
    if (collate < 0 || m_.functions()[collate].params.empty()) return false;
    std::vector<Node> gathered;
    if (!returned_under(collate, key, gathered)) return false;
    // The dataset's class, of this file.
    Node ds = single(m_.argument(loader, 0, "dataset"));
    if (!is(ds, "call")) return false;
    int klass = class_of_callee(unparen(field(ds, "function")));
    if (klass < 0) return false;
    auto getitem = m_.classes()[klass].methods.find("__getitem__");
    if (getitem == m_.classes()[klass].methods.end()) return false;
    const std::string& items = m_.functions()[collate].params[0].name;
    for (Node g : gathered) {
      // `[example["k2"] for example in data]` over the collate's argument.
      Node comp = single(g);
      if (!is(comp, "list_comprehension")) return false;
      Node body = unparen(field(comp, "body"));
      Node clause{};
      for (Node c : named_children(comp))
        if (is(c, "for_in_clause")) {
          if (!is_null(clause)) return false;
          clause = c;
        } else if (!same(c, body) && !is(c, "comment")) {
          return false;  // an `if` clause keeps the answer, but stay simple
        }
      if (is_null(clause) || !is(unparen(field(clause, "right")), "identifier") ||
          text(unparen(field(clause, "right")), m_.src()) != items)
        return false;
      std::string item_key;
      Node var = unparen(field(clause, "left"));
      if (!is(body, "subscript") || !is(var, "identifier") ||
          text(unparen(field(body, "value")), m_.src()) != text(var, m_.src()) ||
          !string_literal_value(field(body, "subscript"), m_.src(), item_key))
        return false;
      std::vector<Node> fields;
      if (!returned_under(getitem->second, item_key, fields)) return false;
      for (Node v : fields) {
        AbstractType t = value(v, Path{});
        if (t.kind != Kind::HostScalar) return false;
      }
    }
  }
  return true;
}

AbstractType TypeInference::keyed_value(Node subscript) const {
  std::string key;
  if (!string_literal_value(unparen(field(subscript, "subscript")), m_.src(), key)) return AbstractType::unknown();
  std::vector<std::string_view> names;  // the names the dict passed through
  AbstractType t = keyed(field(subscript, "value"), key, names);
  // A helper here that fills the dict from another argument's items (`accum_log(logs, {"critic_loss":
  // critic_loss})`, dict_fills.h): a tensor on the devices those values may be on, when one is not
  // known to be a host value (the CUDA taint then reads the values); nothing otherwise.
  AbstractType filled = AbstractType::bottom();
  if (is(unparen(field(subscript, "value")), "identifier"))
    for (Node source : dict_fill_sources(m_, *this, field(subscript, "value"))) {
      std::vector<std::string_view> inner;
      AbstractType st = keyed(source, key, inner);
      if (cuda_answer(st) == CudaAnswer::Host) continue;
      TypeDevice d = cuda_answer(st) == CudaAnswer::Cuda ? st.device : TypeDevice::Unresolved;
      filled = filled.kind == Kind::Bottom ? AbstractType::of(Kind::Tensor, d)
                                           : AbstractType::of(Kind::Tensor, join(filled.device, d));
    }
  if (t.kind == Kind::Unknown || t.kind == Kind::Bottom) return filled.kind == Kind::Bottom ? AbstractType::unknown() : filled;
  if (filled.kind != Kind::Bottom) t = join(t, filled);
  // Stores of the key anywhere in the file (on any object: a store to another dict with the
  // same key only widens the answer).
  auto stored_key = [&](Node target) {
    std::string k;
    target = unparen(target);
    return is(target, "subscript") && string_literal_value(unparen(field(target, "subscript")), m_.src(), k) && k == key;
  };
  // A store under a key that is not a literal (`meta[k] = v.cuda()` in a loop over its items),
  // into a name the dict passed through, may set this key too.
  auto stored_any = [&](Node target) {
    std::string k;
    target = unparen(target);
    if (!is(target, "subscript") || string_literal_value(unparen(field(target, "subscript")), m_.src(), k)) return false;
    Node obj = unparen(field(target, "value"));
    return is(obj, "identifier") && std::find(names.begin(), names.end(), text(obj, m_.src())) != names.end();
  };
  for (Node s : m_.subscript_assignments_)
    if (stored_key(field(s, "left")) || stored_any(field(s, "left"))) t = join(t, value(field(s, "right"), Path{}));
  for (Node s : m_.subscript_augmented_)
    if (stored_key(field(s, "left"))) t = join(t, arith(t, value(field(s, "right"), Path{})));
  // `d.update(key=v)`, `d.update({"key": v})` on a name the dict passed through; an update with
  // anything else may set the key to anything.
  for (Node u : m_.update_calls_) {
    Node obj = unparen(field(field(u, "function"), "object"));
    if (!is(obj, "identifier") || std::find(names.begin(), names.end(), text(obj, m_.src())) == names.end()) continue;
    for (Node a : named_children(field(u, "arguments"))) {
      if (is(a, "keyword_argument")) {
        if (text(field(a, "name"), m_.src()) == key) t = join(t, value(field(a, "value"), Path{}));
        continue;
      }
      if (is(a, "comment")) continue;
      std::vector<std::string_view> inner;
      AbstractType e = is(unparen(a), "dictionary") ? keyed(a, key, inner) : AbstractType::unknown();
      if (e.kind == Kind::Unknown) {
        // The display may not name the key (then the update leaves it); anything else: unknown.
        if (!is(unparen(a), "dictionary")) return AbstractType::unknown();
        bool splat = false;
        for (Node c : named_children(unparen(a))) splat |= is(c, "dictionary_splat");
        if (splat) return AbstractType::unknown();
        continue;
      }
      t = join(t, e);
    }
  }
  return t;
}

AbstractType TypeInference::keyed(Node e, const std::string& key, std::vector<std::string_view>& names) const {
  e = unparen(e);
  if (is_null(e)) return AbstractType::unknown();
  auto found = keyed_memo_.find({e.id, key});
  if (found != keyed_memo_.end()) {
    if (is(e, "identifier")) names.push_back(text(e, m_.src()));
    return found->second.done ? found->second.type : AbstractType::bottom();
  }
  SemanticModel::Step step(m_);
  if (!step || names.size() > SemanticModel::kMaxCandidates) return AbstractType::unknown();
  keyed_memo_[{e.id, key}];  // in progress: a cycle answers Bottom
  AbstractType t = AbstractType::unknown();
  auto k = kind(e);
  if (k == "dictionary") {
    t = AbstractType::unknown();
    for (Node c : named_children(e)) {
      if (is(c, "dictionary_splat")) {
        t = AbstractType::unknown();  // may override the key
        continue;
      }
      std::string k2;
      if (!is(c, "pair")) continue;
      if (!string_literal_value(unparen(field(c, "key")), m_.src(), k2)) {
        t = AbstractType::unknown();  // a computed key may be this one
        continue;
      }
      if (k2 == key) t = value(field(c, "value"), Path{});
    }
  } else if (k == "conditional_expression" && named_count(e) == 3) {
    t = join(keyed(named_child(e, 0), key, names), keyed(named_child(e, 2), key, names));
  } else if (k == "identifier") {
    names.push_back(text(e, m_.src()));
    auto bindings = visible(m_, e);
    if (!bindings.empty() && bindings.size() <= SemanticModel::kMaxCandidates) {
      t = AbstractType::bottom();
      for (const Binding* b : bindings) {
        AbstractType bt = AbstractType::unknown();
        if (b->is_plain_assign()) {
          bt = keyed(b->value, key, names);
        } else if (b->kind == Binding::Kind::Param) {
          // From every call site in this file (a parameter other modules call is left unknown).
          const Function& fn = m_.functions()[b->function];
          const Param& p = fn.params[b->param_index];
          int position = b->param_index - bound_params(fn);
          const auto& sites = m_.callers(b->function);
          bool external = m_.facts_ && m_.ext_param(b->function, b->param_index, fact::kValues);
          if (position >= 0 && !p.is_variadic && !sites.empty() && !external && !m_.is_step_hook(b->function)) {
            bt = AbstractType::bottom();
            for (int ci : sites) {
              Node a = m_.argument(m_.calls()[ci].call, p.keyword_only ? -1 : position, p.name);
              AbstractType at = is_null(a) ? (is_null(p.default_value) ? AbstractType::unknown()
                                                                       : keyed(p.default_value, key, names))
                                           : keyed(a, key, names);
              bt = join(bt, at);
              if (bt.kind == Kind::Unknown) break;
            }
          }
        }
        t = join(t, bt);
        if (t.kind == Kind::Unknown) break;
      }
    }
  }
  Entry& entry = keyed_memo_[{e.id, key}];
  entry.done = true;
  entry.type = t;
  return t;
}

TypeDevice TypeInference::keyed_device_stores(Node name) const {
  // The device of the tensors stored under the dict keys of `n` in `scope` (stores that do not
  // hold `use`); with `param_only`, only stores into the name as a parameter never rebound.
  // The literal key the use reads (`batch["text"]`), if any: only stores of that key, or of
  // every key (a loop over the dict's keys), tell where the field is.
  std::string use_key;
  if (Node up = parent(name); is(up, "subscript") && same(unparen(field(up, "value")), name))
    if (!string_literal_value(unparen(field(up, "subscript")), m_.src(), use_key)) use_key.clear();
  auto stores_into = [&](int scope, std::string_view n, Node use, bool param_only) {
    TypeDevice out = TypeDevice::Unresolved;
    for (Node sv : item_stores({scope, std::string(n)})) {
      Node st = parent(sv);
      Node target = is(st, "assignment") ? unparen(field(st, "left")) : Node{};
      if (!is(target, "subscript") || (!is_null(use) && contains(sv, use))) continue;
      if (param_only) {
        auto held = visible(m_, unparen(field(target, "value")));
        if (held.size() != 1 || held[0]->kind != Binding::Kind::Param) continue;
      }
      Node key = unparen(field(target, "subscript"));
      std::string lit;
      bool dict_key = string_literal_value(key, m_.src(), lit);
      // `for key in batch` (`batch.keys()`, `for key, v in batch.items()`): the dict's own keys.
      if (!dict_key && is(key, "identifier")) {
        auto bs = visible(m_, key);
        dict_key = !bs.empty();
        for (const Binding* b : bs) {
          Node it = b->kind == Binding::Kind::LoopTarget ? unparen(b->value) : Node{};
          if (is(it, "call") && is(unparen(field(it, "function")), "attribute")) {
            Node f = unparen(field(it, "function"));
            std::string_view meth = text(field(f, "attribute"), m_.src());
            it = meth == "keys" || meth == "items" ? unparen(field(f, "object")) : Node{};
          }
          dict_key = dict_key && is(it, "identifier") && text(it, m_.src()) == n;
        }
      }
      if (!dict_key) continue;
      // A read under another literal key (`batch["input_ids"]` next to `batch["pixel_values"] =
      // ....to("cuda:0")`, ELITE): that store says nothing of this field, still the host one.
      if (!use_key.empty() && !lit.empty() && lit != use_key) continue;
      AbstractType vt = value(sv, Path{});
      if (vt.kind == Kind::Tensor && (vt.device == TypeDevice::Cuda || vt.device == TypeDevice::Any))
        out = out == TypeDevice::Unresolved ? vt.device : join(out, vt.device);
    }
    return out;
  };
  std::string_view n = text(name, m_.src());
  TypeDevice out = stores_into(m_.scope_at(start(name)), n, name, false);
  if (out != TypeDevice::Unresolved) return out;
  // Handed, before this use, to a function of this module that stores device tensors under its
  // keys in place (LESS's `prepare_batch(batch)` running `for key in batch: batch[key] =
  // batch[key].to(device)`), with no binding of the name between that call and the use.
  // O(the calls of the enclosing function).
  // Asked only of a name whose items are read (`batch["labels"]`, `model(**batch)`) or that is
  // handed to a call (a criterion of another module reading its items).
  Node up = parent(name);
  if (!(is(up, "subscript") && same(unparen(field(up, "value")), name)) && !is(up, "dictionary_splat") &&
      !is(up, "argument_list") && !is(up, "keyword_argument"))
    return out;
  for (const auto& [f, pi] : m_.handed_before(name, visible(m_, name))) {
    TypeDevice d = stores_into(m_.functions()[f].scope, m_.functions()[f].params[pi].name, Node{}, true);
    if (d != TypeDevice::Unresolved) out = out == TypeDevice::Unresolved ? d : join(out, d);
  }
  return out;
}

const std::vector<Node>& TypeInference::augmented_item_stores(const std::pair<int, std::string>& key) const {
  if (!augmented_item_stores_built_) {
    augmented_item_stores_built_ = true;
    for (Node st : m_.subscript_augmented_) {
      Node target = unparen(field(unparen(field(st, "left")), "value"));
      if (!is(target, "identifier") || text(field(st, "operator"), m_.src()) != "+=") continue;
      augmented_item_stores_[{m_.scope_at(start(st)), std::string(text(target, m_.src()))}].push_back(field(st, "right"));
    }
  }
  static const std::vector<Node> kNone;
  auto it = augmented_item_stores_.find(key);
  return it == augmented_item_stores_.end() ? kNone : it->second;
}

bool type_detail::empty_mapping_call(const SemanticModel& m, Node e) {
  e = unparen(e);
  if (!is(e, "call")) return false;
  const std::string& q = m.qualified_name(unparen(field(e, "function")));
  std::vector<Node> args;
  for (Node a : named_children(field(e, "arguments")))
    if (!is(a, "comment")) args.push_back(unparen(a));
  if (q == "builtins.dict" || q == "collections.OrderedDict") return args.empty();
  // A scalar default factory only (`defaultdict(int)`, `defaultdict(float)`), given positionally:
  // with `defaultdict(list)` the items are containers filled in place (`d[k].append(v)`), which
  // no item store shows.
  if (q == "collections.defaultdict") {
    if (args.size() != 1) return false;
    const std::string& f = m.qualified_name(args[0]);
    return f == "builtins.int" || f == "builtins.float";
  }
  return false;
}

const std::vector<Node>& TypeInference::item_stores(const std::pair<int, std::string>& key) const {
  if (!item_stores_built_) {
    item_stores_built_ = true;
    for (Node st : m_.subscript_assignments_) {
      Node target = unparen(field(field(st, "left"), "value"));
      if (!is(target, "identifier")) continue;
      item_stores_[{m_.scope_at(start(st)), std::string(text(target, m_.src()))}].push_back(field(st, "right"));
    }
  }
  static const std::vector<Node> kNone;
  auto it = item_stores_.find(key);
  return it == item_stores_.end() ? kNone : it->second;
}

}  // namespace stoker::python
