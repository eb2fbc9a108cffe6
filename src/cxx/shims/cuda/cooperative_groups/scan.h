// stoker shim (header-free mode).
#pragma once
#include "../cooperative_groups.h"
