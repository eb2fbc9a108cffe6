// Project mode (docs/architecture.md, "Project mode"): the analyzed Python files and the package
// tree they sit in form a project. Module names come from the layout, imports between project
// modules are resolved, and facts flow between modules through per-module summaries:
//
//   files --> ProjectLayout (module names, import resolution)
//         --> round 1: every module analyzed alone, each giving a ModuleSummary
//         --> FactsTable (calls joined per callee, callee facts, re-exports followed)
//         --> round k: only modules for which an answer they read has changed, with the
//             facts of the table (ModuleEnv), until nothing changes or kMaxRounds
//
// Each module's analysis records the facts it asked for and the answers it got; a module is
// analyzed again only when one of those answers differs under the new table.
#pragma once

#include <cstdint>
#include <exception>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/analyzer.h"
#include "python/project_facts.h"

namespace stoker::python {

// Module names from the layout: a directory with `__init__.py` is a package (its module name
// continues upwards); the first directory without one is a root (the script's directory Python
// puts first on sys.path, a `src/` layout's `src`). Every directory of the project that holds
// modules outside packages is a root too, so `models/vit.py` next to `train.py` is both
// `models.vit` (namespace package) and `vit`. So are a directory named `src` above a module (a
// src layout whose package is a namespace package, `src/proj/` without `__init__.py`: pyright
// searches `src` the same way) and the `extra_roots` (directories the modules put on sys.path,
// sys_path_dirs()).
class ProjectLayout {
 public:
  explicit ProjectLayout(const std::vector<std::string>& paths, const std::vector<std::string>& extra_roots = {});
  size_t size() const { return modules_.size(); }
  const std::string& path(int m) const { return modules_[m].path; }
  const std::string& name(int m) const { return modules_[m].name; }  // under its package root
  bool is_package(int m) const { return modules_[m].is_package; }     // an __init__.py
  // The absolute dotted name that `name` (as module `from` writes it; leading dots are relative)
  // stands for, or "" when a relative name climbs above the top package.
  std::string absolute(int from, std::string_view name) const;
  // The longest module prefix of an absolute name (the one nearest `from` when several files
  // have that name) and the rest ("Class.method"); -1 when no module matches.
  std::pair<int, std::string> split(int from, std::string_view absolute) const;
  // Could the name (as `from` writes it) be in the project? (relative, or its first component
  // is a top-level project module or package, or one of the directory `from` is run from:
  // script_dirs)
  bool is_project_name(int from, std::string_view name) const;
  // The modules run with a directory of their own tree on sys.path (a script run from its own
  // directory, and the modules it imports from there): a module whose absolute import names, by
  // its first part, no top-level project module or package but a module or directory of its own
  // directory or of one above it, within the files' common directory (`from utility.helper import
  // *` in NGCF/main.py, next to NGCF/utility/ and NGCF/__init__.py; `from utility.parser import
  // ...` in NGCF/utility/batch_test.py) is run from the nearest such directory: its absolute
  // imports look there first (split), so `from NGCF import NGCF` in NGCF/main.py is the class of
  // NGCF/NGCF.py, not the package. O(modules x imports x directory depth), from the texts
  // setup_project scans.
  void find_script_dirs(const std::vector<std::string_view>& texts);
  // The modules outside packages that are members of a namespace package all the same: a module
  // with a relative import (a script cannot have one), one that a relative import names, and one
  // another module imports by a dotted name through its directory (`from utils.engine import f`
  // at the checkout's root, for utils/engine.py). Their directory is not sys.path[0], so a
  // module beside them named as their directory (`utils/utils.py`) does not shadow the namespace
  // package in their dotted imports (`import utils.utils`, `from utils.stft import STFT`: Python
  // cannot import a submodule of a plain module): split() reads those from the roots. O(modules
  // x imports), from the texts setup_project scans; after find_script_dirs.
  void find_package_members(const std::vector<std::string_view>& texts);
  // A checkout vendored at a package path of a larger tree (a monorepo): its modules import each
  // other under that path (`import deeplearning.cross_image_ssl.moco.builder` in moco's
  // main_moco.py for moco/builder.py), whose leading parts name nothing here. A prefix P of at
  // least two parts is such a path when some absolute import is P followed by the dotted name
  // (at least two parts) of a project module, and every absolute import of any module whose
  // first part is P's is P itself or P followed by a project name (a library, `torch.utils.data`
  // beside a utils/data.py, also has imports that reach nothing here: `import torch`). absolute()
  // then drops P. O(imports x parts); after find_package_members.
  void find_vendor_prefixes(const std::vector<std::string_view>& texts);
  // The modules related to a file, for `stoker check FILE`: among the .py files in its
  // directory (siblings on sys.path) and in its top package (at most `limit` candidates, each
  // read through `read`, which answers nullopt for what cannot or should not be read), those
  // connected to the file by mentions of each other's module names (one imports the other,
  // directly or through other related modules). Returned with their texts.
  // The candidates also include the packages below the file's directory and the directories
  // (with their packages) that the file puts on sys.path.
  using Reader = std::function<std::optional<std::string>(const std::string& path)>;
  static std::vector<std::pair<std::string, std::string>> context_files(const std::string& path,
                                                                        std::string_view text, size_t limit,
                                                                        const Reader& read);
  // The words (identifiers, and identifier-shaped words anywhere: strings, comments) of every
  // module's text, scanned once per project by setup_project(): word -> the one module writing
  // it, or -1 when several do.
  void index_words(const std::vector<std::string_view>& texts);
  // Does a module other than `from` write `word`? True when the words were not indexed.
  bool word_elsewhere(int from, std::string_view word) const;
  // The modules writing `word` after a dot (`obj.word`) or as a whole string (`"word"`), from the
  // same scan; nullptr when none. `indexed()`: whether the scan ran.
  const std::vector<int>* dotted_by(std::string_view word) const;
  // The modules calling `word` by its bare name (`train(**vars(args))`: the word, not after a dot,
  // followed by `(`), from the same scan; nullptr when none.
  const std::vector<int>* called_by(std::string_view word) const;
  bool indexed() const { return words_indexed_; }
  // The connected component of module m in the import graph (imports either way, transitively),
  // -1 when the imports were not indexed. Computed by set_imports, O(modules + imports).
  int component(int m) const {
    return static_cast<size_t>(m) < component_.size() ? component_[static_cast<size_t>(m)] : -1;
  }
  // Does a module `by` accepts, which imports module `into` (or is it), store an attribute of
  // this name on an object other than `self` (`tunable.num_workers = 4`, a byte test of the same
  // scan)? True when the texts were not indexed.
  bool attribute_stored(int into, std::string_view name, const std::function<bool(int)>& by) const;
  // The project modules each module imports (setup_project), for attribute_stored.
  void set_imports(std::vector<std::vector<int>> imports);
  // The project modules module m imports (empty when setup_project did not index them).
  const std::vector<int>& imports_of(int m) const {
    static const std::vector<int> none;
    return static_cast<size_t>(m) < imports_.size() ? imports_[static_cast<size_t>(m)] : none;
  }

 private:
  struct Module {
    std::string path, dir, name;
    bool is_package = false;  // an __init__.py
    bool outside = false;     // outside any package: its first name has no dot (before unique_names)
  };
  // A module sharing its name with another file takes a longer name of its own (constructor).
  void unique_names();
  std::vector<Module> modules_;
  std::unordered_map<std::string, std::vector<int>> by_name_;
  std::unordered_map<std::string, char> top_level_;
  std::unordered_map<std::string, int> words_;
  std::unordered_map<std::string, std::vector<int>> stores_;  // attribute -> the modules storing it
  std::unordered_map<std::string, std::vector<int>> dotted_;  // dotted_by
  std::unordered_map<std::string, std::vector<int>> called_;  // called_by
  std::vector<std::vector<int>> imports_;
  std::vector<int> component_;
  bool words_indexed_ = false;
  // The modules by absolute normalized path, and every directory holding one (or above one,
  // up to the files' common directory `common_`): find_script_dirs.
  std::unordered_map<std::string, int> by_path_;
  std::unordered_set<std::string> dirs_;
  std::string common_;
  // Per module: the directory it is run from, or "" (find_script_dirs).
  std::vector<std::string> script_dir_;
  // Per module: a member of a namespace package (find_package_members).
  std::vector<char> member_;
  // The vendored path of a checkout by its first part (find_vendor_prefixes): "a.b" under "a".
  std::unordered_map<std::string, std::string> vendor_prefix_;
  // The name with its vendored path dropped, or empty when it has none.
  std::string_view unvendored(std::string_view name) const;
  // split() under the roots only (not a module's script directory).
  std::pair<int, std::string> split_from_roots(int from, const std::vector<std::string>& parts) const;
  // The module `dir/a/b.py` or `dir/a/b/__init__.py` for the first k parts, or -1.
  int module_at(const std::string& dir, const std::vector<std::string>& parts, size_t k) const;
};

// Dotted module names a module's text imports, as written (relative ones keep their leading
// dots): `import a.b` gives `a.b`; `from a import b, c` gives `a`, `a.b`, `a.c` (each of b and c
// may be a submodule). A byte scan of the statements' starts; at most 4,096 names. `starred`, when
// given, gets the modules of `from a import *` (`a`).
std::vector<std::string> imported_names(std::string_view text, std::vector<std::string>* starred = nullptr);
// Does the text have a `for`/`while` statement (a line that starts with one: `for x in y:`,
// `while c:`)? A byte scan of the lines' starts; a docstring line of that shape answers yes.
bool has_loop_statement(std::string_view text);
// Does the text define a method that a framework calls once per step (a line `def NAME(` where
// NAME is the method of a `step-hook` row of the framework table: `training_step`,
// `compute_loss`)? A byte scan of the lines' starts, as has_loop_statement's.
bool defines_step_hook(std::string_view text);
// The directories a module puts on sys.path: `sys.path.insert(i, P)` / `sys.path.append(P)`
// where P is a string literal, `__file__`, `os.path.join`/`dirname`/`abspath` of those,
// pathlib's `Path(...)`, `.parent`, `.parents[k]`, `/`, or a name assigned one of these. A
// relative path is taken from the file's directory or the nearest one above it where it exists
// (the program is started from there). Absolute, normalized, existing directories only.
std::vector<std::string> sys_path_dirs(const std::string& path, std::string_view text);

// The layout of a run's Python modules and which of them round 1 analyzes: those `prefilter`
// passes (they name torch or a framework), packages' `__init__.py` (their imports are the
// package's names), and the modules that import, directly or through other project modules,
// one that `prefilter` passes (a script whose torch use is all in a project module:
// `from deeplab import DeeplabV3`), when it has a loop or is on such a chain of imports between
// a module with a loop and one the prefilter passes: what it adds is loops that run the project's
// code (hotness). The others cannot reach anything stoker reports.
struct ProjectSetup {
  ProjectLayout layout;
  std::vector<char> eligible;
};
ProjectSetup setup_project(const std::vector<std::string>& paths, const std::vector<std::string_view>& texts,
                           const std::function<bool(size_t)>& prefilter);

// The facts of one round, built from every module's latest summary.
class FactsTable {
 public:
  // `previous` (optional, about to be discarded): its resolution memo is taken over, each entry
  // still valid when the modules it read have the same names (resolve_shape) in this table.
  // `versions` (optional): per module, a number that changes whenever its summary is replaced;
  // with both, the callees' entries the same calls of unchanged summaries bind are taken over
  // from `previous` instead of joined again (Bound).
  FactsTable(const ProjectLayout& layout, const std::vector<const ModuleSummary*>& summaries,
             FactsTable* previous = nullptr, const std::vector<uint64_t>* versions = nullptr);
  struct Incoming {
    IncomingCalls calls;
    std::vector<ArgFacts> params;
  };
  // The project function `name` (written in module `from`) stands for: (module, local name).
  std::optional<std::pair<int, std::string>> resolve(int from, std::string_view name) const;
  const FunctionFacts* function(int module, const std::string& local) const;
  const Incoming* incoming(int module, const std::string& local) const;
  bool has_incoming(int module) const { return !bound_[module].empty(); }
  bool cuda(int module) const { return cuda_[module] != 0; }
  // The functions and classes registered into the registry object `name` (written in module
  // `from`): ExternalFacts::registered.
  std::string registered(int from, std::string_view name) const;
  // ExternalFacts::star_import for module `from` (at most kMaxReexportHops star hops).
  std::string star_import(int from, std::string_view name) const;
  // ExternalFacts::attribute_mentioned for module `from`.
  bool attribute_mentioned(int from, std::string_view name) const;
  // ExternalFacts::word_mentioned for module `from`.
  bool word_mentioned(int from, std::string_view name) const { return layout_.word_elsewhere(from, name); }
  // ExternalFacts::left_out_call for module `from`.
  bool left_out_call(int from, std::string_view name) const;
  // ExternalFacts::attribute_reachable for module `from`.
  bool attribute_reachable(int from, std::string_view name) const;
  // ExternalFacts::subclass_stores for module `module`.
  bool subclass_stores(int module, const std::string& local_class, std::string_view attr) const;
  // ExternalFacts::subclass_attr_types for module `module`.
  std::vector<std::pair<int, int>> subclass_attr_types(int module, const std::string& local_class,
                                                       std::string_view attr) const;
  // ExternalFacts::class_on_cuda for module `module`.
  bool class_on_cuda(int module, const std::string& local_class) const {
    return cuda_classes_[module].count(local_class) != 0;
  }
  // From now on several threads read the table: resolve() reads its memo without adding to it.
  void share() { memo_open_ = false; }
  // One thread again (the threads that shared the table have ended): resolve() may add to its memo.
  void exclusive() { memo_open_ = true; }
  // fp_function(f, fields), memoized per (f, fields) for the change detection after a round
  // (ModuleEnv::answer), where the modules reading one callee each ask its fingerprint again:
  // the facts never change while the table lives. Only while one thread uses the table.
  const std::string& callee_fingerprint(const FunctionFacts* f, unsigned fields) const;

 private:
  // resolve() memoized per module and name. Entries are added only while one thread uses the
  // table (its construction after the class tables, the change detection after a round); the
  // answers never change, since the table does not.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // An entry also lists the modules whose names the resolution read, each with its shape then:
  // a table built later (over changed summaries) keeps the entry while those shapes are equal.
  struct Resolution {
    std::optional<std::pair<int, std::string>> target;
    std::vector<std::pair<int, uint64_t>> deps;
  };
  mutable std::vector<std::unordered_map<std::string, Resolution, NameHash, std::equal_to<>>> resolved_;
  bool memo_open_ = false;
  struct FingerprintKeyHash {
    size_t operator()(const std::pair<const FunctionFacts*, unsigned>& k) const {
      return std::hash<const void*>{}(k.first) * 31 + k.second;
    }
  };
  mutable std::unordered_map<std::pair<const FunctionFacts*, unsigned>, std::string, FingerprintKeyHash> fingerprints_;
  // Per module: a hash of what resolve_at reads of it (its function and class names, the classes'
  // bases, its imports and star imports; 0 without a summary).
  std::vector<uint64_t> shape_;
  // `previous`: the shapes of the modules with the same summary whose entries neither table
  // changed before computing them are taken over (the same entries: the same hash).
  void compute_shapes(const FactsTable* previous = nullptr);
  // The canonical name of a module-level object (`pkg.registry.MODELS`) that `name` (written in
  // `from`) stands for, through re-exports; "" when it names no module of the project.
  std::string object_key(int from, std::string_view name) const;
  std::unordered_map<std::string, std::string> registries_;  // object key -> union of registered names ("" too many)
  // Per module, per class: the attributes subclasses of other modules store on `self`
  // (FunctionFacts::self_stores joined, "*" for any).
  std::vector<std::unordered_map<std::string, std::set<std::string>>> subclass_stores_;
  // Per module, per class, per attribute: the types subclasses of other modules give what they
  // store there (ExternalFacts::subclass_attr_types; {-1, 0}: one not known).
  std::vector<std::unordered_map<std::string, std::map<std::string, std::set<std::pair<int, int>>>>> subclass_attrs_;
  std::vector<std::set<std::string>> cuda_classes_;  // per module: classes another places on CUDA
  template <class Relays>
  void relay_hotness(const Relays& relays);
  // The CUDA taint relay (relay_taint): per argument whose taint follows sources of its caller,
  // where it lands; per module and outgoing call, the functions it reaches; per function, the
  // modules calling it.
  struct TaintEdges {
    struct Arg {
      int module;
      const std::string* caller;
      size_t call;
      int callee_module;
      std::string receiver;
      size_t param;
      const TaintSources* follows;
    };
    std::vector<const Arg*> args;  // the bound entries' (Bound::taint)
    // The strings are the keys of functions_ (stable while the table lives: no copies per call).
    std::vector<std::vector<std::vector<std::pair<int, const std::string*>>>> call_targets;
    // (callee module, function, calling module) per call; indexed only once a return is relayed.
    struct Caller {
      int module;
      const std::string* local;
      int caller;
    };
    std::vector<Caller> callers;
  };
  void relay_taint(const TaintEdges& edges);
  // A callee's entry as the calls bind it, before the relays (speed24a), with what it was joined
  // from in order: the imports by name and the calls (caller module, index, target module,
  // Target::binds). A later table takes the entry over when the same contributions bind it and
  // none of their modules (nor the entry's) has a new summary; otherwise it joins them again,
  // in the same order. The CUDA marks and taint edges the binding found are kept with it (the
  // edges point into the callers' summaries, unchanged while the entry is taken over).
  struct Contribution {
    int module;
    int target;  // -1: an import by name
    uint32_t index;
    bool binds = true;
    const OutgoingCall* call = nullptr;      // this table's: the call
    const FunctionFacts* receiver = nullptr;  // and the facts of the function receiving it
    bool same(const Contribution& o) const {
      return module == o.module && target == o.target && index == o.index && binds == o.binds;
    }
  };
  struct Bound {
    Incoming in;
    std::vector<Contribution> from, next;  // the table's contributions (`from` once built)
    std::vector<int> cuda_marks;
    std::vector<TaintEdges::Arg> taint;
  };
  void bind(Bound& b, int rm, const std::string& receiver, const Contribution& c);
  // The entries the relays changed (copies of bound_'s, which a later table takes over as bound).
  Incoming& relayed(int module, const std::string& local);
  // A target of a call: (module, local name), and whether the call's arguments bind to its
  // parameters (false: a subclass's override the target method runs through `self`).
  struct Target {
    int module;
    std::string local;
    bool binds = true;
    bool operator==(const Target&) const = default;
  };
  std::optional<std::pair<int, std::string>> resolve_at(int from, std::string_view name, int depth,
                                                        std::vector<int>* deps = nullptr) const;
  void add_class_table(int module, const std::string& name, const FunctionFacts& table);
  std::deque<FunctionFacts> synthesized_;  // the facts of "factory[]" and "factory[].meth" entries
  std::vector<std::unordered_map<std::string, std::vector<Target>>> members_;  // per module: their targets
  std::string via_of(int module, uint32_t line) const;
  static void join_hot(IncomingCalls& c, long long every, bool once, bool flag, const std::string& via);
  const ProjectLayout& layout_;
  const std::vector<const ModuleSummary*>& summaries_;
  std::vector<std::unordered_map<std::string, const FunctionFacts*>> functions_;
  // Per module: the closure a module-level function returns, by the function's name ("f" ->
  // "f.g"): the first entry of functions_ in its order named "f." something, no class, for a
  // function "f" there that is no class. What resolve_at reads for `f.__call__`, built with the
  // module's names and again when set_function adds a name (O(its functions)).
  std::vector<std::unordered_map<std::string, std::string>> closures_;
  void index_closures(size_t module);
  std::vector<std::unordered_map<std::string, std::string>> imports_;
  std::vector<std::vector<std::string>> stars_;  // per module: `from M import *` modules
  // functions_[module][local] = f for a synthesized entry, with what a later table needs to take
  // the maps of unchanged summaries over: per module, whether a key was added (its map is built
  // again), and each entry replaced with the facts it held (put back in reverse order).
  void set_function(int module, const std::string& local, const FunctionFacts* f);
  std::vector<char> functions_added_;
  std::vector<std::pair<std::pair<int, const std::string*>, const FunctionFacts*>> functions_replaced_;
  // Name -> the modules naming it ("*": any), in no particular order. Taken over from the
  // previous table and updated for the modules with another summary only: `attributes_of_` lists
  // per module the lists it is in, so its old names leave without the (freed) old summary.
  std::unordered_map<std::string, std::vector<int>, NameHash, std::equal_to<>> attribute_modules_;
  std::vector<std::vector<std::vector<int>*>> attributes_of_;
  // Per module, the callees' entries in the order the binding first reached them (the order of
  // a fresh table's: relay_hotness walks it).
  std::vector<std::unordered_map<std::string, Bound>> bound_;
  std::vector<std::unordered_map<std::string, Incoming>> relayed_;
  std::vector<uint64_t> versions_;
  std::vector<char> cuda_;
  // Per module, what the constructor's passes over every module read of its summary alone,
  // made once per summary and taken over from the previous table while the module's version is
  // the same: which passes have anything to do there, and each class's own methods (the
  // overrides' pass). Skipping a module these say has nothing is the same as walking it.
  struct SummaryIndex {
    bool table_classes = false;  // a function with table_classes (add_class_table)
    bool registry = false;       // a function registered into a registry object
    bool self_stores = false;    // a class storing attributes on `self`
    bool consts = false;         // a function with const_values
    std::vector<std::pair<std::string, std::vector<std::string>>> methods_of;  // by class name, ascending
  };
  std::vector<SummaryIndex> summary_index_;
  static SummaryIndex index_summary(const ModuleSummary& summary);
  // Per module: set_function changed its entries in this table (shapes: before compute_shapes;
  // consts: before the constants' pass), so what its summary says is not all it holds.
  std::vector<char> touched_;
  // Per module: set_function changed its entries before this table's compute_shapes, and
  // whether compute_shapes has run (a later table recomputes the shape of a module touched here).
  std::vector<char> shape_touched_;
  bool shapes_done_ = false;
};

// What one module sees of a FactsTable; records every query and its answer.
class ModuleEnv : public ExternalFacts {
 public:
  ModuleEnv(const FactsTable& table, const ProjectLayout& layout, int module)
      : table_(&table), layout_(layout), module_(module) {}
  const IncomingCalls* incoming(std::string_view local_name, unsigned fields) const override;
  const ArgFacts* incoming_param(std::string_view local_name, int index, unsigned fields) const override;
  const FunctionFacts* callee(std::string_view name, unsigned fields) const override;
  bool cuda() const override;
  std::string canonical(std::string_view name, bool local = false) const override;
  std::string registered(std::string_view name) const override;
  std::string star_import(std::string_view name) const override;
  bool attribute_mentioned(std::string_view name) const override;
  bool word_mentioned(std::string_view name) const override;
  bool left_out_call(std::string_view name) const override;
  bool attribute_reachable(std::string_view name) const override;
  bool subclass_stores(std::string_view local_class, std::string_view attr) const override;
  std::vector<std::pair<int, int>> subclass_attr_types(std::string_view local_class, std::string_view attr) const override;
  bool class_on_cuda(std::string_view local_class) const override;
  const FunctionFacts::Attr* class_attr(std::string_view name, std::string_view attr) const override;
  bool project_name(std::string_view name) const override { return layout_.is_project_name(module_, name); }
  bool has_incoming() const override;
  // The queries made so far, each with a fingerprint of its answer.
  struct Query {
    char type;  // 'i' incoming, 'p' incoming_param, 'c' callee, 'u' cuda, 'r' registered, 's' star_import,
                // 'a' attribute_mentioned, 'n' attribute_reachable, 'w' word_mentioned, 'x' subclass_stores, 'k' class_on_cuda,
                // 'l' left_out_call,
                // 't' class_attr (name: the class name, a space, the attribute), 'y' subclass_attr_types
                // (name: the class name, a dot, the attribute)
    std::string name;
    int index = 0;
    unsigned fields = 0;  // the parts of the answer read (fact::k*)
  };
  const std::map<std::string, std::pair<Query, std::string>>& queries() const { return queries_; }
  // The answer's fingerprint of a query under this env (without recording it).
  std::string answer(const Query& q) const;
  // Checks deferred to after the round (analyze_project): later questions go to `table`, and
  // queries() lists only the queries made from now on. The callees and parameters resolved so
  // far keep their answers (the model may hold them; the previous tables and summaries they
  // point into stay alive until the deferred checks ran); the caller runs this only when every
  // recorded answer is the same under `table`.
  void rebind(const FactsTable& table) {
    table_ = &table;
    queries_.clear();
  }

 private:
  void record(const Query& q, std::string fingerprint) const;
  template <class Fingerprint>
  void record_once(char type, std::string_view name, int index, unsigned fields, Fingerprint&& fp) const;
  static std::string query_key(char type, std::string_view name, int index, unsigned fields);
  const FactsTable* table_;
  const ProjectLayout& layout_;
  int module_;
  mutable std::map<std::string, std::pair<Query, std::string>> queries_;
  // Per callee name asked: its facts, and the sets of fields already recorded for it (a query is
  // recorded once per name and fields: the table does not change during an analysis).
  struct Resolved {
    const FunctionFacts* facts = nullptr;
    std::vector<unsigned> recorded;
    bool project = true;  // false: not a project name (callee answers nothing, records nothing)
  };
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  Resolved& resolve_callee(std::string_view name) const;
  mutable std::unordered_map<std::string, Resolved, ViewHash, std::equal_to<>> resolved_;
  // Per local function asked by incoming_param: its entry, and the (index, fields) already
  // recorded (as for callee: the query key is built once per analysis).
  struct Params {
    const FactsTable::Incoming* in = nullptr;
    std::vector<std::pair<int, unsigned>> recorded;
  };
  mutable std::unordered_map<std::string, Params, ViewHash, std::equal_to<>> params_;
};

// Analyzes module `index` with the given facts, filling `summary`.
using ProjectAnalyzeFn = std::function<AnalysisResult(size_t index, const ProjectHooks& hooks)>;

struct ProjectRun {
  std::vector<std::optional<AnalysisResult>> results;  // per module: its latest analysis
  std::vector<std::exception_ptr> failures;            // per module: what its analysis threw
  size_t analyses = 0;                                 // module analyses over all rounds
  int rounds = 0;
};

// At most this many rounds: round 1 alone, then facts from the others.
// 12 (was 6): a device travels one module per round, two when a module must first learn that
// it is handed CUDA values; YOLOX's prefetcher -> trainer -> model -> backbone -> head needs 12.
constexpr int kMaxProjectRounds = 12;

// A module's state between runs (the CLI's result cache): its summary and the facts it read,
// as one string; parse_module_state() is false for anything it did not write.
using QueryLog = std::map<std::string, std::pair<ModuleEnv::Query, std::string>>;
std::string serialize_module_state(const ModuleSummary& summary, const QueryLog& queries);
bool parse_module_state(const std::string& text, ModuleSummary& summary, QueryLog& queries);

struct ProjectCache {
  // Module i's result and state from a previous run (same text and settings), if any.
  std::function<std::optional<AnalysisResult>(size_t i, std::string& state)> load;
  std::function<void(size_t i, const AnalysisResult& result, const std::string& state)> store;
};

// `eligible[i]`: module i is analyzed in round 1 (it passes the prefilter); the others only
// once a call from the project reaches them. A module loaded from `cache` counts as analyzed
// with the facts it recorded; it is analyzed again only if one of their answers has changed.
ProjectRun analyze_project(const ProjectLayout& layout, const std::vector<char>& eligible,
                           const ProjectAnalyzeFn& analyze, unsigned threads, const ProjectCache& cache = {});

}  // namespace stoker::python
