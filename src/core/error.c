/* error.c — words for the core's return codes. Never prints. */
#include "qkv/error.h"

const char *qkv_error_string(int code)
{
	switch (code) {
	case QKV_OK:
		return "no error";
	case QKV_ENOMEM:
		return "out of memory";
	case QKV_EINVAL:
		return "value out of range";
	case QKV_ESHAPE:
		return "matrix shapes do not fit together";
	case QKV_ELIMIT:
		return "size above the limit";
	default:
		return "unknown error";
	}
}
