/* json_read.c — the fast reader of plainly valid JSON (see json_read.h). One pass
 * over the text, recursive descent, numbers converted in integer arithmetic; at
 * the first thing it is not sure of it frees what it made and declines. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_read.h"

#define READ_MAX_DEPTH 32 /* a problem file nests 4 deep (heads: 5) */

struct reader {
	const char *s;
	size_t length, pos;
	char *scratch; /* a string with escapes, unescaped (malloc'd, grows) */
	size_t scratch_size;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->length && is_space(r->s[r->pos]))
		r->pos++;
}

static char peek(const struct reader *r)
{
	return r->pos < r->length ? r->s[r->pos] : '\0';
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 wide;

/* 5^0 … 5^27 (5^27 < 2^63). */
static const uint64_t five_to[28] = {
	1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
	9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
	152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL, 95367431640625ULL,
	476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
	298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL,
};

static int bit_length(wide x)
{
	int bits = 0;

	while (x >> 64 != 0) {
		x >>= 64;
		bits += 64;
	}
	return bits + (x == 0 ? 0 : 64 - __builtin_clzll((unsigned long long)x));
}

/* x · 2^e as a double, x rounded to 53 bits half to even (sticky: the value is
 * a little above x); the result is a normal number (the callers' range). */
static double round_to_double(wide x, int e, bool sticky)
{
	int bits = bit_length(x), extra = bits - 53;
	uint64_t mantissa, out;

	if (extra <= 0) {
		mantissa = (uint64_t)x << -extra;
		e += extra;
	} else {
		wide rest = x & (((wide)1 << extra) - 1), half = (wide)1 << (extra - 1);

		mantissa = (uint64_t)(x >> extra);
		e += extra;
		if (rest > half || (rest == half && (sticky || (mantissa & 1) != 0)))
			mantissa++;
		if (mantissa == 1ULL << 53) {
			mantissa >>= 1;
			e++;
		}
	}
	/* mantissa · 2^e = 1.f · 2^(e + 52) */
	out = (uint64_t)(e + 52 + 1023) << 52 | (mantissa & ((1ULL << 52) - 1));
	{
		double value;

		memcpy(&value, &out, sizeof value);
		return value;
	}
}
#endif

/* A number token as it is scanned: the grammar's verdict, and its value as
 * ±w·10^k with w the first 19 significant digits. */
struct number {
	bool negative, real, inexact; /* real: a fraction or an exponent; inexact: digits lost */
	int int_digits;               /* of the integer part, as written */
	uint64_t w;
	int k;
};

/* Scans the JSON number at s[0 … length) (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)
 * and returns the bytes it takes, or 0 when the grammar does not hold there. */
/* Eight ASCII digits at p as their value (a little-endian machine reads them as
 * one word: the check and the conversion are a few multiplications, not eight
 * steps), or false when they are not all digits. */
static bool eight_digits(const char *p, uint64_t *value)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, sizeof v);
	/* Every byte 0x30…0x39: high nibble 3, and adding 6 does not carry out of it. */
	if (((v & 0xf0f0f0f0f0f0f0f0ULL) | (((v + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4)) !=
	    0x3333333333333333ULL)
		return false;
	v -= 0x3030303030303030ULL;
	v = v * 10 + (v >> 8); /* pairs of digits in every other byte */
	v = ((v & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
	     ((v >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >> 32;
	*value = v;
	return true;
#else
	(void)p;
	(void)value;
	return false;
#endif
}

static size_t scan_number(const char *s, size_t length, struct number *n)
{
	/* In locals: n may alias the text (a char pointer), which would make the
	 * compiler store every digit's step. */
	const char *p = s, *end = s + length, *first;
	uint64_t w = 0;
	int digits = 0, k = 0, exponent = 0, exponent_sign = 1, int_digits = 0;
	bool negative = false, real = false, inexact = false;

	if (p < end && *p == '-') {
		negative = true;
		p++;
	}
	if (p < end && *p == '0') {
		p++;
		int_digits = 1;
		if (p < end && is_digit(*p))
			return 0;
	} else {
		for (first = p; p < end && is_digit(*p); p++) {
			if (digits < 19)
				w = w * 10 + (uint64_t)(*p - '0');
			else
				k++, inexact |= *p != '0';
			digits++;
		}
		int_digits = (int)(p - first);
		if (int_digits == 0)
			return 0;
	}
	if (p < end && *p == '.') {
		first = ++p;
		real = true;
		/* Zeros before the first significant digit only move the point. */
		if (w == 0)
			for (; p < end && *p == '0'; p++)
				k--;
		for (uint64_t eight; digits + 8 <= 19 && end - p >= 8 && eight_digits(p, &eight); p += 8) {
			w = w * 100000000 + eight;
			k -= 8;
			digits += 8;
		}
		for (; p < end && is_digit(*p); p++) {
			if (digits < 19) {
				w = w * 10 + (uint64_t)(*p - '0');
				k--;
			} else {
				inexact |= *p != '0';
			}
			digits++;
		}
		if (p == first)
			return 0;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		real = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			exponent_sign = *p++ == '-' ? -1 : 1;
		for (first = p; p < end && is_digit(*p); p++) {
			if (exponent >= 100000)
				inexact = true; /* a huge exponent: strtod's to judge */
			else
				exponent = exponent * 10 + (*p - '0');
		}
		if (p == first)
			return 0;
		k += exponent_sign * exponent;
	}
	n->negative = negative;
	n->real = real;
	n->inexact = inexact;
	n->int_digits = int_digits;
	n->w = w;
	n->k = k;
	return (size_t)(p - s);
}

#if defined(__SIZEOF_INT128__)
/* n / d and n % d for a quotient below 2^64 (x86-64's divq does it in one
 * instruction; elsewhere the compiler's 128-bit division). */
static uint64_t divide(wide n, uint64_t d, uint64_t *rest)
{
#if defined(__x86_64__) && defined(__GNUC__)
	uint64_t q, r;

	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"((uint64_t)n), "d"((uint64_t)(n >> 64)), "rm"(d));
	*rest = r;
	return q;
#else
	*rest = (uint64_t)(n % d);
	return (uint64_t)(n / d);
#endif
}
#endif

/* ±w·10^k correctly rounded, or false when it is strtod's to do (lost digits, or
 * k beyond ±27). */
static bool number_value(const struct number *n, double *value)
{
#if defined(__SIZEOF_INT128__)
	uint64_t w = n->w;
	int k = n->k;

	if (n->inexact)
		return false;
	if (w == 0) {
		*value = n->negative ? -0.0 : 0.0;
		return true;
	}
	if (k < -27 || k > 27)
		return false;
	if (k >= 0) {
		/* w · 10^k = (w · 5^k) · 2^k, exact in 128 bits. */
		*value = round_to_double((wide)w * five_to[k], k, false);
	} else {
		/* w / 10^−k = (w·2^lz·2^s / 5^−k) · 2^(k − s − lz): w·2^lz has 64
		 * bits and 5^−k has b, so s = b − 9 gives a quotient of 55 or 56 bits
		 * (no shift for b <= 9: more bits); the remainder is the sticky bit. */
		uint64_t five = five_to[-k], rest, q;
		int lz = __builtin_clzll(w), b = 64 - __builtin_clzll(five), s = b > 9 ? b - 9 : 0;

		q = divide((wide)(w << lz) << s, five, &rest);
		*value = round_to_double(q, k - s - lz, rest != 0);
	}
	if (n->negative)
		*value = -*value;
	return true;
#else
	(void)n;
	(void)value;
	return false;
#endif
}

bool json_read_decimal(const char *token, size_t length, double *value)
{
	struct number n;

	return scan_number(token, length, &n) == length && length > 0 && number_value(&n, value);
}

/* A number token as jansson makes it: an integer json_integer, else a real. */
static json_t *read_number(struct reader *r)
{
	struct number n;
	size_t length = scan_number(r->s + r->pos, r->length - r->pos, &n), start = r->pos;
	double v;

	if (length == 0)
		return NULL;
	r->pos += length;
	if (!n.real) {
		/* Up to 18 digits always fit json_int_t; longer ones jansson judges. */
		if (n.int_digits > 18)
			return NULL;
		return json_integer(n.negative ? -(json_int_t)n.w : (json_int_t)n.w);
	}
	if (!number_value(&n, &v)) {
		/* strtod as jansson calls it (C numbers: the program never sets
		 * LC_NUMERIC); an overflow is jansson's error to word. */
		char token[64], *end;

		if (length >= sizeof token)
			return NULL;
		memcpy(token, r->s + start, length);
		token[length] = '\0';
		errno = 0;
		v = strtod(token, &end);
		if (end != token + length || (errno == ERANGE && (v > 1.0 || v < -1.0)))
			return NULL;
	}
	return json_real(v);
}

/* A string's bytes (r at its opening quote): *text and *length point into the
 * document when it has no escape, else into r->scratch. false to decline. */
static bool read_string(struct reader *r, const char **text, size_t *length, bool *ascii)
{
	size_t start = ++r->pos, used = 0;
	bool escaped = false;

	*ascii = true;
	for (;;) {
		unsigned char c;

		if (r->pos >= r->length)
			return false;
		c = (unsigned char)r->s[r->pos];
		if (c == '"')
			break;
		if (c < 0x20)
			return false;
		if (c >= 0x80)
			*ascii = false;
		if (c == '\\')
			escaped = true;
		r->pos += c == '\\' ? 2 : 1;
	}
	if (!escaped) {
		*text = r->s + start;
		*length = r->pos - start;
		r->pos++;
		return true;
	}
	if (r->scratch_size < r->pos - start + 1) {
		char *bigger = realloc(r->scratch, r->pos - start + 1);

		if (bigger == NULL)
			return false;
		r->scratch = bigger;
		r->scratch_size = r->pos - start + 1;
	}
	for (size_t i = start; i < r->pos; i++) {
		char c = r->s[i];

		if (c == '\\') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *at = strchr(from, r->s[++i]);

			/* \u (and anything else) is jansson's to read. */
			if (r->s[i] == '\0' || at == NULL)
				return false;
			c = to[at - from];
		}
		r->scratch[used++] = c;
	}
	*text = r->scratch;
	*length = used;
	r->pos++;
	return true;
}

static json_t *read_value(struct reader *r, int depth);

static json_t *read_array(struct reader *r, int depth)
{
	json_t *array = json_array();

	if (array == NULL)
		return NULL;
	r->pos++;
	skip_space(r);
	if (peek(r) == ']') {
		r->pos++;
		return array;
	}
	for (;;) {
		json_t *item = read_value(r, depth + 1);

		if (item == NULL || json_array_append_new(array, item) != 0)
			break;
		skip_space(r);
		if (peek(r) == ',') {
			r->pos++;
			continue;
		}
		if (peek(r) == ']') {
			r->pos++;
			return array;
		}
		break;
	}
	json_decref(array);
	return NULL;
}

static json_t *read_object(struct reader *r, int depth)
{
	json_t *object = json_object();

	if (object == NULL)
		return NULL;
	r->pos++;
	skip_space(r);
	if (peek(r) == '}') {
		r->pos++;
		return object;
	}
	for (;;) {
		const char *key;
		size_t length;
		bool ascii;
		char *copy;
		json_t *value;

		if (peek(r) != '"' || !read_string(r, &key, &length, &ascii))
			break;
		/* The key outlives the scratch buffer that the value may reuse. */
		copy = malloc(length + 1);
		if (copy == NULL)
			break;
		memcpy(copy, key, length);
		copy[length] = '\0';
		skip_space(r);
		if (peek(r) != ':' || json_object_getn(object, copy, length) != NULL) {
			free(copy);
			break;
		}
		r->pos++;
		value = read_value(r, depth + 1);
		if (value == NULL || (ascii ? json_object_setn_new_nocheck(object, copy, length, value)
					    : json_object_setn_new(object, copy, length, value)) != 0) {
			free(copy);
			break;
		}
		free(copy);
		skip_space(r);
		if (peek(r) == ',') {
			r->pos++;
			skip_space(r);
			continue;
		}
		if (peek(r) == '}') {
			r->pos++;
			return object;
		}
		break;
	}
	json_decref(object);
	return NULL;
}

/* One value after optional white space; NULL to decline. */
static json_t *read_value(struct reader *r, int depth)
{
	static const struct {
		const char *word;
		size_t length;
	} words[] = { { "true", 4 }, { "false", 5 }, { "null", 4 } };
	char c;

	if (depth > READ_MAX_DEPTH)
		return NULL;
	skip_space(r);
	c = peek(r);
	if (c == '{')
		return read_object(r, depth);
	if (c == '[')
		return read_array(r, depth);
	if (c == '"') {
		const char *text;
		size_t length;
		bool ascii;

		if (!read_string(r, &text, &length, &ascii))
			return NULL;
		return ascii ? json_stringn_nocheck(text, length) : json_stringn(text, length);
	}
	if (c == '-' || is_digit(c))
		return read_number(r);
	for (int i = 0; i < 3; i++) {
		size_t n = words[i].length, end = r->pos + n;

		if (end <= r->length && memcmp(r->s + r->pos, words[i].word, n) == 0 &&
		    (end == r->length || !((r->s[end] >= 'a' && r->s[end] <= 'z') ||
					   (r->s[end] >= 'A' && r->s[end] <= 'Z')))) {
			r->pos = end;
			return i == 0 ? json_true() : i == 1 ? json_false() : json_null();
		}
	}
	return NULL;
}

/* ---- the arena --------------------------------------------------------------------------- */

struct json_arena {
	struct json_arena *next; /* the blocks filled before this one */
	size_t used, size;
	max_align_t data[];
};

/* The arena jansson allocates from while json_read_fast runs (jansson takes
 * plain functions, so it is named here, for that moment only), and the size of
 * its blocks: about what the text's tree takes (a number of 20 characters is an
 * object of 32 bytes and a slot of 8), so that a small text takes a small one. */
static struct json_arena *filling;
static size_t block_size;

static void *arena_malloc(size_t n)
{
	const size_t unit = sizeof(max_align_t);

	n = (n + unit - 1) / unit * unit;
	if (filling == NULL || filling->size - filling->used < n) {
		size_t size = n > block_size ? n : block_size;
		struct json_arena *block = malloc(sizeof *block + size);

		if (block == NULL)
			return NULL;
		block->next = filling;
		block->used = 0;
		block->size = size;
		filling = block;
	}
	filling->used += n;
	return (char *)filling->data + filling->used - n;
}

/* Nothing is freed one by one: a grown array's old table and a declined tree's
 * objects stay until the arena goes. */
static void arena_free(void *p)
{
	(void)p;
}

void json_arena_free(struct json_arena *arena)
{
	while (arena != NULL) {
		struct json_arena *next = arena->next;

		free(arena);
		arena = next;
	}
}

json_t *json_read_fast(const char *text, size_t length, struct json_arena **arena)
{
	struct reader r = { text, length, 0, NULL, 0 };
	json_malloc_t old_malloc;
	json_free_t old_free;
	json_t *root;

	json_get_alloc_funcs(&old_malloc, &old_free);
	filling = NULL;
	block_size = length < 2048 ? 4096 : length < ((size_t)1 << 22) ? 2 * length : (size_t)1 << 23;
	json_set_alloc_funcs(arena_malloc, arena_free);
	root = read_value(&r, 0);
	json_set_alloc_funcs(old_malloc, old_free);
	*arena = filling;
	filling = NULL;
	free(r.scratch);
	if (root != NULL) {
		skip_space(&r);
		if (r.pos == length)
			return root;
	}
	json_arena_free(*arena);
	*arena = NULL;
	return NULL;
}
