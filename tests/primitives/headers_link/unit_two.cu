// The second translation unit that includes every public header (unit_one.cu says why).
#include <prim/prim.h>

int prim_headers_unit_two() { return 2; }
