// stoker shim
#pragma once
#include "stoker_thrust.h"
