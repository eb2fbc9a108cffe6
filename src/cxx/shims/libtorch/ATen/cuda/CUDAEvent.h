// stoker shim: see ../../stoker_aten_cuda.h
#pragma once
#include <stoker_aten_cuda.h>
