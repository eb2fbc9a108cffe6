// torch.utils.data.DataLoader's parameters (torch/utils/data/dataloader.py), written once: the
// order a call may pass them positionally, the keyword-only ones, and the positions the rules and
// the facts read (`DataLoader(ds, 64, True, None, None, 4)`: four workers).
#pragma once

#include <cstddef>
#include <string_view>

namespace stoker::python {

inline constexpr std::string_view kLoaderPositional[] = {
    "dataset",    "batch_size", "shuffle",   "sampler", "batch_sampler",  "num_workers",            "collate_fn",
    "pin_memory", "drop_last",  "timeout",   "worker_init_fn", "multiprocessing_context", "generator"};
inline constexpr std::string_view kLoaderKeywordOnly[] = {"prefetch_factor", "persistent_workers",
                                                          "pin_memory_device", "in_order"};

// The position of DataLoader's parameter `name`, or -1 when it is keyword-only or none.
constexpr int loader_position(std::string_view name) {
  for (size_t i = 0; i < std::size(kLoaderPositional); ++i)
    if (kLoaderPositional[i] == name) return static_cast<int>(i);
  return -1;
}

inline constexpr int kBatchSizePos = loader_position("batch_size"), kBatchSamplerPos = loader_position("batch_sampler"),
                     kNumWorkersPos = loader_position("num_workers"), kCollatePos = loader_position("collate_fn"),
                     kPinMemoryPos = loader_position("pin_memory"), kDropLastPos = loader_position("drop_last");
static_assert(kBatchSizePos == 1 && kBatchSamplerPos == 4 && kNumWorkersPos == 5 && kCollatePos == 6 &&
              kPinMemoryPos == 7 && kDropLastPos == 8);

}  // namespace stoker::python
