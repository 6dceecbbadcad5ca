/* text.c — the characters qkv refuses in strings (text.h). */
#include "qkv/format.h"
#include "qkv/text.h"

bool qkv_is_control(unsigned int c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

bool qkv_text_find_control(const char *text, size_t length, size_t *offset,
			   unsigned int *code_point)
{
	for (size_t i = 0; i < length;) {
		unsigned long c = 0;
		size_t count = qkv_utf8_decode(text + i, length - i, &c);

		if (count == 0) {
			i++; /* not UTF-8: the loader's encoding check names it */
			continue;
		}
		if (qkv_is_control((unsigned int)c)) {
			*offset = i;
			*code_point = (unsigned int)c;
			return true;
		}
		i += count;
	}
	return false;
}
