/* buffer.h — text written into a caller's fixed buffer, piece by piece, for the
 * core's sentences (derivations, descriptions, the training derivation). The
 * length counts everything asked for, so a caller can tell when it was cut. */
#ifndef QKV_BUFFER_H
#define QKV_BUFFER_H

#include <stddef.h>

struct qkv_buffer {
	char *buf;
	size_t size;
	size_t length; /* what was needed, which may exceed size − 1 */
};

/* Appends printf-style text; output past the buffer is dropped but counted. */
void qkv_buffer_put(struct qkv_buffer *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
