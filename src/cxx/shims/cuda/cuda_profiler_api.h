// stoker shim (header-free mode).
#pragma once
#include "stoker_cuda.h"
