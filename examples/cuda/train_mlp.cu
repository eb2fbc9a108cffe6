// A small CUDA training loop for a one-layer MLP that keeps its GPU waiting: a pageable
// batch buffer copied synchronously, scratch memory allocated every step, a blocking memset and
// a device-wide synchronize per step. Run `stoker check examples/cuda/` to see each one.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

constexpr int kBatch = 1024, kIn = 784, kOut = 10;

__global__ void forward(const float* x, const float* w, float* y) {
  int row = blockIdx.x, col = threadIdx.x;
  if (col >= kOut) return;
  float acc = 0.f;
  for (int k = 0; k < kIn; ++k) acc += x[row * kIn + k] * w[k * kOut + col];
  y[row * kOut + col] = acc;
}

__global__ void sgd_update(float* w, const float* grad, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kIn * kOut) w[i] -= lr * grad[i];
}

void load_batch(float* host, int step) {
  for (int i = 0; i < kBatch * kIn; ++i) host[i] = static_cast<float>((i + step) % 255) / 255.f;
}

int main() {
  const size_t x_bytes = sizeof(float) * kBatch * kIn, w_bytes = sizeof(float) * kIn * kOut;
  float* h_x = static_cast<float*>(malloc(x_bytes));  // pageable
  float *d_x, *d_w, *d_y;
  cudaMalloc(&d_x, x_bytes);
  cudaMalloc(&d_w, w_bytes);
  cudaMalloc(&d_y, sizeof(float) * kBatch * kOut);
  for (int step = 0; step < 1000; ++step) {
    load_batch(h_x, step);
    cudaMemcpy(d_x, h_x, x_bytes, cudaMemcpyHostToDevice);
    float* d_grad;
    cudaMalloc(&d_grad, w_bytes);
    cudaMemset(d_grad, 0, w_bytes);
    forward<<<kBatch, 32>>>(d_x, d_w, d_y);
    sgd_update<<<(kIn * kOut + 255) / 256, 256>>>(d_w, d_grad, 0.01f);
    cudaFree(d_grad);
    cudaDeviceSynchronize();
  }
  std::printf("done\n");
  free(h_x);
  return 0;
}
