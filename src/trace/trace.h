// PyTorch profiler (Kineto) Chrome traces: the events stoker measures, read in one streaming
// pass (nlohmann_json's SAX interface over a zlib stream; never a DOM of the whole trace).
// What is kept is compact: GPU activity intervals, step windows, the host events that can keep
// a GPU waiting, the other host ops (to say what ran during unexplained idle time) and Python
// frames. docs/cli.md ("Measured costs") describes the measurement.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace stoker::trace {

// A trace that cannot be read: the message names the file and says what is wrong.
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a host event can be waiting for. The order is the attribution priority: an idle instant
// covered by several host events goes to the most specific one (an `aten::item` inside an
// optimizer step is a readback).
enum class HostKind : uint8_t {
  Readback,      // aten::item, aten::_local_scalar_dense, aten::is_nonzero
  Sync,          // cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize
  BlockingCopy,  // synchronous cudaMemcpy*
  PageableCopy,  // cudaMemcpyAsync whose copy is `Memcpy HtoD (Pageable -> Device)`
  Alloc,         // cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost, cudaHostAlloc
  Loader,        // DataLoader __next__ (enumerate(DataLoader)#...__next__)
  Optimizer,     // Optimizer.step#..., Optimizer.zero_grad#...
  Other,         // any other host op (only used to name what runs during idle time)
};
constexpr int kHostKinds = 8;
const char* to_string(HostKind k);  // "readback", "sync", "blocking-copy", ...

struct Frame {
  std::string file;  // as the trace writes it (absolute, or relative to site-packages)
  int line = 0;
  std::string function;
};

struct HostEvent {
  double start = 0, end = 0;  // microseconds, as in the trace
  uint32_t thread = 0;        // index into Trace::threads
  uint32_t name = 0;          // index into Trace::names
  int32_t stack = -1;         // index into Trace::stacks (innermost frame first), -1: none
  HostKind kind = HostKind::Other;
  int64_t correlation = -1;   // CUDA runtime calls: the correlation id of their GPU activity
};

struct Interval {
  double start = 0, end = 0;
};

struct Step {
  std::string name;  // "ProfilerStep#12"
  double start = 0, end = 0;
};

struct PyFrameEvent {
  double start = 0, end = 0;
  uint32_t thread = 0;
  uint32_t name = 0;  // "train.py(42): train_step"
};

struct Trace {
  std::string path;
  std::vector<Interval> gpu;        // kernel, memcpy and memset activity, all devices and streams
  std::vector<Step> steps;          // ProfilerStep#N windows on the host
  std::vector<HostEvent> host;      // host events (every kind)
  std::vector<PyFrameEvent> python; // python_function events (with_stack=True on Kineto)
  std::vector<std::string> names;   // interned event names
  std::vector<std::string> threads; // interned "pid/tid"
  std::vector<std::vector<Frame>> stacks;  // interned call stacks, innermost frame first
  size_t events = 0;                // trace events read
};

// Reads `path` (.json, or gzip-compressed: detected from the bytes). Throws TraceError.
Trace read_trace(const std::string& path);
// The same from bytes in memory (tests, fuzzing).
Trace parse_trace(const std::string& bytes, const std::string& name);

// "file(line): function" (the form of Kineto python_function names and of torch's stacks);
// false for anything else ("<built-in method item ...>", "nn.Module: Linear_0").
bool parse_frame(const std::string& text, Frame& out);

}  // namespace stoker::trace
