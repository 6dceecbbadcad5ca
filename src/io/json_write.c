/* json_write.c — JSON strings and numbers for the printer and the saver. */
#include <math.h>

#include "io/json_write.h"
#include "qkv/format.h"

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

void json_write_number(FILE *out, double value, enum json_number_style style)
{
	char number[40];

	if (!isfinite(value)) {
		fputs("null", out);
		return;
	}
	if (style == JSON_SHORTEST && value == 0 && signbit(value)) {
		/* "-0" would read back as the integer 0: the sign needs a fraction. */
		fputs("-0.0", out);
		return;
	}
	if (style == JSON_17G)
		qkv_format_17g(number, sizeof number, value);
	else
		qkv_format_exact(number, sizeof number, value);
	fputs(number, out);
}
