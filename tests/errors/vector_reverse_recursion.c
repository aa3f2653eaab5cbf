// expect: `uses_rec` makes a recursive call of `power_rec`: not supported in reverse vector mode yet
// expect: vector_reverse_recursion.c:13
/* A recursive call stays a call, whose split derivative takes one seed. */
extern int enzyme_width;
typedef struct { double a, b; } two;
two __enzyme_autodiff(void *, ...);
__attribute__((noinline)) double power_rec(double x, int n) { return n == 0 ? 1.0 : x * power_rec(x, n - 1); }
__attribute__((noinline)) double uses_rec(double x) { return power_rec(x, 5) + x; }

int main(void) {
  // (a line of its own, so the location below is the call's)
  two t =
      __enzyme_autodiff((void *)uses_rec, enzyme_width, 2, 3.0, 1.0, 2.0);
  return t.a > 0;
}
