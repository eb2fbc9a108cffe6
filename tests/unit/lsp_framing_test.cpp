// The server's building blocks in-process: framing, message classification, URIs, settings.
#include <catch2/catch.hpp>
#include <sstream>

#include "lsp/document_settings.h"
#include "lsp/documents.h"
#include "lsp/protocol.h"
#include "lsp/uri.h"

using namespace stoker;
using namespace stoker::lsp;

TEST_CASE("frames are read by Content-Length, other headers ignored") {
  std::istringstream in("Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
                        "content-length:3\n\n[1]");
  FrameReader r(in);
  Frame a = r.next();
  CHECK(a.kind == Frame::Kind::Message);
  CHECK(a.body == "{}");
  Frame b = r.next();  // lower-case name and bare \n line ends are tolerated
  CHECK(b.kind == Frame::Kind::Message);
  CHECK(b.body == "[1]");
  CHECK(r.next().kind == Frame::Kind::Eof);
}

TEST_CASE("a header block without a valid length is malformed, and the next frame is still found") {
  std::istringstream in("Content-Length: 12x\r\n\r\n"
                        "Content-Type: text/plain\r\n\r\n"
                        "{\"junk\": 1}Content-Length: 2\r\n\r\n{}");
  FrameReader r(in);
  Frame a = r.next();
  CHECK(a.kind == Frame::Kind::Malformed);
  CHECK(a.error == "invalid Content-Length header");
  Frame b = r.next();
  CHECK(b.kind == Frame::Kind::Malformed);
  CHECK(b.error == "missing Content-Length header");
  // The unframed body is glued to the next header; the reader resynchronizes on it.
  Frame c = r.next();
  CHECK(c.kind == Frame::Kind::Message);
  CHECK(c.body == "{}");
}

TEST_CASE("an oversized body is skipped without being stored") {
  std::istringstream in("Content-Length: 10\r\n\r\n0123456789Content-Length: 2\r\n\r\n{}");
  FrameReader r(in, 5);
  CHECK(r.next().kind == Frame::Kind::TooLarge);
  Frame b = r.next();
  CHECK(b.kind == Frame::Kind::Message);
  CHECK(b.body == "{}");
}

TEST_CASE("a body cut short by the end of input is malformed") {
  std::istringstream in("Content-Length: 10\r\n\r\n{}");
  FrameReader r(in);
  CHECK(r.next().kind == Frame::Kind::Malformed);
  CHECK(r.next().kind == Frame::Kind::Eof);
}

TEST_CASE("messages are classified by JSON-RPC 2.0 rules") {
  using K = Incoming::Kind;
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"x"})")).kind == K::Request);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":"a","method":"x","params":[]})")).kind == K::Request);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","method":"x"})")).kind == K::Notification);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"result":null})")).kind == K::Response);
  auto bad_version = classify(json::parse(R"({"jsonrpc":"1.0","id":4,"method":"x"})"));
  CHECK(bad_version.kind == K::Invalid);
  CHECK(bad_version.id == 4);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})")).kind == K::Invalid);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":7})")).kind == K::Invalid);
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":3})")).kind == K::Invalid);
  CHECK(classify(json::parse(R"([{"jsonrpc":"2.0","method":"x"}])")).kind == K::Invalid);
  CHECK(classify(json::parse("42")).kind == K::Invalid);
}

TEST_CASE("file URIs round-trip with percent-encoding") {
  CHECK(path_from_uri("file:///home/u/my%20proj/train.py") == "/home/u/my proj/train.py");
  CHECK(path_from_uri("file://localhost/tmp/a.py") == "/tmp/a.py");
  CHECK(path_from_uri("untitled:Untitled-1") == "untitled:Untitled-1");
  CHECK(path_from_uri("file:///bad%zz") == "/bad%zz");
  CHECK(uri_from_path("/home/u/my proj/é.py") == "file:///home/u/my%20proj/%C3%A9.py");
  CHECK(path_from_uri(uri_from_path("/a b/c#d.py")) == "/a b/c#d.py");
}

TEST_CASE("incremental changes apply at UTF-16 positions") {
  DocumentStore store;
  store.open("file:///a.py", "python", 1, "s = '\xF0\x9F\x98\x80'\nx = 1\n");
  TextChange c;
  c.start = {{0, 7}};  // after the emoji (two UTF-16 units) and the opening quote
  c.end = {{0, 7}};
  c.text = "!";
  REQUIRE(store.change("file:///a.py", 2, {c}));
  CHECK(store.snapshot("file:///a.py")->text == "s = '\xF0\x9F\x98\x80!'\nx = 1\n");
  CHECK(store.snapshot("file:///a.py")->version == 2);
  CHECK_FALSE(store.change("file:///never-opened.py", 1, {c}));
}

TEST_CASE("editor settings are read leniently") {
  std::vector<std::string> problems;
  auto s = parse_client_settings(json::parse(R"({"stoker":{"gpu":"h100-sxm","enable":"yes","ignore":["DL001","XX9"]}})"),
                                 problems);
  CHECK(s.gpu == "h100-sxm");
  CHECK(s.enable);
  CHECK(s.ignore == std::vector<std::string>{"DL001", "XX9"});
  CHECK(problems.front() == "stoker.enable must be true or false");
  CHECK(problems.back() == "stoker.ignore: unknown rule selector `XX9`");
  Settings st = settings_for_document("/x/train.py", s);
  CHECK(st.gpu == "h100-sxm");
  CHECK_FALSE(st.rules.enabled("DL001"));
}
