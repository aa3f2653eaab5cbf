/* What the ADOL-C peers share with bench/harness.h: the same command line
 * (`MODE N REPS`; `dump N` prints the derivative, one number per line),
 * the same output line (`name mode n best_ms peak_rss_kb`), core 0, best
 * of REPS after a warm-up. */
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

static double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void pin_to_core0() {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one); /* best effort */
}

/* Times `run` and prints the result line. */
static void time_mode(const char *name, const char *mode, int n, int reps, const std::function<void()> &run) {
  double best = 1e300;
  for (int r = 0; r < reps + 1; r++) {
    double t0 = now_ms();
    run();
    double t = now_ms() - t0;
    if (r > 0 && t < best) best = t;
  }
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  std::printf("%s %s %d %.4f %ld\n", name, mode, n, best, u.ru_maxrss);
}
