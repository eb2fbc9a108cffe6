// stoker shim: see ../stoker_aten.h
#pragma once
#include <stoker_aten.h>
