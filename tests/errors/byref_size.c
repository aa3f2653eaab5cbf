// expect: `enzyme_byref` before parameter #1 of `sq` must give its size (8 bytes, type `double`), once
// expect: byref_size.c:10
/* The size given does not match the parameter's type. */
extern int enzyme_byref;
double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double sq(double x) { return x * x; }

int main(void) {
  double x = 3.0, dx = 1.0;
  double d = __enzyme_fwddiff((void *)sq, enzyme_byref, 4, &x, &dx);
  return d > 0;
}
