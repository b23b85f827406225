// Found only through -I tests/data/explain/include_only/include (a <...> include).
#pragma once
#define TILE 32
#include "padding.h"
