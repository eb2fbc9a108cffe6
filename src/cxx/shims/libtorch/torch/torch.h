// stoker shim: see ../stoker_torch.h
#pragma once
#include "../stoker_torch.h"
