// expect: cannot differentiate memory copy (`memcpy`/`memmove`) whose contents have no known type in `copy_block`
// expect: undeducible_type.c:9
// expect: help: reverse mode must know which copied bytes are floats; say what the memory holds with `__enzyme_double(ptr)`
#include <string.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

void copy_block(void *dst, const void *src, unsigned long bytes) {
  memcpy(dst, src, bytes); /* nothing here says what the bytes are */
}

int main(void) {
  double a[4] = {1, 2, 3, 4}, da[4] = {0}, b[4], db[4] = {1, 1, 1, 1};
  __enzyme_autodiff((void *)copy_block, enzyme_dup, b, db, enzyme_dup, a, da, sizeof a);
  return 0;
}
