// expect: `enzyme_dup_return` is not an activity of the result of `__enzyme_autodiff`
// expect: return_activity_mode.c:9
/* A duplicated result in reverse mode (a pointer result with a shadow) is
 * not supported: refused by name, never ignored. */
extern int enzyme_dup_return;
double __enzyme_autodiff(void *, ...);
static double sq(double x) { return x * x; }
int main(void) {
  return __enzyme_autodiff((void *)sq, enzyme_dup_return, 2.0) > 0;
}
