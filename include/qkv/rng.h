/* rng.h — seeded pseudo-random numbers: xoshiro256** (Blackman & Vigna, 2018),
 * seeded through splitmix64, with standard-normal draws by Marsaglia's polar
 * method (streams) and the Box–Muller transform (addressed cells).
 * The uniform bits are exact integer arithmetic; the normals then go through
 * libm's log, sqrt and cos, correctly rounded or nearly so on every common libm. No global state: the caller owns the generator. */
#ifndef QKV_RNG_H
#define QKV_RNG_H

#include <stdbool.h>
#include <stdint.h>

struct qkv_rng {
	uint64_t state[4];
	double spare;    /* the second value of the last polar pair, when has_spare */
	bool has_spare;
};

/* Seeds the generator; any seed (0 included) is valid. */
void qkv_rng_seed(struct qkv_rng *rng, uint64_t seed);
/* The next 64 random bits. */
uint64_t qkv_rng_next(struct qkv_rng *rng);
/* A uniform double in [0, 1) with 53 random bits. */
double qkv_rng_uniform(struct qkv_rng *rng);
/* A standard-normal N(0, 1) draw (Marsaglia's polar method, pairs cached). */
double qkv_rng_normal(struct qkv_rng *rng);

/* A standard-normal value addressed by (seed, stream, row, col), by Box–Muller
 * on two splitmix64 outputs: the same arguments always give the same value,
 * independently of any other draw. */
double qkv_rng_cell_normal(uint64_t seed, uint32_t stream, uint32_t row, uint32_t col);

#endif
