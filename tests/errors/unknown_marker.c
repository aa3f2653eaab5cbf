// expect: unknown activity marker `enzyme_outt`
// expect: unknown_marker.c:8
extern int enzyme_outt;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }

int main(void) {
  return (int)__enzyme_autodiff((void *)sq, enzyme_outt, 2.0);
}
