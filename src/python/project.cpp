#include "python/project.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>
#include <unordered_set>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <nlohmann/json.hpp>

#include "python/frameworks.h"
#include "python/loader_wrappers.h"
#include "python/parser.h"
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

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string join(const std::vector<std::string>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += '.';
    out += parts[i];
  }
  return out;
}

constexpr int kMaxReexportHops = 8;
constexpr int kMaxPackageDepth = 32;
// Context of `stoker check FILE`: directories listed, entries read per directory, and how deep
// namespace packages (directories without __init__.py) are followed below the file's directory
// and the directories it puts on sys.path.
constexpr size_t kMaxListedDirs = 256;
constexpr size_t kMaxListedEntries = 4096;
constexpr int kMaxNamespaceDepth = 3;

}  // namespace

// ---------------------------------------------------------------------------------------
// Layout.

ProjectLayout::ProjectLayout(const std::vector<std::string>& paths, const std::vector<std::string>& extra_roots) {
  std::unordered_map<std::string, bool> has_init;
  auto is_package_dir = [&](const fs::path& d) {
    auto key = d.string();
    auto it = has_init.find(key);
    if (it != has_init.end()) return it->second;
    std::error_code ec;
    bool p = fs::is_regular_file(d / "__init__.py", ec);
    has_init.emplace(key, p);
    return p;
  };
  std::set<std::string> roots;
  for (const auto& p : paths) {
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(p), ec).lexically_normal();
    Module m;
    m.path = p;
    m.dir = abs.parent_path().string();
    m.is_package = abs.filename() == "__init__.py";
    // Up through the packages to the root. A directory whose name is no identifier is no package
    // an import can name, whatever __init__.py it holds: it is the root (a checkout named
    // `fasterrcnn-pytorch-training-pipeline` with an empty __init__.py, whose scripts import
    // `datasets` from their own directory).
    std::vector<std::string> parts;
    if (!m.is_package) parts.push_back(abs.stem().string());
    fs::path d = abs.parent_path();
    int depth = 0;
    for (; depth < kMaxPackageDepth && is_package_dir(d) && is_identifier(d.filename().string()) &&
           d.has_parent_path() && d != d.parent_path();
         ++depth) {
      parts.push_back(d.filename().string());
      d = d.parent_path();
    }
    std::reverse(parts.begin(), parts.end());
    bool valid = !parts.empty();
    for (const auto& c : parts) valid &= is_identifier(c);
    m.name = valid ? join(parts, 0, parts.size()) : std::string{};
    roots.insert(d.string());
    // A src layout: `src` is searched as pyright searches it (its packages may be namespace ones).
    for (int up = 0; up < kMaxPackageDepth && d.has_parent_path() && d != d.parent_path(); ++up) {
      if (d.filename() == "src") roots.insert(d.string());
      d = d.parent_path();
    }
    modules_.push_back(std::move(m));
  }
  for (const auto& r : extra_roots) {
    std::error_code ec;
    std::string dir = fs::absolute(fs::path(r), ec).lexically_normal().string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    roots.insert(dir);
  }
  // The directory the files have in common is a root too (a type checker's workspace root, the
  // directory a project puts on PYTHONPATH): `tool/train.py` imports `util.util` from
  // `util/util.py` next to `tool/`.
  if (modules_.size() > 1) {
    std::error_code ec;
    fs::path common = fs::absolute(fs::path(modules_[0].dir), ec).lexically_normal();
    for (const auto& m : modules_) {
      fs::path dir = fs::absolute(fs::path(m.dir), ec).lexically_normal();
      fs::path shared;
      for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b; ++a, ++b)
        shared /= *a;
      common = shared;
    }
    if (!common.empty() && (!is_package_dir(common) || !is_identifier(common.filename().string()))) roots.insert(common.string());
  }
  // Every module under every root that is one of its ancestors (namespace packages).
  for (int i = 0; i < static_cast<int>(modules_.size()); ++i) {
    const Module& m = modules_[i];
    if (m.name.empty()) continue;
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(m.path), ec).lexically_normal();
    std::vector<std::string> parts;
    if (!m.is_package) parts.push_back(abs.stem().string());
    fs::path d = abs.parent_path();
    for (int depth = 0; depth < kMaxPackageDepth; ++depth) {
      if (roots.count(d.string()) && !parts.empty()) {
        bool valid = true;
        for (const auto& c : parts) valid &= is_identifier(c);
        if (valid) {
          std::vector<std::string> name(parts.rbegin(), parts.rend());
          std::string n = join(name, 0, name.size());
          auto& list = by_name_[n];
          if (std::find(list.begin(), list.end(), i) == list.end()) list.push_back(i);
          top_level_[name.front()] = 1;
        }
      }
      if (!d.has_parent_path() || d == d.parent_path()) break;
      parts.push_back(d.filename().string());
      d = d.parent_path();
    }
  }
  std::error_code ec;
  fs::path common;
  for (size_t i = 0; i < modules_.size(); ++i) {
    fs::path abs = fs::absolute(fs::path(modules_[i].path), ec).lexically_normal();
    by_path_.emplace(abs.string(), static_cast<int>(i));
    fs::path dir = abs.parent_path();
    if (i == 0) {
      common = dir;
    } else {
      fs::path shared;
      for (auto x = common.begin(), y = dir.begin(); x != common.end() && y != dir.end() && *x == *y; ++x, ++y)
        shared /= *x;
      common = shared;
    }
  }
  common_ = common.string();
  for (const auto& [path, i] : by_path_) {
    fs::path d = fs::path(path).parent_path();
    for (int depth = 0; depth < kMaxPackageDepth && d.string().size() >= common_.size(); ++depth) {
      if (!dirs_.insert(d.string()).second || !d.has_parent_path() || d == d.parent_path()) break;
      d = d.parent_path();
    }
  }
}

int ProjectLayout::module_at(const std::string& dir, const std::vector<std::string>& parts, size_t k) const {
  std::string p = dir;
  for (size_t j = 0; j < k; ++j) {
    p += '/';
    p += parts[j];
  }
  if (auto it = by_path_.find(p + ".py"); it != by_path_.end()) return it->second;
  if (auto it = by_path_.find(p + "/__init__.py"); it != by_path_.end()) return it->second;
  return -1;
}

void ProjectLayout::find_script_dirs(const std::vector<std::string_view>& texts) {
  script_dir_.assign(modules_.size(), std::string{});
  if (common_.empty()) return;
  std::error_code ec;
  for (size_t i = 0; i < modules_.size() && i < texts.size(); ++i) {
    const Module& m = modules_[i];
    if (m.is_package || m.name.empty()) continue;
    fs::path own = fs::absolute(fs::path(m.path), ec).lexically_normal().parent_path();
    size_t best = 0;  // the nearest directory (the longest path) that some import needs
    for (const auto& name : imported_names(texts[i])) {
      if (name.empty() || name[0] == '.') continue;
      std::vector<std::string> first{name.substr(0, name.find('.'))};
      if (top_level_.count(first[0])) continue;
      for (fs::path d = own; d.string().size() >= common_.size() && d.string().size() > best;) {
        std::string ds = d.string();
        if (module_at(ds, first, 1) >= 0 || dirs_.count(ds + "/" + first[0])) {
          script_dir_[i] = ds;
          best = ds.size();
          break;
        }
        if (!d.has_parent_path() || d == d.parent_path()) break;
        d = d.parent_path();
      }
    }
  }
}

std::string ProjectLayout::absolute(int from, std::string_view name) const {
  size_t dots = 0;
  while (dots < name.size() && name[dots] == '.') ++dots;
  if (dots == 0) return std::string(name);
  const Module& m = modules_[from];
  if (m.name.empty()) return {};
  auto parts = split_on(m.name, '.', true);
  if (!m.is_package) parts.pop_back();  // the package the module is in
  for (size_t up = 1; up < dots; ++up) {
    if (parts.empty()) return {};
    parts.pop_back();
  }
  std::string base = join(parts, 0, parts.size());
  std::string_view rest = name.substr(dots);
  if (base.empty()) return std::string(rest);
  return rest.empty() ? base : base + "." + std::string(rest);
}

std::pair<int, std::string> ProjectLayout::split(int from, std::string_view absolute) const {
  if (absolute.empty()) return {-1, {}};
  auto parts = split_on(absolute, '.', true);
  // A module run from a directory of its tree (find_script_dirs) finds its absolute names there
  // first (that directory is sys.path[0]). The names of the FactsTable's answers are under the
  // roots (ExternalFacts::canonical: `NGCF.NGCF.NGCF`, the class of NGCF/NGCF.py): the same
  // file reached from a root with less left over (a name below it) is that name.
  if (from >= 0 && static_cast<size_t>(from) < script_dir_.size() && !script_dir_[from].empty() &&
      absolute[0] != '.')
    for (size_t k = parts.size(); k > 0; --k)
      if (int c = module_at(script_dir_[from], parts, k); c >= 0) {
        std::string rest = join(parts, k, parts.size());
        if (rest.empty()) return {c, rest};
        auto [rc, rrest] = split_from_roots(from, parts);
        if (rc == c && !rrest.empty() && rrest.size() < rest.size()) return {rc, rrest};
        return {c, rest};
      }
  return split_from_roots(from, parts);
}

std::pair<int, std::string> ProjectLayout::split_from_roots(int from, const std::vector<std::string>& parts) const {
  // A script (a module outside any package) finds the modules of its own directory first (it is
  // sys.path[0]), and a regular module there wins over a namespace package of the same name:
  // `import discrete_BCQ` in `discrete_BCQ/main.py` next to `discrete_BCQ/discrete_BCQ.py` is that
  // file, so `discrete_BCQ.discrete_BCQ(...)` is its class, not the module below the namespace
  // package `discrete_BCQ` of the project's root.
  if (parts.size() > 1 && from >= 0 && static_cast<size_t>(from) < modules_.size()) {
    const Module& here = modules_[from];
    if (!here.is_package && !here.name.empty() && here.name.find('.') == std::string::npos)
      if (auto it = by_name_.find(parts[0]); it != by_name_.end())
        for (int c : it->second)
          if (!modules_[c].is_package && modules_[c].dir == here.dir && modules_[c].name == parts[0])
            return {c, join(parts, 1, parts.size())};
  }
  for (size_t k = parts.size(); k > 0; --k) {
    auto it = by_name_.find(join(parts, 0, k));
    if (it == by_name_.end()) continue;
    // Several files with that name: the one whose directory shares the most leading path
    // components with the importing module's, and among those the nearest (the fewest
    // components of its own beyond the shared ones): Python finds `utils` of `from utils
    // import f` in the script's own directory first, so `train.py` next to `utils.py` and
    // `old_version/utils.py` reads the former, and `old_version/train.py` the latter.
    int best = it->second.front();
    if (it->second.size() > 1) {
      auto here = split_on(modules_[from].dir, '/', false);
      size_t best_shared = 0, best_extra = static_cast<size_t>(-1);
      for (int c : it->second) {
        auto d = split_on(modules_[c].dir, '/', false);
        size_t shared = 0;
        while (shared < d.size() && shared < here.size() && d[shared] == here[shared]) ++shared;
        size_t extra = d.size() - shared;
        if (shared > best_shared || (shared == best_shared && extra < best_extra)) {
          best_shared = shared;
          best_extra = extra;
          best = c;
        }
      }
    }
    return {best, join(parts, k, parts.size())};
  }
  return {-1, {}};
}

bool ProjectLayout::is_project_name(int from, std::string_view name) const {
  if (name.empty()) return false;
  if (name[0] == '.') return true;
  std::string first(name.substr(0, name.find('.')));
  if (top_level_.count(first)) return true;
  if (from < 0 || static_cast<size_t>(from) >= script_dir_.size() || script_dir_[from].empty()) return false;
  return module_at(script_dir_[from], {first}, 1) >= 0 || dirs_.count(script_dir_[from] + "/" + first);
}

std::vector<std::pair<std::string, std::string>> ProjectLayout::context_files(const std::string& path,
                                                                             std::string_view text, size_t limit,
                                                                             const Reader& read) {
  std::vector<std::string> candidates;
  std::error_code ec;
  fs::path abs = fs::absolute(fs::path(path), ec).lexically_normal();
  fs::path dir = abs.parent_path();
  fs::path top = dir;
  for (int depth = 0; depth < kMaxPackageDepth && fs::is_regular_file(top / "__init__.py", ec) &&
                     is_identifier(top.filename().string());
       ++depth) {
    if (!top.has_parent_path() || top == top.parent_path()) break;
    top = top.parent_path();
  }
  // One listing per directory (at most kMaxListedEntries entries): its .py files become
  // candidates; its subdirectories are returned (all of them, or only packages).
  std::set<fs::path> listed;
  size_t dirs_listed = 0;
  auto list_dir = [&](const fs::path& d, bool namespaces) {
    std::vector<fs::path> subs;
    if (!listed.insert(d).second || ++dirs_listed > kMaxListedDirs) return subs;
    std::vector<std::string> found;
    size_t entries = 0;
    for (fs::directory_iterator it(d, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end && entries < kMaxListedEntries; it.increment(ec), ++entries) {
      const fs::path& p = it->path();
      if (it->is_regular_file(ec)) {
        if (p.extension() == ".py" && fs::path(p).lexically_normal() != abs) found.push_back(p.string());
      } else if (it->is_directory(ec) && !it->is_symlink(ec)) {
        // Not importable: hidden, dashed and other non-identifier names.
        if (is_identifier(p.filename().string()) && (namespaces || fs::is_regular_file(p / "__init__.py", ec)))
          subs.push_back(p);
      }
    }
    std::sort(found.begin(), found.end());
    for (auto& f : found)
      if (candidates.size() < limit) candidates.push_back(std::move(f));
    std::sort(subs.begin(), subs.end());
    return subs;
  };
  // Directories and the packages below them, breadth first; with `namespaces`, directories
  // without __init__.py too (namespace packages), at most kMaxNamespaceDepth levels down.
  auto add_tree = [&](std::vector<std::pair<fs::path, int>> dirs, bool namespaces) {
    for (size_t i = 0; i < dirs.size() && candidates.size() < limit; ++i) {
      auto [d, depth] = dirs[i];
      bool deeper = namespaces && depth < kMaxNamespaceDepth;
      for (auto& sub : list_dir(d, deeper)) dirs.push_back({std::move(sub), depth + 1});
    }
  };
  // The siblings first; then the top package (below its root): what relative imports reach; then
  // the packages next to the file (`from utils.fit import fit_one_epoch` in a script,
  // `models/vit.py` as a namespace package); then what it puts on sys.path.
  // Below a directory, only the subdirectories the file imports by their first name (a script
  // next to a large tree of data or other checkouts reads none of it).
  std::set<std::string> imported_tops;
  for (const auto& name : imported_names(text))
    if (!name.empty() && name[0] != '.') imported_tops.insert(name.substr(0, name.find('.')));
  auto imported_below = [&](const fs::path& d) {
    std::vector<std::pair<fs::path, int>> out;
    for (auto& sub : list_dir(d, true))
      if (imported_tops.count(sub.filename().string())) out.push_back({std::move(sub), 1});
    return out;
  };
  auto below = imported_below(dir);
  if (top != dir) add_tree({{top, 0}}, false);
  add_tree(std::move(below), true);
  for (const auto& d : sys_path_dirs(path, text)) add_tree(imported_below(fs::path(d)), true);
  // A module's names: its stem, and a package's directory name for its __init__.py.
  auto names_of = [](const std::string& p) {
    fs::path fp(p);
    std::vector<std::string> n{fp.stem().string()};
    if (fp.filename() == "__init__.py") n.push_back(fp.parent_path().filename().string());
    return n;
  };
  // 0 is the file itself; then the candidates (texts read once).
  std::vector<std::string> paths{path};
  std::vector<std::string> texts{std::string(text)};
  for (const auto& c : candidates)
    if (auto t = read(c)) {
      paths.push_back(c);
      texts.push_back(std::move(*t));
    }
  std::unordered_map<std::string, std::vector<int>> named;  // module name -> modules with it
  for (int i = 0; i < static_cast<int>(paths.size()); ++i)
    for (const auto& n : names_of(paths[i])) named[n].push_back(i);
  // Which names each text mentions (as identifiers): one scan per text.
  std::vector<std::vector<int>> mentions(paths.size());     // module -> modules it names
  std::vector<std::vector<int>> mentioned_by(paths.size());  // module -> modules naming it
  for (int i = 0; i < static_cast<int>(paths.size()); ++i) {
    const std::string& t = texts[i];
    std::set<int> seen;
    for (size_t at = 0; at < t.size();) {
      unsigned char c = t[at];
      if (!(std::isalpha(c) || c == '_')) {
        ++at;
        continue;
      }
      size_t e = at;
      while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
      auto it = named.find(t.substr(at, e - at));
      if (it != named.end())
        for (int m : it->second)
          if (m != i && seen.insert(m).second) {
            mentions[i].push_back(m);
            mentioned_by[m].push_back(i);
          }
      at = e;
    }
  }
  std::vector<char> in(paths.size(), 0);
  std::vector<int> work{0};
  in[0] = 1;
  while (!work.empty()) {
    int m = work.back();
    work.pop_back();
    for (const auto* list : {&mentions[m], &mentioned_by[m]})
      for (int o : *list)
        if (!in[o]) {
          in[o] = 1;
          work.push_back(o);
        }
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 1; i < paths.size(); ++i)
    if (in[i]) out.push_back({paths[i], std::move(texts[i])});
  return out;
}

ProjectSetup setup_project(const std::vector<std::string>& paths, const std::vector<std::string_view>& texts,
                           const std::function<bool(size_t)>& prefilter) {
  const size_t n = paths.size();
  std::vector<std::string> extra;
  for (size_t i = 0; i < n; ++i)
    for (auto& d : sys_path_dirs(paths[i], texts[i]))
      if (std::find(extra.begin(), extra.end(), d) == extra.end()) extra.push_back(std::move(d));
  // The checkout is itself the package its modules import (`from RMI.dataloaders import
  // factory` in RMI/train.py, the repository cloned as `RMI` into a directory on sys.path): the
  // directory the files have in common, not a package itself, whose name some module imports
  // as the first part of a dotted name, has its parent searched as a root too. Only that
  // name's imports reach through it (the modules' other names are unchanged). O(files + imports).
  if (n > 1) {
    std::error_code ec;
    fs::path common = fs::absolute(fs::path(paths[0]), ec).lexically_normal().parent_path();
    for (const auto& p : paths) {
      fs::path dir = fs::absolute(fs::path(p), ec).lexically_normal().parent_path();
      fs::path shared;
      for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b; ++a, ++b)
        shared /= *a;
      common = shared;
    }
    std::string base = common.filename().string();
    if (!base.empty() && is_identifier(base) && common.has_parent_path() && common != common.parent_path() &&
        !fs::is_regular_file(common / "__init__.py", ec)) {
      bool imported = false;
      for (size_t i = 0; i < n && !imported; ++i)
        for (const auto& name : imported_names(texts[i]))
          if (name.size() > base.size() && name.compare(0, base.size(), base) == 0 && name[base.size()] == '.') {
            imported = true;
            break;
          }
      std::string parent = common.parent_path().string();
      if (imported && std::find(extra.begin(), extra.end(), parent) == extra.end()) extra.push_back(parent);
    }
  }
  ProjectSetup setup{ProjectLayout(paths, extra), std::vector<char>(n, 0)};
  setup.layout.find_script_dirs(texts);
  setup.layout.index_words(texts);
  const ProjectLayout& layout = setup.layout;
  // Who imports whom (project modules only), then every importer of a module that passes the
  // prefilter, transitively: O(modules + imports).
  std::vector<std::vector<int>> importers(n), imports(n);
  std::vector<int> work;
  std::vector<char> reached(n, 0), passes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int from = static_cast<int>(i);
    for (const auto& name : imported_names(texts[i])) {
      if (!layout.is_project_name(from, name)) continue;
      int m = layout.split(from, layout.absolute(from, name)).first;
      if (m >= 0 && m != from) {
        importers[m].push_back(from);
        imports[from].push_back(m);
      }
    }
    if (prefilter(i)) {
      reached[i] = passes[i] = 1;
      work.push_back(from);
    }
  }
  while (!work.empty()) {
    int m = work.back();
    work.pop_back();
    for (int imp : importers[m])
      if (!reached[imp]) {
        reached[imp] = 1;
        work.push_back(imp);
      }
  }
  // Of the modules only the closure reached, those with a loop (it may run the project's code
  // per iteration: get_miou.py's loop over deeplab.py's methods) or a method a framework runs
  // per step (a Trainer subclass's compute_loss), and those a module with a loop
  // reaches through them (relays). A module without one adds only call sites, whose arguments
  // (an unresolved `self.args` handed to `main(args)` by a launcher script) would join the
  // parameters of what it calls with unknowns: left out, as before. O(modules + imports).
  std::vector<char> keep(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (reached[i] && (has_loop_statement(texts[i]) || defines_step_hook(texts[i]))) {
      keep[i] = 1;
      work.push_back(static_cast<int>(i));
    }
  while (!work.empty()) {
    int m = work.back();
    work.pop_back();
    for (int imp : imports[m])
      if (reached[imp] && !keep[imp]) {
        keep[imp] = 1;
        work.push_back(imp);
      }
  }
  // The modules with a loop that those star-import, transitively through such modules, though
  // they name no torch: the loop may run what the importer hands them (NGCF's main.py `from
  // utility.batch_test import *`, whose `test(model, users)` iterates user batches through the
  // CUDA model the script passes, and batch_test's `from utility.load_data import *`, whose
  // `sample()` gives the training batches). A name a module star-imports is known only from the
  // starred module's summary (SemanticModel::star_imported_name), so a call through it cannot
  // bring that module into a later round as a call to an imported name does. O(modules + imports).
  for (size_t i = 0; i < n; ++i)
    if (passes[i] || keep[i]) work.push_back(static_cast<int>(i));
  while (!work.empty()) {
    int m = work.back();
    work.pop_back();
    std::vector<std::string> starred;
    imported_names(texts[m], &starred);
    for (const auto& name : starred) {
      if (!layout.is_project_name(m, name)) continue;
      auto [imp, rest] = layout.split(m, layout.absolute(m, name));
      if (imp >= 0 && rest.empty() && !passes[imp] && !keep[imp] && has_loop_statement(texts[imp])) {
        keep[imp] = 1;
        work.push_back(imp);
      }
    }
  }
  for (size_t i = 0; i < n; ++i)
    setup.eligible[i] = passes[i] || keep[i] || fs::path(paths[i]).filename() == "__init__.py";
  setup.layout.set_imports(std::move(imports));
  return setup;
}

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
  for (size_t m = 0; m < n; ++m) {
    const bool same = take_names && previous->versions_[m] == versions_[m];
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
    if (!summaries[m]) continue;
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
      std::map<std::string, std::vector<std::string>> methods_of;  // class -> its own methods
      for (const auto& [key, f] : summaries[m]->functions) {
        auto dot = key.find('.');
        if (dot == std::string::npos || key.find('.', dot + 1) != std::string::npos || key.find('[') != std::string::npos ||
            !f.method)
          continue;
        methods_of[key.substr(0, dot)].push_back(key.substr(dot + 1));
      }
      for (const auto& [cls, meths] : methods_of) {
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
  compute_shapes();
  if (previous && previous->resolved_.size() == n) resolved_ = std::move(previous->resolved_);
  resolved_.resize(n);
  memo_open_ = true;
  // Registries: the functions and classes a decorator registers into each registry object,
  // joined per object (O(functions x re-export hops)).
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
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
  subclass_stores_.resize(n);
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
    for (const auto& [name, f] : summaries[m]->functions) {
      if (!f.is_class || f.self_stores.empty()) continue;
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
            if (target->first != static_cast<int>(m))
              subclass_stores_[target->first][target->second].insert(f.self_stores.begin(), f.self_stores.end());
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
  auto unconstant = [&](int module, const std::string& local) {
    const FunctionFacts* f = function(module, local);
    if (!f || f->const_values.empty()) return;
    synthesized_.push_back(*f);
    synthesized_.back().const_values.clear();
    set_function(module, local, &synthesized_.back());
  };
  if (stores_anything) {
    for (size_t m = 0; m < n; ++m) {
      std::vector<std::string> locals;
      for (const auto& [local, f] : functions_[m])
        if (!f->const_values.empty()) locals.push_back(local);
      for (const auto& local : locals) unconstant(static_cast<int>(m), local);
    }
  } else {
    for (size_t m = 0; m < n; ++m) {
      if (!summaries[m]) continue;
      for (const std::string& name : summaries[m]->module_stores)
        if (auto target = resolve(static_cast<int>(m), name)) unconstant(target->first, target->second);
    }
    // A module not analyzed (left out by the prefilter: a launcher without torch) is read by its
    // text alone: any store of an attribute of that name there (`tunable.num_workers = 4`).
    auto unanalyzed = [&](int s) { return !summaries[static_cast<size_t>(s)]; };
    for (size_t m = 0; m < n; ++m) {
      std::vector<std::string> locals;
      for (const auto& [local, f] : functions_[m])
        if (!f->const_values.empty() && layout_.attribute_stored(static_cast<int>(m), local, unanalyzed))
          locals.push_back(local);
      for (const auto& local : locals) unconstant(static_cast<int>(m), local);
    }
  }
  // A function another module imports by name may be called there, or passed along.
  for (size_t m = 0; m < n; ++m) {
    if (!summaries[m]) continue;
    for (size_t k = 0; k < summaries[m]->imports.size(); ++k) {
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
      // "*.to": a host batch's own `to`/`cuda` (semantic_project.cpp batch_object_move): the
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
      // So does a whole loader that such a loop iterates and that the call builds anew on every
      // pass of a loop (arguments the same each pass, OutgoingCall::rebuilds: ncf's
      // `train_loader = sample_generator.instance_a_train_loader(...)` in the epoch loop).
      if (oc.result_feeds_training && oc.rebuilds && ff->returns_loader && summaries[m]->uses_cuda) cuda_[tm] = 1;
      // So does a loader a wrapper forwarding the caller's `**kwargs` returns whole that such a loop
      // iterates (magvit2's `DataLoader(*args, **kwargs)` in a data module without CUDA of its own,
      // called by the trainer): the construction is the caller's.
      if (oc.result_feeds_training && ff->returns_loader && summaries[m]->uses_cuda &&
          std::any_of(ff->params.begin(), ff->params.end(), [](const ParamSummary& p) { return p.double_star; }))
        cuda_[tm] = 1;
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
  a.steps |= b.steps;
  a.steps_forward |= b.steps_forward;
  if (!primary) return;
  a.returns_cuda |= b.returns_cuda;
  a.returns_loader |= b.returns_loader;
  a.returns_module |= b.returns_module;
  a.returns_tensor |= b.returns_tensor;
  if (a.ret_kind != b.ret_kind || a.ret_device != b.ret_device) a.ret_kind = -1, a.ret_device = 0;
  if (a.ret_framework != b.ret_framework) a.ret_framework.clear();
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
  if (a.returns_class != b.returns_class) a.returns_class.clear();
  if (a.devkind != b.devkind) a.devkind = (a.devkind == 2 || b.devkind == 2) && a.devkind && b.devkind ? 2 : 0;
  if (a.const_values != b.const_values) a.const_values.clear();
  a.loader_class = a.loader_class && b.loader_class;
  if (a.hot_self_calls != b.hot_self_calls) a.hot_self_calls.clear();
  if (a.returns_namespace != b.returns_namespace || a.namespace_values != b.namespace_values) {
    a.returns_namespace = false;
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
void FactsTable::compute_shapes() {
  const size_t n = summaries_.size();
  shape_.assign(n, 0);
  std::hash<std::string> h;
  auto mix = [](uint64_t a, uint64_t b) {  // splitmix64's finalizer over a boost-style combine
    uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  for (size_t m = 0; m < n; ++m) {
    if (!summaries_[m]) continue;
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
      for (const std::string& star : stars_[m]) {
        std::string sep = star.find_first_not_of('.') == std::string::npos ? "" : ".";
        std::string cand = layout_.absolute(m, star + sep + rest);
        if (cand.empty()) continue;
        auto [sm, srest] = layout_.split(m, cand);
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

bool FactsTable::subclass_stores(int module, const std::string& local_class, std::string_view attr) const {
  auto it = subclass_stores_[module].find(local_class);
  if (it == subclass_stores_[module].end()) return false;
  return it->second.count("*") || it->second.count(std::string(attr));
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
  const FactsTable::Incoming* in = table_.incoming(module_, std::string(local));
  const IncomingCalls* out = in ? &in->calls : nullptr;
  if (fields) record_once('i', local, 0, fields, [&] { return fp_incoming(out, fields); });
  return out;
}

const ArgFacts* ModuleEnv::incoming_param(std::string_view local, int index, unsigned fields) const {
  if (local.empty()) return nullptr;
  auto it = params_.find(local);
  if (it == params_.end()) it = params_.emplace(std::string(local), Params{table_.incoming(module_, std::string(local)), {}}).first;
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
    auto r = table_.resolve(module_, name);
    it = resolved_.emplace(std::string(name),
                           Resolved{r && (r->first != module_ || overrides_key(r->second)) ? table_.function(r->first, r->second)
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
  auto r = table_.resolve(module_, name);
  return r ? layout_.name(r->first) + "." + r->second : std::string{};
}

std::string ModuleEnv::registered(std::string_view name) const {
  if (name.empty() || !layout_.is_project_name(module_, name)) return {};
  std::string out = table_.registered(module_, name);
  record({'r', std::string(name), 0, 0}, out);
  return out;
}

std::string ModuleEnv::star_import(std::string_view name) const {
  if (name.empty()) return {};
  std::string out = table_.star_import(module_, name);
  record({'s', std::string(name), 0, 0}, out);
  return out;
}

bool ModuleEnv::attribute_mentioned(std::string_view name) const {
  bool out = table_.attribute_mentioned(module_, name);
  record({'a', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::word_mentioned(std::string_view name) const {
  bool out = table_.word_mentioned(module_, name);
  record({'w', std::string(name), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::subclass_stores(std::string_view local_class, std::string_view attr) const {
  std::string key = std::string(local_class) + "." + std::string(attr);
  bool out = table_.subclass_stores(module_, std::string(local_class), attr);
  record({'x', key, 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::class_on_cuda(std::string_view local_class) const {
  bool out = table_.class_on_cuda(module_, std::string(local_class));
  record({'k', std::string(local_class), 0, 0}, out ? "1" : "0");
  return out;
}

bool ModuleEnv::has_incoming() const { return table_.has_incoming(module_); }

bool ModuleEnv::cuda() const {
  bool out = table_.cuda(module_);
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
      const auto* in = table_.incoming(module_, q.name);
      return fp_incoming(in ? &in->calls : nullptr, q.fields);
    }
    case 'p': {
      const auto* in = table_.incoming(module_, q.name);
      const ArgFacts* a = in && q.index >= 0 && static_cast<size_t>(q.index) < in->params.size() ? &in->params[q.index] : nullptr;
      return fp_arg(a, q.fields);
    }
    case 'c': {
      // Memoized as callee() does: a name is recorded once per set of fields it was asked with.
      return table_.callee_fingerprint(resolve_callee(q.name).facts, q.fields);
    }
    case 'u': return table_.cuda(module_) ? "1" : "0";
    case 'r': return table_.registered(module_, q.name);
    case 's': return table_.star_import(module_, q.name);
    case 'a': return table_.attribute_mentioned(module_, q.name) ? "1" : "0";
    case 'w': return table_.word_mentioned(module_, q.name) ? "1" : "0";
    case 'k': return table_.class_on_cuda(module_, q.name) ? "1" : "0";
    case 'x': {
      size_t dot = q.name.find('.');
      if (dot == std::string::npos) return "0";
      return table_.subclass_stores(module_, q.name.substr(0, dot), std::string_view(q.name).substr(dot + 1)) ? "1" : "0";
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// Rounds.

// Source bytes whose parses are kept between rounds: a tree and its child index take about 75
// bytes per source byte, so at most about 300 MB.
constexpr size_t kMaxKeptParseBytes = size_t{4} << 20;

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
  std::vector<std::vector<int>> before(work.size());
  for (size_t w = 0; w < work.size(); ++w)
    for (int imp : layout.imports_of(static_cast<int>(work[w]))) {
      int v = slot[static_cast<size_t>(imp)];
      if (v < 0 || static_cast<size_t>(v) == w) continue;
      if (order == 'f') before[w].push_back(v);
      else before[static_cast<size_t>(v)].push_back(static_cast<int>(w));
    }
  // Callers first: a module handed an instance of another module's class (it may call the
  // class's methods, handing them its arguments) comes before the class's module.
  if (order == 'r')
    for (auto [first, then] : handed) {
      int a = slot[first], b = slot[then];
      if (a >= 0 && b >= 0 && a != b) before[static_cast<size_t>(b)].push_back(a);
    }
  // Longest path from the modules with nothing before them, by an iterative depth-first walk
  // (state 1: on the walk's stack, an edge back to it is cut).
  std::vector<int> level(work.size(), 0);
  std::vector<char> state(work.size(), 0);
  std::vector<std::pair<int, size_t>> stack;
  int depth = 0;
  for (size_t root = 0; root < work.size(); ++root) {
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
        }
        continue;
      }
      int l = 0;
      for (int v : before[static_cast<size_t>(w)])
        if (state[static_cast<size_t>(v)] == 2) l = std::max(l, level[static_cast<size_t>(v)] + 1);
      level[static_cast<size_t>(w)] = l;
      depth = std::max(depth, l);
      state[static_cast<size_t>(w)] = 2;
      stack.pop_back();
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
    tick(t_order);
    if (trace) std::fprintf(stderr, "round %d: %zu modules analyzed/%zu\n", round, work.size(), groups.size());
    bool table_fresh = false;  // the table already holds the summaries of the groups before
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::vector<size_t>& group = groups[g];
      if (trace)
        for (size_t i : group) std::fprintf(stderr, "round %d: group %zu: %s\n", round, g, layout.name(static_cast<int>(i)).c_str());
      // A later group reads the summaries of the groups before it.
      if (g > 0 && !table_fresh) {
        table = std::make_unique<FactsTable>(layout, latest, table.get(), &version);
        ++n_tables;
        tick(t_table);
      }
      table_fresh = false;
      std::vector<std::unique_ptr<ModuleSummary>> next_summaries(group.size());
      std::atomic<size_t> next{0};
      auto worker = [&] {
        for (size_t w; (w = next.fetch_add(1)) < group.size();) {
          size_t i = group[w];
          ModuleEnv env(*table, layout, static_cast<int>(i));
          next_summaries[w] = std::make_unique<ModuleSummary>();
          ProjectHooks hooks;
          hooks.facts = &env;
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
          std::fprintf(stderr, "round %d: %s again: summary %s, findings hash %zx\n", round,
                       layout.name(static_cast<int>(i)).c_str(), !summaries[i] ? "first" : same_summary ? "same" : "changed",
                       std::hash<std::string>{}(diags));
        }
        summaries[i] = std::move(next_summaries[w]);
        latest[i] = summaries[i].get();
        version[i] = ++versions;
        todo[i] = 0;
      }
      // After a round's first group: the modules the round does not analyze whose recorded
      // answers already differ under the table with the group's summaries join the round's
      // later groups (the callers that hand their callees instances come first, so the taint
      // they start reaches the whole chain in this table rather than one round later).
      if (g == 0 && round > 1 && extend_rounds) {
        table = std::make_unique<FactsTable>(layout, latest, table.get(), &version);
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
          for (size_t h = 1; h < groups.size(); ++h) rest.insert(rest.end(), groups[h].begin(), groups[h].end());
          std::sort(rest.begin(), rest.end());
          auto more = order_levels(layout, rest, letter, min_level, handed);
          groups.resize(1);
          groups.insert(groups.end(), more.begin(), more.end());
          work.insert(work.end(), added.begin(), added.end());
          run.analyses += added.size();
          if (trace) std::fprintf(stderr, "round %d: %zu modules join after group 0\n", round, added.size());
        }
        tick(t_detect);
      }
    }
    if (round == 1) t_table1 = t_table;
    if (round == kMaxProjectRounds) break;
    // (A table built after the round's only group already holds every latest summary.)
    if (!table_fresh) {
      table = std::make_unique<FactsTable>(layout, latest, table.get(), &version);
      ++n_tables;
    }
    tick(t_table);
    // Analyzed again: the modules for which an answer they read has changed.
    for (size_t i = 0; i < n; ++i) {
      if (!recorded[i]) continue;
      ModuleEnv fresh(*table, layout, static_cast<int>(i));
      for (const auto& [key, entry] : *recorded[i]) {
        std::string now = fresh.answer(entry.first);
        if (now != entry.second) {
          if (trace)
            std::fprintf(stderr, "round %d: %s reads %s: '%s' -> '%s'\n", round, layout.name(static_cast<int>(i)).c_str(),
                         key.c_str(), entry.second.c_str(), now.c_str());
          todo[i] = 1;
          if (!trace) break;
        }
      }
    }
    tick(t_detect);
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
