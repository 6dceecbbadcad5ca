/* quote.c — escaping outside text for messages (quote.h). It never drops a byte
 * silently and never lets one through that a terminal would act on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/problem/quote.h"
#include "qkv/format.h"
#include "qkv/text.h"

void quote_text(char *out, size_t size, const char *text, size_t length, size_t limit)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t used = 0, i = 0;

	if (size == 0)
		return;
	while (i < length && i < limit && used + 8 < size) {
		unsigned long point = 0;
		size_t seq = qkv_utf8_decode(text + i, length - i, &point);

		if (seq == 1 && s[i] >= 0x20 && s[i] != 0x7f) {
			out[used++] = (char)s[i++];
		} else if (seq > 1 && qkv_is_control((unsigned int)point)) {
			/* A C1 control or a bidi override would act on the terminal: named. */
			used += (size_t)snprintf(out + used, size - used, "\\u%04lX", point);
			i += seq;
		} else if (seq > 1) {
			memcpy(out + used, s + i, seq);
			used += seq;
			i += seq;
		} else {
			used += (size_t)snprintf(out + used, size - used, "\\x%02x", s[i]);
			i++;
		}
	}
	if (i < length && used + 4 < size) {
		memcpy(out + used, "...", 3);
		used += 3;
	}
	out[used] = '\0';
}

char *quote_dup(const char *text)
{
	size_t length, size;
	char *out;

	if (text == NULL)
		return NULL;
	/* At most 4 characters a byte (\xHH; \uXXXX stands for 2 or 3 bytes), and the
	 * loop's room for its widest step. */
	length = strlen(text);
	size = 4 * length + 16;
	if ((out = malloc(size)) != NULL)
		quote_text(out, size, text, length, length);
	return out;
}
