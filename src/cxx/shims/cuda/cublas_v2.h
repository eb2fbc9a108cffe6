// stoker shim
#pragma once
#include "stoker_cublas.h"
