// Header-free mode's shims on the shapes real programs have (docs/cxx-real-code.md): each file
// must parse without a clang error, through the real front end.
#include <catch2/catch.hpp>

#include "core/analyzer.h"

using namespace stoker;

namespace {

AnalysisResult analyze_text(const std::string& path, const std::string& text) {
  Settings settings;
  settings.show_parse_errors = true;  // one notice per clang error, with its text
  return analyze(SourceFile(path, text), settings);
}

void require_clean(const std::string& path, const std::string& text) {
  auto r = analyze_text(path, text);
  for (const auto& n : r.notices) INFO(n.message);
  CHECK(r.notices.empty());
  CHECK(r.parse_errors == 0);
}

}  // namespace

TEST_CASE("a LibTorch program using std types it never includes parses (real LibTorch brings them)") {
  require_clean("train.cpp", R"(#include <torch/torch.h>
struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
int main() {
  auto net = std::make_shared<Net>();
  std::vector<torch::Tensor> params = net->parameters();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  std::string root = "data";
  auto dataset = torch::data::datasets::MNIST(root);
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto& batch : *loader) {
    auto out = net->forward(batch.data);
    std::vector<torch::Tensor> parts{out, out};
    auto both = torch::cat(parts, 0);
    both.sum().backward();
    opt.step();
  }
}
)");
}

TEST_CASE("a LibTorch program that names no std type gets no standard header") {
  // The shim's own stand-ins cover the API: braced sizes, module holders, loaders.
  require_clean("small.cpp", R"(#include <torch/torch.h>
int main() {
  torch::nn::Linear fc(4, 2);
  auto x = torch::randn({8, 4}).view({-1, 4});
  auto loader = torch::data::make_data_loader(torch::data::datasets::MNIST("d"), 64);
  for (auto& batch : *loader) fc->forward(batch.data.to(torch::kCUDA));
  return 0;
}
)");
}

TEST_CASE("CUDA files: implicit cuda_runtime.h, wrappers of std headers, host and device math") {
  // nvcc includes cuda_runtime.h itself.
  require_clean("implicit.cu", R"(__global__ void k(float* x) { x[threadIdx.x] = expf(x[0]); }
int main() { float* d; cudaMalloc(&d, 64); k<<<1, 16>>>(d); memset(&d, 0, sizeof d); return 0; }
)");
  // A standard header before cuda_runtime.h (clang's CUDA wrapper of <algorithm> uses __host__).
  require_clean("order.cu", R"(#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>
#include <assert.h>
int main() { size_t T = 5; int a = std::max(1, 2) + (int)min(T, 256) + (int)fabs(-1.0); assert(a); return a; }
)");
  // A .cpp file using the runtime API: device-only declarations must not clash with the C library.
  require_clean("host.cpp", R"(#include <cuda_runtime.h>
#include <math.h>
#include <assert.h>
#include <string.h>
int main() { float* d; cudaMalloc(&d, 4); assert(d); return (int)expf(1.0f); }
)");
  // Helper headers test the real headers' include guards before defining their macros.
  require_clean("guards.cu", R"(#include <cuda_runtime.h>
#include <cublas_v2.h>
#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_H__) || !defined(CUBLAS_API_H_)
#error missing include guard
#endif
int main() { return 0; }
)");
}
