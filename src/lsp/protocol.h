// JSON-RPC 2.0 over the LSP base protocol: Content-Length framed messages on a byte stream.
// The reader never throws and never trusts the peer: a malformed header block becomes a
// Malformed frame (answered with a parse error), an oversized body is skipped, and a header
// line glued to the tail of a previous body is found again so one bad message cannot swallow
// the next one.
#pragma once

#include <cstddef>
#include <istream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stoker::lsp {

using json = nlohmann::json;

namespace error_code {
constexpr int ParseError = -32700;
constexpr int InvalidRequest = -32600;
constexpr int MethodNotFound = -32601;
constexpr int InvalidParams = -32602;
constexpr int InternalError = -32603;
constexpr int ServerNotInitialized = -32002;
constexpr int RequestCancelled = -32800;
}  // namespace error_code

// Thrown by handlers; the dispatcher turns it into an error response.
struct ProtocolError : std::runtime_error {
  int code;
  ProtocolError(int c, const std::string& message) : std::runtime_error(message), code(c) {}
};

struct Frame {
  enum class Kind { Message, Malformed, TooLarge, Eof };
  Kind kind = Kind::Eof;
  std::string body;   // Message: the JSON text
  std::string error;  // Malformed / TooLarge: what was wrong
};

class FrameReader {
 public:
  explicit FrameReader(std::istream& in, size_t max_body = size_t{256} << 20) : in_(in), max_body_(max_body) {}
  Frame next();

 private:
  bool read_line(std::string& line);
  std::istream& in_;
  size_t max_body_;
};

std::string encode_frame(std::string_view body);

// Serializes whole frames onto one stream from any thread.
class FrameWriter {
 public:
  explicit FrameWriter(std::ostream& out) : out_(out) {}
  void write(const json& message);

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

// Message builders.
json make_response(const json& id, json result);
json make_error(const json& id, int code, const std::string& message);
json make_notification(const std::string& method, json params);

// What kind of message a parsed body is, after validation against JSON-RPC 2.0.
struct Incoming {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  json id;             // Request (and Invalid when an id could be read)
  std::string method;  // Request / Notification
  json params;         // null when absent
  std::string error;   // Invalid: why
};
Incoming classify(const json& message);

}  // namespace stoker::lsp
