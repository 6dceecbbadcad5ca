/* error.h — the core's return codes and hard limits.
 * Every core function that can fail returns 0 or one of these negative codes;
 * messages for people are written by the caller, never by the core. */
#ifndef QKV_ERROR_H
#define QKV_ERROR_H

#define QKV_OK 0
#define QKV_ENOMEM (-1)  /* an allocation failed; the object is unchanged */
#define QKV_EINVAL (-2)  /* an argument is out of its documented range */
#define QKV_ESHAPE (-3)  /* matrix shapes do not fit together */
#define QKV_ELIMIT (-4)  /* a size is above one of the limits below */

#define QKV_MAX_TOKENS 1024 /* n: rows of Q, K, V (or X) */
#define QKV_MAX_DIM 4096    /* d_model, d_k and d_v */
#define QKV_MAX_VALUE 1e12  /* magnitude bound for any value a person types */
#define QKV_MIN_TEMPERATURE 1e-6 /* τ and a custom divisor stay within these, */
#define QKV_MAX_TEMPERATURE 1e6  /* so scores / divisor is always finite */
/* The largest problem file: what the loader reads and, so every saved file reads
 * back, what the saver writes (a save that would be larger is refused). */
#define QKV_MAX_FILE_BYTES (64L * 1024 * 1024)

/* A short English phrase for code ("out of memory"); never NULL. */
const char *qkv_error_string(int code);

#endif
