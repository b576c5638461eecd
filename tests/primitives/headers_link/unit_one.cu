// One of two translation units that include every public header: the library is header-only, so a kernel or
// function defined in a header without template, inline or internal linkage makes the program fail to link.
#include <prim/prim.h>

int prim_headers_unit_one() { return 1; }
