// expect: call is declared to return `double`, which cannot hold 2 adjoint(s)
double __enzyme_autodiff(void *, ...);
double mul(double x, double y) { return x * y; }

int main(void) { return (int)__enzyme_autodiff((void *)mul, 2.0, 3.0); }
