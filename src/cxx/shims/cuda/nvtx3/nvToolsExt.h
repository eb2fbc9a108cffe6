// stoker shim: NVTX ranges (declarations only; they never touch the GPU queue).
#pragma once
#ifndef STOKER_NVTX_SHIM_H
#define STOKER_NVTX_SHIM_H
extern "C" {
int nvtxRangePushA(const char* message);
int nvtxRangePop(void);
void nvtxMarkA(const char* message);
}
#define nvtxRangePush nvtxRangePushA
#define nvtxMark nvtxMarkA
#endif
