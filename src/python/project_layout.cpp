// The project layout: the modules of the files asked for and their context, their dotted names,
// the roots their imports resolve from, and `setup_project` (split from project.cpp in session 28).
#include "python/project.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_set>

#include "python/frameworks.h"
#include "python/types.h"

namespace fs = std::filesystem;

namespace stoker::python {

namespace {

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
    m.outside = valid && m.name.find('.') == std::string::npos;
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
  unique_names();
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

// A module's name builds the canonical names of what it defines (`tgn.TGN`), which other modules
// resolve by split(): the file of that name nearest them. Two files may get the same name: a
// checkout that is a package named like one of its modules (set BG tgn: tgn/__init__.py is `tgn`
// under the checkout's parent, tgn/model/tgn.py is `tgn` from its own directory, a root as the
// directory of a module outside packages), or modules named alike in several directories outside
// packages (tools/utils.py beside utils.py). Then `tgn.TGN` read in evaluation/evaluation.py named
// the package, and the class an argument was an instance of was lost. A module whose name another
// file has takes the shortest other name it has under a root (by_name_) that no other file has
// (`tgn.model.tgn`), where it has one; a name kept by one file alone is unchanged. O(names).
void ProjectLayout::unique_names() {
  std::vector<const std::string*> best(modules_.size(), nullptr);
  for (const auto& [n, list] : by_name_) {
    if (list.size() != 1) continue;
    int i = list.front();
    const std::string& cur = modules_[i].name;
    if (cur.empty() || n == cur) continue;
    auto shared = by_name_.find(cur);
    if (shared == by_name_.end() || shared->second.size() < 2) continue;
    const std::string* b = best[static_cast<size_t>(i)];
    if (!b || n.size() < b->size() || (n.size() == b->size() && n < *b)) best[static_cast<size_t>(i)] = &n;
  }
  for (size_t i = 0; i < modules_.size(); ++i)
    if (best[i]) modules_[i].name = *best[i];
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
        // A module importing its own name (`import torch` in helpers/torch.py, PyTorch-RL's
        // utils/torch.py) imports the library: the file is never its own import's target.
        int target = module_at(ds, first, 1);
        if ((target >= 0 && target != static_cast<int>(i)) || dirs_.count(ds + "/" + first[0])) {
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

void ProjectLayout::find_package_members(const std::vector<std::string_view>& texts) {
  member_.assign(modules_.size(), 0);
  const size_t n = std::min(modules_.size(), texts.size());
  std::vector<std::vector<std::string>> names(n);
  for (size_t i = 0; i < n; ++i) names[i] = imported_names(texts[i]);
  // Relative imports first: the importer and the module it names are in a package.
  for (size_t i = 0; i < n; ++i)
    for (const auto& name : names[i]) {
      if (name.empty() || name[0] != '.') continue;
      member_[i] = 1;
      int c = split(static_cast<int>(i), absolute(static_cast<int>(i), name)).first;
      if (c >= 0 && !modules_[c].is_package) member_[c] = 1;
    }
  // Then the dotted names reaching a module through at least one directory.
  for (size_t i = 0; i < n; ++i)
    for (const auto& name : names[i]) {
      if (name.empty() || name[0] == '.' || name.find('.') == std::string::npos) continue;
      auto [c, rest] = split(static_cast<int>(i), name);
      if (c < 0 || c == static_cast<int>(i) || modules_[c].is_package) continue;
      size_t used = name.size() - (rest.empty() ? 0 : rest.size() + 1);
      if (name.find('.') < used) member_[c] = 1;
    }
}

std::string_view ProjectLayout::unvendored(std::string_view name) const {
  if (vendor_prefix_.empty() || name.empty() || name[0] == '.') return {};
  auto it = vendor_prefix_.find(std::string(name.substr(0, name.find('.'))));
  if (it == vendor_prefix_.end()) return {};
  const std::string& p = it->second;
  if (name.size() <= p.size() + 1 || name.compare(0, p.size(), p) != 0 || name[p.size()] != '.') return {};
  return name.substr(p.size() + 1);
}

void ProjectLayout::find_vendor_prefixes(const std::vector<std::string_view>& texts) {
  const size_t n = std::min(modules_.size(), texts.size());
  std::vector<std::vector<std::string>> names(n);
  for (size_t i = 0; i < n; ++i) names[i] = imported_names(texts[i]);
  // A project name: a module's dotted name here, or a top-level module or package.
  auto project_name = [&](const std::vector<std::string>& parts, size_t from) {
    return from < parts.size() && (top_level_.count(parts[from]) || by_name_.count(join(parts, from, parts.size())));
  };
  // Candidates by first part: the shortest prefix followed by a project module's dotted name.
  std::unordered_map<std::string, std::string> candidate;
  for (size_t i = 0; i < n; ++i)
    for (const auto& name : names[i]) {
      if (name.empty() || name[0] == '.') continue;
      auto parts = split_on(name, '.', true);
      if (parts.size() < 4 || top_level_.count(parts[0]) || is_project_name(static_cast<int>(i), name)) continue;
      for (size_t k = 2; k + 2 <= parts.size(); ++k) {
        auto it = by_name_.find(join(parts, k, parts.size()));
        if (it == by_name_.end()) continue;
        std::string p = join(parts, 0, k);
        auto [c, added] = candidate.emplace(parts[0], p);
        if (!added && c->second != p) c->second.clear();  // two paths: neither
        break;
      }
    }
  // Every import under the first part agrees with the candidate.
  for (auto& [first, p] : candidate) {
    if (p.empty()) continue;
    bool all = true;
    for (size_t i = 0; i < n && all; ++i)
      for (const auto& name : names[i]) {
        if (name.empty() || name[0] == '.' || name.compare(0, name.find('.'), first) != 0) continue;
        if (name == p) continue;
        auto parts = split_on(name, '.', true);
        auto pp = split_on(p, '.', true);
        bool under = parts.size() > pp.size() && name.compare(0, p.size(), p) == 0 && name[p.size()] == '.';
        if (!under || !project_name(parts, pp.size())) {
          all = false;
          break;
        }
      }
    if (all) vendor_prefix_.emplace(first, p);
  }
}

std::string ProjectLayout::absolute(int from, std::string_view name) const {
  size_t dots = 0;
  while (dots < name.size() && name[dots] == '.') ++dots;
  if (dots == 0) {
    if (auto rest = unvendored(name); !rest.empty()) return std::string(rest);
    return std::string(name);
  }
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
  // package `discrete_BCQ` of the project's root. Not for a member of a namespace package
  // (find_package_members): `import utils.utils` in utils/engine.py, which the root's script
  // imports as `utils.engine`, is utils/utils.py through the package `utils` (set AR).
  if (parts.size() > 1 && from >= 0 && static_cast<size_t>(from) < modules_.size()) {
    const Module& here = modules_[from];
    bool member = static_cast<size_t>(from) < member_.size() && member_[from];
    if (!here.is_package && here.outside && !member)
      if (auto it = by_name_.find(parts[0]); it != by_name_.end())
        for (int c : it->second)
          if (!modules_[c].is_package && modules_[c].dir == here.dir && modules_[c].outside &&
              fs::path(modules_[c].path).stem() == parts[0])
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
  if (!unvendored(name).empty()) return true;
  if (from < 0 || static_cast<size_t>(from) >= script_dir_.size() || script_dir_[from].empty()) return false;
  int target = module_at(script_dir_[from], {first}, 1);
  return (target >= 0 && target != from) || dirs_.count(script_dir_[from] + "/" + first);
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

// A script that has an options object of another module parse the command line and runs the
// program (`opts = options.parse()`, no parser of its own: no `parse_args(`, and an `if __name__
// == "__main__":` block): monodepth2's train.py, whose `Trainer(opts)` hands options.py's
// namespace to trainer.py. A launcher parsing with its own parser (submitit's
// run_with_submitit.py, handing `main(args)` a namespace of other defaults) stays out. A byte scan.
static bool parsing_script(std::string_view text) {
  return text.find(".parse(") != std::string_view::npos && text.find("parse_args(") == std::string_view::npos &&
         text.find("parse_known_args(") == std::string_view::npos && text.find("__name__") != std::string_view::npos &&
         (text.find("\"__main__\"") != std::string_view::npos || text.find("'__main__'") != std::string_view::npos);
}

// A script whose `__main__` block drives a trainer of another module (`learner.train(conf,
// args.epochs)`, a `.train(` call, no loop of its own): InsightFace_Pytorch's train.py, whose
// `face_learner(conf)` hands learner.py the settings object config.py fills (its CUDA device:
// ArgFacts::attr_devices; set AN). A launcher submitting `main(args)` calls no `.train(`. A byte scan.
static bool trainer_script(std::string_view text) {
  return text.find(".train(") != std::string_view::npos && text.find("__name__") != std::string_view::npos &&
         (text.find("\"__main__\"") != std::string_view::npos || text.find("'__main__'") != std::string_view::npos);
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
  setup.layout.find_package_members(texts);
  setup.layout.find_vendor_prefixes(texts);
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
  // parameters of what it calls with unknowns: left out, as before, unless it is the program's
  // script having an options object parse its command line (`parsing_script`), whose sites hand
  // the parsed namespace on (monodepth2's train.py: `Trainer(opts)`). O(modules + imports).
  std::vector<char> keep(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (reached[i] && (has_loop_statement(texts[i]) || defines_step_hook(texts[i]) || parsing_script(texts[i]) ||
                       trainer_script(texts[i]))) {
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

}  // namespace stoker::python
