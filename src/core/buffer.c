/* buffer.c — appending text to a fixed buffer (see buffer.h). */
#include <stdarg.h>
#include <stdio.h>

#include "qkv/buffer.h"

void qkv_buffer_put(struct qkv_buffer *t, const char *fmt, ...)
{
	va_list args;
	int written;
	size_t room = t->length < t->size ? t->size - t->length : 0;

	va_start(args, fmt);
	written = vsnprintf(room > 0 ? t->buf + t->length : NULL, room, fmt, args);
	va_end(args);
	if (written > 0)
		t->length += (size_t)written;
}
