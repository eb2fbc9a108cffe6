// The PyTorch version the analyzed code targets (`target-torch-version`): parsing "MAJOR.MINOR",
// the newest release the rules know, and the version a project declares in requirements.txt or
// pyproject.toml (the lowest release its torch requirement admits, as ruff reads
// requires-python for target-version).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace stoker {

struct TorchVersion {
  int major = 0, minor = 0;
  friend bool operator<(TorchVersion a, TorchVersion b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// The newest PyTorch release whose defaults the rules follow.
constexpr TorchVersion kNewestTorch{2, 9};

// "2.1", "1.13.1", "2.0.0+cu118" -> {major, minor}; nullopt for anything else.
std::optional<TorchVersion> parse_torch_version(std::string_view text);

// The settings value resolved: a set `target-torch-version` wins, else kNewestTorch.
TorchVersion effective_torch_version(const std::string& setting);

// The lowest torch release a requirement specifier admits: `torch==1.13.1` -> 1.13,
// `torch>=2.0,<3` -> 2.0, `torch~=1.12` -> 1.12, `torch<2` -> 1.13 (the last 1.x), `torch` or
// an unparsable specifier -> nullopt. `line` is one requirement ("torch>=2.1; python_version...").
std::optional<TorchVersion> torch_requirement_floor(std::string_view line);

// Walks up from `dir` to the first requirements.txt or pyproject.toml that declares a torch
// requirement (pyproject: [project] dependencies, or any quoted "torch..." requirement string)
// and returns its floor. Stops at a directory holding .git. Memoized per directory.
std::optional<TorchVersion> declared_torch_version(const std::filesystem::path& dir);

}  // namespace stoker
