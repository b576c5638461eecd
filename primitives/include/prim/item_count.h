// prim::ItemCount: an element count that may live on the device (a host bound plus an optional device pointer),
// so that frame loops never synchronise to read a count an earlier stage produced. Its fields' contract:
// prim/detail/core/item_count.h.
#pragma once
#include "prim/detail/core/item_count.h"
