/* text.c — the characters qkv refuses in strings (text.h). */
#include "qkv/text.h"

bool qkv_is_control(unsigned int c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

bool qkv_text_find_control(const char *text, size_t length, size_t *offset,
			   unsigned int *code_point)
{
	const unsigned char *u = (const unsigned char *)text;

	for (size_t i = 0; i < length;) {
		unsigned int c = u[i];
		size_t count = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
			       : (c & 0xf8) == 0xf0 ? 4 : 1;

		if (count > 1 && i + count <= length) {
			c &= 0x3f >> (count - 1);
			for (size_t k = 1; k < count; k++)
				c = c << 6 | (u[i + k] & 0x3f);
		} else if (c >= 0x80) {
			i++; /* not UTF-8: the loader's encoding check names it */
			continue;
		}
		if (qkv_is_control(c)) {
			*offset = i;
			*code_point = c;
			return true;
		}
		i += count;
	}
	return false;
}
