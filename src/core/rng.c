/* rng.c — xoshiro256** seeded through splitmix64; normals by Marsaglia's polar
 * method for streams and by Box–Muller for addressed cells.
 * Both generators are public-domain algorithms by Blackman and Vigna; the 64-bit
 * integer steps are exact, so a seed gives the same draws on every machine. */
#include <math.h>

#include "qkv/rng.h"

static const double TWO_PI = 6.283185307179586476925286766559;

/* splitmix64: one step of a 64-bit counter through a strong mixing function. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void qkv_rng_seed(struct qkv_rng *rng, uint64_t seed)
{
	uint64_t s = seed;

	for (int i = 0; i < 4; i++)
		rng->state[i] = splitmix64(&s);
	rng->spare = 0.0;
	rng->has_spare = false;
}

uint64_t qkv_rng_next(struct qkv_rng *rng)
{
	uint64_t *s = rng->state;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* The top 53 bits, scaled into [0, 1). */
static double bits_to_unit(uint64_t bits)
{
	return (double)(bits >> 11) * 0x1.0p-53;
}

double qkv_rng_uniform(struct qkv_rng *rng)
{
	return bits_to_unit(qkv_rng_next(rng));
}

/* Box–Muller on u1 in (0, 1], u2 in [0, 1): returns one normal, stores the other. */
static double box_muller(double u1, double u2, double *other)
{
	const double radius = sqrt(-2.0 * log(u1));
	const double angle = TWO_PI * u2;

	*other = radius * sin(angle);
	return radius * cos(angle);
}

/* Marsaglia's polar method: no trigonometry, two normals per accepted pair. */
double qkv_rng_normal(struct qkv_rng *rng)
{
	double u, v, s, factor;

	if (rng->has_spare) {
		rng->has_spare = false;
		return rng->spare;
	}
	do {
		u = 2.0 * qkv_rng_uniform(rng) - 1.0;
		v = 2.0 * qkv_rng_uniform(rng) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	factor = sqrt(-2.0 * log(s) / s);
	rng->spare = v * factor;
	rng->has_spare = true;
	return u * factor;
}

double qkv_rng_cell_normal(uint64_t seed, uint32_t stream, uint32_t row, uint32_t col)
{
	uint64_t s = seed;
	uint64_t key, a, b;
	double other;

	/* Mix the address into the seed, one splitmix step per field. */
	s ^= splitmix64(&s) + stream;
	key = splitmix64(&s) ^ ((uint64_t)row << 32 | col);
	a = splitmix64(&key);
	b = splitmix64(&key);
	return box_muller(1.0 - bits_to_unit(a), bits_to_unit(b), &other);
}
