// expect: bytes copied as an integer into memory that may hold floating-point values
// expect: integer_copy.c:14
/* Bytes of a double moved through an integer across a call: not a copy the
 * engine can see whole, so it is refused rather than losing the derivative. */
#include <string.h>
#include <stdio.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void report(void);
static void bits(double *x, double *y) {
  long long b;
  memcpy(&b, x, sizeof b);
  report();
  memcpy(y, &b, sizeof b);
}
int main(void) {
  double x = 1, dx = 0, y = 0, dy = 1;
  __enzyme_autodiff((void *)bits, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
  printf("%g\n", dx);
}
void report(void) { puts("copying"); }
