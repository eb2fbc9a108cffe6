// stoker shim
#pragma once
#include "stoker_nccl.h"
