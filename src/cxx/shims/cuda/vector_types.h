// stoker shim: see stoker_cuda.h
#pragma once
#include "stoker_cuda.h"
