#include "cli/cache.h"

#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;

namespace stoker::cli {
namespace {

// Bump when the entry layout or the meaning of a stored field changes.
constexpr int kSchema = 3;

// A field added to Settings, AnalysisResult or the diagnostic types must reach the key
// (settings_fingerprint) or the entry (to_json/from_json), or the cache would return stale or
// incomplete results: these sizes make such an addition fail to compile until both are
// updated (then update the sizes too). x86-64 Linux with libstdc++, the supported platform.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Settings) == 504, "Settings changed: update settings_fingerprint() in src/cli/cache.cpp");
static_assert(sizeof(AnalysisResult) == 112 && sizeof(LoopStep) == 280 && sizeof(StepMember) == 104, "AnalysisResult changed: update to_json/from_json in src/cli/cache.cpp");
static_assert(sizeof(Diagnostic) == 360 && sizeof(Notice) == 80 && sizeof(Impact) == 120 && sizeof(Fix) == 64,
              "a diagnostic type changed: update to_json/from_json in src/cli/cache.cpp");
#endif

std::string sha1_hex(std::string_view bytes) {
  static std::once_flag init;
  std::call_once(init, [] { git_libgit2_init(); });
  git_oid oid;
  if (git_odb_hash(&oid, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) != 0) return {};
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

std::string build_id() {
  std::string id = std::string(STOKER_VERSION) + "-s" + std::to_string(kSchema);
  struct stat st{};
  if (::stat("/proc/self/exe", &st) == 0)
    id += "-" + std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  return sha1_hex(id).substr(0, 16);
}

void add(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append("=").append(std::to_string(value.size())).append(":").append(value).append("\n");
}
void add_list(std::string& out, std::string_view name, const std::vector<std::string>& values) {
  out.append(name).append("[").append(std::to_string(values.size())).append("]\n");
  for (const auto& v : values) add(out, "", v);
}
std::string num(const std::optional<double>& d) {
  if (!d) return "-";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", *d);
  return buf;
}

json range_json(const TextRange& r) { return json::array({r.start, r.end}); }
TextRange range_from(const json& j) { return TextRange{j.at(0).get<uint32_t>(), j.at(1).get<uint32_t>()}; }

json to_json(const AnalysisResult& r) {
  json diags = json::array();
  for (const auto& d : r.diagnostics) {
    json j{{"code", d.code},          {"message", d.message}, {"file", d.file},
           {"range", range_json(d.range)}, {"severity", to_string(d.severity)}};
    if (d.fix) {
      json edits = json::array();
      for (const auto& e : d.fix->edits) edits.push_back({{"range", range_json(e.range)}, {"replacement", e.replacement}});
      j["fix"] = {{"title", d.fix->title}, {"applicability", to_string(d.fix->applicability)}, {"edits", edits}};
    }
    if (d.impact) {
      const Impact& i = *d.impact;
      j["impact"] = {{"model", i.model},       {"gain_low", i.gain_low},   {"gain_high", i.gain_high},
                     {"profile", i.profile},   {"assumptions", i.assumptions},
                     {"idle_now", i.idle_now}, {"idle_after", i.idle_after}};
    }
    json related = json::array();
    for (const auto& rl : d.related)
      related.push_back({{"file", rl.file}, {"range", range_json(rl.range)}, {"message", rl.message}});
    j["related"] = related;
    j["facts"] = d.facts;
    diags.push_back(std::move(j));
  }
  auto notices_json = [](const std::vector<Notice>& list) {
    json out = json::array();
    for (const auto& n : list) {
      json j{{"file", n.file}, {"message", n.message}};
      if (n.range) j["range"] = range_json(*n.range);
      out.push_back(std::move(j));
    }
    return out;
  };
  auto breakdown_json = [](const StepBreakdown& b) {
    json host = json::array();
    for (double h : b.host_ms) host.push_back(h);
    return json{{"gpu_ms", b.gpu_ms}, {"host_ms", host}};
  };
  json loops = json::array();
  for (const auto& l : r.loops) {
    json members = json::array();
    for (const auto& m : l.members)
      members.push_back({{"code", m.code},         {"model", m.model},
                         {"offset", m.offset},     {"reported", m.reported},
                         {"diagnostic", m.diagnostic}, {"facts", m.facts}});
    loops.push_back({{"key", l.key},
                     {"loop_offset", l.loop_offset},
                     {"profile", l.profile},
                     {"now", breakdown_json(l.now)},
                     {"after", breakdown_json(l.after)},
                     {"busy", {l.busy_now_lo, l.busy_now_hi, l.busy_after_lo, l.busy_after_hi}},
                     {"dominant", l.dominant},
                     {"measured", l.measured},
                     {"members", members}});
  }
  return {{"diagnostics", diags},           {"notices", notices_json(r.notices)},
          {"errors", notices_json(r.errors)}, {"parse_errors", r.parse_errors},
          {"work", r.work},                   {"loops", loops}};
}

Applicability applicability_from(const std::string& s) {
  for (auto a : {Applicability::Safe, Applicability::Unsafe, Applicability::DisplayOnly})
    if (s == to_string(a)) return a;
  throw std::runtime_error("bad applicability");
}

// Throws on any shape problem (the caller then ignores the entry).
AnalysisResult from_json(const json& j) {
  AnalysisResult r;
  for (const auto& jd : j.at("diagnostics")) {
    Diagnostic d;
    d.code = jd.at("code").get<std::string>();
    d.message = jd.at("message").get<std::string>();
    d.file = jd.at("file").get<std::string>();
    d.range = range_from(jd.at("range"));
    auto sev = severity_from_string(jd.at("severity").get<std::string>());
    if (!sev) throw std::runtime_error("bad severity");
    d.severity = *sev;
    if (jd.contains("fix")) {
      const json& jf = jd.at("fix");
      Fix f;
      f.title = jf.at("title").get<std::string>();
      f.applicability = applicability_from(jf.at("applicability").get<std::string>());
      for (const auto& je : jf.at("edits")) f.edits.push_back(Edit{range_from(je.at("range")), je.at("replacement").get<std::string>()});
      d.fix = std::move(f);
    }
    if (jd.contains("impact")) {
      const json& ji = jd.at("impact");
      Impact i;
      i.model = ji.at("model").get<std::string>();
      i.gain_low = ji.at("gain_low").get<double>();
      i.gain_high = ji.at("gain_high").get<double>();
      i.profile = ji.at("profile").get<std::string>();
      i.assumptions = ji.at("assumptions").get<std::vector<std::string>>();
      i.idle_now = ji.at("idle_now").get<double>();
      i.idle_after = ji.at("idle_after").get<double>();
      d.impact = std::move(i);
    }
    for (const auto& jr : jd.at("related"))
      d.related.push_back(RelatedLocation{jr.at("file").get<std::string>(), range_from(jr.at("range")),
                                          jr.at("message").get<std::string>()});
    d.facts = jd.at("facts").get<std::vector<std::pair<std::string, std::string>>>();
    r.diagnostics.push_back(std::move(d));
  }
  auto notices_from = [](const json& list, std::vector<Notice>& out) {
    for (const auto& jn : list) {
      Notice n{jn.at("file").get<std::string>(), jn.at("message").get<std::string>(), std::nullopt};
      if (jn.contains("range")) n.range = range_from(jn.at("range"));
      out.push_back(std::move(n));
    }
  };
  notices_from(j.at("notices"), r.notices);
  notices_from(j.at("errors"), r.errors);
  r.parse_errors = j.at("parse_errors").get<size_t>();
  r.work = j.at("work").get<unsigned long long>();
  auto breakdown_from = [](const json& jb) {
    StepBreakdown b;
    b.gpu_ms = jb.at("gpu_ms").get<double>();
    const json& host = jb.at("host_ms");
    if (host.size() != kStepTerms) throw std::runtime_error("bad step breakdown");
    for (int i = 0; i < kStepTerms; ++i) b.host_ms[i] = host.at(i).get<double>();
    return b;
  };
  for (const auto& jl : j.at("loops")) {
    LoopStep l;
    l.key = jl.at("key").get<std::string>();
    l.loop_offset = jl.at("loop_offset").get<int64_t>();
    l.profile = jl.at("profile").get<std::string>();
    l.now = breakdown_from(jl.at("now"));
    l.after = breakdown_from(jl.at("after"));
    const json& busy = jl.at("busy");
    l.busy_now_lo = busy.at(0).get<double>();
    l.busy_now_hi = busy.at(1).get<double>();
    l.busy_after_lo = busy.at(2).get<double>();
    l.busy_after_hi = busy.at(3).get<double>();
    l.dominant = jl.at("dominant").get<std::string>();
    l.measured = jl.at("measured").get<bool>();
    for (const auto& jm : jl.at("members")) {
      StepMember m;
      m.code = jm.at("code").get<std::string>();
      m.model = jm.at("model").get<std::string>();
      m.offset = jm.at("offset").get<uint32_t>();
      m.reported = jm.at("reported").get<bool>();
      m.diagnostic = jm.at("diagnostic").get<int>();
      m.facts = jm.at("facts").get<std::vector<std::pair<std::string, std::string>>>();
      l.members.push_back(std::move(m));
    }
    r.loops.push_back(std::move(l));
  }
  return r;
}

}  // namespace

std::string settings_fingerprint(const Settings& s) {
  std::string out;
  add_list(out, "select", s.rules.select);
  add_list(out, "extend-select", s.rules.extend_select);
  add_list(out, "ignore", s.rules.ignore);
  add(out, "min-batch-size", std::to_string(s.min_batch_size));
  add(out, "default-workers", s.default_workers);
  add(out, "gpu", s.gpu);
  add(out, "workload", num(s.workload.step_time_ms) + "," + num(s.workload.load_time_ms) + "," +
                           num(s.workload.batch_bytes) + "," +
                           (s.workload.workers ? std::to_string(*s.workload.workers) : "-"));
  add(out, "compile-commands", s.compile_commands_dir);
  add_list(out, "cxx-extra-args", s.cxx_extra_args);
  add(out, "cuda-path", s.cuda_path);
  add(out, "report-unused-ignores", s.report_unused_ignores ? "1" : "0");
  add(out, "show-parse-errors", s.show_parse_errors ? "1" : "0");
  add(out, "cxx-default-workers", s.cxx_default_workers);
  add(out, "analysis-budget", std::to_string(s.analysis_budget));
  add(out, "target-torch-version", s.target_torch_version);
  add(out, "config-root", s.config_root);
  return out;
}

ResultCache::ResultCache(fs::path root) : root_(std::move(root)), build_(build_id()) { dir_ = root_ / build_; }

bool ResultCache::prepare() {
  int state = prepared_.load();
  if (state) return state > 0;
  static std::mutex m;
  std::lock_guard lock(m);
  if ((state = prepared_.load())) return state > 0;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  bool ok = !ec;
  if (ok && !fs::exists(root_ / ".gitignore", ec)) {
    std::ofstream(root_ / ".gitignore") << "# Automatically created by stoker.\n*\n";
  }
  if (ok) {
    // Entries of other builds can never be trusted again: drop them.
    for (const auto& e : fs::directory_iterator(root_, ec))
      if (e.is_directory(ec) && e.path().filename() != build_) fs::remove_all(e.path(), ec);
  }
  prepared_ = ok ? 1 : -1;
  return ok;
}

std::optional<AnalysisResult> ResultCache::load(const fs::path& entry, const std::string& key, const std::string& path,
                                                std::string* state) {
  std::ifstream in(entry, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    json j = json::parse(ss.str());
    if (j.at("schema").get<int>() != kSchema || j.at("key").get<std::string>() != key ||
        j.at("path").get<std::string>() != path)
      return std::nullopt;
    for (const auto& dep : j.at("dependencies")) {
      std::ifstream din(dep.at("path").get<std::string>(), std::ios::binary);
      if (!din) return std::nullopt;
      std::stringstream ds;
      ds << din.rdbuf();
      if (sha1_hex(ds.str()) != dep.at("sha1").get<std::string>()) return std::nullopt;
    }
    if (state) *state = j.at("state").get<std::string>();
    return from_json(j.at("result"));
  } catch (const std::exception&) {
    return std::nullopt;  // corrupt or foreign: never trusted
  }
}

void ResultCache::store(const fs::path& entry, const std::string& key, const std::string& path,
                        const AnalysisResult& result, const std::string* state) {
  if (!prepare()) {
    ++write_failures_;
    return;
  }
  json j{{"schema", kSchema}, {"key", key}, {"path", path}, {"dependencies", json::array()}, {"result", to_json(result)}};
  if (state) j["state"] = *state;
  std::error_code ec;
  fs::create_directories(entry.parent_path(), ec);
  std::ostringstream tmp_name;
  tmp_name << entry.filename().string() << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
  fs::path tmp = entry.parent_path() / tmp_name.str();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump();
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      ++write_failures_;
      return;
    }
  }
  fs::rename(tmp, entry, ec);
  if (ec) {
    fs::remove(tmp, ec);
    ++write_failures_;
  }
}

std::string ResultCache::key_of(const SourceFile& file, const Settings& settings, bool project) const {
  std::string material = "stoker-cache\n" + build_ + "\n" + settings_fingerprint(settings);
  add(material, "path", file.path);
  add(material, "bom", file.has_bom ? "1" : "0");
  add(material, "text", file.text);
  if (project) add(material, "mode", "project");
  return sha1_hex(material);
}

std::optional<AnalysisResult> ResultCache::load_module(const SourceFile& file, const Settings& settings,
                                                       std::string& state) {
  std::string key = key_of(file, settings, true);
  if (key.empty()) return std::nullopt;
  fs::path entry = dir_ / key.substr(0, 2) / (key.substr(2) + ".json");
  auto cached = load(entry, key, file.path, &state);
  if (cached) ++hits_;
  return cached;
}

void ResultCache::store_module(const SourceFile& file, const Settings& settings, const AnalysisResult& result,
                               const std::string& state) {
  ++misses_;
  std::string key = key_of(file, settings, true);
  if (key.empty()) return;
  fs::path entry = dir_ / key.substr(0, 2) / (key.substr(2) + ".json");
  store(entry, key, file.path, result, &state);
}

AnalysisResult ResultCache::analyze(const SourceFile& file, const Settings& settings) {
  if (file.language == Language::Cxx) return stoker::analyze(file, settings);
  std::string key = key_of(file, settings, false);
  if (key.empty()) return stoker::analyze(file, settings);
  fs::path entry = dir_ / key.substr(0, 2) / (key.substr(2) + ".json");
  if (auto cached = load(entry, key, file.path)) {
    ++hits_;
    return std::move(*cached);
  }
  ++misses_;
  AnalysisResult result = stoker::analyze(file, settings);
  store(entry, key, file.path, result);
  return result;
}

std::vector<std::string> clean_caches(const fs::path& dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  if (fs::is_directory(dir / ".stoker_cache", ec)) {
    fs::remove_all(dir / ".stoker_cache", ec);
    if (!ec) removed.push_back((dir / ".stoker_cache").string());
  }
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    std::string name = it->path().filename().string();
    if (name == ".git" || name == "node_modules") {
      it.disable_recursion_pending();
    } else if (name == ".stoker_cache") {
      it.disable_recursion_pending();
      std::error_code rec;
      fs::remove_all(it->path(), rec);
      if (!rec) removed.push_back(it->path().string());
    }
  }
  return removed;
}

}  // namespace stoker::cli
