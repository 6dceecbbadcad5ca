/* json_write.c — JSON strings and numbers for the printer and the saver. */
#include <math.h>
#include <stdio.h>

#include "io/problem/json_write.h"
#include "qkv/format.h"
#include "qkv/text.h"

void json_write_string(FILE *out, const char *s)
{
	if (s == NULL) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const char *c = s; *c != '\0';) {
		unsigned char byte = (unsigned char)*c;
		size_t length = qkv_utf8_decode(c, qkv_utf8_length(c), NULL);

		if (length == 0) {
			fputs("\\ufffd", out);
			c++;
		} else if (byte == '"' || byte == '\\') {
			fprintf(out, "\\%c", byte);
			c++;
		} else if (byte == '\n') {
			fputs("\\n", out);
			c++;
		} else if (byte == '\t') {
			fputs("\\t", out);
			c++;
		} else if (byte < 0x20 || byte == 0x7f) {
			fprintf(out, "\\u%04x", byte);
			c++;
		} else {
			fwrite(c, 1, length, out);
			c += length;
		}
	}
	fputc('"', out);
}

int json_number_text(char *buf, size_t size, double value, enum json_number_style style)
{
	if (!isfinite(value))
		return snprintf(buf, size, "null");
	if (style == JSON_SHORTEST && value == 0 && signbit(value))
		/* "-0" would read back as the integer 0: the sign needs a fraction. */
		return snprintf(buf, size, "-0.0");
	if (style == JSON_17G)
		return qkv_format_17g(buf, size, value);
	return qkv_format_exact(buf, size, value);
}

void json_write_number(FILE *out, double value, enum json_number_style style)
{
	char number[40];
	int length = json_number_text(number, sizeof number, value, style);

	fwrite(number, 1, (size_t)length, out);
}
