// expect: `enzyme_dup` given for by-value floating-point parameter
// expect: help: a by-value float is `enzyme_out`
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }

int main(void) { return (int)__enzyme_autodiff((void *)sq, enzyme_dup, 2.0, 1.0); }
