// The server's state shared by the handlers: documents, editor settings, the analysis worker,
// and the way out (protocol messages on stdout, logs on stderr and window/logMessage).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <thread>

#include "core/rules.h"
#include "lsp/document_settings.h"
#include "lsp/documents.h"
#include "lsp/notebooks.h"
#include "lsp/project_analysis.h"
#include "lsp/protocol.h"

namespace stoker::lsp {

// Above this size a document is not analyzed (its diagnostics are cleared and a message logged).
constexpr size_t kMaxAnalyzedBytes = size_t{8} << 20;

// Analyzes one snapshot (the same library call as `stoker check`).
std::shared_ptr<Analysis> analyze_snapshot(const Snapshot& snap, const Settings& settings);

class Session {
 public:
  enum class State { Uninitialized, Running, ShutDown };

  Session(FrameWriter& writer, std::ostream& log);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  DocumentStore documents;
  NotebookStore notebooks;
  ProjectMemo project;  // module states of the documents' projects (project_analysis.h)
  const RuleRegistry& rules;
  std::atomic<State> state{State::Uninitialized};  // written by the message loop only

  void set_client_settings(ClientSettings s);
  ClientSettings client_settings() const;
  Settings settings_for(const Snapshot& snap);  // logs configuration problems

  // Queues a document for analysis on the worker; a burst of changes analyzes the latest text once.
  void schedule(const std::string& uri);
  void schedule_all();
  // The analysis of the current text: the committed one, or a synchronous one when it is pending.
  std::shared_ptr<const Analysis> analysis_now(const std::string& uri);
  void clear_diagnostics(const std::string& uri);
  // Stops the worker from starting (or publishing) anything more; does not wait.
  void request_stop();
  // request_stop, then waits up to `wait` for the worker to finish. False if it is still inside
  // an analysis: the thread is then detached and the Session must be leaked, not destroyed
  // (the process is about to exit; a long analysis must not hold up `exit`).
  bool finish_worker(std::chrono::milliseconds wait);

  // A notebook analyzed as one program, split into one Analysis per code cell (notebook_analysis.cpp).
  struct CellAnalysis {
    Snapshot snap;
    std::shared_ptr<Analysis> analysis;
  };
  std::vector<CellAnalysis> analyze_notebook(const std::string& notebook_uri);

  void send(const json& message) { writer_.write(message); }
  // 1 error, 2 warning, 3 info, 4 log (LSP MessageType).
  void log(int type, const std::string& message);

 private:
  // A document's analysis: a .py document in its project, anything else alone. `reanalyzed`:
  // paths of other modules whose results changed with it.
  std::shared_ptr<Analysis> analyze_document(const Snapshot& snap, std::vector<std::string>* reanalyzed);
  void worker_loop();
  void run_worker();
  void publish(const Snapshot& snap, const Analysis& analysis);
  void publish_notebook(const std::string& notebook_uri);

  FrameWriter& writer_;
  std::ostream& log_;
  std::mutex log_mutex_;

  mutable std::mutex settings_mutex_;
  ClientSettings client_;

  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<std::string> queue_;
  std::set<std::string> failed_;  // documents whose last analysis failed (worker thread only)
  bool stopping_ = false;
  bool worker_done_ = false;
  std::thread worker_;
};

}  // namespace stoker::lsp
