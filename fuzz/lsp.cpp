// Target (d): the language server's input side. The bytes are read as a client's stream:
// first with FrameReader and classify() alone (framing, JSON-RPC validation), then by the
// whole server (run_server: reader thread, dispatch, handlers, analysis worker) with its
// output thrown away.
#include <deque>
#include <memory>
#include <sstream>
#include <vector>

#include "fuzz_support.h"
#include "lsp/protocol.h"
#include "lsp/server.h"

// The server leaves its session and analysis worker behind, on purpose, when `exit` comes during
// an analysis longer than 500 ms (lsp/server.h); with project mode reading sibling modules, seed
// sessions over the examples reach that. LeakSanitizer's check at exit is off for this target
// (libFuzzer's per-input check is off in fuzz/run.sh), in the fuzz build and in the seed and
// regression ctests alike; every other target keeps both.
extern "C" int __lsan_is_turned_off() { return 1; }

namespace {

// The streams one run_server call uses. run_server can leave threads behind that still use
// them after it returns (lsp/server.h, session.h): the reader thread when `exit` comes before
// the end of input (it reads `in` to its end, which takes far less than the time of 16 more
// inputs), and the analysis worker, with the session and its writer, when `exit` comes during
// an analysis that lasts more than 500 ms (the server logs "exiting during an analysis"; the
// real server is then about to exit). So the streams of the last 16 runs are kept, and those of
// a run that left its worker behind are never destroyed.
struct Streams {
  std::istringstream in;
  std::ostringstream out, log;
  explicit Streams(const std::string& text) : in(text) {}
};
std::deque<std::unique_ptr<Streams>> recent;
std::vector<std::unique_ptr<Streams>> abandoned;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stoker::lsp;
  std::string text = stoker::fuzz::bytes(data, size);
  {
    std::istringstream in(text);
    FrameReader reader(in, 1 << 16);
    for (int i = 0; i < 1000; ++i) {
      Frame f = reader.next();
      if (f.kind == Frame::Kind::Eof) break;
      if (f.kind != Frame::Kind::Message) continue;
      json m = json::parse(f.body, nullptr, /*allow_exceptions=*/false);
      if (!m.is_discarded()) classify(m);
    }
  }
  auto streams = std::make_unique<Streams>(text);
  Streams& s = *streams;
  run_server(s.in, s.out, s.log);
  if (s.log.str().find("exiting during an analysis") != std::string::npos) {
    abandoned.push_back(std::move(streams));
  } else {
    recent.push_back(std::move(streams));
    if (recent.size() > 16) recent.pop_front();
  }
  return 0;
}
