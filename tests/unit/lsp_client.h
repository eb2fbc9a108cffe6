// Drives the real `stoker server` binary over pipes, as an editor would.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace lsp_test {

using json = nlohmann::json;

// The deadlines below bound how long a test waits for the server before failing; they are not
// speed checks. Under AddressSanitizer (build-asan) everything runs several times slower.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kDeadlineScale = 8;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr int kDeadlineScale = 8;
#else
inline constexpr int kDeadlineScale = 1;
#endif
#else
inline constexpr int kDeadlineScale = 1;
#endif

inline std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class LspProcess {
 public:
  explicit LspProcess(std::vector<std::string> args = {"server"}) {
    int in_pipe[2], out_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
    char tmpl[] = "/tmp/stoker-lsp-stderr-XXXXXX";
    int err_fd = mkstemp(tmpl);
    if (err_fd < 0) throw std::runtime_error("mkstemp failed");
    stderr_path_ = tmpl;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    std::vector<std::string> argv_s = {STOKER_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, STOKER_BINARY, &actions, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start " STOKER_BINARY);
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_fd);
    to_server_ = in_pipe[1];
    from_server_ = out_pipe[0];
    signal(SIGPIPE, SIG_IGN);
  }

  ~LspProcess() {
    if (to_server_ >= 0) close(to_server_);
    if (pid_ > 0 && exit_code_ == kRunning) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(from_server_);
    unlink(stderr_path_.c_str());
  }

  void send_raw(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(to_server_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) throw std::runtime_error("write to server failed");
      done += static_cast<size_t>(n);
    }
  }
  void send(const json& message) { send_raw(frame(message.dump())); }
  void notify(const std::string& method, json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  int send_request(const std::string& method, json params) {
    int id = next_id_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  void close_stdin() {
    close(to_server_);
    to_server_ = -1;
  }

  // The next message, or null after timeout_ms / end of output. Anything on stdout that is not a
  // well-formed frame throws: stdout must carry protocol only.
  json read(int timeout_ms = 10000) { return read_unscaled(timeout_ms * kDeadlineScale); }
  json read_unscaled(int timeout_ms) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      if (auto m = take_frame()) return *m;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return nullptr;
      pollfd p{from_server_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return nullptr;
      char buf[65536];
      ssize_t n = ::read(from_server_, buf, sizeof buf);
      if (n <= 0) return nullptr;
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  // Reads until a message satisfies `pred`; the messages skipped are kept in `skipped`.
  json wait_for(const std::function<bool(const json&)>& pred, int timeout_ms = 10000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms * kDeadlineScale);
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return nullptr;
      json m = read_unscaled(static_cast<int>(left.count()));
      if (m.is_null()) return nullptr;
      if (pred(m)) return m;
      skipped.push_back(m);
    }
  }
  json response(const json& id, int timeout_ms = 10000) {
    return wait_for([&](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); },
                    timeout_ms);
  }
  json request(const std::string& method, json params) { return response(send_request(method, std::move(params))); }
  json diagnostics_for(const std::string& uri, int timeout_ms = 10000) {
    return wait_for(
        [&](const json& m) {
          return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
        },
        timeout_ms);
  }

  json initialize(json options = json::object()) {
    json r = request("initialize", {{"processId", nullptr},
                                    {"rootUri", nullptr},
                                    {"capabilities", json::object()},
                                    {"initializationOptions", options}});
    notify("initialized", json::object());
    return r;
  }

  // The exit code, or -1 if the process did not end within timeout_ms.
  int wait_exit(int timeout_ms = 10000) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms * kDeadlineScale);
    while (exit_code_ == kRunning) {
      int status;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      usleep(5000);
    }
    return exit_code_;
  }

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::vector<json> skipped;

 private:
  std::optional<json> take_frame() {
    static const std::string prefix = "Content-Length: ";
    if (buffer_.empty()) return std::nullopt;
    if (buffer_.compare(0, std::min(buffer_.size(), prefix.size()), prefix, 0,
                        std::min(buffer_.size(), prefix.size())) != 0)
      throw std::runtime_error("non-protocol output on stdout: " + buffer_.substr(0, 200));
    size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) return std::nullopt;
    size_t length = std::stoul(buffer_.substr(prefix.size(), end - prefix.size()));
    if (buffer_.size() < end + 4 + length) return std::nullopt;
    json m = json::parse(buffer_.substr(end + 4, length));  // throws if the server wrote bad JSON
    buffer_.erase(0, end + 4 + length);
    return m;
  }

  static constexpr int kRunning = -1000;
  pid_t pid_ = -1;
  int to_server_ = -1, from_server_ = -1;
  int exit_code_ = kRunning;
  int next_id_ = 1;
  std::string buffer_;
  std::string stderr_path_;
};

}  // namespace lsp_test
