// stoker shim
#pragma once
#include "stoker_curand.h"
