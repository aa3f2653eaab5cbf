// expect: `enzyme_tape` is an option of split mode, not of `__enzyme_autodiff`
// expect: split_option_elsewhere.c:10
/* Split mode's tape option given to combined reverse mode. */
extern int enzyme_tape;
double __enzyme_autodiff(void *, ...);
static double sq(double x) { return x * x; }

int main(void) {
  char buf[64];
  return __enzyme_autodiff((void *)sq, enzyme_tape, buf, 2.0) > 0;
}
