#include "lsp/session.h"

#include <algorithm>

#include "core/analyzer.h"
#include "core/runner.h"
#include "core/notebook.h"
#include "lsp/convert.h"

namespace stoker::lsp {

namespace {
Language language_from_id(const std::string& id) {
  if (id == "python") return Language::Python;
  if (id == "cpp" || id == "cuda" || id == "cuda-cpp" || id == "c") return Language::Cxx;
  return Language::Unknown;
}
}  // namespace

std::shared_ptr<Analysis> analyze_snapshot(const Snapshot& snap, const Settings& settings) {
  auto a = std::make_shared<Analysis>();
  a->generation = snap.generation;
  auto source = std::make_shared<SourceFile>(snap.path, snap.text);
  // An .ipynb opened as a text document is JSON, not Python: notebooks come as notebook
  // documents (notebook_analysis.cpp).
  if (source->language == Language::Unknown) source->language = language_from_id(snap.language_id);
  if (is_notebook_path(snap.path)) {
    // nothing to analyze in the JSON text
  } else if (snap.text.size() > kMaxAnalyzedBytes) {
    a->skipped = true;
  } else {
    // Isolation: a document whose analysis throws (of any type) gets no diagnostics and a
    // failure message; the server goes on serving it and every other document.
    try {
      a->result = analyze(*source, settings);
    } catch (...) {
      a->result = AnalysisResult{};
      a->failure = describe_analysis_failure(std::current_exception());
    }
  }
  a->source = std::move(source);
  return a;
}

Session::Session(FrameWriter& writer, std::ostream& log)
    : rules(RuleRegistry::builtin()), writer_(writer), log_(log) {
  worker_ = std::thread([this] { worker_loop(); });
}

Session::~Session() {
  request_stop();
  if (worker_.joinable()) worker_.join();
}

void Session::request_stop() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
}

bool Session::finish_worker(std::chrono::milliseconds wait) {
  request_stop();
  bool done;
  {
    std::unique_lock lock(queue_mutex_);
    done = queue_cv_.wait_for(lock, wait, [&] { return worker_done_; });
  }
  if (!worker_.joinable()) return true;
  if (done) worker_.join();
  else worker_.detach();
  return done;
}

void Session::set_client_settings(ClientSettings s) {
  std::lock_guard lock(settings_mutex_);
  client_ = std::move(s);
}

ClientSettings Session::client_settings() const {
  std::lock_guard lock(settings_mutex_);
  return client_;
}

Settings Session::settings_for(const Snapshot& snap) {
  std::vector<std::string> problems;
  Settings s = settings_for_document(snap.path, client_settings(), &problems);
  for (const auto& p : problems) log(2, "stoker: " + p);
  return s;
}

void Session::schedule(const std::string& uri) {
  {
    std::lock_guard lock(queue_mutex_);
    if (std::find(queue_.begin(), queue_.end(), uri) == queue_.end()) queue_.push_back(uri);
  }
  queue_cv_.notify_one();
}

void Session::schedule_all() {
  documents.invalidate_all();
  project.clear();  // settings changed: every module's state is stale
  for (const auto& uri : documents.uris()) schedule(uri);
}

void Session::worker_loop() {
  run_worker();
  {
    std::lock_guard lock(queue_mutex_);
    worker_done_ = true;
  }
  queue_cv_.notify_all();
}

void Session::run_worker() {
  while (true) {
    std::string uri;
    {
      std::unique_lock lock(queue_mutex_);
      queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      uri = std::move(queue_.front());
      queue_.pop_front();
    }
    // A notebook (or one of its cells) is analyzed whole and published per cell.
    if (auto nb = notebooks.notebook_of(uri)) uri = *nb;
    if (notebooks.is_open(uri)) {
      publish_notebook(uri);
      continue;
    }
    // The snapshot is taken now, not when the change arrived: a burst of changes queued the
    // document once, and only its latest text is analyzed.
    auto snap = documents.snapshot(uri);
    if (!snap) continue;
    try {
      std::vector<std::string> reanalyzed;
      auto analysis = analyze_document(*snap, &reanalyzed);
      {
        std::lock_guard lock(queue_mutex_);
        if (stopping_) return;  // shut down while analyzing: log and publish nothing more
      }
      if (analysis->skipped)
        log(2, "stoker: " + snap->path + " is " + std::to_string(snap->text.size() >> 20) +
                   " MiB; documents over " + std::to_string(kMaxAnalyzedBytes >> 20) + " MiB are not analyzed");
      for (const auto& n : analysis->result.notices) log(4, n.file + ": " + n.message);
      for (const auto& e : analysis->result.errors) log(1, "stoker: " + e.file + ": " + e.message);
      if (!analysis->failure.empty()) log(1, "stoker: " + snap->path + ": " + analysis->failure);
      if (!analysis->failure.empty() || !analysis->result.errors.empty()) {
        // A pop-up once per document until it analyzes again, not on every keystroke.
        if (failed_.insert(uri).second && state == State::Running)
          send(make_notification("window/showMessage",
                                 {{"type", 1},
                                  {"message", "stoker could not analyze " + snap->path + ": " +
                                                  (analysis->failure.empty() ? analysis->result.errors.front().message
                                                                             : analysis->failure)}}));
      } else {
        failed_.erase(uri);
      }
      // Published only if no newer text (or settings) arrived meanwhile.
      documents.commit(uri, analysis, [this](const Snapshot& s, const Analysis& a) { publish(s, a); });
      // Open modules whose results changed with this one: published again (from memory).
      if (!reanalyzed.empty())
        for (const auto& other : documents.uris())
          if (auto o = documents.snapshot(other); o && other != uri)
            for (const auto& p : reanalyzed)
              if (p == o->path) schedule(other);
    } catch (...) {
      log(1, "stoker: analysis of " + snap->path + " failed: " + describe_analysis_failure(std::current_exception()));
    }
  }
}

void Session::publish(const Snapshot& snap, const Analysis& analysis) {
  json diags = json::array();
  if (client_settings().enable) {
    PositionMapper map(*analysis.source);
    for (const auto& d : analysis.result.diagnostics) diags.push_back(to_lsp_diagnostic(d, map, snap.uri, rules));
  }
  send(make_notification("textDocument/publishDiagnostics",
                         {{"uri", snap.uri}, {"version", snap.version}, {"diagnostics", diags}}));
}

void Session::clear_diagnostics(const std::string& uri) {
  send(make_notification("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}}));
}

std::shared_ptr<const Analysis> Session::analysis_now(const std::string& uri) {
  if (auto a = documents.current_analysis(uri)) return a;
  if (auto nb = notebooks.notebook_of(uri)) {
    for (auto& cell : analyze_notebook(*nb))
      if (cell.snap.uri == uri) return cell.analysis;
    return nullptr;
  }
  auto snap = documents.snapshot(uri);
  if (!snap) return nullptr;
  return analyze_document(*snap, nullptr);
}

std::shared_ptr<Analysis> Session::analyze_document(const Snapshot& snap, std::vector<std::string>* reanalyzed) {
  Settings settings = settings_for(snap);
  bool py = snap.path.size() > 3 && snap.path.compare(snap.path.size() - 3, 3, ".py") == 0;
  if (!py || snap.text.size() > kMaxAnalyzedBytes) return analyze_snapshot(snap, settings);
  std::unordered_map<std::string, std::string> open_text;
  for (const auto& other : documents.uris())
    if (auto o = documents.snapshot(other); o && other != snap.uri) open_text[o->path] = o->text;
  return project.analyze(snap, settings, open_text, reanalyzed);
}

void Session::log(int type, const std::string& message) {
  {
    std::lock_guard lock(log_mutex_);
    log_ << message << "\n";
    log_.flush();
  }
  if (state == State::Running) send(make_notification("window/logMessage", {{"type", type}, {"message", message}}));
}

}  // namespace stoker::lsp
