// Target (d): the language server's input side. The bytes are read as a client's stream:
// first with FrameReader and classify() alone (framing, JSON-RPC validation), then by the
// whole server (run_server: reader thread, dispatch, handlers, analysis worker) with its
// output thrown away.
#include <deque>
#include <memory>
#include <sstream>

#include "fuzz_support.h"
#include "lsp/protocol.h"
#include "lsp/server.h"

namespace {

// run_server leaves its reader thread running when `exit` comes before the end of input (see
// lsp/server.h), and that thread still reads the stream: streams are kept for a few more
// inputs instead of being destroyed at once. An istringstream is read to its end in far less
// than the time of 16 more inputs.
std::deque<std::unique_ptr<std::istringstream>> recent_streams;

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
  recent_streams.push_back(std::make_unique<std::istringstream>(text));
  if (recent_streams.size() > 16) recent_streams.pop_front();
  std::ostringstream out, log;
  run_server(*recent_streams.back(), out, log);
  return 0;
}
