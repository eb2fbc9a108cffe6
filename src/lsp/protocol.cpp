#include "lsp/protocol.h"

#include <algorithm>
#include <cctype>

namespace stoker::lsp {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Content-Length must be plain decimal digits; anything else is a malformed header.
bool parse_length(std::string_view v, size_t& out) {
  if (v.empty() || v.size() > 15) return false;
  size_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  out = n;
  return true;
}

constexpr std::string_view kLengthHeader = "content-length:";

}  // namespace

bool FrameReader::read_line(std::string& line) {
  line.clear();
  int c;
  auto* buf = in_.rdbuf();
  while ((c = buf->sbumpc()) != std::char_traits<char>::eof()) {
    if (c == '\n') return true;
    if (line.size() < 64 * 1024) line.push_back(static_cast<char>(c));  // header lines are short
  }
  return !line.empty();
}

Frame FrameReader::next() {
  std::string line;
  bool any_header = false;
  bool have_length = false;
  bool bad_length = false;
  size_t length = 0;
  while (true) {
    if (!read_line(line)) {
      if (any_header) return {Frame::Kind::Malformed, {}, "end of input inside a header block"};
      return {Frame::Kind::Eof, {}, {}};
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // stray blank line between messages
      break;
    }
    // A header glued to the end of a previous (unframed) body: start over at it.
    std::string low = lower(line);
    size_t at = low.find(kLengthHeader);
    if (at != std::string::npos && at > 0) {
      low.erase(0, at);
      line.erase(0, at);
    }
    any_header = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;  // junk line; tolerated when a length follows
    if (trim(std::string_view(low).substr(0, colon)) == "content-length") {
      size_t n;
      if (parse_length(trim(std::string_view(line).substr(colon + 1)), n)) {
        have_length = true;
        bad_length = false;
        length = n;
      } else {
        bad_length = true;
      }
    }
    // Other headers (Content-Type) carry nothing we need.
  }
  if (!have_length || bad_length)
    return {Frame::Kind::Malformed, {}, bad_length ? "invalid Content-Length header" : "missing Content-Length header"};
  if (length > max_body_) {
    in_.ignore(static_cast<std::streamsize>(length));
    return {Frame::Kind::TooLarge, {}, "message of " + std::to_string(length) + " bytes exceeds the limit"};
  }
  Frame f{Frame::Kind::Message, std::string(length, '\0'), {}};
  in_.read(f.body.data(), static_cast<std::streamsize>(length));
  if (static_cast<size_t>(in_.gcount()) != length)
    return {Frame::Kind::Malformed, {}, "end of input inside a message body"};
  return f;
}

std::string encode_frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

void FrameWriter::write(const json& message) {
  // Invalid UTF-8 must never make a reply throw; replace it.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard lock(mutex_);
  out_ << encode_frame(body);
  out_.flush();
}

json make_response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json make_notification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

Incoming classify(const json& m) {
  Incoming in;
  in.id = nullptr;
  if (!m.is_object()) {
    in.error = m.is_array() ? "batch messages are not supported by LSP" : "a message must be a JSON object";
    return in;
  }
  bool id_ok = false;
  if (auto it = m.find("id"); it != m.end()) {
    if (it->is_number_integer() || it->is_string()) {
      in.id = *it;
      id_ok = true;
    } else {
      in.error = "`id` must be an integer or a string";
      return in;
    }
  }
  auto ver = m.find("jsonrpc");
  if (ver == m.end() || !ver->is_string() || *ver != "2.0") {
    in.error = "`jsonrpc` must be \"2.0\"";
    return in;
  }
  auto method = m.find("method");
  if (method == m.end()) {
    if (id_ok && (m.contains("result") || m.contains("error"))) {
      in.kind = Incoming::Kind::Response;
      return in;
    }
    in.error = "a message needs a `method`";
    return in;
  }
  if (!method->is_string()) {
    in.error = "`method` must be a string";
    return in;
  }
  in.method = method->get<std::string>();
  if (auto p = m.find("params"); p != m.end() && !p->is_null()) {  // null: as if absent (common)
    if (!p->is_object() && !p->is_array()) {
      in.error = "`params` must be an object or an array";
      return in;
    }
    in.params = *p;
  }
  in.kind = id_ok ? Incoming::Kind::Request : Incoming::Kind::Notification;
  return in;
}

}  // namespace stoker::lsp
