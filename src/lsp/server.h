// The language server's message loop.
#pragma once

#include <istream>
#include <ostream>

namespace stoker::lsp {

// Serves LSP on the streams until `exit` or the end of input. Returns the process exit code:
// 0 after shutdown, 1 when the input ended or `exit` came without `shutdown` (as LSP says).
// A reader thread reads `in` so that $/cancelRequest is seen while earlier requests wait; if
// `exit` arrives before the end of input that thread is left blocked on `in`, which must
// therefore outlive the call (std::cin does).
int run_server(std::istream& in, std::ostream& out, std::ostream& log);

// `stoker server`: stdin/stdout carry only protocol, logs go to stderr.
int serve_stdio();

}  // namespace stoker::lsp
