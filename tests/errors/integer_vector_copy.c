// Bytes moved through an integer vector between memory the function does
// not otherwise read or write: they may be floats, whose derivatives would
// be lost, so the copy is refused (it once passed as integers written over
// floats, the derivatives silently zero).
// expect: bytes copied as an integer into memory that may hold floating-point values
// expect: integer_vector_copy.c:16
#include <enzyme/enzyme.h>
#include <stdio.h>
#include <string.h>

typedef long v2i __attribute__((vector_size(16)));

static void swap_pairs(void *dst, const void *src) {
  v2i v;
  memcpy(&v, src, 16);
  memcpy(dst, &(v2i){v[1], v[0]}, 16);
}

int main(void) {
  double x[2] = {1, 2}, dx[2] = {0}, y[2], dy[2] = {1, 3};
  __enzyme_autodiff((void *)swap_pairs, enzyme_dup, y, dy, enzyme_dup, x, dx);
  printf("%f %f\n", dx[0], dx[1]);
  return 0;
}
