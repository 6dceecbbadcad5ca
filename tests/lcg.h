/* lcg.h — the tests' own random numbers (a 64-bit LCG, Knuth's MMIX constants), so
 * test inputs never depend on the core's generator under test. Header-only, for the
 * Check suites; not part of qkv. */
#ifndef QKV_TESTS_LCG_H
#define QKV_TESTS_LCG_H

#include <stdint.h>

struct lcg {
	uint64_t state;
};

/* A double in [-1, 1) from the top 53 bits of the LCG. */
static inline double lcg_signed(struct lcg *g)
{
	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(g->state >> 11) * 0x1.0p-52 - 1.0;
}

/* An integer in [lo, hi]. */
static inline int lcg_int(struct lcg *g, int lo, int hi)
{
	g->state = g->state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (int)((g->state >> 33) % (uint64_t)(hi - lo + 1));
}

#endif
