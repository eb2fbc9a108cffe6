#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "python/project.h"
#include "python/project_fingerprints.h"
#include "python/semantic_model.h"
#include "python/types.h"

// FactsTable's calls bound to their callees' entries (Bound, taken over from one table to the
// next) and the CUDA taint relay over them. Split from project.cpp by concern (issue 10's
// layout).

namespace stoker::python {

// One contribution joined into a callee's entry (Bound), as the construction's loop over the
// calls did: the hotness and result facts of the call, its arguments bound to the receiving
// function's parameters as Python binds them.
void FactsTable::bind(Bound& b, int rm, const std::string& receiver, const Contribution& contribution) {
  if (!contribution.call) {  // imported by name: may be called there, or passed along
    b.in.calls.called = true;
    return;
  }
  const OutgoingCall& oc = *contribution.call;
  const FunctionFacts* rf = contribution.receiver;
  const int m = contribution.module, tm = contribution.target;
  const size_t ci = contribution.index;
  const bool binds = contribution.binds;
  const bool batch_object = oc.callee.size() > 2 && oc.callee.compare(0, 2, "*.") == 0;
  const bool module_object = oc.callee.size() > 2 && oc.callee.compare(0, 2, "%.") == 0;
  auto mark = [&](int module) {
    if (std::find(b.cuda_marks.begin(), b.cuda_marks.end(), module) == b.cuda_marks.end()) b.cuda_marks.push_back(module);
  };
  IncomingCalls& c = b.in.calls;
  if (oc.dead) {  // silenced by a guard known False: calls nothing, hands on no hotness
    c.dead_called = true;
  } else {
    if (oc.hot) join_hot(c, oc.every, oc.once_per_epoch, oc.flag_guarded, via_of(static_cast<int>(m), oc.line));
    c.called = true;
    c.in_loop |= oc.in_loop;
    if (oc.rebuilds) {  // rebuilt per pass of a loop (IncomingCalls::rebuilt), first site by file and line
      std::string via = via_of(static_cast<int>(m), oc.line);
      if (!c.rebuilt || earlier_site(via, c.rebuilt_via)) c.rebuilt_via = via;
      c.rebuilt = true;
    }
  }
  if (!binds) return;  // an override run through `self`: not handed the arguments
  c.result_feeds_training |= oc.result_feeds_training;
  c.result_per_epoch |= oc.result_per_epoch;
  c.result_fed |= oc.result_fed;
  join_sorted(c.attrs_fed, oc.attrs_fed, kMaxFedAttrs);
  // Arguments to parameters, as Python binds them.
  const auto& params = rf->params;
  b.in.params.resize(params.size());
  // `self` the step's batch object, or the CUDA module the call is made on: passed, of no known
  // value, type or class.
  if ((batch_object || module_object) && !params.empty()) {
    ArgFacts self;
    self.passed = true;
    self.batch = self.step = batch_object;
    self.cuda = self.module = module_object;
    self.values.assign(1, ScalarFact{});
    self.type_kind = static_cast<int>(AbstractType::Kind::Unknown);
    self.klass = "?";
    self.framework = "?";
    self.func = "?";
    b.in.params[0].join(self);
  }
  std::vector<char> keyword_used(oc.keywords.size(), 0);
  size_t named_positional = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSummary& p = params[i];
    if (rf->method && i == 0) continue;  // self
    if (p.star || p.double_star) continue;
    // The argument's facts as the call has them (no copy), or `got` when it passes none.
    const ArgFacts* arg = nullptr;
    ArgFacts got;
    const TaintSources* follows = nullptr;
    size_t pos = i - (rf->method ? 1 : 0);
    if (!p.keyword_only) {
      ++named_positional;
      if (pos < oc.positional.size()) {
        arg = &oc.positional[pos];
        if (pos < oc.positional_follow.size()) follows = &oc.positional_follow[pos];
      }
    }
    for (size_t k = 0; !arg && k < oc.keywords.size(); ++k)
      if (oc.keywords[k].first == p.name) {
        arg = &oc.keywords[k].second;
        keyword_used[k] = 1;
        if (k < oc.keyword_follow.size()) follows = &oc.keyword_follow[k];
      }
    if (follows && !follows->empty() && !oc.caller.empty())
      b.taint.push_back({m, &oc.caller, ci, rm, receiver, i, follows});
    if (!arg) {
      arg = &got;
      if (oc.splat) {
        got.passed = true;
        got.values.assign(1, ScalarFact{});
        got.type_kind = static_cast<int>(AbstractType::Kind::Unknown);
        got.klass = "?";
        got.framework = "?";
        // A splat hands no function by name: it leaves the parameter's function to the sites that do
        // (ArgFacts::func), as a default does.
        got.cuda = oc.star_cuda && !p.keyword_only;  // OutgoingCall::star_cuda
      } else {
        got.defaulted = true;
      }
    }
    b.in.params[i].join(*arg);
    if (oc.hot && !oc.once_per_epoch) b.in.params[i].join_hot(*arg);
    // The options of a call site whose result a loop iterates are the loader's (kUseValues) only where
    // that loop is in a module that uses CUDA: a unit test drawing a few batches of 8 on the CPU
    // (trlx's tests/test_minibatch.py `create_loader(batch_size=8)`) feeds no GPU training.
    if ((oc.result_feeds_training || oc.result_per_epoch || oc.result_fed) && summaries_[m] && summaries_[m]->uses_cuda)
      b.in.params[i].join_use(*arg, oc.result_per_epoch != 0);
    if (arg->cuda || arg->device_cuda) {
      mark(tm);
      mark(rm);
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSummary& p = params[i];
    ArgFacts rest;
    if (p.star)
      for (size_t a = named_positional; a < oc.positional.size(); ++a) rest.join(oc.positional[a]);
    if (p.double_star) {
      ArgFacts names;  // the keywords themselves (ArgFacts::kw_names)
      names.kw_known = true;
      names.kw_open = oc.splat;
      std::vector<std::string> passed;
      for (size_t k = 0; k < oc.keywords.size(); ++k)
        if (!keyword_used[k]) {
          rest.join(oc.keywords[k].second);
          passed.push_back(oc.keywords[k].first);
        }
      if (join_sorted(names.kw_names, passed, kMaxKwNames)) names.kw_open = true;
      rest.join(names);
      // The values under each keyword the site passes into the `**` parameter (a dict spread
      // into the call, `make_data_loader(args, **kwargs)` with `kwargs = {'num_workers':
      // args.workers, ...}`, or keywords written there), as ArgFacts::dict_values: a loader
      // construction forwarding the parameter reads them (SemanticModel::forwarded_values). Only
      // keys whose values are all known constants; the sites' join keeps the keys every passing
      // site has (ArgFacts::join). A site whose keywords are not all known (a splat) knows none.
      if (rest.passed) {
        rest.dict = oc.splat ? 2 : 1;
        rest.dict_values.clear();
        if (!oc.splat) {
          std::map<std::string, const std::vector<ScalarFact>*> by_key;  // a later keyword wins
          for (size_t k = 0; k < oc.keywords.size(); ++k)
            if (!keyword_used[k]) by_key[oc.keywords[k].first] = &oc.keywords[k].second.values;
          for (const auto& [key, vs] : by_key) {
            bool known = !vs->empty() && vs->size() <= SemanticModel::kMaxCandidates;
            for (const auto& v : *vs) known = known && v.kind != ScalarFact::Kind::Unknown;
            if (known && rest.dict_values.size() < kMaxDictKeys) rest.dict_values.push_back({key, *vs});
          }
        }
      }
    }
    if ((p.star || p.double_star) && oc.splat) {
      rest.passed = true;
      rest.values.assign(1, ScalarFact{});
      rest.type_kind = static_cast<int>(AbstractType::Kind::Unknown);
      rest.klass = "?";
      rest.framework = "?";
      // A splat hands no function by name: it leaves the parameter's function to the sites that do
      // (ArgFacts::func), as a default does.
      rest.cuda |= oc.splat_cuda;
    }
    if (!p.star && !p.double_star) continue;
    b.in.params[i].join(rest);
    if (rest.cuda || rest.device_cuda) {
      mark(tm);
      mark(rm);
    }
  }
}

// The CUDA taint relayed in the table (speed15): a parameter of a function that other modules
// hand CUDA values (P) makes CUDA the arguments whose taint follows it (OutgoingCall::
// positional_follow) in the callees' parameters, and its returns when they follow it
// (FunctionFacts::returns_follow: R, `returns_cuda`); a function returning CUDA (R) does the
// same for the arguments and returns that follow its calls. Closed by a worklist, each node made
// CUDA once: O(edges). What is relayed is what the analyses of the modules on the way would
// find one round later each (the sources are only certain dependences), so a chain of modules
// settles in one table instead of one round per module.
void FactsTable::relay_taint(const TaintEdges& edges) {
  // Nodes: P (module, function, parameter index) and R (module, function; index -1). The
  // function's name is one of the summaries', the bound entries' or the table's (no copies: they
  // outlive the relay), compared by its text.
  struct Key {
    int module;
    const std::string* local;
    int index;
    bool operator==(const Key& o) const { return module == o.module && index == o.index && *local == *o.local; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string>{}(*k.local) * 31 + static_cast<size_t>(k.module) * 131 + static_cast<size_t>(k.index + 1);
    }
  };
  // Whether the facts say a node is CUDA: a parameter of a function (index >= 0) or what it
  // returns (-1).
  auto fact_cuda = [&](int module, const std::string& local, int index) {
    if (index < 0) {
      const FunctionFacts* f = function(module, local);
      return f && f->returns_cuda;
    }
    const Incoming* in = incoming(module, local);
    return in && static_cast<size_t>(index) < in->params.size() && in->params[static_cast<size_t>(index)].cuda;
  };
  // The nodes an edge starts from: the parameters and the callees' returns `src` follows in
  // `function` of module m; visit(module, local, index) true stops the walk.
  auto each_source = [&](int m, const std::string& function, const TaintSources& src, auto&& visit) {
    for (int p : src.params)
      if (visit(m, function, p)) return true;
    for (int c : src.calls)
      if (c >= 0 && static_cast<size_t>(c) < edges.call_targets[m].size())
        for (const auto& [tm, local] : edges.call_targets[m][static_cast<size_t>(c)])
          if (visit(tm, *local, -1)) return true;
    return false;
  };
  // No node to start from (no source of an edge is CUDA in this table, as in the early tables of
  // round 1): nothing is relayed, and the graph is not built.
  bool seeded = false;
  for (size_t a = 0; a < edges.args.size() && !seeded; ++a)
    seeded = each_source(edges.args[a]->module, *edges.args[a]->caller, *edges.args[a]->follows, fact_cuda);
  for (size_t m = 0; m < summaries_.size() && !seeded; ++m) {
    if (!summaries_[m]) continue;
    for (const auto& [name, f] : summaries_[m]->functions)
      if (!f.returns_follow.empty() && !f.returns_cuda && each_source(static_cast<int>(m), name, f.returns_follow, fact_cuda)) {
        seeded = true;
        break;
      }
  }
  if (!seeded) return;
  std::unordered_map<Key, std::vector<Key>, KeyHash> succ;
  auto from_sources = [&](int m, const std::string& function, const TaintSources& src, const Key& to) {
    each_source(m, function, src, [&](int sm, const std::string& local, int index) {
      succ[Key{sm, &local, index}].push_back(to);
      return false;
    });
  };
  for (const auto* a : edges.args) from_sources(a->module, *a->caller, *a->follows, {a->callee_module, &a->receiver, static_cast<int>(a->param)});
  for (size_t m = 0; m < summaries_.size(); ++m) {
    if (!summaries_[m]) continue;
    for (const auto& [name, f] : summaries_[m]->functions)
      if (!f.returns_follow.empty() && !f.returns_cuda)
        from_sources(static_cast<int>(m), name, f.returns_follow, {static_cast<int>(m), &name, -1});
  }
  if (succ.empty()) return;
  std::unordered_set<Key, KeyHash> relayed_returns;
  // The modules calling each function, indexed at the first return relayed.
  std::unordered_map<Key, std::vector<int>, KeyHash> callers;
  bool callers_indexed = false;
  auto cuda_at = [&](const Key& k) { return (k.index < 0 && relayed_returns.count(k)) || fact_cuda(k.module, *k.local, k.index); };
  std::vector<Key> work;
  for (const auto& [k, next] : succ)
    if (cuda_at(k)) work.push_back(k);
  while (!work.empty()) {
    Key k = work.back();
    work.pop_back();
    auto it = succ.find(k);
    if (it == succ.end()) continue;
    for (const Key& to : it->second) {
      if (cuda_at(to)) continue;
      if (to.index < 0) {
        relayed_returns.insert(to);
        // Its callers' modules use CUDA, as for a function whose facts say it returns CUDA.
        if (!callers_indexed) {
          for (const auto& c : edges.callers) callers[Key{c.module, c.local, -1}].push_back(c.caller);
          callers_indexed = true;
        }
        if (auto c = callers.find(to); c != callers.end())
          for (int m : c->second) cuda_[m] = 1;
      } else {
        auto& params = relayed(to.module, *to.local).params;
        if (static_cast<size_t>(to.index) >= params.size()) continue;
        params[static_cast<size_t>(to.index)].cuda = true;
        cuda_[to.module] = 1;
      }
      work.push_back(to);
    }
  }
  for (const Key& k : relayed_returns) {
    const FunctionFacts* f = function(k.module, *k.local);
    if (!f) continue;
    synthesized_.push_back(*f);
    synthesized_.back().returns_cuda = true;
    synthesized_.back().ret_elem_cuda.clear();  // relayed: which element is CUDA is not known
    set_function(k.module, *k.local, &synthesized_.back());
  }
}

void FactsTable::set_function(int module, const std::string& local, const FunctionFacts* f) {
  touched_[static_cast<size_t>(module)] = 1;
  auto [it, fresh] = functions_[static_cast<size_t>(module)].try_emplace(local, f);
  if (fresh) {
    functions_added_[static_cast<size_t>(module)] = 1;
    index_closures(static_cast<size_t>(module));  // the map's order may have changed
  } else {
    functions_replaced_.push_back({{module, &it->first}, it->second});
    it->second = f;
  }
}

const FactsTable::Incoming* FactsTable::incoming(int module, const std::string& local) const {
  const auto& relayed = relayed_[static_cast<size_t>(module)];
  if (!relayed.empty())
    if (auto it = relayed.find(local); it != relayed.end()) return &it->second;
  auto it = bound_[static_cast<size_t>(module)].find(local);
  return it == bound_[static_cast<size_t>(module)].end() ? nullptr : &it->second.in;
}

FactsTable::SummaryIndex FactsTable::index_summary(const ModuleSummary& summary) {
  SummaryIndex index;
  std::map<std::string, std::vector<std::string>> methods_of;  // class -> its own methods, in the summary's order
  for (const auto& [key, f] : summary.functions) {
    index.table_classes |= !f.table_classes.empty();
    index.registry |= !f.registry.empty();
    index.self_stores |= f.is_class && !f.self_stores.empty();
    index.consts |= !f.const_values.empty();
    auto dot = key.find('.');
    if (dot == std::string::npos || key.find('.', dot + 1) != std::string::npos || key.find('[') != std::string::npos ||
        !f.method)
      continue;
    methods_of[key.substr(0, dot)].push_back(key.substr(dot + 1));
  }
  index.methods_of.assign(std::make_move_iterator(methods_of.begin()), std::make_move_iterator(methods_of.end()));
  return index;
}

FactsTable::Incoming& FactsTable::relayed(int module, const std::string& local) {
  auto& relayed = relayed_[static_cast<size_t>(module)];
  if (auto it = relayed.find(local); it != relayed.end()) return it->second;
  return relayed.emplace(local, bound_[static_cast<size_t>(module)][local].in).first->second;
}

}  // namespace stoker::python
