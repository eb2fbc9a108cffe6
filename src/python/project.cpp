// Project mode's facts: the FactsTable of a round (the facts of every module's functions and classes,
// names resolved across modules, hot calls relayed) and each module's view of it, `ModuleEnv`. The
// layout is in project_layout.cpp, the rounds in project_rounds.cpp.
#include "python/project.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_set>

#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/project_fields.h"
#include "python/project_fingerprints.h"
#include "python/types.h"

namespace fs = std::filesystem;

namespace stoker::python {

namespace {

void join_facts(FunctionFacts& a, const FunctionFacts& b, bool primary);  // below, with the class tables

// "C.m[overrides]": the entry standing for the overrides of a placeholder method in other
// modules' subclasses (the FactsTable's constructor).
bool overrides_key(std::string_view local) {
  constexpr std::string_view kSuffix = "[overrides]";
  return local.size() > kSuffix.size() && local.substr(local.size() - kSuffix.size()) == kSuffix;
}

constexpr int kMaxReexportHops = 8;

}  // namespace

// ---------------------------------------------------------------------------------------
// The facts of a round.

FactsTable::FactsTable(const ProjectLayout& layout, const std::vector<const ModuleSummary*>& summaries,
                       FactsTable* previous, const std::vector<uint64_t>* versions)
    : layout_(layout), summaries_(summaries) {
  const size_t n = summaries.size();
  cuda_.assign(n, 0);
  // The previous table's bound entries, taken over below where their contributions are the same
  // (Bound); `changed`: the modules with another summary than the previous table's.
  std::vector<std::unordered_map<std::string, Bound>> old_bound;
  std::vector<char> changed(n, 1);
  if (versions && versions->size() == n) {
    versions_ = *versions;
    if (previous && previous->versions_.size() == n && previous->bound_.size() == n) {
      old_bound = std::move(previous->bound_);
      for (size_t m = 0; m < n; ++m) changed[m] = previous->versions_[m] != versions_[m];
    }
  }
  bound_.resize(n);
  relayed_.resize(n);
  // The entry of (module, receiver) in this table, in the order first reached.
  // (Its key lives as long as the table: the hotness relays keep it.)
  auto entry = [&](int rm, const std::string& receiver) -> std::pair<const std::string, Bound>& {
    auto& here = bound_[static_cast<size_t>(rm)];
    if (auto it = here.find(receiver); it != here.end()) return *it;
    if (!old_bound.empty())
      if (auto node = old_bound[static_cast<size_t>(rm)].extract(receiver); !node.empty())
        return *here.insert(std::move(node)).position;
    return *here.try_emplace(receiver).first;
  };
  // The functions, imports and star imports of each module: the previous table's maps of the
  // modules with the same summary are taken over (a map built from the same summary by the same
  // insertions: the same entries in the same order), its synthesized entries put back to the
  // summary's facts first; a module whose map got a key of its own there is built again. O(the
  // changed modules' names + the previous table's synthesized entries) instead of O(project).
  const bool take_names = previous && versions_.size() == n && previous->versions_.size() == n &&
                          previous->functions_.size() == n && previous->functions_added_.size() == n;
  if (take_names) {
    for (auto it = previous->functions_replaced_.rbegin(); it != previous->functions_replaced_.rend(); ++it) {
      auto& map = previous->functions_[static_cast<size_t>(it->first.first)];
      if (auto found = map.find(*it->first.second); found != map.end()) found->second = it->second;
    }
    functions_ = std::move(previous->functions_);
    imports_ = std::move(previous->imports_);
    stars_ = std::move(previous->stars_);
  }
  // A taken-over map's closures were indexed over the same names in the same order.
  const bool take_closures = take_names && previous->closures_.size() == n;
  if (take_closures) closures_ = std::move(previous->closures_);
  functions_.resize(n);
  imports_.resize(n);
  stars_.resize(n);
  closures_.resize(n);
  functions_added_.assign(n, 0);
  touched_.assign(n, 0);
  // What the passes below read of each summary alone: the previous table's for the modules with
  // the same summary, made again for the others (O(the changed modules' functions)).
  const bool take_index = take_names && previous->summary_index_.size() == n;
  if (take_index) summary_index_ = std::move(previous->summary_index_);
  summary_index_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    const bool same = take_names && previous->versions_[m] == versions_[m];
    if (!same || !take_index) summary_index_[m] = summaries[m] ? index_summary(*summaries[m]) : SummaryIndex{};
    if (!same || previous->functions_added_[m]) {
      functions_[m] = std::unordered_map<std::string, const FunctionFacts*>{};
      if (summaries[m])
        for (const auto& [name, f] : summaries[m]->functions) functions_[m].emplace(name, &f);
      index_closures(m);
    } else if (!take_closures) {
      index_closures(m);
    }
    if (!same) {
      imports_[m] = std::unordered_map<std::string, std::string>{};
      stars_[m].clear();
      if (summaries[m]) {
        for (const auto& [name, q] : summaries[m]->imports) imports_[m].emplace(name, q);
        stars_[m] = summaries[m]->star_imports;
      }
    }
  }
  // The attribute names: the previous table's index, the modules with another summary moved.
  // A module leaves each list it is in by a search and a swap with the last entry: O(modules
  // naming the name) per name, so a round whose changed modules all name a common attribute
  // ("to", "cuda") costs O(changed modules x their names x modules) at worst; the lists' order
  // is free (attribute_mentioned asks for any module but one).
  const bool take_attributes = previous && versions_.size() == n && previous->versions_.size() == n &&
                               previous->attributes_of_.size() == n;
  if (take_attributes) {
    attribute_modules_ = std::move(previous->attribute_modules_);
    attributes_of_ = std::move(previous->attributes_of_);
  }
  attributes_of_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    if (take_attributes && previous->versions_[m] == versions_[m]) continue;
    for (std::vector<int>* list : attributes_of_[m]) {
      auto it = std::find(list->begin(), list->end(), static_cast<int>(m));
      *it = list->back();
      list->pop_back();
    }
    attributes_of_[m].clear();
    if (!summaries[m]) continue;
    for (const std::string& a : summaries[m]->attribute_names) {
      auto it = attribute_modules_.find(a);
      if (it == attribute_modules_.end()) it = attribute_modules_.try_emplace(a).first;
      it->second.push_back(static_cast<int>(m));
      attributes_of_[m].push_back(&it->second);
    }
  }
  members_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m] || !summary_index_[m].table_classes) continue;
    for (const auto& [name, f] : summaries[m]->functions)
      if (!f.table_classes.empty()) add_class_table(static_cast<int>(m), name, f);
  }
  // Placeholder methods run through `self` (SemanticModel::external_name: `self.m(...)` in a
  // method of class C whose `m` only raises NotImplementedError): "C.m[overrides]" in C's module
  // stands for the definitions of `m` in the subclasses of C in other modules (through at most 4
  // levels of bases), each handed the call's arguments, and reads the join of their facts (set
  // AL FairMOT: BaseTrainer.__init__'s `self._get_losses(opt)` returns mot.py's MotLoss, which
  // ModleWithLoss.forward then runs per step). O(functions + classes x bases x depth)
  // resolutions per table.
  {
    std::map<std::pair<int, std::string>, std::vector<Target>> overrides;
    for (size_t m = 0; m < n; ++m) {
      if (!summaries[m]) continue;
      for (const auto& [cls, meths] : summary_index_[m].methods_of) {  // class -> its own methods
        const FunctionFacts* c = function(static_cast<int>(m), cls);
        if (!c || !c->is_class) continue;
        std::vector<std::pair<int, const FunctionFacts*>> frontier{{static_cast<int>(m), c}};
        std::set<std::pair<int, std::string>> seen;
        for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
          std::vector<std::pair<int, const FunctionFacts*>> next;
          for (const auto& [cm, k] : frontier)
            for (const std::string& b : k->bases) {
              auto target = resolve(cm, functions_[cm].count(b) ? layout_.name(cm) + "." + b : b);
              if (!target || !seen.insert(*target).second) continue;
              const FunctionFacts* base = function(target->first, target->second);
              if (!base || !base->is_class) continue;
              if (target->first != static_cast<int>(m))
                for (const std::string& meth : meths) {
                  auto& list = overrides[{target->first, target->second + "." + meth + "[overrides]"}];
                  Target t{static_cast<int>(m), cls + "." + meth, true};
                  if (list.size() < 64 && std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
                }
              next.push_back({target->first, base});
            }
          frontier = std::move(next);
        }
      }
    }
    for (auto& [where, targets] : overrides) {
      std::sort(targets.begin(), targets.end(),
                [](const Target& a, const Target& b) { return std::tie(a.module, a.local) < std::tie(b.module, b.local); });
      FunctionFacts joined;
      bool first = true;
      for (const Target& t : targets) {
        const FunctionFacts* f = function(t.module, t.local);
        if (!f) continue;
        if (first) joined = *f;
        else join_facts(joined, *f, true);
        first = false;
      }
      if (first) continue;
      joined.bases.clear();
      joined.self_calls.clear();
      synthesized_.push_back(std::move(joined));
      set_function(where.first, where.second, &synthesized_.back());
      members_[where.first][where.second] = targets;
    }
  }
  // The functions are final from here: resolutions are memoized. The previous table's memo is
  // taken over: an entry stands while the modules it read keep their shapes (resolve()).
  compute_shapes(take_names ? previous : nullptr);
  if (previous && previous->resolved_.size() == n) resolved_ = std::move(previous->resolved_);
  resolved_.resize(n);
  memo_open_ = true;
  // Registries: the functions and classes a decorator registers into each registry object,
  // joined per object (O(functions x re-export hops)).
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m] || !summary_index_[m].registry) continue;
    for (const auto& [name, f] : summaries[m]->functions) {
      if (f.registry.empty()) continue;
      std::string key = object_key(static_cast<int>(m), f.registry);
      if (key.empty()) continue;
      std::string member = layout_.name(static_cast<int>(m)) + "." + name;
      auto [it, fresh] = registries_.try_emplace(key, member);
      if (!fresh && !it->second.empty()) it->second = union_join(it->second, member);  // "" past the bound: stays ""
    }
  }
  // What subclasses store on `self`, joined on the classes of other modules they derive from,
  // through at most 4 levels of bases (O(classes x bases x depth) resolutions).
  // With them, the types each gives what it stores (its attrs; {-1, 0} for a name it stores
  // whose type is not known), for a base's methods reading an attribute only subclasses store.
  subclass_stores_.resize(n);
  subclass_attrs_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m] || !summary_index_[m].self_stores) continue;
    for (const auto& [name, f] : summaries[m]->functions) {
      if (!f.is_class || f.self_stores.empty()) continue;
      std::vector<std::pair<std::string, std::pair<int, int>>> typed;  // attribute, type
      for (const FunctionFacts::Attr& a : f.attrs) typed.push_back({a.name, {a.kind, a.device}});
      for (const std::string& s : f.self_stores) {
        if (s == "*") continue;
        bool known = false;
        for (const FunctionFacts::Attr& a : f.attrs) known = known || a.name == s;
        if (!known) typed.push_back({s, {-1, 0}});
      }
      std::vector<std::pair<int, const FunctionFacts*>> frontier{{static_cast<int>(m), &f}};
      std::set<std::pair<int, std::string>> seen;
      for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
        std::vector<std::pair<int, const FunctionFacts*>> next;
        for (const auto& [cm, c] : frontier)
          for (const std::string& b : c->bases) {
            auto target = resolve(cm, b);
            if (!target || !seen.insert(*target).second) continue;
            const FunctionFacts* base = function(target->first, target->second);
            if (!base || !base->is_class) continue;
            if (target->first != static_cast<int>(m)) {
              subclass_stores_[target->first][target->second].insert(f.self_stores.begin(), f.self_stores.end());
              auto& attrs = subclass_attrs_[target->first][target->second];
              for (const auto& [attr, type] : typed) {
                auto& types = attrs[attr];
                if (!types.count(type)) types.insert(types.size() < kMaxSubclassAttrTypes ? type : std::pair<int, int>{-1, 0});
              }
            }
            next.push_back({target->first, base});
          }
        frontier = std::move(next);
      }
    }
  }
  // A module whose classes another module places on CUDA uses CUDA (a model a Trainer trains),
  // and those classes' buffers are on CUDA.
  cuda_classes_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
    for (const std::string& name : summaries[m]->cuda_instances) {
      auto target = resolve(static_cast<int>(m), name);
      if (target && target->first != static_cast<int>(m)) {
        cuda_[target->first] = 1;
        cuda_classes_[target->first].insert(target->second);
      }
    }
  }
  // A module-level constant some module stores into (`config.batch_size = 32`) no longer
  // resolves: its entry loses its values (O(stores) resolutions).
  bool stores_anything = false;
  for (size_t m = 0; m < n; ++m)
    if (summaries[m] && summaries[m]->module_stores.size() == 1 && summaries[m]->module_stores[0] == "*")
      stores_anything = true;
  // A module may hold an entry with constants when its summary has one or set_function changed
  // its entries in this table (a synthesized entry, a constant's copy without its values).
  auto holds_consts = [&](size_t m) { return summary_index_[m].consts || touched_[m]; };
  auto unconstant = [&](int module, const std::string& local) {
    const FunctionFacts* f = function(module, local);
    if (!f || f->const_values.empty()) return;
    synthesized_.push_back(*f);
    synthesized_.back().const_values.clear();
    set_function(module, local, &synthesized_.back());
  };
  if (stores_anything) {
    for (size_t m = 0; m < n; ++m) {
      if (!holds_consts(m)) continue;
      std::vector<std::string> locals;
      for (const auto& [local, f] : functions_[m])
        if (!f->const_values.empty()) locals.push_back(local);
      for (const auto& local : locals) unconstant(static_cast<int>(m), local);
    }
  } else {
    for (size_t m = 0; m < n; ++m) {
      if (!summaries[m]) continue;
      for (const std::string& name : summaries[m]->module_stores) {
        if (auto target = resolve(static_cast<int>(m), name)) {
          unconstant(target->first, target->second);
          continue;
        }
        // `setattr(cfg, k, v)`, recorded "config.cfg.*": any attribute of that object may change,
        // so every constant exported under the prefix ("cfg.DATA_WORKERS") is one no more.
        if (name.size() < 3 || name.compare(name.size() - 2, 2, ".*") != 0) continue;
        auto [tm, rest] = layout_.split(static_cast<int>(m), layout_.absolute(static_cast<int>(m), name));
        if (tm < 0 || !holds_consts(static_cast<size_t>(tm))) continue;
        std::string prefix = rest.substr(0, rest.size() - 1);  // "cfg." (or "" for the module's own)
        std::vector<std::string> locals;
        for (const auto& [local, f] : functions_[static_cast<size_t>(tm)])
          if (!f->const_values.empty() && local.compare(0, prefix.size(), prefix) == 0) locals.push_back(local);
        for (const auto& local : locals) unconstant(tm, local);
      }
    }
    // A module not analyzed (left out by the prefilter: a launcher without torch) is read by its
    // text alone: any store of an attribute of that name there (`tunable.num_workers = 4`).
    auto unanalyzed = [&](int s) { return !summaries[static_cast<size_t>(s)]; };
    for (size_t m = 0; m < n; ++m) {
      if (!holds_consts(m)) continue;
      std::vector<std::string> locals;
      for (const auto& [local, f] : functions_[m]) {
        if (f->const_values.empty()) continue;
        size_t dot = local.rfind('.');
        bool stored = false;
        if (dot == std::string::npos) {
          stored = layout_.attribute_stored(static_cast<int>(m), local, unanalyzed);
        } else {
          // A class-level constant ("Config.num_workers"): a store of the attribute on any object
          // (`opt.num_workers = 8`) in any module of the project (the instance travels: tune.py's
          // `def tune(opt): opt.prefetch = 8` need not import the class's module).
          // One query: `by` sees every module storing the word (and accepts none, so the import
          // test never runs); a layout without the word index answers true.
          std::string_view word = std::string_view(local).substr(dot + 1);
          bool any = false;
          stored = layout_.attribute_stored(static_cast<int>(m), word, [&any](int) {
            any = true;
            return false;
          }) || any;
        }
        if (stored) locals.push_back(local);
      }
      for (const auto& local : locals) unconstant(static_cast<int>(m), local);
    }
  }
  // A function another module imports by name may be called there, or passed along; not when
  // that module never writes the name again (ModuleSummary::unused_imports), unless it is a
  // package's __init__.py, whose imports are the package's names (`pkg.f` elsewhere).
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
    const std::string& path = layout_.path(static_cast<int>(m));
    const bool package = path.size() >= 11 && path.compare(path.size() - 11, 11, "__init__.py") == 0;
    const auto& unused = summaries[m]->unused_imports;
    for (size_t k = 0; k < summaries[m]->imports.size(); ++k) {
      if (!package && std::binary_search(unused.begin(), unused.end(), summaries[m]->imports[k].first)) continue;
      auto target = resolve(static_cast<int>(m), summaries[m]->imports[k].second);
      if (target && target->first != static_cast<int>(m))
        entry(target->first, target->second).second.next.push_back({static_cast<int>(m), -1, static_cast<uint32_t>(k)});
    }
  }
  // Calls that run per step when their function does: per module, by calling function, the
  // call and where it lands (module, receiving function).
  struct Relay {
    const OutgoingCall* call;
    int module;
    const std::string* receiver;  // the key of its entry in bound_
  };
  std::vector<std::unordered_map<std::string_view, std::vector<Relay>>> relays(n);  // keys: the summaries' strings
  TaintEdges taint;
  taint.call_targets.resize(n);
  // Every call to a project function of another module, joined per callee: O(calls x hops).
  // The candidates of a "*.to" / "*.cuda" call (a host batch's own method), per method name, once
  // per table: the method of that name of each class that is not an nn.Module or a framework class
  // and returns an instance of its own class (`return NestedTensor(cast_tensor, cast_mask)`), not
  // a holder moving its state in place (a rollout storage's, an EMA's `to` returning nothing).
  // The candidates of a "%.meth" call (a method of a pickled nn.Module of unknown class,
  // SemanticModel::unknown_module_method): the method of that name of each nn.Module class.
  // Both kinds O(functions) per name, once per table.
  std::map<std::pair<bool, std::string>, std::vector<Target>> method_targets;  // (batch object?, name)
  auto class_methods = [&](bool batch_object, const std::string& method) -> const std::vector<Target>& {
    auto [it, fresh] = method_targets.try_emplace({batch_object, method});
    if (!fresh) return it->second;
    const std::string suffix = "." + method;
    for (size_t tm = 0; tm < n; ++tm)
      for (const auto& [local, f] : functions_[tm]) {
        if (local.size() <= suffix.size() || local.compare(local.size() - suffix.size(), suffix.size(), suffix) != 0)
          continue;
        std::string cls = local.substr(0, local.size() - suffix.size());
        if (cls.find('.') != std::string::npos || !f->method) continue;
        const FunctionFacts* c = function(static_cast<int>(tm), cls);
        if (!c || !c->is_class) continue;
        if (batch_object ? (c->module_kind != 0 || !c->framework.empty() ||
                            f->returns_class != layout_.name(static_cast<int>(tm)) + "." + cls)
                         : c->module_kind != 1)
          continue;
        it->second.push_back({static_cast<int>(tm), local, true});
      }
    return it->second;
  };
  std::vector<Target> targets;  // per call (one buffer for all: a table binds every call of the project)
  std::string init;             // per call: a class's `__init__` receiving its arguments
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
    taint.call_targets[m].resize(summaries[m]->calls.size());
    for (size_t ci = 0; ci < summaries[m]->calls.size(); ++ci) {
      const OutgoingCall& oc = summaries[m]->calls[ci];
      targets.clear();
      bool direct = true;
      // "*.to": a host batch's own `to`/`cuda` (summary.cpp batch_object_move): the
      // method of that name of each class of another module that is not an nn.Module (at most
      // kMaxClassUnion of them), its `self` the batch.
      bool batch_object = oc.callee.size() > 2 && oc.callee.compare(0, 2, "*.") == 0;
      bool module_object = oc.callee.size() > 2 && oc.callee.compare(0, 2, "%.") == 0;
      if (batch_object || module_object) {
        if (!oc.hot) continue;
        for (const Target& t : class_methods(batch_object, oc.callee.substr(2)))
          if (t.module != static_cast<int>(m)) targets.push_back(t);
        if (targets.empty() || targets.size() > kMaxClassUnion) continue;
        std::sort(targets.begin(), targets.end(),
                  [](const Target& a, const Target& b) { return std::tie(a.module, a.local) < std::tie(b.module, b.local); });
        direct = false;
      } else if (oc.callee.size() > 2 && oc.callee.compare(oc.callee.size() - 2, 2, ".*") == 0) {
        // "M.*": a function of project module M looked up by name (SemanticModel::external_name,
        // `getattr(module_metric, met)`): each top-level function of M, at most 8 of them.
        auto [tm, rest] = layout_.split(static_cast<int>(m), layout_.absolute(static_cast<int>(m), oc.callee));
        if (!oc.hot || tm < 0 || tm == static_cast<int>(m) || rest != "*") continue;
        for (const auto& [local, f] : functions_[tm])
          if (local.find('.') == std::string::npos && !f->is_class && !f->method) targets.push_back({tm, local, true});
        if (targets.empty() || targets.size() > 8) continue;
        std::sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) { return a.local < b.local; });
        direct = false;
      } else {
        auto target = resolve(static_cast<int>(m), oc.callee);
        if (!target) continue;
        // A class of a dict of classes (or a method of its instance): each of them. The
        // overrides of a placeholder method of the caller's own module ("C.m[overrides]") are
        // other modules' too.
        auto u = members_[target->first].find(target->second);
        if (target->first == static_cast<int>(m) && (u == members_[target->first].end() || !overrides_key(target->second)))
          continue;
        targets = {{target->first, std::move(target->second), true}};
        if (u != members_[target->first].end()) {
          targets = u->second;
          direct = false;
        }
      }
      for (const Target& t : targets) {
      if (t.module == static_cast<int>(m)) continue;
      int tm = t.module;
      auto found = functions_[tm].find(t.local);
      if (found == functions_[tm].end()) continue;
      const std::string& local = found->first;  // the table's key: kept by the taint edges
      const FunctionFacts* ff = found->second;
      if (ff->returns_cuda) cuda_[m] = 1;
      taint.callers.push_back({tm, &local, static_cast<int>(m)});
      // What the call returns (a function, not a construction): a source of the taint relay.
      if (direct && !(ff->method && local.find('.') == std::string::npos))
        taint.call_targets[m][ci].push_back({tm, &local});
      // A loader it returns (in a tuple, or whole to a loop of the caller's module) feeds a CUDA
      // training loop of the caller's module per epoch: the program uses CUDA there (a whole result
      // handed on keeps the facts it had: set J BiSeNet get_dataloader.py).
      if ((oc.result_per_epoch & kWholeLocalEpoch) && ff->returns_loader && summaries[m]->uses_cuda) cuda_[tm] = 1;
      if ((oc.result_per_epoch & ~(kWholeResult | kWholeLocalEpoch)) && summaries[m]->uses_cuda) cuda_[tm] = 1;
      if (oc.result_fed && summaries[m]->uses_cuda) cuda_[tm] = 1;  // an element iterated at all
      // So does a whole loader that such a loop iterates and that the call builds anew on every
      // pass of a loop (arguments the same each pass, OutgoingCall::rebuilds: ncf's
      // `train_loader = sample_generator.instance_a_train_loader(...)` in the epoch loop).
      if (oc.result_feeds_training && oc.rebuilds && ff->returns_loader && summaries[m]->uses_cuda) cuda_[tm] = 1;
      // So does a loader returned whole, or as the one loader of a returned tuple, that such a
      // loop iterates at all (HigherHRNet's `data_loader, test_dataset = make_test_dataloader(cfg)`
      // iterated once by valid.py's per-image evaluation loop: set AO build.py:100/102): the
      // construction's workers and batch size are those of that CUDA loop, per epoch or not.
      if (oc.result_feeds_training && summaries[m]->uses_cuda &&
          (ff->returns_loader || std::any_of(ff->ret_elems.begin(), ff->ret_elems.end(), [](const auto& e) {
             return e.first == static_cast<int>(AbstractType::Kind::Loader);
           })))
        cuda_[tm] = 1;
      // So does a loader a wrapper forwarding the caller's `**kwargs` returns whole that such a loop
      // iterates (magvit2's `DataLoader(*args, **kwargs)` in a data module without CUDA of its own,
      // called by the trainer): the construction is the caller's.
      if (oc.result_feeds_training && ff->returns_loader && summaries[m]->uses_cuda &&
          std::any_of(ff->params.begin(), ff->params.end(), [](const ParamSummary& p) { return p.double_star; }))
        cuda_[tm] = 1;
      // So does a dict of loaders returned whole whose items under literal keys such a loop
      // iterates (ChangeFormer's `get_loaders(args)`, set BA).
      if (oc.result_feeds_training && !ff->ret_loader_keys.empty() && summaries[m]->uses_cuda) cuda_[tm] = 1;
      // So does a loader kept on an instance whose attribute such a loop iterates.
      if (!oc.attrs_fed.empty() && summaries[m]->uses_cuda) cuda_[tm] = 1;
      // A loader handed to a parameter that a hot loop of a CUDA module iterates (`engine.
      // train_an_epoch(train_loader, ...)`) feeds CUDA training: the caller's module uses CUDA, as
      // it would with that loop written in it.
      if (direct && !(ff->method && local.find('.') == std::string::npos) && summaries[tm] && summaries[tm]->uses_cuda &&
          !cuda_[m]) {
        const size_t self = ff->method ? 1 : 0;
        for (size_t i = self; i < ff->params.size() && !cuda_[m]; ++i) {
          const ParamSummary& p = ff->params[i];
          if (!p.iterated_hot || p.star || p.double_star) continue;
          bool loader = !p.keyword_only && i - self < oc.positional.size() && oc.positional[i - self].loader;
          for (const auto& [name, arg] : oc.keywords) loader |= name == p.name && arg.loader;
          if (loader) cuda_[m] = 1;
        }
      }
      // A class called: its __init__ receives the arguments.
      const std::string* receiver = &local;
      int rm = tm;                   // the receiving function's module
      const FunctionFacts* rf = ff;  // whose parameters the arguments bind to
      if (ff->method && local.find('.') == std::string::npos) {
        init.assign(local).append(".__init__");
        receiver = &init;
        // A class that does not define __init__ constructs through the one it inherits (a base
        // here or in a third module: `SequenceTrainer(model=...)` runs `Trainer.__init__`).
        if (!function(tm, init))
          if (auto r = resolve(tm, layout_.name(tm) + "." + init); r && function(r->first, r->second)) {
            rm = r->first;
            init = std::move(r->second);
            rf = function(rm, init);
          }
      }
      auto& [key, b] = entry(rm, *receiver);
      if (!oc.caller.empty()) relays[m][oc.caller].push_back({&oc, rm, &key});
      b.next.push_back({static_cast<int>(m), tm, static_cast<uint32_t>(ci), t.binds, &oc, rf});
      }
    }
  }
  // Each entry taken over or joined again; the entries no call binds any more are dropped (with
  // old_bound).
  static const bool trace = std::getenv("STOKER_PROJECT_TRACE") != nullptr;
  size_t taken = 0, joined = 0, taken_calls = 0, joined_calls = 0;
  for (size_t rm = 0; rm < n; ++rm)
    for (auto& [receiver, b] : bound_[rm]) {
      bool same = !changed[rm] && b.from.size() == b.next.size();
      for (size_t k = 0; same && k < b.next.size(); ++k) {
        const Contribution& c = b.next[k];
        same = c.same(b.from[k]) && !changed[static_cast<size_t>(c.module)] &&
               (c.target < 0 || !changed[static_cast<size_t>(c.target)]);
      }
      if (!same) {
        b.in = Incoming{};
        b.cuda_marks.clear();
        b.taint.clear();
        for (const Contribution& c : b.next) bind(b, static_cast<int>(rm), receiver, c);
        ++joined, joined_calls += b.next.size();
      } else {
        ++taken, taken_calls += b.next.size();
      }
      for (int k : b.cuda_marks) cuda_[static_cast<size_t>(k)] = 1;
      for (const TaintEdges::Arg& a : b.taint) taint.args.push_back(&a);
      b.from = std::move(b.next);
      b.next.clear();
    }
  if (trace)
    std::fprintf(stderr, "table: %zu entries taken over (%zu contributions), %zu joined (%zu)\n", taken, taken_calls,
                 joined, joined_calls);
  relay_taint(taint);
  relay_hotness(relays);
}

namespace {
constexpr int kMaxBaseDepth = 4;     // bases followed from a class (each a resolution)
constexpr size_t kMaxTableMethods = 64;

// The facts of a call that may run any of several functions: what any of them does (steps, hot
// loops), and, from the ones handed the arguments (`primary`), what they return and iterate
// where they agree.
void join_facts(FunctionFacts& a, const FunctionFacts& b, bool primary) {
  a.has_hot_loop |= b.has_hot_loop;
  a.trains_loop |= b.trains_loop;
  a.steps |= b.steps;
  a.steps_forward |= b.steps_forward;
  if (!primary) return;
  a.returns_cuda |= b.returns_cuda;
  a.returns_loader |= b.returns_loader;
  a.returns_module |= b.returns_module;
  a.returns_tensor |= b.returns_tensor;
  if (a.ret_kind != b.ret_kind || a.ret_device != b.ret_device) a.ret_kind = -1, a.ret_device = 0;
  if (a.ret_framework != b.ret_framework) a.ret_framework.clear();
  if (a.ret_loader_keys != b.ret_loader_keys) a.ret_loader_keys.clear();
  a.ret_loader_dicts &= b.ret_loader_dicts;
  // Tuples of one arity join element-wise: a kind they differ on is unknown (-1), a device
  // they differ on the join of the two (TypeDevice: Cuda with another is Any, Cpu with
  // Unresolved is Unresolved).
  if (a.ret_elems.size() != b.ret_elems.size()) a.ret_elems.clear();
  for (size_t i = 0; i < a.ret_elems.size(); ++i) {
    auto& [kind, device] = a.ret_elems[i];
    const auto& [bkind, bdevice] = b.ret_elems[i];
    if (kind != bkind) kind = -1, device = 0;
    else if (device != bdevice) device = static_cast<int>(join(static_cast<TypeDevice>(device), static_cast<TypeDevice>(bdevice)));
  }
  if (a.ret_elem_cuda.size() != b.ret_elem_cuda.size()) a.ret_elem_cuda.clear();
  for (size_t i = 0; i < a.ret_elem_cuda.size(); ++i) a.ret_elem_cuda[i] |= b.ret_elem_cuda[i];
  if (a.yield_kind != b.yield_kind || a.yield_device != b.yield_device) a.yield_kind = -1, a.yield_device = 0;
  if (a.yields_param != b.yields_param) a.yields_param = -1;
  a.yields_built = a.yields_built && b.yields_built;
  a.returns_py_values = a.returns_py_values && b.returns_py_values;
  if (a.returns_class != b.returns_class) a.returns_class.clear();
  if (a.devkind != b.devkind) a.devkind = (a.devkind == 2 || b.devkind == 2) && a.devkind && b.devkind ? 2 : 0;
  if (a.ret_attr_devices != b.ret_attr_devices) a.ret_attr_devices.clear();
  if (a.const_values != b.const_values) a.const_values.clear();
  a.loader_class = a.loader_class && b.loader_class;
  if (a.loader_positional < 0 || (b.loader_positional >= 0 && b.loader_positional < a.loader_positional))
    a.loader_positional = b.loader_positional;
  if (a.hot_self_calls != b.hot_self_calls) a.hot_self_calls.clear();
  if (a.returns_namespace != b.returns_namespace || a.returns_parser != b.returns_parser ||
      a.namespace_object != b.namespace_object || a.namespace_values != b.namespace_values) {
    a.returns_namespace = a.returns_parser = a.namespace_object = false;
    a.namespace_values.clear();
  }
  if (a.dep_known != b.dep_known || a.dep_kind != b.dep_kind || a.dep_device != b.dep_device ||
      a.dep_cuda != b.dep_cuda || a.dep_uses != b.dep_uses || a.params != b.params)
    a.dep_known = false;
  for (size_t i = 0; i < a.params.size() && i < b.params.size(); ++i) {
    ParamSummary& p = a.params[i];
    const ParamSummary& q = b.params[i];
    if (p.name != q.name || p.keyword_only != q.keyword_only || p.star != q.star || p.double_star != q.double_star)
      continue;
    p.iterated_hot |= q.iterated_hot;
    p.called |= q.called;
    p.iterated_per_epoch |= q.iterated_per_epoch;
    p.enters_numpy = p.enters_numpy && q.enters_numpy;  // every definition converts it
    join_sorted(p.hot_keys, q.hot_keys, kMaxLoaderKeys);
  }
  a.is_class = a.is_class && b.is_class;
  if (a.module_kind != b.module_kind) a.module_kind = -1;
  if (a.iter_kind != b.iter_kind || a.iter_device != b.iter_device) a.iter_kind = -1, a.iter_device = 0;
  std::vector<FunctionFacts::Attr> attrs;
  for (const auto& x : a.attrs)
    if (std::find(b.attrs.begin(), b.attrs.end(), x) != b.attrs.end()) attrs.push_back(x);
  a.attrs = std::move(attrs);
  if (a.framework != b.framework) a.framework.clear();
}
}  // namespace

// `factory = {"a": ATrainer, "b": BTrainer}` in `module`: when every value is a project class,
// "factory[]" stands for an instance of any of them (its construction runs each class's
// __init__) and "factory[].meth", for every method one of them has or inherits (at most 64), for
// that method of each (its own or its base's) and, where the method is a base's, for the
// overrides in the class of the methods it calls on `self` (`BaseDetector.run` calling
// `self.process`: `CtdetDetector.process`), one level. O(classes x (functions of their modules +
// methods x (bases + self calls))) resolutions, each O(hops).
void FactsTable::add_class_table(int module, const std::string& name, const FunctionFacts& table) {
  std::vector<std::pair<int, std::string>> classes;
  // A name of module `m` itself ("Cls.meth"), absolute.
  auto own = [&](int m, const std::string& local) { return layout_.name(m) + "." + local; };
  for (const std::string& written : table.table_classes) {
    auto r = resolve(module, functions_[module].count(written) ? own(module, written) : written);
    const FunctionFacts* c = r ? function(r->first, r->second) : nullptr;
    if (!c || !c->is_class) return;  // every value a project class
    if (std::find(classes.begin(), classes.end(), *r) == classes.end()) classes.push_back(*r);
  }
  std::set<std::string> methods;
  std::function<void(int, const std::string&, int)> collect = [&](int cm, const std::string& cls, int depth) {
    std::string prefix = cls + ".";
    for (const auto& [key, f] : functions_[cm])
      if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
          key.find('.', prefix.size()) == std::string::npos && methods.size() < kMaxTableMethods)
        methods.insert(key.substr(prefix.size()));
    const FunctionFacts* c = function(cm, cls);
    if (!c || depth >= kMaxBaseDepth) return;
    for (const std::string& b : c->bases)
      if (auto r = resolve(cm, functions_[cm].count(b) ? own(cm, b) : b);
          r && function(r->first, r->second) && function(r->first, r->second)->is_class)
        collect(r->first, r->second, depth + 1);
  };
  for (const auto& [cm, cls] : classes) collect(cm, cls, 0);
  auto add = [&](const std::string& key, const std::vector<Target>& targets) {
    if (targets.empty()) return;
    FunctionFacts joined;
    bool first = true;
    for (const Target& t : targets) {
      const FunctionFacts* f = function(t.module, t.local);
      if (!f || !t.binds) continue;
      if (first) joined = *f;
      else join_facts(joined, *f, true);
      first = false;
    }
    if (first) return;
    for (const Target& t : targets)
      if (!t.binds)
        if (const FunctionFacts* f = function(t.module, t.local)) join_facts(joined, *f, false);
    joined.bases.clear();
    joined.self_calls.clear();
    synthesized_.push_back(std::move(joined));
    set_function(module, key, &synthesized_.back());
    members_[module][key] = targets;
  };
  std::vector<Target> constructions;
  for (const auto& [cm, cls] : classes) constructions.push_back({cm, cls, true});
  add(name + "[]", constructions);
  for (const std::string& meth : methods) {
    std::vector<Target> targets;
    for (const auto& [cm, cls] : classes) {
      auto r = resolve(cm, own(cm, cls + "." + meth));
      if (!r) continue;
      Target t{r->first, r->second, true};
      if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
      const FunctionFacts* f = function(r->first, r->second);
      if (!f || (r->first == cm && r->second == cls + "." + meth)) continue;  // the class's own
      std::string base = r->second.substr(0, r->second.rfind('.'));
      for (const std::string& s : f->self_calls) {
        auto over = resolve(cm, own(cm, cls + "." + s));
        if (!over || (over->first == r->first && over->second == base + "." + s)) continue;
        Target o{over->first, over->second, false};
        if (std::find(targets.begin(), targets.end(), o) == targets.end() && targets.size() < 64) targets.push_back(o);
      }
    }
    add(name + "[]." + meth, targets);
  }
}

std::string FactsTable::via_of(int module, uint32_t line) const {
  return fs::path(layout_.path(module)).filename().string() + ":" + std::to_string(line);
}

// A hot call joined into a callee's incoming calls: the least amortized context wins, and the
// call site named is the first by file name and line whatever the order the calls arrive in (the
// answer a module records must not change with the order of a table's construction).
void FactsTable::join_hot(IncomingCalls& c, long long every, bool once, bool flag, const std::string& via) {
  if (!c.hot) {
    c.hot = true;
    c.every = every;
    c.once_per_epoch = once;
    c.flag_guarded = flag;
    c.via = via;
    return;
  }
  if (every == 0) c.every = 0;
  if (!once) c.once_per_epoch = false;
  if (!flag) c.flag_guarded = false;
  if (earlier_site(via, c.via)) c.via = via;
}

// A function that another module calls per step runs the calls its body makes per step: the
// callees in third modules are hot too, in this table, rather than one round later each (a
// trainer's step calls a model's forward, which calls a submodule's forward in another module,
// which calls...). A worklist over the relayed calls; a function is visited again only when its
// context becomes less amortized (every -> 0, once per epoch or flag -> false): O(calls x 4).
// The worklist holds the entries' keys in bound_ (which the relay does not change), not copies.
template <class Relays>
void FactsTable::relay_hotness(const Relays& relays) {
  const size_t n = relays.size();
  std::vector<std::pair<int, const std::string*>> work;
  for (size_t m = 0; m < n; ++m)
    for (const auto& [local, b] : bound_[m]) {
      const Incoming& in = *incoming(static_cast<int>(m), local);
      if ((in.calls.hot || in.calls.in_loop) && relays[m].count(local)) work.push_back({static_cast<int>(m), &local});
    }
  auto combine = [](long long a, long long b) {
    if (a == 0) return b;
    if (b == 0) return a;
    if (a > 0 && b > 0) return std::max(a, b);
    return a > 0 ? a : b > 0 ? b : -1;
  };
  for (size_t guard = 0; !work.empty() && guard < 100000; ++guard) {
    auto [m, local] = work.back();
    work.pop_back();
    auto found = relays[m].find(*local);
    if (found == relays[m].end()) continue;
    // Every entry on the worklist has one: bound (the first round) or relayed (pushed after).
    const IncomingCalls caller = incoming(m, *local)->calls;
    for (const auto& r : found->second) {
      const OutgoingCall& oc = *r.call;
      // Changed in a copy: the entry is copied to relayed_ only when it changes.
      const std::string& receiver = *r.receiver;
      const Incoming* now = incoming(r.module, receiver);
      if (!now) now = &relayed(r.module, receiver);
      IncomingCalls c = now->calls;
      c.in_loop |= caller.in_loop;  // called from a function that runs in a loop
      if (caller.rebuilt && oc.rebuilds_if_caller && (!c.rebuilt || earlier_site(caller.rebuilt_via, c.rebuilt_via))) {
        c.rebuilt = true;  // called from a function rebuilt per pass of a loop (IncomingCalls::rebuilt)
        c.rebuilt_via = caller.rebuilt_via;
      }
      if (caller.hot && oc.hot_if_caller)
        join_hot(c, combine(caller.every, oc.caller_every), caller.once_per_epoch || oc.caller_once_per_epoch,
                 caller.flag_guarded || oc.caller_flag_guarded, via_of(m, oc.line));
      if (c == now->calls) continue;
      relayed(r.module, receiver).calls = std::move(c);
      if (relays[r.module].count(receiver)) work.push_back({r.module, r.receiver});
    }
  }
}

void FactsTable::index_closures(size_t module) {
  auto& out = closures_[module];
  out.clear();
  const auto& names = functions_[module];
  for (const auto& [local, f] : names) {  // in the map's order: the first such entry stands
    size_t dot = local.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= local.size() || f->is_class) continue;
    std::string outer = local.substr(0, dot);
    if (out.count(outer)) continue;
    if (auto fn = names.find(outer); fn != names.end() && !fn->second->is_class) out.emplace(std::move(outer), local);
  }
}

// What resolve_at reads of a module, hashed (order-independent over the function names): the
// names its functions and classes have in the table, the classes' bases, its imports and star
// imports. O(its functions and imports).
void FactsTable::compute_shapes(const FactsTable* previous) {
  const size_t n = summaries_.size();
  shape_.assign(n, 0);
  shape_touched_ = touched_;
  shapes_done_ = true;
  // A module with the same summary whose entries neither table changed before its shape was
  // computed holds the same names, bases, imports and star imports: the previous shape.
  const bool take = previous && previous->shapes_done_ && previous->shape_.size() == n &&
                    previous->shape_touched_.size() == n && previous->versions_.size() == n && versions_.size() == n;
  std::hash<std::string> h;
  auto mix = [](uint64_t a, uint64_t b) {  // splitmix64's finalizer over a boost-style combine
    uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  for (size_t m = 0; m < n; ++m) {
    if (!summaries_[m]) continue;
    if (take && previous->versions_[m] == versions_[m] && !previous->shape_touched_[m] && !touched_[m]) {
      shape_[m] = previous->shape_[m];
      continue;
    }
    uint64_t names = 0;
    for (const auto& [key, f] : functions_[m]) {
      uint64_t e = mix(h(key), f->is_class ? 2 : 1);
      if (f->is_class)
        for (const std::string& b : f->bases) e = mix(e, h(b));
      names += mix(e, 0x6a);
    }
    uint64_t imports = 0;
    for (const auto& [key, q] : imports_[m]) imports += mix(h(key), h(q));
    uint64_t s = mix(mix(names, imports), 0x51);
    for (const std::string& star : stars_[m]) s = mix(s, h(star));
    shape_[m] = s | 1;  // nonzero: a summary
  }
}

std::optional<std::pair<int, std::string>> FactsTable::resolve(int from, std::string_view name) const {
  if (resolved_.empty()) return resolve_at(from, name, 0);
  auto& memo = resolved_[static_cast<size_t>(from)];
  auto it = memo.find(name);
  if (it != memo.end()) {
    bool valid = true;
    for (const auto& [m, shape] : it->second.deps)
      if (shape_[static_cast<size_t>(m)] != shape) {
        valid = false;
        break;
      }
    if (valid) return it->second.target;
  }
  std::vector<int> deps;
  auto r = resolve_at(from, name, 0, &deps);
  if (memo_open_) {
    Resolution entry{r, {}};
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (int m : deps) entry.deps.emplace_back(m, shape_[static_cast<size_t>(m)]);
    if (it != memo.end()) it->second = std::move(entry);
    else memo.emplace(std::string(name), std::move(entry));
  }
  return r;
}

std::optional<std::pair<int, std::string>> FactsTable::resolve_at(int from, std::string_view name, int depth,
                                                                  std::vector<int>* deps) const {
  std::string abs = layout_.absolute(from, name);
  for (int hop = 0; hop < kMaxReexportHops && !abs.empty(); ++hop) {
    auto [m, rest] = layout_.split(from, abs);
    if (m < 0 || rest.empty()) return std::nullopt;
    if (deps) deps->push_back(m);
    if (rest.size() > 9 && rest.compare(rest.size() - 9, 9, ".__call__") == 0) {
      std::string cls = rest.substr(0, rest.size() - 9);
      if (functions_[m].count(cls + ".forward")) return std::make_pair(m, cls + ".forward");
      // What a function returns, called (`msn = init_msn_loss(...)`, `msn(...)`): the closure it
      // returns, its entry "init_msn_loss.loss" (SemanticModel::local_name), one at most per
      // function (closures_, indexed per module).
      if (auto fn = functions_[m].find(cls); fn != functions_[m].end() && !fn->second->is_class &&
                                             cls.find('.') == std::string::npos)
        if (auto closure = closures_[m].find(cls); closure != closures_[m].end())
          return std::make_pair(m, closure->second);
    }
    if (functions_[m].count(rest)) return std::make_pair(m, rest);
    // A name the module imports (a package's __init__.py re-exporting): follow it there.
    auto dot = rest.find('.');
    std::string first = rest.substr(0, dot);
    // A method a class of the module does not define: its bases' (in order), which may be
    // another module's (`CtdetTrainer.train` is `BaseTrainer.train`).
    if (auto cls = functions_[m].find(first); dot != std::string::npos && cls != functions_[m].end()) {
      if (!cls->second->is_class || depth >= kMaxBaseDepth) return std::nullopt;
      for (const std::string& b : cls->second->bases) {
        std::string base = functions_[m].count(b) ? layout_.name(m) + "." + b : b;  // a class of the module
        if (auto r = resolve_at(m, base + rest.substr(dot), depth + 1, deps)) return r;
      }
      // A library base's method that runs methods of the instance (data/frameworks.txt `runs`:
      // a vectorized environment's `step` runs `step_async`, then `step_wait`): the last of them
      // as the class resolves it, whose return the call hands back.
      if (std::string method = rest.substr(dot + 1); method.find('.') == std::string::npos)
        for (const std::string& b : cls->second->bases)
          if (const auto& ran = FrameworkTable::get().runs(b, method); !ran.empty())
            return resolve_at(m, layout_.name(m) + "." + first + "." + ran.back(), depth + 1, deps);
      return std::nullopt;
    }
    auto imp = imports_[m].find(first);
    std::string next;
    if (imp != imports_[m].end()) {
      next = imp->second + (dot == std::string::npos ? std::string{} : rest.substr(dot));
    } else {
      // `from .base_trainer import *` in a package's __init__.py: the first starred module that
      // defines or imports the name.
      for (std::string star : stars_[m]) {
        std::string sep = star.find_first_not_of('.') == std::string::npos ? "" : ".";
        std::string cand = layout_.absolute(m, star + sep + rest);
        if (cand.empty()) continue;
        auto [sm, srest] = layout_.split(m, cand);
        // `from config import *` in config/__init__.py names the package itself (a no-op in
        // Python 3): Python 2's implicit relative import of its submodule `config/config.py`
        // (arcface-pytorch), when there is one.
        if (sm == m && star[0] != '.' && star.find('.') == std::string::npos) {
          std::string own = layout_.absolute(m, "." + star + "." + rest);
          auto [om, orest] = own.empty() ? std::pair<int, std::string>{-1, {}} : layout_.split(m, own);
          if (om >= 0 && om != m && !orest.empty()) {
            star = "." + star;
            sm = om;
            srest = orest;
          }
        }
        if (sm < 0 || sm == m || srest.empty()) continue;
        if (deps) deps->push_back(sm);
        if (functions_[sm].count(srest) || imports_[sm].count(srest.substr(0, srest.find('.')))) {
          next = star + sep + rest;
          break;
        }
      }
      if (next.empty()) return std::nullopt;
    }
    abs = layout_.absolute(m, next);
    from = m;
  }
  return std::nullopt;
}

std::string FactsTable::object_key(int from, std::string_view name) const {
  std::string abs = layout_.absolute(from, name);
  for (int hop = 0; hop < kMaxReexportHops && !abs.empty(); ++hop) {
    auto [m, rest] = layout_.split(from, abs);
    if (m < 0 || rest.empty()) return {};
    auto dot = rest.find('.');
    auto imp = imports_[m].find(rest.substr(0, dot));
    if (imp == imports_[m].end()) return layout_.name(m) + "." + rest;
    abs = layout_.absolute(m, imp->second + (dot == std::string::npos ? std::string{} : rest.substr(dot)));
    from = m;
  }
  return {};
}

std::string FactsTable::registered(int from, std::string_view name) const {
  std::string key = object_key(from, name);
  if (key.empty()) return {};
  auto it = registries_.find(key);
  return it == registries_.end() ? std::string{} : it->second;
}

std::string FactsTable::star_import(int from, std::string_view name) const {
  if (name.empty() || name[0] == '_') return {};  // `import *` skips private names
  // Breadth over the starred modules, each visited once: a module's own imports first, then
  // the modules it star-imports in turn (Python binds them in its namespace the same way).
  std::vector<int> frontier{from}, seen{from};
  for (int hop = 0; hop < kMaxReexportHops && !frontier.empty(); ++hop) {
    std::vector<int> next;
    for (int m : frontier) {
      for (const std::string& star : stars_[m]) {
        std::string abs = layout_.absolute(m, star);
        if (abs.empty()) continue;
        auto [sm, rest] = layout_.split(m, abs);
        if (sm < 0 || !rest.empty() || std::find(seen.begin(), seen.end(), sm) != seen.end()) continue;
        seen.push_back(sm);
        if (!summaries_[sm]) continue;
        std::string key(name);
        if (functions_[sm].count(key)) return {};  // a project function or class: callee() names it
        if (auto imp = imports_[sm].find(key); imp != imports_[sm].end())
          return imp->second.empty() || imp->second[0] == '.' || layout_.is_project_name(sm, imp->second)
                     ? std::string{}
                     : imp->second;
        next.push_back(sm);
      }
    }
    frontier = std::move(next);
  }
  return {};
}

bool FactsTable::attribute_mentioned(int from, std::string_view name) const {
  for (const char* key : {"*", ""}) {
    auto it = attribute_modules_.find(*key ? std::string_view(key) : name);
    if (it == attribute_modules_.end()) continue;
    for (int m : it->second)
      if (m != from) return true;
  }
  return false;
}

bool FactsTable::attribute_reachable(int from, std::string_view name) const {
  if (!layout_.indexed()) return true;
  const int component = layout_.component(from);
  auto reaches = [&](int m) { return m != from && (component < 0 || layout_.component(m) == component); };
  for (const char* key : {"*", ""}) {
    auto it = attribute_modules_.find(*key ? std::string_view(key) : name);
    if (it == attribute_modules_.end()) continue;
    for (int m : it->second)
      if (reaches(m)) return true;
  }
  if (const std::vector<int>* by = layout_.dotted_by(name))
    for (int m : *by)
      if (reaches(m) && (static_cast<size_t>(m) >= summaries_.size() || !summaries_[static_cast<size_t>(m)])) return true;
  return false;
}

bool FactsTable::left_out_call(int from, std::string_view name) const {
  if (!layout_.indexed()) return true;
  const std::vector<int>* by = layout_.called_by(name);
  if (!by) return false;
  for (int m : *by) {
    if (m == from || (static_cast<size_t>(m) < summaries_.size() && summaries_[static_cast<size_t>(m)])) continue;
    const auto& imp = layout_.imports_of(m);
    if (std::find(imp.begin(), imp.end(), from) != imp.end()) return true;
  }
  return false;
}

bool FactsTable::subclass_stores(int module, const std::string& local_class, std::string_view attr) const {
  auto it = subclass_stores_[module].find(local_class);
  if (it == subclass_stores_[module].end()) return false;
  return it->second.count("*") || it->second.count(std::string(attr));
}

std::vector<std::pair<int, int>> FactsTable::subclass_attr_types(int module, const std::string& local_class,
                                                                 std::string_view attr) const {
  auto it = subclass_attrs_[module].find(local_class);
  if (it == subclass_attrs_[module].end()) return {};
  auto a = it->second.find(std::string(attr));
  if (a == it->second.end()) return {};
  return {a->second.begin(), a->second.end()};
}

const FunctionFacts* FactsTable::function(int module, const std::string& local) const {
  auto it = functions_[module].find(local);
  return it == functions_[module].end() ? nullptr : it->second;
}

// ---------------------------------------------------------------------------------------
// One module's view.

void ModuleEnv::record(const Query& q, std::string fingerprint) const {
  queries_.try_emplace(query_key(q.type, q.name, q.index, q.fields), q, std::move(fingerprint));
}

std::string ModuleEnv::query_key(char type, std::string_view name, int index, unsigned fields) {
  std::string key(1, type);
  key += name;
  key += '#';
  key += std::to_string(index);
  key += '#';
  key += std::to_string(fields);
  return key;
}

// The first answer of a query is kept (the table does not change during an analysis): the
// fingerprint of one already recorded is not computed again.
template <class Fingerprint>
void ModuleEnv::record_once(char type, std::string_view name, int index, unsigned fields, Fingerprint&& fp) const {
  std::string key = query_key(type, name, index, fields);
  auto it = queries_.lower_bound(key);
  if (it != queries_.end() && it->first == key) return;
  queries_.emplace_hint(it, std::move(key), std::make_pair(Query{type, std::string(name), index, fields}, fp()));
}

const IncomingCalls* ModuleEnv::incoming(std::string_view local, unsigned fields) const {
  if (local.empty()) return nullptr;
  const FactsTable::Incoming* in = table_->incoming(module_, std::string(local));
  const IncomingCalls* out = in ? &in->calls : nullptr;
  if (fields) record_once('i', local, 0, fields, [&] { return fp_incoming(out, fields); });
  return out;
}

const ArgFacts* ModuleEnv::incoming_param(std::string_view local, int index, unsigned fields) const {
  if (local.empty()) return nullptr;
  auto it = params_.find(local);
  if (it == params_.end()) it = params_.emplace(std::string(local), Params{table_->incoming(module_, std::string(local)), {}}).first;
  const FactsTable::Incoming* in = it->second.in;
  const ArgFacts* out =
      in && index >= 0 && static_cast<size_t>(index) < in->params.size() ? &in->params[index] : nullptr;
  if (fields) {
    auto& recorded = it->second.recorded;
    if (std::find(recorded.begin(), recorded.end(), std::make_pair(index, fields)) == recorded.end()) {
      recorded.emplace_back(index, fields);
      record_once('p', local, index, fields, [&] { return fp_arg(out, fields); });
    }
  }
  return out;
}

ModuleEnv::Resolved& ModuleEnv::resolve_callee(std::string_view name) const {
  auto it = resolved_.find(name);
  if (it == resolved_.end()) {
    auto r = table_->resolve(module_, name);
    it = resolved_.emplace(std::string(name),
                           Resolved{r && (r->first != module_ || overrides_key(r->second)) ? table_->function(r->first, r->second)
                                                                                          : nullptr,
                                    {}})
             .first;
  }
  return it->second;
}

const FunctionFacts* ModuleEnv::callee(std::string_view name, unsigned fields) const {
  // A name asked before: resolved if it is a project name, remembered as none if not.
  auto it = resolved_.find(name);
  if (it == resolved_.end() && !layout_.is_project_name(module_, name)) {
    resolved_.emplace(std::string(name), Resolved{nullptr, {}, false});
    return nullptr;
  }
  if (it != resolved_.end() && !it->second.project) return nullptr;
  Resolved& r = it != resolved_.end() ? it->second : resolve_callee(name);
  if (fields && std::find(r.recorded.begin(), r.recorded.end(), fields) == r.recorded.end()) {
    r.recorded.push_back(fields);
    record({'c', std::string(name), 0, fields}, fp_function(r.facts, fields));
  }
  return r.facts;
}

std::string ModuleEnv::canonical(std::string_view name, bool local) const {
  if (local) return layout_.name(module_) + "." + std::string(name);
  if (!layout_.is_project_name(module_, name)) return {};
  auto r = table_->resolve(module_, name);
  return r ? layout_.name(r->first) + "." + r->second : std::string{};
}

std::string ModuleEnv::registered(std::string_view name) const {
  if (name.empty() || !layout_.is_project_name(module_, name)) return {};
  std::string out = table_->registered(module_, name);
  record({'r', std::string(name), 0, 0}, out);
  return out;
}

std::string ModuleEnv::star_import(std::string_view name) const {
  if (name.empty()) return {};
  std::string out = table_->star_import(module_, name);
  record({'s', std::string(name), 0, 0}, out);
  return out;
}

bool ModuleEnv::attribute_mentioned(std::string_view name) const {
  bool out = table_->attribute_mentioned(module_, name);
  record({'a', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::attribute_reachable(std::string_view name) const {
  bool out = table_->attribute_reachable(module_, name);
  record({'n', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::word_mentioned(std::string_view name) const {
  bool out = table_->word_mentioned(module_, name);
  record({'w', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::left_out_call(std::string_view name) const {
  bool out = table_->left_out_call(module_, name);
  record({'l', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::subclass_stores(std::string_view local_class, std::string_view attr) const {
  std::string key = std::string(local_class) + "." + std::string(attr);
  bool out = table_->subclass_stores(module_, std::string(local_class), attr);
  record({'x', key, 0, 0}, out ? "1" : "0");
  return out;
}

namespace {
std::string fp_attr_types(const std::vector<std::pair<int, int>>& types) {
  std::string o;
  for (const auto& [k, d] : types) o += std::to_string(k) + ":" + std::to_string(d) + ";";
  return o;
}
}  // namespace

std::vector<std::pair<int, int>> ModuleEnv::subclass_attr_types(std::string_view local_class, std::string_view attr) const {
  std::string key = std::string(local_class) + "." + std::string(attr);
  auto out = table_->subclass_attr_types(module_, std::string(local_class), attr);
  record({'y', key, 0, 0}, fp_attr_types(out));
  return out;
}

bool ModuleEnv::class_on_cuda(std::string_view local_class) const {
  bool out = table_->class_on_cuda(module_, std::string(local_class));
  record({'k', std::string(local_class), 0, 0}, out ? "1" : "0");
  return out;
}

// Recorded per (class, attribute) with that attribute's type only (fp_class_attr): a class whose
// attributes gain types round after round (a Trainer's loops) analyzes again only the modules
// that read a changed one.
const FunctionFacts::Attr* ModuleEnv::class_attr(std::string_view name, std::string_view attr) const {
  const FunctionFacts* f = callee(name, 0);  // resolved, not recorded
  if (auto it = resolved_.find(name); it == resolved_.end() || !it->second.project) return nullptr;  // no project name
  std::string key(name);
  key += ' ';
  key += attr;
  record_once('t', key, 0, 0, [&] { return fp_class_attr(f, attr); });
  if (!f || !f->is_class) return nullptr;
  for (const auto& a : f->attrs)
    if (a.name == attr) return &a;
  return nullptr;
}

bool ModuleEnv::has_incoming() const { return table_->has_incoming(module_); }

bool ModuleEnv::cuda() const {
  bool out = table_->cuda(module_);
  record({'u', {}, 0, 0}, out ? "1" : "0");
  return out;
}

const std::string& FactsTable::callee_fingerprint(const FunctionFacts* f, unsigned fields) const {
  auto [it, fresh] = fingerprints_.try_emplace({f, fields});
  if (fresh) it->second = fp_function(f, fields);
  return it->second;
}

std::string ModuleEnv::answer(const Query& q) const {
  switch (q.type) {
    case 'i': {
      const auto* in = table_->incoming(module_, q.name);
      return fp_incoming(in ? &in->calls : nullptr, q.fields);
    }
    case 'p': {
      const auto* in = table_->incoming(module_, q.name);
      const ArgFacts* a = in && q.index >= 0 && static_cast<size_t>(q.index) < in->params.size() ? &in->params[q.index] : nullptr;
      return fp_arg(a, q.fields);
    }
    case 'c': {
      // Memoized as callee() does: a name is recorded once per set of fields it was asked with.
      return table_->callee_fingerprint(resolve_callee(q.name).facts, q.fields);
    }
    case 'u': return table_->cuda(module_) ? "1" : "0";
    case 'r': return table_->registered(module_, q.name);
    case 's': return table_->star_import(module_, q.name);
    case 'a': return table_->attribute_mentioned(module_, q.name) ? "1" : "0";
    case 'w': return table_->word_mentioned(module_, q.name) ? "1" : "0";
    case 'l': return table_->left_out_call(module_, q.name) ? "1" : "0";
    case 'n': return table_->attribute_reachable(module_, q.name) ? "1" : "0";
    case 'k': return table_->class_on_cuda(module_, q.name) ? "1" : "0";
    case 't': {
      size_t space = q.name.find(' ');
      if (space == std::string::npos) return {};
      return fp_class_attr(resolve_callee(std::string_view(q.name).substr(0, space)).facts,
                           std::string_view(q.name).substr(space + 1));
    }
    case 'y': {
      size_t dot = q.name.find('.');
      if (dot == std::string::npos) return {};
      return fp_attr_types(
          table_->subclass_attr_types(module_, q.name.substr(0, dot), std::string_view(q.name).substr(dot + 1)));
    }
    case 'x': {
      size_t dot = q.name.find('.');
      if (dot == std::string::npos) return "0";
      return table_->subclass_stores(module_, q.name.substr(0, dot), std::string_view(q.name).substr(dot + 1)) ? "1" : "0";
    }
  }
  return {};
}

}  // namespace stoker::python
