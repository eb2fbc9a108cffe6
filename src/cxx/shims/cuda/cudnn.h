// stoker shim
#pragma once
#include "stoker_cudnn.h"
