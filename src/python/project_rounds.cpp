// The rounds of project mode: `analyze_project`, the modules of each round in import levels, the
// fixed point over the modules' summaries (split from project.cpp in session 28).
#include "python/project.h"

#include <algorithm>
#include <cctype>
#include <atomic>
#include <thread>
#include <unordered_set>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <nlohmann/json.hpp>

#include "python/parser.h"
#include "python/types.h"

namespace stoker::python {

// ---------------------------------------------------------------------------------------
// Rounds.

// Source bytes whose parses are kept between rounds: a tree and its child index take about 75
// bytes per source byte, so at most about 300 MB.
constexpr size_t kMaxKeptParseBytes = size_t{4} << 20;
// Source bytes of the modules whose checks wait for the end of their round (their models kept):
// beyond it an analysis runs its checks at once, as every analysis did before.
constexpr size_t kMaxDeferredBytes = size_t{2} << 20;

// The order of the rounds' analyses (STOKER_PROJECT_ORDER, order_levels) and the fewest modules
// a group of levels holds (STOKER_PROJECT_MIN_LEVEL).
constexpr const char* kDefaultProjectOrder = "fr";
constexpr size_t kDefaultMinLevel = 32;
// Round 1 (callees first) by single import levels: a module's first analysis then reads the class
// facts and returns of every module it imports (STOKER_PROJECT_MIN_LEVEL1).
constexpr size_t kDefaultMinLevelFirst = 1;

namespace {

// The modules of a round in import levels. 'f' (callees first): a module after the modules of
// the round it imports, so that its analysis reads their new summaries (class facts, return
// types); 'r' (callers first): after the modules of the round importing it (the arguments and
// hotness its callers hand it). An import cycle is cut where the depth-first walk meets it.
// Consecutive levels are merged until a group holds at least `min_level` modules (a table per
// level costs about what a few analyses cost). 'n': one group. O(modules + imports).
std::vector<std::vector<size_t>> order_levels(const ProjectLayout& layout, const std::vector<size_t>& work, char order,
                                              size_t min_level,
                                              const std::vector<std::pair<size_t, size_t>>& handed = {}) {
  if (order != 'f' && order != 'r') return {work};
  const size_t n = layout.size();
  std::vector<int> slot(n, -1);
  for (size_t w = 0; w < work.size(); ++w) slot[work[w]] = static_cast<int>(w);
  // Edges among the round's modules: w -> the modules that must come before it.
  // Callees first: a package's __init__ is split in two nodes. Its analysis (the real node) has
  // nothing before it: what its importers read through it is its re-exports (`from .core import
  // Module`), its summary's imports, which no fact changes. A second node (`exports`, never
  // analyzed) comes after the modules the package imports, and an importer of the package comes
  // after both, so it still follows the modules whose names it reads through the package. An
  // __init__ importing everything below it (lightning.pytorch's) and imported back by its own
  // submodules (`import lightning.pytorch as pl`) no longer closes a cycle through its analysis,
  // which the depth-first walk would cut anywhere, leaving the package after modules that read
  // through it. O(modules + imports): one node more per package, two edges per import.
  const bool split_packages = order == 'f';
  std::vector<int> exports(work.size(), -1);
  size_t nodes = work.size();
  if (split_packages)
    for (size_t w = 0; w < work.size(); ++w)
      if (layout.is_package(static_cast<int>(work[w]))) exports[w] = static_cast<int>(nodes++);
  std::vector<std::vector<int>> before(nodes);
  for (size_t w = 0; w < work.size(); ++w)
    for (int imp : layout.imports_of(static_cast<int>(work[w]))) {
      int v = slot[static_cast<size_t>(imp)];
      if (v < 0 || static_cast<size_t>(v) == w) continue;
      if (order == 'f') {
        int from = exports[w] >= 0 ? exports[w] : static_cast<int>(w);
        before[static_cast<size_t>(from)].push_back(v);
        if (exports[static_cast<size_t>(v)] >= 0) before[static_cast<size_t>(from)].push_back(exports[static_cast<size_t>(v)]);
      } else {
        before[static_cast<size_t>(v)].push_back(static_cast<int>(w));
      }
    }
  // Callers first: a module handed an instance of another module's class (it may call the
  // class's methods, handing them its arguments) comes before the class's module.
  if (order == 'r')
    for (auto [first, then] : handed) {
      int a = slot[first], b = slot[then];
      if (a >= 0 && b >= 0 && a != b) before[static_cast<size_t>(b)].push_back(a);
    }
  // Longest path from the modules with nothing before them, by an iterative depth-first walk
  // (state 1: on the walk's stack, an edge back to it is cut). The packages' export nodes are
  // walked first, their imports in source order, as Python runs an __init__: an edge back to an
  // export node on the stack (a submodule reading a name through its own package, `from
  // lightning.pytorch.callbacks import Callback` in callbacks/progress/progress_bar.py) follows
  // the imports the package made before the one that led to it (`partial`: one more than the
  // highest level of a node's successors walked so far), which Python has run by then.
  std::vector<int> level(nodes, 0), partial(nodes, 0);
  std::vector<char> state(nodes, 0);
  std::vector<std::pair<int, size_t>> stack;
  int depth = 0;
  std::vector<size_t> roots;
  for (size_t x = work.size(); x < nodes; ++x) roots.push_back(x);
  for (size_t x = 0; x < work.size(); ++x) roots.push_back(x);
  for (size_t root : roots) {
    if (state[root]) continue;
    stack.push_back({static_cast<int>(root), 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [w, e] = stack.back();
      if (e < before[static_cast<size_t>(w)].size()) {
        int v = before[static_cast<size_t>(w)][e++];
        if (state[static_cast<size_t>(v)] == 0) {
          state[static_cast<size_t>(v)] = 1;
          stack.push_back({v, 0});
        } else if (state[static_cast<size_t>(v)] == 2) {
          partial[static_cast<size_t>(w)] = std::max(partial[static_cast<size_t>(w)], level[static_cast<size_t>(v)] + 1);
        }
        continue;
      }
      int l = 0;
      for (int v : before[static_cast<size_t>(w)]) {
        if (state[static_cast<size_t>(v)] == 2) l = std::max(l, level[static_cast<size_t>(v)] + 1);
        else if (static_cast<size_t>(v) >= work.size()) l = std::max(l, partial[static_cast<size_t>(v)]);
      }
      level[static_cast<size_t>(w)] = l;
      depth = std::max(depth, l);
      state[static_cast<size_t>(w)] = 2;
      stack.pop_back();
      if (!stack.empty()) {
        size_t up = static_cast<size_t>(stack.back().first);
        partial[up] = std::max(partial[up], l + 1);
      }
    }
  }
  // Callers first: the modules handed instances, and the modules before them, come before every
  // other module (the taint their calls hand on is relayed through the table, so the others read
  // it: a module that calls a class of another module reads the class's returns, which depend on
  // what the handed module passes it).
  if (order == 'r' && !handed.empty()) {
    std::vector<char> source(work.size(), 0);
    std::vector<int> todo;
    for (auto [first, then] : handed) {
      int a = slot[first];
      if (a >= 0 && !source[static_cast<size_t>(a)]) source[static_cast<size_t>(a)] = 1, todo.push_back(a);
    }
    int last = 0;
    while (!todo.empty()) {
      int w = todo.back();
      todo.pop_back();
      last = std::max(last, level[static_cast<size_t>(w)]);
      for (int v : before[static_cast<size_t>(w)])
        if (!source[static_cast<size_t>(v)]) source[static_cast<size_t>(v)] = 1, todo.push_back(v);
    }
    for (size_t w = 0; w < work.size(); ++w)
      if (!source[w]) level[w] += last + 1;
    depth += last + 1;
  }
  std::vector<std::vector<size_t>> levels(static_cast<size_t>(depth) + 1);
  for (size_t w = 0; w < work.size(); ++w) levels[static_cast<size_t>(level[w])].push_back(work[w]);
  std::vector<std::vector<size_t>> groups;
  for (auto& l : levels) {
    if (l.empty()) continue;
    if (groups.empty() || groups.back().size() >= min_level) groups.emplace_back();
    groups.back().insert(groups.back().end(), l.begin(), l.end());
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  return groups;
}

}  // namespace

ProjectRun analyze_project(const ProjectLayout& layout, const std::vector<char>& eligible,
                           const ProjectAnalyzeFn& analyze, unsigned threads, const ProjectCache& cache) {
  const size_t n = layout.size();
  ProjectRun run;
  run.results.resize(n);
  run.failures.resize(n);
  std::vector<std::unique_ptr<ModuleSummary>> summaries(n);
  // Per module: the queries its latest analysis made, with the answers it got.
  std::vector<std::optional<std::map<std::string, std::pair<ModuleEnv::Query, std::string>>>> recorded(n);
  std::vector<const ModuleSummary*> latest(n, nullptr);
  // Per module, a number changed whenever its summary is replaced (FactsTable takes over the
  // entries the same calls of unchanged summaries bind).
  std::vector<uint64_t> version(n, 0);
  uint64_t versions = 0;
  auto table = std::make_unique<FactsTable>(layout, latest, nullptr, &version);
  // Checks deferred (ProjectHooks::deferred): an analysis builds the model and the summary; its
  // checks wait until the table after the round shows whether the module is analyzed again
  // (run_deferred): dropped if it is, run if not (its last analysis, unless what the checks read
  // changes it). Per module: the rest of its analysis, the ModuleEnv its model reads. The tables
  // and summaries the round replaces stay until then (`retired_*`): a waiting model may hold
  // facts that point into them.
  std::vector<std::function<AnalysisResult()>> deferred(n);
  std::vector<std::unique_ptr<ModuleEnv>> envs(n);
  std::vector<std::shared_ptr<const ParsedFile>> deferred_parse(n);  // its text
  std::atomic<size_t> deferred_bytes{0};
  std::vector<std::unique_ptr<FactsTable>> retired_tables;
  std::vector<std::unique_ptr<ModuleSummary>> retired_summaries;
  auto replace_table = [&] {
    auto next = std::make_unique<FactsTable>(layout, latest, table.get(), &version);
    if (deferred_bytes > 0) retired_tables.push_back(std::move(table));
    table = std::move(next);
  };
  std::vector<char> todo(eligible.begin(), eligible.end());
  todo.resize(n, 0);
  std::vector<char> analyzed(n, 0);
  // The parses of the modules analyzed so far, kept for the rounds that analyze them again (no
  // second parse), up to kMaxKeptParseBytes of source text in all.
  std::vector<std::shared_ptr<const ParsedFile>> parsed(n);
  std::atomic<size_t> kept_bytes{0};
  if (cache.load)
    for (size_t i = 0; i < n; ++i) {
      if (!todo[i]) continue;
      std::string state;
      auto result = cache.load(i, state);
      auto summary = std::make_unique<ModuleSummary>();
      QueryLog queries;
      if (!result || !parse_module_state(state, *summary, queries)) continue;
      run.results[i] = std::move(result);
      summaries[i] = std::move(summary);
      latest[i] = summaries[i].get();
      version[i] = ++versions;
      recorded[i] = std::move(queries);
      todo[i] = 0;
    }
  bool any_loaded = false;
  for (size_t i = 0; i < n; ++i) any_loaded |= recorded[i].has_value();
  if (any_loaded) {
    // Loaded modules whose recorded answers differ now (a module they read changed).
    table = std::make_unique<FactsTable>(layout, latest, nullptr, &version);
    for (size_t i = 0; i < n; ++i) {
      if (!recorded[i] || todo[i]) continue;
      ModuleEnv fresh(*table, layout, static_cast<int>(i));
      for (const auto& [key, entry] : *recorded[i])
        if (fresh.answer(entry.first) != entry.second) {
          todo[i] = 1;
          break;
        }
    }
  }
  static const bool trace = std::getenv("STOKER_PROJECT_TRACE") != nullptr;
  // Whether an answer module i recorded (under key) differs in the table `fresh` reads; such a module
  // is analyzed again (todo). Traced as "<module><what> <key>: 'old' -> 'new'".
  auto answer_changed = [&](ModuleEnv& fresh, size_t i, const std::string& key, const auto& entry, int round,
                            const char* what) {
    std::string now = fresh.answer(entry.first);
    if (now == entry.second) return false;
    if (trace)
      std::fprintf(stderr, "round %d: %s%s %s: '%s' -> '%s'\n", round, layout.name(static_cast<int>(i)).c_str(), what,
                   key.c_str(), entry.second.c_str(), now.c_str());
    todo[i] = 1;
    return true;
  };
  // The order of each round's analyses (order_levels): a letter per round, the last repeating.
  static const std::string order = [] {
    const char* o = std::getenv("STOKER_PROJECT_ORDER");
    return std::string(o && *o ? o : kDefaultProjectOrder);
  }();
  static const size_t min_level = [] {
    const char* k = std::getenv("STOKER_PROJECT_MIN_LEVEL");
    return k && *k ? static_cast<size_t>(std::max(1L, std::atol(k))) : kDefaultMinLevel;
  }();
  static const bool extend_rounds = [] {
    const char* e = std::getenv("STOKER_PROJECT_EXTEND");
    return !(e && *e == '0');
  }();
  static const bool newcomers_first = [] {  // STOKER_PROJECT_NEWCOMERS=0 turns it off
    const char* e = std::getenv("STOKER_PROJECT_NEWCOMERS");
    return !(e && *e == '0');
  }();
  // STOKER_PROJECT_DEFER=1: checks only in a module's last analysis (off by default: not exact on
  // set F's DALLE2-pytorch, bench/project/README.md "Session 36").
  static const bool defer_checks = [] {
    const char* e = std::getenv("STOKER_PROJECT_DEFER");
    return e && *e == '1';
  }();
  static const size_t min_level_first = [] {
    const char* k = std::getenv("STOKER_PROJECT_MIN_LEVEL1");
    return k && *k ? static_cast<size_t>(std::max(1L, std::atol(k))) : kDefaultMinLevelFirst;
  }();
  // Trace only: the process CPU time spent in tables, analyses, change detection and ordering.
  auto cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  double t_table = 0, t_analyze = 0, t_detect = 0, t_order = 0, t_mark = 0;
  size_t n_tables = 0;
  double t_table1 = 0;
  std::atomic<size_t> reparsed{0};
  auto tick = [&](double& acc) {
    if (!trace) return;
    double now = cpu();
    acc += now - t_mark;
    t_mark = now;
  };
  if (trace) t_mark = cpu();
  // After round k, once the change detection over the table after it has marked the modules
  // analyzed again (`todo`): their waiting checks are dropped, the others' run on this table. A
  // model's own questions keep the answers they had (the callees and parameters it resolved: the
  // checks read what they would have read right after the model); a question first asked by the
  // checks goes to this table. Both are recorded with the analysis's other queries, and the
  // answers of the checks' new queries are compared with this table as the change detection
  // compares the others: a module whose checks read an answer that has changed since its model
  // was built is analyzed again in round k + 1, as when its checks ran with the model.
  auto run_deferred = [&](int round) {
    // The checks add the module-level names they read to the summary's module_reads, from which
    // the modules the prefilter left out are found after the round: the checks of a module
    // analyzed again still run when its text names such a module (a word that is the last part of
    // the name of a module never analyzed, or of a module star-importing a submodule as Python 2
    // did). O(modules) for the names, O(text) per module analyzed again.
    std::unordered_set<std::string_view> unread;
    std::vector<std::string> names(n);
    for (size_t m = 0; m < n; ++m) {
      bool star = false;
      if (latest[m])
        for (const std::string& st : latest[m]->star_imports) star |= !st.empty() && st[0] != '.' && st.find('.') == std::string::npos;
      if (recorded[m] && !star) continue;
      names[m] = layout.name(static_cast<int>(m));
      size_t dot = names[m].rfind('.');
      unread.insert(std::string_view(names[m]).substr(dot == std::string::npos ? 0 : dot + 1));
    }
    auto names_unread = [&](size_t i) {
      if (unread.empty()) return false;
      if (!deferred_parse[i]) return true;
      std::string_view t = deferred_parse[i]->text;
      auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      for (size_t a = 0; a < t.size();) {
        if (!word_char(t[a])) {
          ++a;
          continue;
        }
        size_t e = a;
        while (e < t.size() && word_char(t[e])) ++e;
        if (unread.count(t.substr(a, e - a))) return true;
        a = e;
      }
      return false;
    };
    std::vector<size_t> ready;
    for (size_t i = 0; i < n; ++i) {
      if (!deferred[i]) continue;
      const bool drop = todo[i] && !names_unread(i);
      if (trace)
        std::fprintf(stderr, "round %d: checks of %s %s\n", round, layout.name(static_cast<int>(i)).c_str(),
                     drop ? "dropped (analyzed again)" : "run");
      if (drop) {
        deferred[i] = nullptr;
        envs[i].reset();
        deferred_parse[i].reset();
      } else {
        ready.push_back(i);
      }
    }
    table->share();
    std::vector<std::vector<std::string>> asked(ready.size());  // per module: the checks' new queries
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t w; (w = next.fetch_add(1)) < ready.size();) {
        size_t i = ready[w];
        envs[i]->rebind(*table);
        try {
          run.results[i] = deferred[i]();
          run.failures[i] = nullptr;
        } catch (...) {
          run.results[i].reset();
          run.failures[i] = std::current_exception();
        }
        deferred[i] = nullptr;
        deferred_parse[i].reset();
        for (const auto& [key, entry] : envs[i]->queries())
          if (recorded[i]->try_emplace(key, entry).second) asked[w].push_back(key);
        envs[i].reset();
      }
    };
    unsigned t = std::max(1u, std::min<unsigned>(threads ? threads : 1, static_cast<unsigned>(ready.size())));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
    table->exclusive();
    for (size_t w = 0; w < ready.size(); ++w) {
      size_t i = ready[w];
      if (todo[i]) continue;  // (run for its module reads only: analyzed again anyway)
      ModuleEnv fresh(*table, layout, static_cast<int>(i));
      for (const std::string& key : asked[w])
        if (answer_changed(fresh, i, key, recorded[i]->at(key), round, "'s checks read") && !trace) break;
    }
    deferred_bytes = 0;
    retired_tables.clear();
    retired_summaries.clear();
  };
  for (int round = 1; round <= kMaxProjectRounds; ++round) {
    std::vector<size_t> work;
    for (size_t i = 0; i < n; ++i)
      if (todo[i]) work.push_back(i);
    if (work.empty()) break;
    run.rounds = round;
    run.analyses += work.size();
    char letter = order.empty() ? 'n' : order[std::min(order.size(), static_cast<size_t>(round)) - 1];
    // Instances handed across modules (OutgoingCall arguments with a project class): the
    // callee's module before the class's module, when both are analyzed in this round.
    std::vector<std::pair<size_t, size_t>> handed;
    if (letter == 'r') {
      std::vector<char> in_work(n, 0);
      for (size_t i : work) in_work[i] = 1;
      auto add = [&](size_t m, int callee, const ArgFacts& a) {
        if (a.klass.empty() || a.klass == "?") return;
        int t = layout.split(static_cast<int>(m), a.klass).first;
        if (t >= 0 && t != callee && in_work[static_cast<size_t>(t)]) handed.push_back({static_cast<size_t>(callee), static_cast<size_t>(t)});
      };
      for (size_t m = 0; m < n; ++m) {
        if (!latest[m]) continue;
        for (const OutgoingCall& oc : latest[m]->calls) {
          bool any = false;
          for (const ArgFacts& a : oc.positional) any |= !a.klass.empty() && a.klass != "?";
          for (const auto& kv : oc.keywords) any |= !kv.second.klass.empty() && kv.second.klass != "?";
          if (!any) continue;
          auto target = table->resolve(static_cast<int>(m), oc.callee);
          if (!target || !in_work[static_cast<size_t>(target->first)]) continue;
          for (const ArgFacts& a : oc.positional) add(m, target->first, a);
          for (const auto& kv : oc.keywords) add(m, target->first, kv.second);
        }
      }
    }
    auto groups = order_levels(layout, work, letter, round == 1 ? min_level_first : min_level, handed);
    // After round 1, the modules analyzed for the first time (the prefilter left them out; a call
    // or a module-level read of an analyzed module reached them) come first, in a group of their
    // own: every module that reads them has read "the project defines nothing there", so a later
    // group (callers first puts such a callee last) would leave its readers to the next round.
    // The round's other groups, and the readers outside the round (joining after the group, as
    // after the first group of the others), read their summaries. O(modules of the round).
    size_t first_group = 0;  // the first group of the modules analyzed before
    if (round > 1 && newcomers_first) {
      std::vector<size_t> fresh;
      for (auto& group : groups) {
        auto moved = std::stable_partition(group.begin(), group.end(), [&](size_t i) { return recorded[i].has_value(); });
        fresh.insert(fresh.end(), moved, group.end());
        group.erase(moved, group.end());
      }
      std::erase_if(groups, [](const std::vector<size_t>& group) { return group.empty(); });
      if (!fresh.empty() && !groups.empty()) {
        std::sort(fresh.begin(), fresh.end());
        groups.insert(groups.begin(), std::move(fresh));
        first_group = 1;
      } else if (!fresh.empty()) {
        groups.push_back(std::move(fresh));
      }
    }
    tick(t_order);
    if (trace) std::fprintf(stderr, "round %d: %zu modules analyzed/%zu\n", round, work.size(), groups.size());
    bool table_fresh = false;  // the table already holds the summaries of the groups before
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::vector<size_t>& group = groups[g];
      if (trace)
        for (size_t i : group) std::fprintf(stderr, "round %d: group %zu: %s\n", round, g, layout.name(static_cast<int>(i)).c_str());
      // A later group reads the summaries of the groups before it.
      if (g > 0 && !table_fresh) {
        replace_table();
        ++n_tables;
        tick(t_table);
      }
      table_fresh = false;
      std::vector<std::unique_ptr<ModuleSummary>> next_summaries(group.size());
      std::atomic<size_t> next{0};
      auto worker = [&] {
        for (size_t w; (w = next.fetch_add(1)) < group.size();) {
          size_t i = group[w];
          envs[i] = std::make_unique<ModuleEnv>(*table, layout, static_cast<int>(i));
          const ModuleEnv& env = *envs[i];
          next_summaries[w] = std::make_unique<ModuleSummary>();
          ProjectHooks hooks;
          hooks.facts = &env;
          // The last round runs its checks at once (no table follows it), as does an analysis
          // once the waiting models' sources pass kMaxDeferredBytes.
          if (defer_checks && round < kMaxProjectRounds && deferred_bytes < kMaxDeferredBytes) hooks.deferred = &deferred[i];
          hooks.summary = next_summaries[w].get();
          hooks.is_project_name = [&layout, i](std::string_view name) {
            return layout.is_project_name(static_cast<int>(i), name);
          };
          if (parsed[i]) kept_bytes -= parsed[i]->text.size();  // in use; counted again below
          else if (analyzed[i]) ++reparsed;
          hooks.parsed = &parsed[i];
          try {
            run.results[i] = analyze(i, hooks);
            run.failures[i] = nullptr;
          } catch (...) {
            run.results[i].reset();
            run.failures[i] = std::current_exception();
          }
          recorded[i] = env.queries();
          analyzed[i] = 1;
          if (!deferred[i]) {
            envs[i].reset();
          } else {
            deferred_bytes += parsed[i] ? std::max<size_t>(1, parsed[i]->text.size()) : 1;
            deferred_parse[i] = parsed[i];
          }
          if (parsed[i] && (kept_bytes += parsed[i]->text.size()) > kMaxKeptParseBytes) {
            kept_bytes -= parsed[i]->text.size();
            parsed[i].reset();
          }
        }
      };
      table->share();
      unsigned t = std::max(1u, std::min<unsigned>(threads ? threads : 1, static_cast<unsigned>(group.size())));
      std::vector<std::thread> pool;
      for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
      worker();
      for (auto& th : pool) th.join();
      tick(t_analyze);
      // The new summaries replace the old ones (the old table is not read again).
      for (size_t w = 0; w < group.size(); ++w) {
        size_t i = group[w];
        if (trace && next_summaries[w]) {
          // Did this analysis again change the module's summary, or only its findings?
          static const QueryLog none;
          bool same_summary = summaries[i] && serialize_module_state(*summaries[i], none) == serialize_module_state(*next_summaries[w], none);
          std::string diags;
          if (run.results[i])
            for (const Diagnostic& d : run.results[i]->diagnostics)
              diags += d.code + ":" + std::to_string(d.range.start) + ":" + d.message + "\n";
          if (deferred[i])
            std::fprintf(stderr, "round %d: %s again: summary %s, findings deferred\n", round,
                         layout.name(static_cast<int>(i)).c_str(), !summaries[i] ? "first" : same_summary ? "same" : "changed");
          else
            std::fprintf(stderr, "round %d: %s again: summary %s, findings hash %zx\n", round,
                         layout.name(static_cast<int>(i)).c_str(), !summaries[i] ? "first" : same_summary ? "same" : "changed",
                         std::hash<std::string>{}(diags));
        }
        if (deferred_bytes > 0 && summaries[i]) retired_summaries.push_back(std::move(summaries[i]));
        summaries[i] = std::move(next_summaries[w]);
        latest[i] = summaries[i].get();
        version[i] = ++versions;
        todo[i] = 0;
      }
      // After a round's first group: the modules the round does not analyze whose recorded
      // answers already differ under the table with the group's summaries join the round's
      // later groups (the callers that hand their callees instances come first, so the taint
      // they start reaches the whole chain in this table rather than one round later).
      // (With a group of modules analyzed for the first time before them: after it, and after
      // the first group of the others.)
      if ((g == 0 || g == first_group) && round > 1 && extend_rounds) {
        replace_table();
        ++n_tables;
        tick(t_table);
        table_fresh = true;
        std::vector<char> in_round(n, 0);
        for (size_t i : work) in_round[i] = 1;
        std::vector<size_t> added;
        for (size_t i = 0; i < n; ++i) {
          if (!recorded[i] || in_round[i]) continue;
          ModuleEnv fresh(*table, layout, static_cast<int>(i));
          for (const auto& [key, entry] : *recorded[i])
            if (fresh.answer(entry.first) != entry.second) {
              added.push_back(i);
              break;
            }
        }
        if (!added.empty()) {
          std::vector<size_t> rest = added;
          for (size_t h = g + 1; h < groups.size(); ++h) rest.insert(rest.end(), groups[h].begin(), groups[h].end());
          std::sort(rest.begin(), rest.end());
          auto more = order_levels(layout, rest, letter, min_level, handed);
          groups.resize(g + 1);
          groups.insert(groups.end(), more.begin(), more.end());
          work.insert(work.end(), added.begin(), added.end());
          run.analyses += added.size();
          if (trace) std::fprintf(stderr, "round %d: %zu modules join after group %zu\n", round, added.size(), g);
        }
        tick(t_detect);
      }
    }
    if (round == 1) t_table1 = t_table;
    if (round == kMaxProjectRounds) break;
    // (A table built after the round's only group already holds every latest summary.)
    if (!table_fresh) {
      replace_table();
      ++n_tables;
    }
    tick(t_table);
    // Analyzed again: the modules for which an answer they read has changed.
    for (size_t i = 0; i < n; ++i) {
      if (!recorded[i]) continue;
      ModuleEnv fresh(*table, layout, static_cast<int>(i));
      for (const auto& [key, entry] : *recorded[i])
        if (answer_changed(fresh, i, key, entry, round, " reads") && !trace) break;
    }
    tick(t_detect);
    run_deferred(round);
    tick(t_analyze);
    // Modules the prefilter left out (no torch in them) that a project call reaches: after round
    // 1, only the calls of the modules analyzed in this round are new (a module found here is
    // analyzed in the next round, so it is recorded from then on).
    std::vector<size_t> callers;
    if (round == 1) {
      for (size_t m = 0; m < n; ++m) callers.push_back(m);
    } else {
      callers = work;
    }
    for (size_t m : callers) {
      if (!latest[m]) continue;
      for (const OutgoingCall& oc : latest[m]->calls) {
        auto [tm, rest] = layout.split(static_cast<int>(m), layout.absolute(static_cast<int>(m), oc.callee));
        if (tm >= 0 && !recorded[tm] && !rest.empty()) todo[tm] = 1;
      }
      for (const std::string& read : latest[m]->module_reads) {  // `CFG.num_workers` of a constants module
        auto [tm, rest] = layout.split(static_cast<int>(m), layout.absolute(static_cast<int>(m), read));
        if (tm >= 0 && !recorded[tm] && !rest.empty()) todo[tm] = 1;
        // A package whose __init__.py star-imports its submodule as Python 2 did (`from config
        // import *` in config/__init__.py, FactsTable::resolve_at): the submodule holds the name.
        if (tm >= 0 && recorded[tm] && latest[tm] && !rest.empty())
          for (const std::string& star : latest[tm]->star_imports) {
            if (star.empty() || star[0] == '.' || star.find('.') != std::string::npos) continue;
            auto [sm, srest] = layout.split(tm, layout.absolute(tm, star + "." + rest));
            if (sm != tm) continue;
            auto [om, orest] = layout.split(tm, layout.absolute(tm, "." + star + "." + rest));
            if (om >= 0 && om != tm && !recorded[om] && !orest.empty()) todo[om] = 1;
          }
      }
    }
  }
  if (trace)
    std::fprintf(stderr, "cpu: analyses %.2f s, %zu tables %.2f s (round 1: %.2f s), change detection %.2f s, order %.2f s; %zu analyses parsed again\n", t_analyze,
                 n_tables, t_table, t_table1, t_detect, t_order, reparsed.load());
  if (cache.store)
    for (size_t i = 0; i < n; ++i)
      if (analyzed[i] && run.results[i] && latest[i] && recorded[i])
        cache.store(i, *run.results[i], serialize_module_state(*latest[i], *recorded[i]));
  return run;
}

}  // namespace stoker::python
