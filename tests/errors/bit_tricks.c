// expect: `bitcast` reinterpreting floating-point bits
// expect: and 1 more place like this in the same function: bit_tricks.c:11
// expect: bit_tricks.c:11
#include <string.h>
double __enzyme_autodiff(void *, ...);

double halve_exponent_bit(double x) {
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  u &= ~(1ULL << 52); /* no float operation does this: it must stay bit-level */
  memcpy(&x, &u, sizeof u);
  return x * 2.0;
}

int main(void) { return (int)__enzyme_autodiff((void *)halve_exponent_bit, 3.0); }
