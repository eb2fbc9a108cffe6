// stoker shim: the NCCL entry points stoker recognizes (declarations only).
#pragma once
#ifndef STOKER_NCCL_SHIM_H
#define STOKER_NCCL_SHIM_H
#include <cuda_runtime.h>
extern "C" {
typedef enum { ncclSuccess = 0 } ncclResult_t;
typedef enum { ncclFloat = 7 } ncclDataType_t;
typedef enum { ncclSum = 0 } ncclRedOp_t;
typedef struct ncclComm* ncclComm_t;
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
}
#endif
