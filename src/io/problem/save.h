/* save.h — writing problems as JSON that reads back to exactly the same doubles.
 * Saving is atomic: a temporary file in the same folder, flushed to disk, then
 * renamed over the target, keeping the target's mode; a failed save leaves the
 * original untouched. Through a link, the file the link leads to is replaced (the
 * link stays); a link another user made in a sticky folder anyone may write to
 * (such as /tmp) is refused, as the kernel refuses it to a shell's `>` under
 * fs.protected_symlinks. A terminal, a pipe or a device (/dev/stdout) is written
 * straight, as `>` writes it. */
#ifndef QKV_IO_SAVE_H
#define QKV_IO_SAVE_H

#include <stddef.h>

#include "qkv/problem.h"

/* Writes p to path. Returns 0, or -1 with one line in err ("PATH: why"). */
int save_file(const char *path, const struct qkv_problem *p, char *err, size_t err_size);
/* Writes `length` bytes to path the same way (a figure, a report). 0, or -1 with
 * one line in err. */
int save_bytes(const char *path, const char *bytes, size_t length, char *err, size_t err_size);
/* The JSON text of p (malloc'd, caller frees), or NULL when out of memory. A seed
 * must be at most QKV_MAX_SEED; save_file refuses a problem whose seed is not. */
char *save_string(const struct qkv_problem *p);
/* The same with every number as %.17g writes it (it reads back exactly too, at one
 * printf a number instead of up to three and two strtod): for a copy that must be
 * written fast, as a recovery copy when a signal ends qkv. */
char *save_string_fast(const struct qkv_problem *p);

/* Writes all of text to fd, retrying short and interrupted writes; 0 or an
 * errno value. */
int save_write_all(int fd, const char *text, size_t length);

#endif
