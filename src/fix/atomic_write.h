// Writing a fixed file safely: the new bytes go to a temporary file in the same directory,
// which is given the original's permissions and then renamed over it, so a reader sees either
// the old or the new file, never half of one. A file whose bytes differ from what was analyzed
// is not touched.
#pragma once

#include <string>
#include <string_view>

namespace stoker::fix {

// Replaces the file at `path` (a symbolic link is followed, the link stays) with `bytes` when
// its current content equals `expected`. Returns false and sets `error` otherwise.
bool replace_file_atomically(const std::string& path, std::string_view bytes, std::string_view expected,
                             std::string& error);

}  // namespace stoker::fix
