// Test-only fault injection, read from the environment. Nothing here changes behaviour unless
// one of these variables is set; they exist so that tests/unit/robustness_test.cpp can drive the
// real binary through failures that no honest input produces on demand. Never set them in use.
//
//   STOKER_TEST_FAIL_ON=<kind>:<marker>
//       The Python parser and the C++ front end throw while analyzing any text that contains
//       <marker>. <kind>: bad_alloc (std::bad_alloc), exception (std::runtime_error) or other
//       (an int: an exception of no standard type).
//   STOKER_TEST_SYNC_AFTER_DISCOVERY=<fifo>
//       `stoker check`, once the files are discovered and before any is read, writes a line to
//       the FIFO and then waits for a line written back (a test changes the files meanwhile).
#pragma once

#include <string_view>

namespace stoker::test_hooks {

// Throws as STOKER_TEST_FAIL_ON asks when `text` contains its marker; otherwise nothing.
void fail_if_requested(std::string_view text);

// The STOKER_TEST_SYNC_AFTER_DISCOVERY handshake; returns at once when it is not set.
void sync_after_discovery();

}  // namespace stoker::test_hooks
