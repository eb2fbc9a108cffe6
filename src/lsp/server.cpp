#include "lsp/server.h"

#include <csignal>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "lsp/handlers/handlers.h"
#include "lsp/protocol.h"
#include "lsp/session.h"

namespace stoker::lsp {

namespace {

using RequestHandler = json (*)(Session&, const json&);
using NotificationHandler = void (*)(Session&, const json&);

const std::map<std::string, RequestHandler>& request_handlers() {
  static const std::map<std::string, RequestHandler> table = {
      {"initialize", handlers::initialize},
      {"shutdown", handlers::shutdown},
      {"textDocument/codeAction", handlers::code_action},
      {"textDocument/hover", handlers::hover},
  };
  return table;
}

const std::map<std::string, NotificationHandler>& notification_handlers() {
  static const std::map<std::string, NotificationHandler> table = {
      {"initialized", handlers::initialized},
      {"textDocument/didOpen", handlers::did_open},
      {"textDocument/didChange", handlers::did_change},
      {"textDocument/didSave", handlers::did_save},
      {"textDocument/didClose", handlers::did_close},
      {"notebookDocument/didOpen", handlers::notebook_did_open},
      {"notebookDocument/didChange", handlers::notebook_did_change},
      {"notebookDocument/didSave", handlers::notebook_did_save},
      {"notebookDocument/didClose", handlers::notebook_did_close},
      {"workspace/didChangeConfiguration", handlers::did_change_configuration},
  };
  return table;
}

// What the reader thread hands to the message loop.
struct Item {
  enum class Kind { Message, ParseError, TooLarge, Eof } kind;
  json message;
  std::string error;
};

// Shared with the reader thread, which may outlive run_server (see server.h).
struct Inbox {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Item> items;
  std::set<std::string> cancelled;  // request ids (dumped) cancelled before they were handled
  bool reader_done = false;

  void push(Item item) {
    {
      std::lock_guard lock(mutex);
      items.push_back(std::move(item));
    }
    cv.notify_one();
  }
  Item pop() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return !items.empty(); });
    Item item = std::move(items.front());
    items.pop_front();
    return item;
  }
  bool take_cancelled(const json& id) {
    std::lock_guard lock(mutex);
    return cancelled.erase(id.dump()) > 0;
  }
};

void read_loop(std::istream& in, const std::shared_ptr<Inbox>& inbox) {
  FrameReader reader(in);
  while (true) {
    Frame f = reader.next();
    if (f.kind == Frame::Kind::Eof) break;
    if (f.kind == Frame::Kind::Malformed) {
      inbox->push({Item::Kind::ParseError, {}, "malformed header: " + f.error});
      continue;
    }
    if (f.kind == Frame::Kind::TooLarge) {
      inbox->push({Item::Kind::TooLarge, {}, f.error});
      continue;
    }
    json m = json::parse(f.body, nullptr, /*allow_exceptions=*/false);
    if (m.is_discarded()) {
      inbox->push({Item::Kind::ParseError, {}, "invalid JSON"});
      continue;
    }
    // Cancellation takes effect at once, ahead of the queue it refers to.
    if (m.is_object() && m.value("method", json()) == "$/cancelRequest" && m.contains("params") &&
        m["params"].is_object() && m["params"].contains("id")) {
      std::lock_guard lock(inbox->mutex);
      if (inbox->cancelled.size() > 10000) inbox->cancelled.clear();  // ids of long-finished requests
      inbox->cancelled.insert(m["params"]["id"].dump());
      continue;
    }
    inbox->push({Item::Kind::Message, std::move(m), {}});
  }
  {
    std::lock_guard lock(inbox->mutex);
    inbox->reader_done = true;
  }
  inbox->push({Item::Kind::Eof, {}, {}});
}

void handle_request(Session& session, const Incoming& in, Inbox& inbox) {
  if (inbox.take_cancelled(in.id)) {
    session.send(make_error(in.id, error_code::RequestCancelled, "request cancelled"));
    return;
  }
  if (session.state == Session::State::Uninitialized && in.method != "initialize") {
    session.send(make_error(in.id, error_code::ServerNotInitialized, "the server has not been initialized"));
    return;
  }
  if (session.state == Session::State::ShutDown) {
    session.send(make_error(in.id, error_code::InvalidRequest, "the server is shut down; only `exit` is accepted"));
    return;
  }
  auto it = request_handlers().find(in.method);
  if (it == request_handlers().end()) {
    session.send(make_error(in.id, error_code::MethodNotFound, "unknown method `" + in.method + "`"));
    return;
  }
  json params = in.params.is_null() ? json::object() : in.params;
  try {
    session.send(make_response(in.id, it->second(session, params)));
  } catch (const ProtocolError& e) {
    session.send(make_error(in.id, e.code, e.what()));
  } catch (const json::exception& e) {
    session.send(make_error(in.id, error_code::InvalidParams, std::string("invalid params: ") + e.what()));
  } catch (const std::exception& e) {
    session.send(make_error(in.id, error_code::InternalError, e.what()));
  } catch (...) {
    session.send(make_error(in.id, error_code::InternalError, "internal error (unknown exception)"));
  }
}

void handle_notification(Session& session, const Incoming& in) {
  if (session.state != Session::State::Running) return;  // dropped, as LSP says
  auto it = notification_handlers().find(in.method);
  if (it == notification_handlers().end()) {
    if (in.method.rfind("$/", 0) != 0) session.log(4, "stoker: ignoring notification `" + in.method + "`");
    return;
  }
  json params = in.params.is_null() ? json::object() : in.params;
  try {
    it->second(session, params);
  } catch (const std::exception& e) {
    session.log(2, "stoker: bad `" + in.method + "` notification: " + e.what());
  } catch (...) {
    session.log(1, "stoker: internal error handling `" + in.method + "` (unknown exception)");
  }
}

}  // namespace

int run_server(std::istream& in, std::ostream& out, std::ostream& log) {
  auto writer = std::make_unique<FrameWriter>(out);
  auto owned = std::make_unique<Session>(*writer, log);
  Session& session = *owned;
  auto inbox = std::make_shared<Inbox>();
  std::thread reader([&in, inbox] { read_loop(in, inbox); });

  int rc = 1;
  while (true) {
    Item item = inbox->pop();
    if (item.kind == Item::Kind::Eof) {
      rc = session.state == Session::State::ShutDown ? 0 : 1;
      break;
    }
    if (item.kind == Item::Kind::ParseError) {
      session.log(1, "stoker: " + item.error);
      session.send(make_error(nullptr, error_code::ParseError, item.error));
      continue;
    }
    if (item.kind == Item::Kind::TooLarge) {
      session.log(1, "stoker: " + item.error);
      session.send(make_error(nullptr, error_code::InvalidRequest, item.error));
      continue;
    }
    Incoming msg = classify(item.message);
    switch (msg.kind) {
      case Incoming::Kind::Invalid:
        session.send(make_error(msg.id, error_code::InvalidRequest, msg.error));
        break;
      case Incoming::Kind::Response:
        break;  // we send no requests that need answers
      case Incoming::Kind::Request:
        handle_request(session, msg, *inbox);
        break;
      case Incoming::Kind::Notification:
        if (msg.method == "exit") {
          rc = session.state == Session::State::ShutDown ? 0 : 1;
          goto done;
        }
        handle_notification(session, msg);
        break;
    }
  }
done:
  if (!session.finish_worker(std::chrono::milliseconds(500))) {
    session.log(4, "stoker: exiting during an analysis");
    owned.release();  // the detached worker still uses both; the process is exiting
    writer.release();
  }
  bool reader_done;
  {
    std::lock_guard lock(inbox->mutex);
    reader_done = inbox->reader_done;
  }
  if (reader_done) reader.join();
  else reader.detach();
  return rc;
}

int serve_stdio() {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client ends the server through EOF, not a signal
  std::ios::sync_with_stdio(false);
  std::cin.tie(nullptr);
  return run_server(std::cin, std::cout, std::cerr);
}

}  // namespace stoker::lsp
