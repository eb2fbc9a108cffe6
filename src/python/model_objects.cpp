// What objects are: data loaders (constructions, wrappers, loader identity through names and
// framework `prepare`), optimizers, nn.Modules, Lightning modules and their step hooks.
#include "python/call_positions.h"
#include "python/display_elements.h"
#include "python/loader_params.h"
#include "python/model_internal.h"

#include <algorithm>
#include <functional>

#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/types.h"

namespace stoker::python {

using namespace model_detail;

// ---------------------------------------------------------------------------------------
// Framework classes.

bool SemanticModel::is_lightning_module(int klass) const {
  if (klass < 0) return false;
  if (static_cast<size_t>(klass) < lightning_class_.size()) return lightning_class_[klass] != 0;
  return is_subclass_of(klass, {"pytorch_lightning.LightningModule", "lightning.LightningModule",
                                "lightning.pytorch.LightningModule", "pytorch_lightning.core.LightningModule",
                                "lightning.pytorch.core.LightningModule"});
}

// A method the framework calls once per step: its class derives, here or through project
// classes of this module or of others (their class facts' framework class), from a class whose
// `step-hook` rows of the framework table name the method (data/frameworks.txt: Lightning's
// training_step & co., the Hugging Face Trainer's training_step, compute_loss, prediction_step).
const StepHook* SemanticModel::step_hook(int f) const {
  if (f < 0 || f >= static_cast<int>(functions_.size()) || functions_[f].klass < 0) return nullptr;
  if (step_hook_ready_.empty()) {
    step_hook_ready_.assign(functions_.size(), 0);
    step_hook_.assign(functions_.size(), nullptr);
  }
  if (step_hook_ready_[f]) return step_hook_[f];
  step_hook_ready_[f] = 1;
  const auto& table = FrameworkTable::get();
  const std::string& name = functions_[f].name;
  const StepHook* hook = nullptr;
  any_base(functions_[f].klass, [&](const std::string& b) {
    hook = table.step_hook(b, name);
    if (!hook && facts_ && !classes_by_name_.count(b)) {
      // A class of another module: its framework class (its class facts).
      const FunctionFacts* ext = facts_->callee(b, fact::kClass);
      if (ext && ext->is_class && !ext->framework.empty()) hook = table.step_hook(ext->framework, name);
    }
    return hook != nullptr;
  });
  step_hook_[f] = hook;
  return hook;
}

// ---------------------------------------------------------------------------------------
// Loaders, optimizers, modules.

namespace {
// `*args` (list) or `**kwargs` (dict) parameter, typed or not.
bool splat_param(const Param& p, std::string_view pattern) {
  Node n = p.node;
  if (is(n, "typed_parameter")) n = named_child(n, 0);
  return is(n, pattern);
}
}  // namespace

// A project subclass of a DataLoader that is built from its constructor's arguments as the
// DataLoader is: every base a loader class (torch's, or such a subclass here or in another module:
// FunctionFacts::loader_class), its `__init__` absent or `(self, *args, **kwargs)` handing both on
// to the base's `__init__` without storing a loader option on `self` (`self.collate_fn = f` is
// fine), and no method of the class moving anything with `.cuda()`/`.to()` (its batches are the
// base's). A call of it is a loader construction whose options are the call's arguments
// (deepspeech's `AudioDataLoader`, YOLOP's `DataLoaderX` that only wraps `__iter__`).
bool SemanticModel::loader_class(int klass, int depth) const {
  if (klass < 0 || klass >= static_cast<int>(classes_.size()) || depth > 4) return false;
  if (loader_class_.size() != classes_.size()) loader_class_.assign(classes_.size(), -1);
  if (loader_class_[klass] >= 0) return loader_class_[klass] != 0;
  loader_class_[klass] = 0;  // in progress: a cycle is no loader
  const Class& c = classes_[klass];
  bool ok = !c.bases.empty();
  bool sets_workers = false;  // its initializer stores `self.num_workers` (cache value 2)
  int positional = -1;        // the most positional arguments a call may pass (-1: any)
  for (const auto& b : c.bases) {
    bool loader = false;
    for (auto name : kLoaderNames) loader |= b == name;
    if (!loader) {
      auto local = classes_by_name_.find(b);
      if (local != classes_by_name_.end()) {
        loader = local->second.size() == 1 && local->second[0] != klass && loader_class(local->second[0], depth + 1);
        sets_workers |= loader && loader_class_[local->second[0]] == 2;
        if (int lim = loader && static_cast<size_t>(local->second[0]) < loader_positional_.size()
                          ? loader_positional_[local->second[0]]
                          : -1;
            lim >= 0)
          positional = positional < 0 ? lim : std::min(positional, lim);
      } else if (facts_) {
        const FunctionFacts* ext = facts_->callee(b, fact::kLoaderClass);
        loader = ext && ext->loader_class;
        if (loader && ext->loader_positional >= 0)
          positional = positional < 0 ? ext->loader_positional : std::min(positional, ext->loader_positional);
      }
    }
    ok = ok && loader;
  }
  static constexpr std::string_view kOptions[] = {"num_workers", "pin_memory", "persistent_workers", "batch_size",
                                                  "batch_sampler", "sampler", "prefetch_factor"};
  // `self.num_workers = kwargs["num_workers"]` (else a constant) after the base's `__init__`
  // (NuWave's `DataLoader_back`, which also wraps `__iter__` in a prefetching generator): the
  // worker count the loader runs with is not the call's argument when the call omits it, so
  // only a call that passes `num_workers` constructs a loader of it (constructs_loader_class);
  // the other options are the call's. Stores of it in the initializer only.
  for (auto opt : kOptions) {
    auto stored = self_stores(klass, opt);
    if (stored.empty()) continue;
    auto init = c.methods.find("__init__");
    bool in_init = opt == "num_workers" && init != c.methods.end();
    for (int ai : stored)
      in_init = in_init && function_at(start(self_assignments_[ai].second)) == init->second;
    if (in_init) sets_workers = true;
    else ok = false;
  }
  for (const auto& [name, f] : c.methods) {
    if (!ok) break;
    for (int ci : calls_by_caller_[f]) {
      Node fn = unparen(field(calls_[ci].call, "function"));
      if (is(fn, "attribute") && (text(field(fn, "attribute")) == "cuda" || text(field(fn, "attribute")) == "to"))
        ok = false;
    }
    if (name != "__init__") continue;
    const auto& ps = functions_[f].params;
    if (ps.size() != 3 || !splat_param(ps[1], "list_splat_pattern") || !splat_param(ps[2], "dictionary_splat_pattern")) {
      int limit = named_loader_init(f);
      if (limit < 0) {
        ok = false;
        break;
      }
      positional = positional < 0 ? limit : std::min(positional, limit);
      continue;
    }
    // `super().__init__(*args, **kwargs)`, `super(C, self).__init__(...)`, `Base.__init__(self, ...)`.
    bool forwards = false;
    for (int ci : calls_by_caller_[f]) {
      Node call = calls_[ci].call;
      Node fn = unparen(field(call, "function"));
      if (!is(fn, "attribute") || text(field(fn, "attribute")) != "__init__") continue;
      bool via_super = is_super_call(field(fn, "object"));
      bool star = false, double_star = false, other = false;
      size_t i = 0;
      for (Node a : named_children(field(call, "arguments"))) {
        if (is(a, "comment")) continue;
        if (is(a, "list_splat") && text(named_child(a, 0)) == ps[1].name) star = true;
        else if (is(a, "dictionary_splat") && text(named_child(a, 0)) == ps[2].name) double_star = true;
        else if (!(i == 0 && !via_super && is(a, "identifier") && text(a) == ps[0].name)) other = true;
        ++i;
      }
      forwards |= star && double_star && !other;
    }
    ok = ok && forwards;
  }
  loader_class_[klass] = ok ? (sets_workers ? 2 : 1) : 0;
  if (loader_positional_.size() != classes_.size()) loader_positional_.assign(classes_.size(), -1);
  loader_positional_[klass] = ok ? positional : -1;
  return ok;
}

// A loader subclass's `__init__` with named parameters that hands them on to the base's
// `__init__` where the DataLoader has them (GraphMAE's `DataLoaderMaskingPred(dataset,
// batch_size=1, shuffle=True, mask_rate=0.0, mask_edge=0.0, **kwargs)` calling
// `super().__init__(dataset, batch_size, shuffle, collate_fn=self.collate_fn, **kwargs)`): a call of
// the class is read as a DataLoader call when the options the rules read mean the same there.
// The base call (one, through `super()` or `Base.__init__(self, ...)`): its positional arguments
// are the initializer's own parameters at the same places, each named as the DataLoader's
// parameter there; a keyword naming a loader option the rules read is the parameter of that name;
// a `**` splat is the initializer's own `**` parameter (which, when there is one, is handed on); no `*` splat (`collate_fn=self.collate_fn`,
// the subclass's own collation, is kept as the `(*args, **kwargs)` form keeps it). Every parameter named as a
// DataLoader parameter is handed on so, with no default or the DataLoader's own for an option the
// rules read (a subclass choosing 64 rows or 4 workers when the call is silent is not read from
// the call). No `*args` parameter. The result: how many positional arguments a call may pass (the
// parameters handed on at their own places), -1 when the initializer is not such. O(parameters x
// arguments).
int SemanticModel::named_loader_init(int f) const {
  // The options the rules read, with the DataLoader's default (the source text of the literal).
  static constexpr std::pair<std::string_view, std::string_view> kRead[] = {
      {"dataset", ""},           {"batch_size", "1"},        {"sampler", "None"},           {"batch_sampler", "None"},
      {"num_workers", "0"},      {"pin_memory", "False"},    {"persistent_workers", "False"}, {"prefetch_factor", "None"}};
  auto loader_param = [&](std::string_view n) {
    for (auto k : kLoaderPositional)
      if (k == n) return true;
    for (auto k : kLoaderKeywordOnly)
      if (k == n) return true;
    return false;
  };
  auto read_option = [&](std::string_view n) -> const std::string_view* {
    for (const auto& [k, d] : kRead)
      if (k == n) return &d;
    return nullptr;
  };
  const auto& ps = functions_[f].params;
  if (ps.empty() || functions_[f].klass < 0) return -1;
  std::string kwargs_name;
  for (size_t i = 1; i < ps.size(); ++i) {
    if (ps[i].is_variadic && !ps[i].double_star) return -1;  // `*args`
    if (ps[i].double_star) kwargs_name = ps[i].name;
  }
  Node base_call{};
  bool via_super = false;
  for (int ci : calls_by_caller_[f]) {
    Node fn = unparen(field(calls_[ci].call, "function"));
    if (!is(fn, "attribute") || text(field(fn, "attribute")) != "__init__") continue;
    if (!is_null(base_call)) return -1;  // two base calls
    base_call = calls_[ci].call;
    via_super = is_super_call(field(fn, "object"));
  }
  if (is_null(base_call)) return -1;
  std::set<std::string, std::less<>> handed;
  int pos = 0, prefix = 0;
  bool skip_self = !via_super, kwargs_handed = false;
  for (Node a : named_children(field(base_call, "arguments"))) {
    if (is(a, "comment")) continue;
    if (skip_self) {  // `Base.__init__(self, ...)`
      skip_self = false;
      if (!is(a, "identifier") || text(a) != ps[0].name) return -1;
      continue;
    }
    if (is(a, "list_splat")) return -1;
    if (is(a, "dictionary_splat")) {
      if (kwargs_name.empty() || text(unparen(named_child(a, 0))) != kwargs_name) return -1;
      kwargs_handed = true;
      continue;
    }
    if (is(a, "keyword_argument")) {
      std::string_view k = text(field(a, "name"));
      Node v = unparen(field(a, "value"));
      auto own_param = [&] {
        for (size_t i = 1; i < ps.size(); ++i)
          if (!ps[i].is_variadic && ps[i].name == k) return true;
        return false;
      };
      if (read_option(k)) {
        if (!is(v, "identifier") || text(v) != k || !own_param()) return -1;
        handed.insert(std::string(k));
      } else if (is(v, "identifier") && text(v) == k) {
        handed.insert(std::string(k));
      }
      continue;
    }
    // Positional: the initializer's own parameter at this place, named as the DataLoader's.
    size_t own = static_cast<size_t>(pos) + 1;
    if (pos >= static_cast<int>(std::size(kLoaderPositional)) || own >= ps.size() || ps[own].is_variadic ||
        ps[own].keyword_only || !is(unparen(a), "identifier") || text(unparen(a)) != ps[own].name ||
        ps[own].name != kLoaderPositional[pos] || prefix != pos)
      return -1;
    handed.insert(ps[own].name);
    ++pos;
    prefix = pos;
  }
  // A `**` parameter the base call does not hand on swallows the call's keywords (`Sub(ds,
  // num_workers=4)` builds a loader with the default): the call's options are not the loader's.
  if (!kwargs_name.empty() && !kwargs_handed) return -1;
  for (size_t i = 1; i < ps.size(); ++i) {
    if (ps[i].is_variadic || !loader_param(ps[i].name)) continue;
    if (!handed.count(ps[i].name)) return -1;  // consumed by the subclass: the call's value is not the loader's
    const std::string_view* d = read_option(ps[i].name);
    if (d && !d->empty() && !is_null(ps[i].default_value) && text(unparen(ps[i].default_value)) != *d) return -1;
  }
  return prefix;
}

// A call constructing such a subclass: of this file (by its name) or of another module (its
// class facts).
bool SemanticModel::constructs_loader_class(int ci) const {
  Node fn = unparen(field(calls_[ci].call, "function"));
  if (is(fn, "identifier")) {
    auto bindings = lookup(text(fn), start(fn));
    if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Class) {
      auto named = classes_by_name_.find(std::string(text(fn)));
      if (named != classes_by_name_.end())
        for (int c : named->second)
          if (same(classes_[c].node, bindings[0]->value))
            return loader_class(c) &&  // DataLoader's num_workers: positional 5 or by keyword
                   (loader_class_[c] == 1 || !is_null(argument(calls_[ci].call, kNumWorkersPos, "num_workers"))) &&
                   positional_within(calls_[ci].call, loader_positional_[c]);
      return false;
    }
  }
  if (!facts_ || ci >= static_cast<int>(ext_name_.size()) || ext_name_[ci].empty()) return false;
  const FunctionFacts* ext = facts_->callee(ext_name_[ci], fact::kLoaderClass);
  return ext && ext->loader_class && positional_within(calls_[ci].call, ext->loader_positional);
}

// A call passing at most `limit` positional arguments (any number when `limit` < 0), none of
// them a `*` splat when limited.
bool SemanticModel::positional_within(Node call, int limit) const {
  if (limit < 0) return true;
  int n = 0;
  for (Node a : named_children(field(call, "arguments"))) {
    if (is(a, "comment") || is(a, "keyword_argument") || is(a, "dictionary_splat")) continue;
    if (is(a, "list_splat")) return false;
    ++n;
  }
  return n <= limit;
}

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

namespace {
// May the key expression of a store evaluate to `key`? Not a string literal of another value,
// nor a concatenation with a literal suffix or prefix `key` lacks (`split + "_sampler"` is never
// "train"). Anything else may.
bool key_may_be_impl(Node k, const std::string& key, std::string_view src) {
  std::string lit;
  if (string_literal_value(k, src, lit)) return lit == key;
  if (is(k, "binary_operator") && text(field(k, "operator"), src) == "+") {
    std::string pre, suf;
    if (string_literal_value(unparen(field(k, "right")), src, suf) &&
        (suf.size() > key.size() || key.compare(key.size() - suf.size(), suf.size(), suf) != 0))
      return false;
    if (string_literal_value(unparen(field(k, "left")), src, pre) && key.rfind(pre, 0) != 0) return false;
  }
  return true;
}
}  // namespace

namespace {
// subscripted_elements read for loaders: under a key that is no string literal any element may be
// the item, so only a container of loaders throughout (`{'train': dl, 'val': vl}[phase]`) stands
// for a loader, not `{'loader': dl, 'epochs': 10}[k]` (nothing then). O(elements).
template <class IsLoader>
std::vector<Node> loader_elements(std::vector<Node> elems, Node subscript, std::string_view src, IsLoader is_loader) {
  std::string key;
  if (string_literal_value(unparen(field(subscript, "subscript")), src, key)) return elems;
  for (Node e : elems)
    if (!is_loader(e)) return {};
  return elems;
}
}  // namespace

std::vector<Node> SemanticModel::subscripted_elements(Node subscript) const {
  auto bound = [&]() -> std::vector<Node> {
    std::vector<Node> out;
    Node c = unparen(field(subscript, "value"));
    if (!is(c, "identifier")) return out;
    std::string key;
    bool literal_key = string_literal_value(unparen(field(subscript, "subscript")), src_, key);
    // The container's name, and for a parameter of a function of this module the names its calls
    // hand it (`do_train(args, dataloaders)` then `dataloaders["train"]` in do_train): every call
    // must pass a name, read at the call. At most kMaxCandidates names.
    std::vector<Node> names{c};
    for (size_t i = 0; i < names.size(); ++i) {
      Node n = names[i];
      auto bindings = lookup(text(n), start(n));
      if (bindings.empty() || bindings.size() > kMaxCandidates) return {};
      for (const Binding* b : bindings) {
        if (b->kind == Binding::Kind::Param && b->function >= 0) {
          const Function& fn = functions_[b->function];
          const Param& p = fn.params[b->param_index];
          if (p.is_variadic || b->param_index < bound_params(fn)) return {};
          int position = b->param_index - bound_params(fn);
          const auto& sites = callers(b->function);
          if (sites.empty()) return {};
          for (int ci : sites) {
            Node a = unparen(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name));
            if (!is(a, "identifier")) return {};
            bool dup = false;
            for (Node x : names) dup = dup || same(x, a);
            if (dup) continue;
            if (names.size() >= kMaxCandidates) return {};
            names.push_back(a);
          }
          continue;
        }
        if (b->kind != Binding::Kind::Assign || b->unpack_index >= 0 || !is(b->target, "identifier")) return {};
        Node v = unparen(b->value);
        if (is(v, "dictionary_comprehension")) {
          Node body = field(v, "body");
          if (!is(body, "pair")) return {};
          out.push_back(field(body, "value"));
        } else if (is(v, "dictionary")) {
          for (Node p : named_children(v)) {
            if (is(p, "comment")) continue;
            if (!is(p, "pair")) return {};  // `**other`
            std::string k;
            if (literal_key && string_literal_value(unparen(field(p, "key")), src_, k) && k != key) continue;
            out.push_back(field(p, "value"));
          }
        } else if (is(v, "list") || is(v, "tuple")) {
          for (Node e : named_children(v)) {
            if (is(e, "comment")) continue;
            if (is(e, "list_splat")) return {};
            out.push_back(e);
          }
        } else {
          return {};
        }
        // The stores `c[k] = v` in c's scope; one under another string key than the subscript's is
        // not what it reads.
        auto stores = subscript_stores_.find({scope_at(start(b->target)), std::string(text(n))});
        if (stores != subscript_stores_.end())
          for (Node s : stores->second) {
            Node target = unparen(field(s, "left"));
            if (literal_key && is(target, "subscript") && !key_may_be_impl(unparen(field(target, "subscript")), key, src_))
              continue;
            out.push_back(field(s, "right"));
          }
      }
    }
    return out;
  };
  std::vector<Node> found = bound();
  if (!found.empty()) return found;
  // The elements of the list or tuple displays a name's values are (`values`: through unpacked
  // returns of functions of this file, parameters' call sites), with what the scope that binds
  // each display appends and stores into it: `loaders = []` then `loaders.append(DataLoader(...))`
  // in DIS's create_dataloaders, returned as `return loaders, datasets`, unpacked by the caller
  // and handed to train(), which reads `train_dataloaders[0]`. Nothing when a value is anything
  // else, or its name is extended, inserted into or reordered (elements no append shows), or the
  // elements pass kMaxCandidates. O(values x (elements + appends + stores)).
  Node c = unparen(field(subscript, "value"));
  if (!is(c, "identifier")) return {};
  auto vs = values(c);
  if (vs.empty() || vs.size() > kMaxCandidates) return {};
  std::vector<Node> out;
  std::set<const void*> seen;
  std::string sub_key;
  bool literal_key = string_literal_value(unparen(field(subscript, "subscript")), src_, sub_key);
  for (const Value& v : vs) {
    Node d = v.kind == Value::Kind::Expr ? unparen(v.expr) : Node{};
    // A dict a function of this file builds and returns (`dataloaders = {split: DataLoader(...)
    // for split, dataset in datasets.items()}; return dataloaders, charge_scale`, egnn's
    // qm9/dataset.py): the comprehension's value under any key, a display's values under the
    // subscript's literal key (all of them for another key).
    if (is(d, "dictionary_comprehension")) {
      if (!seen.insert(d.id).second) continue;
      Node body = field(d, "body");
      if (!is(body, "pair")) return {};
      out.push_back(field(body, "value"));
    } else if (is(d, "dictionary")) {
      if (!seen.insert(d.id).second) continue;
      for (Node p : named_children(d)) {
        if (is(p, "comment")) continue;
        if (!is(p, "pair")) return {};  // `**other`
        std::string k;
        if (literal_key && string_literal_value(unparen(field(p, "key")), src_, k) && k != sub_key) continue;
        out.push_back(field(p, "value"));
      }
    } else if (!is(d, "list") && !is(d, "tuple")) {
      return {};
    } else {
      if (!seen.insert(d.id).second) continue;
      for (Node e : named_children(d)) {
        if (is(e, "comment")) continue;
        if (is(e, "list_splat")) return {};
        out.push_back(e);
      }
    }
    Node target = display_detail::display_target(d);
    if (is_null(target)) return {};
    std::pair<int, std::string> key{scope_at(start(target)), std::string(text(target))};
    if (display_detail::reordered(*this, key.first, key.second)) return {};
    // A dict filled by `.update(...)` holds what no store shows.
    if (!is(d, "list") && !is(d, "tuple"))
      for (Node u : update_calls_) {
        Node o = unparen(field(unparen(field(u, "function")), "object"));
        if (is(o, "identifier") && text(o) == key.second) return {};
      }
    if (auto appended = appends_.find(key); appended != appends_.end())
      for (Node call : appended->second) {
        if (text(field(unparen(field(call, "function")), "attribute")) != "append") return {};
        Node a = argument(call, 0, "");
        if (is_null(a)) return {};
        out.push_back(a);
      }
    if (auto stores = subscript_stores_.find(key); stores != subscript_stores_.end())
      for (Node s : stores->second) out.push_back(field(s, "right"));
    if (out.size() > kMaxCandidates) return {};
  }
  return out;
}

namespace {
// A call of what `getattr(obj, name)` returns, `name` not a string literal: the callee is chosen
// at run time (a class named in a configuration file).
bool reflective_call(const SemanticModel& m, Node call) {
  if (!is(call, "call")) return false;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "call") || m.callee_name(fn) != "builtins.getattr") return false;
  Node name = unparen(m.argument(fn, 1, ""));
  std::string lit;
  return !is_null(name) && !string_literal_value(name, m.src(), lit);
}
}  // namespace

bool SemanticModel::is_loader_uncached(Node expr) const {
  // A construction of a project subclass of a DataLoader that defines no `__iter__` (through its
  // bases) and, here, whose methods move nothing with `.cuda()`/`.to()`: iterated, it yields its
  // base's host batches, whatever its constructor does with its own arguments (segmenter's
  // `Loader(dataset, batch_size, num_workers, distributed, split)`, calling `super().__init__` in
  // branches). A loader value, not a loader construction whose options the DL/BS rules read from the
  // call (`loader_class`). The class is of this module by its name, or of another by its class
  // facts' bases (at most 4 levels, each base a resolution).
  auto loader_name = [](std::string_view b) {
    for (auto name : kLoaderNames)
      if (b == name) return true;
    return false;
  };
  std::function<bool(const std::string&, int)> ext_class_derives_loader = [&](const std::string& name, int depth) {
    if (depth > 4 || !facts_) return false;
    const FunctionFacts* cls = facts_->callee(name, fact::kClass);
    if (!cls || !cls->is_class || cls->bases.empty()) return false;
    for (const auto& b : cls->bases)
      if (loader_name(b) || ext_class_derives_loader(b, depth + 1)) return true;
    return false;
  };
  auto constructs_iterated_loader_subclass = [&](Node call) {
    Node fn = unparen(field(call, "function"));
    if (is(fn, "identifier")) {
      auto bindings = lookup(text(fn), start(fn));
      if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Class) {
        auto named = class_by_node_.find(bindings[0]->value.id);
        if (named == class_by_node_.end()) return false;
        int klass = named->second;
        bool iter = false, moves = false;
        bool derives = any_base(klass, [&](const std::string& b) {
          if (loader_name(b)) return true;
          if (!facts_ || classes_by_name_.count(b)) return false;
          const FunctionFacts* ext = facts_->callee(b, fact::kClass);
          return ext && ext->is_class && ext_class_derives_loader(b, 0);
        });
        if (!derives) return false;
        std::set<int> seen;
        std::function<void(int)> visit = [&](int k) {
          if (k < 0 || !seen.insert(k).second) return;
          for (const auto& [name, f] : classes_[k].methods) {
            iter |= name == "__iter__";
            for (int ci : calls_by_caller_[f]) {
              Node cf = unparen(field(calls_[ci].call, "function"));
              moves |= is(cf, "attribute") && (text(field(cf, "attribute")) == "cuda" || text(field(cf, "attribute")) == "to");
            }
          }
          for (const auto& b : classes_[k].bases)
            if (auto n = classes_by_name_.find(b); n != classes_by_name_.end())
              for (int c : n->second) visit(c);
        };
        visit(klass);
        return !iter && !moves;
      }
    }
    auto idx = call_index_.find(call.id);
    if (!facts_ || idx == call_index_.end() || static_cast<size_t>(idx->second) >= ext_name_.size()) return false;
    const std::string& name = ext_name_[idx->second];
    if (name.empty() || name.find('|') != std::string::npos) return false;
    const FunctionFacts* cls = facts_->callee(name, fact::kClass);
    if (!cls || !cls->is_class || facts_->callee(name + ".__iter__", fact::kExists)) return false;
    return ext_class_derives_loader(name, 0);
  };
  if (is(expr, "subscript")) {
    // `loaders[phase]` of a dict of loaders.
    for (Node e : loader_elements(subscripted_elements(expr), expr, src_, [&](Node x) { return is_loader_impl(x); }))
      if (is_loader_impl(e)) return true;
    if (!ext_loader_dict_item(expr).empty()) return true;  // `dataloaders[k]` of another module's dict
    return ext_loader_item(expr);  // `data['tr_loader']` of a dict of loaders other modules hand
  }
  if (is(expr, "call")) {
    if (is_loader_call(expr)) return true;
    Node fn = unparen(field(expr, "function"));
    std::string q = qualified_name(fn);
    // PyG's mini-batch samplers (DataLoader subclasses yielding subgraph batches): iterated, they
    // are loaders (their loops are hot, their batches are batches). Not loader constructions: their
    // `batch_size` counts clusters or seed nodes, so DL/BS rules do not read their options.
    static constexpr std::string_view kSamplerLoaders[] = {
        "ClusterLoader", "NeighborSampler", "NeighborLoader", "LinkNeighborLoader", "GraphSAINTNodeSampler",
        "GraphSAINTEdgeSampler", "GraphSAINTRandomWalkSampler", "ShaDowKHopSampler"};
    if (starts_with(q, "torch_geometric.loader.") || starts_with(q, "torch_geometric.data."))
      for (std::string_view name : kSamplerLoaders)
        if (last_part(q) == name) return true;
    std::string_view last = is(fn, "attribute") ? text(field(fn, "attribute")) : text(fn);
    // Iteration wrappers: enumerate(loader), tqdm(loader), zip(a, b), iter(loader), islice(...)
    if (last == "enumerate" || last == "tqdm" || last == "iter" || last == "islice" || last == "zip" ||
        last == "trange" || q == "builtins.iter") {
      for (auto a : named_children(field(expr, "arguments"))) {
        if (is(a, "keyword_argument")) continue;
        if (is_loader_impl(a)) return true;
        // `zip(*iters)` of a list whose elements are loaders (`iters.append(enumerate(loader))`
        // per checkpoint: set AH temporal-shift-module test_models.py; rec30).
        if (last == "zip" && is(a, "list_splat"))
          for (const Value& v : element_values(named_child(a, 0)))
            if (v.kind == Value::Kind::Expr && is_loader_impl(v.expr)) return true;
        if (last != "zip") break;
      }
      return false;
    }
    if (last == "__iter__" && is(fn, "attribute")) return is_loader_impl(field(fn, "object"));
    if (constructs_iterated_loader_subclass(expr)) return true;
    if (const FunctionFacts* ext = ext_callee_of(expr, fact::kReturnsLoader); ext && ext->returns_loader) return true;
    // A function defined here that returns a loader, or a generator that yields a loader's
    // batches (yielded_loaders: `while True: yield from loader`).
    for (int f : callees(expr)) {
      for (Node r : functions_[f].returns)
        if (is_loader_impl(r)) return true;
      if (!yielded_loaders(f).empty()) return true;
    }
    // Any other (non-builtin) wrapper handed a loader yields its batches:
    // `metric_logger.log_every(data_loader, 20)`, `prefetcher(loader)`. Not Accelerate's
    // `prepare` or Fabric's `setup_dataloaders`: their loaders yield batches already on the
    // device, so host-batch rules must not see them.
    if (q.rfind("builtins.", 0) != 0 && (!FrameworkTable::get().is_prepare_method(last) || FrameworkTable::get().wraps_first(q))) {
      for (auto a : named_children(field(expr, "arguments")))
        if (!is(a, "keyword_argument") && is_loader_impl(a)) return true;
    }
    return false;
  }
  if (is(expr, "identifier") && ext_param_flag(expr, fact::kLoader)) return true;
  // `self.data` stored from a parameter that other modules hand a loader, or a loader generator's
  // result (`self.data = data` in TrainLoop.__init__, `next(self.data)` per step: set BF
  // guided-diffusion train_util.py; session 38). At most kMaxCandidates stores.
  if (int klass = is(expr, "attribute") && facts_ ? class_of_self(expr) : -1; klass >= 0) {
    auto stores = self_stores(klass, text(field(expr, "attribute")));
    if (stores.size() <= kMaxCandidates)
      for (int ai : stores) {
        Node v = unparen(self_assignments_[ai].second);
        if (is(v, "identifier") && ext_param_flag(v, fact::kLoader)) return true;
      }
  }
  if (is(expr, "identifier") || is(expr, "attribute")) {
    bool unknown = false;
    for (const auto& v : values(expr)) {
      if (v.kind == Value::Kind::Expr && !same(v.expr, expr) && is_loader_impl(v.expr)) return true;
      if (v.kind == Value::Kind::Unknown || (v.kind == Value::Kind::Expr && same(v.expr, expr))) unknown = true;
      // A class or function named by the configuration and looked up at run time
      // (`getattr(module_data, config["data_loader"]["type"])(...)`: pytorch-template's test.py):
      // what it builds is as unresolved as a parameter's value.
      if (v.kind == Value::Kind::Expr && reflective_call(*this, unparen(v.expr))) unknown = true;
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
    if (unknown && is(expr, "attribute") && class_of_self(expr) < 0) {
      // `dataset.train` of an instance whose class stores a loader there (`self.train =
      // DataLoader(...)` in its `__init__`, here or in another module).
      for (Node s : instance_attribute_stores(expr))
        if (is_loader_impl(s)) return true;
      if (types_ && types_->type_of(expr).kind == AbstractType::Kind::Loader) return true;
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
Node SemanticModel::external_loader_element(const Binding& b) const {
  // `train_loader, test_loader = get_loader(args)` with `get_loader` of another module returning
  // a tuple whose element is a loader by its types: the name in the assignment's own tuple
  // target stands for that element (the construction is in the other module).
  if (!facts_ || b.kind != Binding::Kind::Assign || b.unpack_index < 0 || b.unpack_index >= 8) return {};
  Node v = unparen(b.value);
  if (!is(v, "call") || !is(b.target, "identifier")) return {};
  Node pattern = parent(b.target);
  if (!(is(pattern, "pattern_list") || is(pattern, "tuple_pattern")) || !is(parent(pattern), "assignment") ||
      !same(named_child(pattern, static_cast<uint32_t>(b.unpack_index)), b.target))
    return {};
  const FunctionFacts* ext = ext_callee_of(v, fact::kReturnType);
  if (!ext || static_cast<size_t>(b.unpack_index) >= ext->ret_elems.size() ||
      ext->ret_elems[b.unpack_index].first != static_cast<int>(AbstractType::Kind::Loader))
    return {};
  return b.target;
}


// Every return value of function f is computed (arithmetic, a comparison, a literal, a torch,
// numpy or math call, or a tuple of those) and names none of f's parameters; f is no method
// and no generator: what it returns is a metric, not a loader it was handed or a list of its
// batches. O(size of its return expressions + its text, for `yield`).
namespace {
bool returns_computed_values(const SemanticModel& m, const Function& fn) {
  if (fn.returns.empty() || fn.klass >= 0) return false;
  if (text(fn.node, m.src()).find("yield") != std::string_view::npos) return false;
  auto computed = [&](Node v, auto&& self, int depth) -> bool {
    v = unparen(v);
    auto k = kind(v);
    if (k == "expression_list" || k == "tuple") {
      if (depth > 2) return false;
      for (Node e : named_children(v))
        if (!self(e, self, depth + 1)) return false;
      return true;
    }
    if (k == "binary_operator" || k == "unary_operator" || k == "comparison_operator" || k == "boolean_operator" ||
        k == "integer" || k == "float" || k == "string" || k == "true" || k == "false" || k == "none")
      return true;
    if (k != "call") return false;
    const std::string& q = m.callee_name(v);
    return starts_with(q, "torch.") || starts_with(q, "numpy.") || starts_with(q, "math.") ||
           q == "builtins.float" || q == "builtins.int" || q == "builtins.round" || q == "builtins.len";
  };
  for (Node r : fn.returns)
    if (!computed(r, computed, 0)) return false;
  auto no_param = [&](Node n) {
    for (const Param& p : fn.params)
      if (p.name == text(n, m.src())) return false;
    return true;
  };
  for (Node r : fn.returns)
    if (!for_each_identifier(r, false, no_param)) return false;
  return true;
}
}  // namespace

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
      for (auto a : named_children(field(expr, "arguments"))) {
        if (is(a, "keyword_argument")) continue;
        if (last == "zip" && is(a, "list_splat")) {  // `zip(*iters)`: the list's elements
          for (const Value& v : element_values(named_child(a, 0)))
            if (v.kind == Value::Kind::Expr) add(v.expr);
          continue;
        }
        add(a);
      }
    } else {
      auto fs = callees(expr);
      for (int f : fs) {
        for (Node r : functions_[f].returns) add(r);
        // A loader generator's call hands out the batches of the loaders it yields from.
        for (const auto& [site, x] : yielded_loaders(f)) add(x);
      }
      // A loader wrapper's call site (loader_wrappers.h) stands for the loader it builds there too:
      // the loops iterating its result are the loops of that call's loader (DL001/DL002 report at
      // the site, which decides the options).
      if (!fs.empty() && out.size() < kMaxCandidates && !is_null(wrapped_loader_construction(*this, expr)))
        out.push_back(expr);
      // A function of this module that returns computed values (returns_computed_values) does
      // not hand back the loader it was given: `acc = validate(val_loader, model)` is a metric.
      bool returns_own_values = !fs.empty();
      for (int f : fs) returns_own_values = returns_own_values && returns_computed_values(*this, functions_[f]);
      Node source = types_->prepared_source(expr, Node{});
      if (!is_null(source)) add(source);  // the loader handed to `accelerator.prepare(loader)`
      else if (!returns_own_values && qualified_name(fn).rfind("builtins.", 0) != 0 &&
               (!FrameworkTable::get().is_prepare_method(last) || FrameworkTable::get().wraps_first(qualified_name(fn))))
        for (auto a : named_children(field(expr, "arguments")))
          if (!is(a, "keyword_argument")) add(a);
    }
  } else if (is(expr, "subscript")) {
    for (Node e : loader_elements(subscripted_elements(expr), expr, src_, [&](Node x) { return is_loader_impl(x); })) add(e);  // `loaders[phase]`
    // `dataloaders['train']` of a dict of loaders another module's call returns: the call (whole
    // result) or the tuple target's name (an element) stands for its loaders.
    for (Node e : ext_loader_dict_item(expr)) {
      bool dup = false;
      for (Node x : out) dup = dup || same(x, e);
      if (!dup && out.size() < kMaxCandidates) out.push_back(e);
    }
  } else if (is(expr, "list") || is(expr, "tuple")) {
    // `train_and_evaluate(..., [train_loader, eval_loader])`: the loaders a display hands on.
    for (Node e : named_children(expr))
      if (!is(e, "comment") && !is(e, "list_splat")) add(e);
  } else if (is(expr, "identifier") || is(expr, "attribute")) {
    for (const auto& v : values(expr))
      if (v.kind == Value::Kind::Expr && !same(v.expr, expr)) add(v.expr);
    // `dataset.train` after `dataset = Cifar(...)`: what Cifar's initializer stores there.
    if (is(expr, "attribute"))
      for (Node s : instance_attribute_stores(expr)) add(s);
    // `self.train_loader, self.nclass = factory.get_data_loader(...)` in a method of the class
    // (set T RMI, set F deeplab's Trainer), the other module's function returning a tuple whose
    // element there is a loader by its types: the attribute in that tuple target stands for the
    // element, as external_loader_element's name does. One walk of the class per attribute read
    // (memoized: classes without such a tuple target are walked once).
    if (int klass = is(expr, "attribute") && facts_ ? class_of_self(expr) : -1; klass >= 0) {
      std::string_view attr = text(field(expr, "attribute"));
      auto visit = [&](const std::function<bool(Node, uint32_t, Node)>& f) {
        std::vector<Node> stack{field(classes_[klass].node, "body")};
        while (!stack.empty()) {
          Node n = stack.back();
          stack.pop_back();
          if (is(n, "class_definition") || is(n, "lambda")) continue;
          if (is(n, "assignment")) {
            Node l = field(n, "left"), r = unparen(field(n, "right"));
            if ((is(l, "pattern_list") || is(l, "tuple_pattern")) && is(r, "call"))
              for (uint32_t i = 0; i < named_count(l) && i < 8; ++i) {
                Node t = named_child(l, i);
                if (is(t, "attribute") && text(unparen(field(t, "object"))) == "self" && f(t, i, r)) return true;
              }
            continue;
          }
          for (Node c : named_children(n)) stack.push_back(c);
        }
        return false;
      };
      if (memo("self_unpacked_call:" + classes_[klass].name,
               [&] { return visit([](Node, uint32_t, Node) { return true; }) ? 1 : 0; }) != 0)
        visit([&](Node t, uint32_t i, Node call) {
          if (text(field(t, "attribute")) != attr) return false;
          const FunctionFacts* ext = ext_callee_of(call, fact::kReturnType);
          if (!ext || i >= ext->ret_elems.size() ||
              ext->ret_elems[i].first != static_cast<int>(AbstractType::Kind::Loader))
            return false;
          bool dup = false;
          for (Node x : out) dup = dup || same(x, t);
          if (!dup && out.size() < kMaxCandidates) out.push_back(t);
          return false;
        });
    }
    // `model, opt, train_dl = accelerator.prepare(model, opt, train_loader)`: train_dl is the
    // prepared train_loader (same workers and pinning).
    // `active_dataloader = train_dl` of such a name: the alias is read at its own binding.
    if (is(expr, "identifier")) {
      for (const Binding* b : lookup(text(expr), start(expr)))
        if (b->kind == Binding::Kind::Assign && b->unpack_index >= 0) {
          Node source = types_->prepared_source(b->value, b->target);
          if (!is_null(source)) {
            add(source);
          } else if (Node t = external_loader_element(*b); !is_null(t) && out.size() < kMaxCandidates) {
            bool dup = false;
            for (Node x : out) dup = dup || same(x, t);
            if (!dup) out.push_back(t);
          } else if (Node v = unparen(b->value); is(v, "call") && b->unpack_index < 8) {
            // `train_data, train_loader = self._get_data(flag='train')` of a function here whose
            // returns are tuple displays: the element there (`return data_set, data_loader`
            // after `data_set, data_loader = data_provider(self.args, flag)` of another module:
            // set AA Autoformer, as set R Informer's `_get_data` built its own loader).
            for (int f : callees(v))
              for (Node r : functions_[f].returns)
                if (Node u = unparen(r); is(u, "tuple") || is(u, "expression_list"))
                  if (Node e = named_child(u, static_cast<uint32_t>(b->unpack_index)); !is_null(e) && !is(e, "list_splat"))
                    add(e);
          }
        } else if (b->kind == Binding::Kind::Assign && is(b->target, "identifier") &&
                   is(unparen(b->value), "identifier") && !same(unparen(b->value), expr)) {
          add(unparen(b->value));
        } else if (b->kind == Binding::Kind::Param && facts_ && b->function >= 0) {
          // A parameter handed a name that stands for another module's loader element (its
          // values are unknown): `valid(model, test_loader)` after `_, test_loader = get_loader()`.
          const Function& fn = functions_[b->function];
          const Param& p = fn.params[b->param_index];
          if (p.is_variadic || b->param_index < bound_params(fn)) continue;
          int position = b->param_index - bound_params(fn);
          for (int ci : callers(b->function)) {
            Node a = unparen(argument(calls_[ci].call, p.keyword_only ? -1 : position, p.name));
            if (is(a, "identifier")) add(a);
          }
        }
    }
  }
  origins_active_.erase(expr.id);
  return origins_cache_.emplace(expr.id, std::move(out)).first->second;
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

namespace {
// A name bound to a call's result moved to a device (`pipe = self.pipeline_class(**c).to(dev)`,
// a class or function this file does not define) and called as a function in the same scope (`pipe(**inputs)`):
// a tensor is never called, so what was moved is a module (or a pipeline of modules), and its
// attributes read as values (`pipe.vae_scale_factor`) are members, not tensors. O(calls) once
// per such name and scope.
bool called_moved_object(const SemanticModel& m, Node expr) {
  if (!is(expr, "identifier")) return false;
  bool moved = false;
  for (const auto& v : m.values(expr)) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) return false;
    Node f = unparen(field(v.expr, "function"));
    if (!is(f, "attribute")) return false;
    auto a = m.text(field(f, "attribute"));
    Node made = unparen(field(f, "object"));
    if ((a != "to" && a != "cuda") || !is(made, "call")) return false;
    // A class or function of this file decides by what it is (a project class with its own
    // `to()` and `__call__` is no module).
    if (!m.callees(made).empty()) return false;
    for (const auto& cv : m.values(field(made, "function")))
      if (cv.kind == Value::Kind::Expr && (is(cv.expr, "class_definition") || is(cv.expr, "function_definition")))
        return false;
    // So does a class of another project module the types know (`StableDiffusionXLPipeline(**c)`
    // in diffusers' tests: an object with its own `to()` and `__call__`, whose attributes its
    // class facts type): calling it is no module forward, so the loops around it stay what their
    // other calls make them.
    if (m.types().type_of(made).kind == AbstractType::Kind::Object) return false;
    moved = true;
  }
  if (!moved) return false;
  int scope = m.function_at(start(expr));
  std::string name(m.text(expr));
  return m.memo("called-name:" + std::to_string(scope) + ":" + name, [&] {
    for (const auto& cs : m.calls()) {
      Node fn = unparen(field(cs.call, "function"));
      if (cs.caller == scope && is(fn, "identifier") && m.text(fn) == name) return 1;
    }
    return 0;
  });
}
}  // namespace

bool SemanticModel::is_module_value(Node expr) const {
  expr = unparen(expr);
  if (is_null(expr)) return false;
  return memo_bool(module_cache_, expr, [&] { return is_module_uncached(expr); });
}

bool SemanticModel::is_module_uncached(Node expr) const {
  if (is(expr, "identifier") && ext_param_flag(expr, fact::kModule)) return true;
  // An element of a list of modules (`for ..., net in zip(pairs, net_list)`).
  if (is(expr, "identifier")) {
    auto bs = lookup(text(expr), start(expr));
    bool all = !bs.empty() && bs.size() <= kMaxCandidates;
    for (const Binding* b : bs) {
      Node list = all ? loop_target_iterable(*this, *b) : Node{};
      all = !is_null(list) && module_list_element(*this, list) != 0;
    }
    if (all) return true;
  }
  if (const FunctionFacts* ext = is(expr, "call") ? ext_callee_of(expr, fact::kReturnsModule) : nullptr;
      ext && ext->returns_module)
    return true;
  for (const auto& v : values(expr)) {
    if (v.kind != Value::Kind::Expr || !is(v.expr, "call")) continue;
    Node e = v.expr;
    for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
      Node f = unparen(field(e, "function"));
      if (const FunctionFacts* ext = ext_callee_of(e, fact::kReturnsModule); ext && ext->returns_module) return true;
      // A function of this module that returns a module (`return apply_patches(load_model(m,
      // args), args)`, a `build_model(cfg)`): not a forward, whose returns are its outputs.
      for (int callee : callees(e)) {
        const Function& fn = functions_[callee];
        if (fn.name == "forward" || fn.name == "__call__" || fn.returns.size() > kMaxCandidates) continue;
        for (Node r : fn.returns)
          if (is_module_value(r)) return true;
      }
      if (is(f, "attribute")) {
        auto a = text(field(f, "attribute"));
        if (a == "to" || a == "cuda" || a == "train" || a == "eval" || a == "half" || a == "float" || a == "bfloat16") {
          e = unparen(field(f, "object"));
          // `net = net.to(device)` of a name bound to a module before (`net = RetinaFace(...)`,
          // `net = load_model(net, ...)`): that name's module.
          if (is(e, "identifier") && is_module_value(e)) return true;
          continue;
        }
        if (a == "from_pretrained") return true;
        // A framework method that hands back its argument (`accelerator.unwrap_model(model)`).
        if (types_) {
          AbstractType recv = types_->type_of(field(f, "object"));
          const auto& table = FrameworkTable::get();
          if (recv.kind == AbstractType::Kind::Object && recv.framework >= 0 &&
              table.identity(table.class_name(recv.framework) + "." + std::string(a))) {
            Node first = argument(e, 0, "");
            return !is_null(first) && !is(first, "keyword_argument") && is_module_value(first);
          }
        }
      }
      auto library_module = [&](const std::string& q) {
        return (starts_with(q, "torch.nn.") && !last_part(q).empty() &&
                std::isupper(static_cast<unsigned char>(last_part(q)[0]))) ||
               starts_with(q, "torchvision.models.") || starts_with(q, "timm.");
      };
      std::string q = qualified_name(f);
      if (library_module(q)) return true;
      // `from_fn = model_class.from_pretrained` then `from_fn(path)`, `make = nn.Linear` then
      // `make(d, d)`: a call of what the name refers to (SemanticModel::called_references).
      if (is(f, "identifier") && q.empty())
        for (Node r : called_references(f))
          if (text(field(r, "attribute")) == "from_pretrained" || library_module(qualified_name(r))) return true;
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
  return called_moved_object(*this, expr);
}

}  // namespace stoker::python
