// expect: cannot differentiate memory copy (`memcpy`/`memmove`) whose contents have no known type in `fill
/* A caller's vector of structs mixing a double and an integer, grown by the
 * differentiated function: the copy of the old elements cannot be typed as
 * floats (the elements are not one float wide), so it is refused. */
#include <vector>
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
struct Tagged {
  double v;
  long tag;
};
static void fill(const double *x, std::vector<Tagged> &out) {
  for (int i = 0; i < 3; i++) out.push_back({x[i] * x[i], 7});
}
int main() {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  std::vector<Tagged> out, dout;
  __enzyme_autodiff((void *)fill, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
  return 0;
}
