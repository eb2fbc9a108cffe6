// Streaming reader of Kineto Chrome traces (see trace.h).
#include "trace/trace.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <memory>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <unordered_map>
#include <unordered_set>

namespace stoker::trace {

const char* to_string(HostKind k) {
  switch (k) {
    case HostKind::Readback: return "readback";
    case HostKind::Sync: return "sync";
    case HostKind::BlockingCopy: return "blocking-copy";
    case HostKind::PageableCopy: return "pageable-copy";
    case HostKind::Alloc: return "alloc";
    case HostKind::Loader: return "loader";
    case HostKind::Optimizer: return "optimizer";
    case HostKind::Other: return "other";
  }
  return "other";
}

bool parse_frame(const std::string& text, Frame& out) {
  // "path(123): name": the last "(digits): " of the text.
  size_t close = text.rfind("): ");
  if (close == std::string::npos || close == 0) return false;
  size_t open = text.rfind('(', close);
  if (open == std::string::npos || open == 0 || open + 1 == close) return false;
  int line = 0;
  for (size_t i = open + 1; i < close; ++i) {
    if (text[i] < '0' || text[i] > '9' || line > 100'000'000) return false;
    line = line * 10 + (text[i] - '0');
  }
  out.file = text.substr(0, open);
  out.line = line;
  out.function = text.substr(close + 3);
  return true;
}

namespace {

// Limits that keep memory bounded whatever the trace holds.
constexpr size_t kMaxRecords = 16'000'000;   // intervals and events kept
constexpr size_t kMaxNames = 1'000'000;      // distinct names (later ones read "(other)")
constexpr size_t kMaxNameLength = 1024;      // longer names are cut
constexpr size_t kMaxStacks = 200'000;       // distinct call stacks
constexpr size_t kMaxStackText = 64 * 1024;  // one "Call stack" argument

// A read buffer over a file, inflating gzip (or zlib) data when the bytes say so.
class InputBuffer : public std::streambuf {
 public:
  InputBuffer(std::FILE* f, const std::string* memory) : file_(f), memory_(memory) {}
  ~InputBuffer() override {
    if (inflating_) inflateEnd(&zs_);
  }
  const std::string& error() const { return error_; }
  bool compressed() const { return compressed_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (!started_) {
      start();
      if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    }
    size_t n = compressed_ ? inflate_some() : read_raw(out_, sizeof out_);
    if (n == 0) return traits_type::eof();
    setg(out_, out_, out_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  size_t read_raw(char* dst, size_t cap) {
    if (memory_) {
      size_t n = std::min(cap, memory_->size() - mem_pos_);
      std::memcpy(dst, memory_->data() + mem_pos_, n);
      mem_pos_ += n;
      return n;
    }
    size_t n = std::fread(dst, 1, cap, file_);
    if (n == 0 && std::ferror(file_)) error_ = std::string("read error: ") + std::strerror(errno);
    return n;
  }
  void start() {
    started_ = true;
    in_len_ = read_raw(in_, sizeof in_);
    compressed_ = in_len_ >= 2 && static_cast<unsigned char>(in_[0]) == 0x1f && static_cast<unsigned char>(in_[1]) == 0x8b;
    if (compressed_) {
      std::memset(&zs_, 0, sizeof zs_);
      if (inflateInit2(&zs_, 15 + 32) != Z_OK) {
        error_ = "cannot initialize zlib";
        compressed_ = false;
        in_len_ = 0;
        return;
      }
      inflating_ = true;
      zs_.next_in = reinterpret_cast<Bytef*>(in_);
      zs_.avail_in = static_cast<uInt>(in_len_);
    } else {
      // The bytes already read are the first output.
      std::memcpy(out_, in_, in_len_);
      setg(out_, out_, out_ + in_len_);
    }
  }
  size_t inflate_some() {
    if (!error_.empty()) return 0;
    while (true) {
      if (zs_.avail_in == 0 && !in_eof_) {
        in_len_ = read_raw(in_, sizeof in_);
        if (in_len_ == 0) in_eof_ = true;
        zs_.next_in = reinterpret_cast<Bytef*>(in_);
        zs_.avail_in = static_cast<uInt>(in_len_);
      }
      if (zs_.avail_in == 0 && in_eof_) {
        if (!stream_end_) error_ = "truncated gzip data (the file ends inside the compressed stream)";
        return 0;
      }
      if (stream_end_) {  // another gzip member follows (concatenated .gz files)
        if (inflateReset(&zs_) != Z_OK) {
          error_ = "corrupt gzip data";
          return 0;
        }
        stream_end_ = false;
      }
      zs_.next_out = reinterpret_cast<Bytef*>(out_);
      zs_.avail_out = sizeof out_;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      size_t produced = sizeof out_ - zs_.avail_out;
      if (rc == Z_STREAM_END) stream_end_ = true;
      else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        error_ = std::string("corrupt gzip data (") + (zs_.msg ? zs_.msg : "zlib error") + ")";
        return 0;
      }
      if (produced) return produced;
      if (rc == Z_BUF_ERROR && zs_.avail_in != 0) {
        error_ = "corrupt gzip data";
        return 0;
      }
    }
  }

  std::FILE* file_;
  const std::string* memory_;
  size_t mem_pos_ = 0;
  bool started_ = false, compressed_ = false, inflating_ = false, in_eof_ = false, stream_end_ = false;
  size_t in_len_ = 0;
  z_stream zs_{};
  char in_[1 << 16];
  char out_[1 << 16];
  std::string error_;
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

HostKind classify(const std::string& name) {
  if (name == "aten::item" || name == "aten::_local_scalar_dense" || name == "aten::is_nonzero")
    return HostKind::Readback;
  if (name == "cudaStreamSynchronize" || name == "cudaDeviceSynchronize" || name == "cudaEventSynchronize")
    return HostKind::Sync;
  if (starts_with(name, "cudaMemcpy") && name.find("Async") == std::string::npos) return HostKind::BlockingCopy;
  if (name == "cudaMalloc" || name == "cudaFree" || name == "cudaMallocHost" || name == "cudaFreeHost" ||
      name == "cudaHostAlloc" || name == "cudaMallocAsync" || name == "cudaFreeAsync")
    return HostKind::Alloc;
  if (name.find("DataLoader") != std::string::npos && name.find("__next__") != std::string::npos)
    return HostKind::Loader;
  if (starts_with(name, "Optimizer.step#") || starts_with(name, "Optimizer.zero_grad#")) return HostKind::Optimizer;
  return HostKind::Other;
}

struct Raw {
  std::string ph, name, cat, pid, tid, stack;
  double ts = 0, dur = -1;
  bool has_ts = false;
  int64_t correlation = -1;
  void clear() {
    ph.clear(), name.clear(), cat.clear(), pid.clear(), tid.clear(), stack.clear();
    ts = 0, dur = -1, has_ts = false, correlation = -1;
  }
};

class Handler : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Handler(Trace& t) : t_(t) {}
  std::string error;
  bool found_events = false;
  std::unordered_set<int64_t> pageable;  // correlation ids of pageable host-to-device copies
  std::vector<std::pair<size_t, int64_t>> async_copies;  // (host index, correlation) of cudaMemcpyAsync

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), v); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(static_cast<double>(v), v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v));
  }
  bool number_float(number_float_t v, const string_t&) override { return number(v, -1); }
  bool string(string_t& s) override {
    if (in_event() && depth_ == events_depth_ + 1) {
      if (key_ == "ph") raw_.ph = s;
      else if (key_ == "name") raw_.name = s.size() > kMaxNameLength ? s.substr(0, kMaxNameLength) : s;
      else if (key_ == "cat") raw_.cat = s;
      else if (key_ == "pid") raw_.pid = s;
      else if (key_ == "tid") raw_.tid = s;
    } else if (in_args_ && depth_ == events_depth_ + 2 && key_ == "Call stack") {
      raw_.stack = s.size() > kMaxStackText ? s.substr(0, kMaxStackText) : s;
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) top_object_ = true;
    if (events_depth_ > 0 && depth_ == events_depth_ + 1) {
      event_open_ = true;
      raw_.clear();
    } else if (in_event() && depth_ == events_depth_ + 2 && key_ == "args") {
      in_args_ = true;
    }
    return true;
  }
  bool end_object() override {
    if (in_event() && depth_ == events_depth_ + 2) in_args_ = false;
    if (in_event() && depth_ == events_depth_ + 1) {
      event_open_ = false;
      ++t_.events;
      if (!finish()) return false;
    }
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (events_depth_ < 0 && ((depth_ == 1) || (depth_ == 2 && top_object_ && top_key_ == "traceEvents"))) {
      events_depth_ = depth_;
      found_events = true;
    }
    return true;
  }
  bool end_array() override {
    if (depth_ == events_depth_) events_depth_ = -2;  // the events array is closed
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1 && top_object_) top_key_ = k;
    if (in_event() && depth_ == events_depth_ + 1) key_ = k;
    else if (in_args_ && depth_ == events_depth_ + 2) key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    if (auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
    error = "not valid JSON at byte " + std::to_string(position) + " of the trace text: " + what;
    return false;
  }

 private:
  bool in_event() const { return event_open_; }
  bool number(double d, int64_t i) {
    if (in_event() && depth_ == events_depth_ + 1) {
      if (key_ == "ts") raw_.ts = d, raw_.has_ts = true;
      else if (key_ == "dur") raw_.dur = d;
      else if (key_ == "pid") raw_.pid = std::to_string(i);
      else if (key_ == "tid") raw_.tid = std::to_string(i);
    } else if (in_args_ && depth_ == events_depth_ + 2 && key_ == "correlation") {
      raw_.correlation = i;
    }
    return true;
  }
  uint32_t intern(const std::string& s) {
    auto it = names_.find(s);
    if (it != names_.end()) return it->second;
    if (t_.names.size() >= kMaxNames) return intern_other();
    uint32_t id = static_cast<uint32_t>(t_.names.size());
    t_.names.push_back(s);
    names_.emplace(s, id);
    return id;
  }
  uint32_t intern_other() {
    auto it = names_.find("(other)");
    if (it != names_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(t_.names.size());
    t_.names.push_back("(other)");
    names_.emplace("(other)", id);
    return id;
  }
  uint32_t thread() {
    std::string key = raw_.pid + "/" + raw_.tid;
    auto it = threads_.find(key);
    if (it != threads_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(t_.threads.size());
    t_.threads.push_back(key);
    threads_.emplace(key, id);
    return id;
  }
  int32_t stack() {
    if (raw_.stack.empty()) return -1;
    auto it = stacks_.find(raw_.stack);
    if (it != stacks_.end()) return it->second;
    if (t_.stacks.size() >= kMaxStacks) return -1;
    std::vector<Frame> frames;
    size_t from = 0;
    while (from <= raw_.stack.size()) {
      size_t to = raw_.stack.find(';', from);
      if (to == std::string::npos) to = raw_.stack.size();
      std::string item = raw_.stack.substr(from, to - from);
      // Kineto quotes the whole argument in some versions.
      while (!item.empty() && (item.front() == '"' || item.front() == ' ')) item.erase(item.begin());
      while (!item.empty() && (item.back() == '"' || item.back() == ' ')) item.pop_back();
      Frame f;
      if (parse_frame(item, f)) frames.push_back(std::move(f));
      from = to + 1;
    }
    int32_t id = static_cast<int32_t>(t_.stacks.size());
    t_.stacks.push_back(std::move(frames));
    stacks_.emplace(raw_.stack, id);
    return id;
  }
  bool room() {
    if (t_.gpu.size() + t_.host.size() + t_.python.size() + t_.steps.size() < kMaxRecords) return true;
    error = "more than " + std::to_string(kMaxRecords) + " events to measure: the trace is too large";
    return false;
  }
  bool finish() {
    if (raw_.ph != "X" || !raw_.has_ts || raw_.dur < 0) return true;
    const double start = raw_.ts, end = raw_.ts + raw_.dur;
    if (!std::isfinite(start) || !std::isfinite(end)) return true;
    std::string cat = raw_.cat;
    std::transform(cat.begin(), cat.end(), cat.begin(), [](unsigned char c) { return std::tolower(c); });
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" || cat == "memset") {
      if (!room()) return false;
      if (raw_.dur > 0) t_.gpu.push_back({start, end});
      if (raw_.name.find("Pageable -> Device") != std::string::npos && raw_.correlation >= 0)
        pageable.insert(raw_.correlation);
      return true;
    }
    if (cat == "gpu_user_annotation" || cat == "cuda_sync" || cat == "trace" || cat == "ac2g" || cat == "fwdbwd")
      return true;
    // Kineto names a step window "ProfilerStep#N"; the autograd profiler "ProfilerStep*".
    if (starts_with(raw_.name, "ProfilerStep#") || starts_with(raw_.name, "ProfilerStep*")) {
      if (!room()) return false;
      t_.steps.push_back({raw_.name, start, end});
      return true;
    }
    if (cat == "python_function") {
      if (!room()) return false;
      t_.python.push_back({start, end, thread(), intern(raw_.name)});
      return true;
    }
    HostKind kind = classify(raw_.name);
    const bool runtime = cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime";
    const bool async_copy = runtime && starts_with(raw_.name, "cudaMemcpy") && raw_.name.find("Async") != std::string::npos;
    // Other runtime calls (cudaLaunchKernel, ...) name nothing the user wrote: not kept.
    if (kind == HostKind::Other && runtime && !async_copy) return true;
    if (!room()) return false;
    if (async_copy) async_copies.emplace_back(t_.host.size(), raw_.correlation);
    t_.host.push_back({start, end, thread(), intern(raw_.name), stack(), kind, raw_.correlation});
    return true;
  }

  Trace& t_;
  int depth_ = 0, events_depth_ = -1;
  bool top_object_ = false, event_open_ = false, in_args_ = false;
  std::string top_key_, key_;
  Raw raw_;
  std::unordered_map<std::string, uint32_t> names_, threads_;
  std::unordered_map<std::string, int32_t> stacks_;
};

// Python frames (python_function events) enclosing each host event worth a source location:
// on each thread, a sweep in start order keeps the stack of open frames.
void attach_python_stacks(Trace& t) {
  if (t.python.empty()) return;
  std::unordered_map<uint32_t, std::vector<size_t>> frames_by_thread, host_by_thread;
  for (size_t i = 0; i < t.python.size(); ++i) frames_by_thread[t.python[i].thread].push_back(i);
  for (size_t i = 0; i < t.host.size(); ++i)
    if (t.host[i].kind != HostKind::Other && t.host[i].stack < 0) host_by_thread[t.host[i].thread].push_back(i);
  std::unordered_map<std::string, int32_t> interned;
  for (auto& [thread, hosts] : host_by_thread) {
    auto fit = frames_by_thread.find(thread);
    if (fit == frames_by_thread.end()) continue;
    auto& frames = fit->second;
    std::sort(frames.begin(), frames.end(), [&](size_t a, size_t b) {
      const auto &x = t.python[a], &y = t.python[b];
      return x.start != y.start ? x.start < y.start : x.end > y.end;
    });
    std::sort(hosts.begin(), hosts.end(), [&](size_t a, size_t b) { return t.host[a].start < t.host[b].start; });
    std::vector<size_t> open;
    size_t next = 0;
    for (size_t h : hosts) {
      const HostEvent& ev = t.host[h];
      while (next < frames.size() && t.python[frames[next]].start <= ev.start) {
        while (!open.empty() && t.python[open.back()].end < t.python[frames[next]].start) open.pop_back();
        open.push_back(frames[next++]);
      }
      while (!open.empty() && t.python[open.back()].end < ev.start) open.pop_back();
      // Open frames that still contain the event, innermost first.
      std::string key;
      std::vector<Frame> stack;
      for (auto it = open.rbegin(); it != open.rend(); ++it) {
        const PyFrameEvent& f = t.python[*it];
        if (f.start <= ev.start && f.end >= ev.end) {
          Frame fr;
          if (parse_frame(t.names[f.name], fr)) {
            key += t.names[f.name];
            key += ';';
            stack.push_back(std::move(fr));
          }
        }
      }
      if (stack.empty()) continue;
      auto [it, inserted] = interned.emplace(key, static_cast<int32_t>(t.stacks.size()));
      if (inserted) {
        if (t.stacks.size() >= kMaxStacks) continue;
        t.stacks.push_back(std::move(stack));
      }
      t.host[h].stack = it->second;
    }
  }
}

Trace parse(std::FILE* f, const std::string* memory, const std::string& name) {
  Trace t;
  t.path = name;
  auto buffer = std::make_unique<InputBuffer>(f, memory);
  std::istream in(buffer.get());
  Handler h(t);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(in, &h, nlohmann::json::input_format_t::json, true);
  } catch (const std::exception& e) {
    if (h.error.empty()) h.error = e.what();
  }
  if ((!ok || !h.error.empty()) && buffer->compressed() && buffer->error().empty()) {
    // Bad JSON out of a compressed stream: say so if the stream itself is damaged.
    char sink[1 << 16];
    while (buffer->sgetn(sink, sizeof sink) > 0) {
    }
  }
  if (!buffer->error().empty()) throw TraceError(name + ": cannot read the trace: " + buffer->error());
  if (!ok || !h.error.empty())
    throw TraceError(name + ": cannot read the trace: " + (h.error.empty() ? std::string("invalid JSON") : h.error) +
                     (h.error.find("end of input") != std::string::npos ? " (truncated?)" : ""));
  if (!h.found_events)
    throw TraceError(name + ": not a PyTorch profiler trace (no `traceEvents` array)");
  for (auto [index, corr] : h.async_copies)
    if (corr >= 0 && h.pageable.count(corr)) t.host[index].kind = HostKind::PageableCopy;
  std::erase_if(t.host, [&](const HostEvent& e) {
    return e.kind == HostKind::Other && t.names[e.name].rfind("cudaMemcpy", 0) == 0;
  });
  attach_python_stacks(t);
  return t;
}

}  // namespace

Trace read_trace(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw TraceError(path + ": cannot open the trace: " + std::strerror(errno));
  return parse(f.get(), nullptr, path);
}

Trace parse_trace(const std::string& bytes, const std::string& name) { return parse(nullptr, &bytes, name); }

}  // namespace stoker::trace
