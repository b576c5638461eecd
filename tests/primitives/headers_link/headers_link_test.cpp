// The check is the link: this program is built from two translation units that both include prim/prim.h, as a user's
// program with two .cu files that call the library is. A definition in a header that is not a template, inline or
// internal (a plain __global__ kernel) is defined twice and the build fails.
#include <gtest/gtest.h>

int prim_headers_unit_one();
int prim_headers_unit_two();

TEST(Headers, TwoTranslationUnitsIncludingEveryHeaderLink) {
  EXPECT_EQ(prim_headers_unit_one(), 1);
  EXPECT_EQ(prim_headers_unit_two(), 2);
}
