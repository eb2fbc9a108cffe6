// stoker shim (header-free mode).
#pragma once
#include "nvtx3/nvToolsExt.h"
