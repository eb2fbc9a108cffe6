// stoker shim (header-free mode).
#pragma once
#include "nvToolsExt.h"
